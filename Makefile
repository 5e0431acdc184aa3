# sha1kit - convenience wrapper over CMake. CMake is the build; this file only names the usual runs.
# Build trees live under build/ (build/release, build/check, build/sanitize, build/cross-*).
#
#   make                release build of the tool and libraries, no tests (build/release)
#   make check          the test suite: deps (as root) + generated files current + clang-format check
#                       + the native -Werror build and every ctest of it (every comparison with git
#                       and sha1sum; under 15 minutes on 2 cores that are also running another build)
#   make ci             what CI runs (.ci/run): make check's stages + x86 kernels under qemu (Nehalem,
#                       Haswell) + opt-out builds + ASan/UBSan + s390x (big-endian), i686 (32-bit) and
#                       aarch64 (ARMv8 SHA1) under qemu + Windows (MinGW-w64) under Wine + libFuzzer
#                       runs; the stages run CHECK_JOBS=2 at a time (a stage that leaves a core idle
#                       has another beside it), each into build/check-logs/STAGE.log, printed when it
#                       ends, with each stage's time and start at the end (make check runs the same way)
#   make test           native -Werror build + ctest (build/check)
#   make quick          the same build, and the tests that take a few seconds: ctest without the
#                       labels long and slow and without QUICK_SKIP (the tests of 6 s or more), test_dc
#                       at 1/TEST_SHARE (105 s with an up-to-date build on 2 idle cores; everything it
#                       leaves out runs in make test and make check)
#   make check-git-current
#                       the comparisons with git (sections cli_fsck_, cli_reftable_, git_, cli_pack_, cli_hash_object of
#                       build/check) against a current Git as the reference: scripts/git-current.sh
#                       builds Git 2.55 or later from Debian sid's source package once (a few minutes;
#                       cached in ~/.cache/sha1kit or SHA1KIT_CACHE) and SHA1KIT_REF_GIT names it to the
#                       tests (docs/git.md, "Git 2.55 against 2.39.5"). Not part of make check.
#   make emulate-x86    kernel, DC and SHA-256 tests of build/check under qemu-x86_64 -cpu Nehalem /
#                       Haswell (the six runs JOBS at a time)
#   make opt-outs       builds with each accelerated path left out (-DSHA1KIT_NO_<ISA>=ON) and with
#                       all of them left out (-DSHA1KIT_PORTABLE_ONLY=ON), + kernel/DC/SHA-256 tests
#                       (JOBS builds at a time, one compiler job each; logs in build/opt-NAME.log)
#   make cross-aarch64  cross build, unit tests under qemu-aarch64 -cpu max (ARMv8 SHA1 and SHA256);
#                       then without ARMv8 kernels
#   make fuzz           libFuzzer targets (clang, ASan+UBSan), FUZZ_SECONDS=10 each, FUZZ_JOBS=JOBS
#                       at a time; make fuzz-merge adds what they found to fuzz/corpus
#   make sanitize       ASan+UBSan build + ctest (SAN_CC=clang by default; SAN_CC=gcc works too)
#   make cross-s390x    cross build, unit tests under qemu-s390x (the hash library's and the Git
#                       layer's: big-endian)
#   make cross-i686     cross build, unit tests under qemu-i386 (both libraries: 32-bit)
#   make cross-mingw    Windows x64 build (MinGW-w64: libraries, DLLs, sha1kit.exe), its tests under
#                       Wine: kernel/DC/ABI unit tests, sum, hash-object and pack tests against the
#                       native sha1sum and git
#   make format-check   clang-format --dry-run --Werror on the C sources
#   make format         clang-format -i on the C sources
#   make generate       regenerate src/dc_tables.c and src/x86/ubc_simd.c (tools/gen_dc_tables.py)
#   make generated      check that they are current
#   make demo           deps for the tool (as root), release build, then `sha1kit sum` on the attack
#                       corpus and a few system files
#   make deps           scripts/install-deps.sh (installs as root, prints the apt-get line otherwise)
#   make results        the results site from bench/results/*.json: build/results/index.html
#                       (`sha1kit report`, release build)
#   make bench-result   measure this machine (release build): throughput of SHA-1 and SHA-256 (bench
#                       --all-hashes) and the Git workloads into
#                       bench/results/VENDOR-FAMILY-MODEL.json (GIT_PACK=, GIT_REPO=: default a pack
#                       of this clone's history and this clone; NOTE='shared VM'; RESULT=FILE), with
#                       the Rust sha1dc peer where cargo is (scripts/rust-sha1dc.sh builds it first)
#   make clean          remove the build trees (keeps build/sysroot and build/mingw-deps); distclean: all
#
# Tests labelled "slow" (the 4 GiB streaming test, ...) run only in the native pass, and there only
# when SHA1KIT_SLOW=1 or CI is set (SHA1KIT_SLOW=0 turns them off under CI too). They never run under
# the sanitizers or qemu. The long comparison scripts (tests/git, tests/pack, tests/cli) run as one
# ctest test per section (tests/testlib.sh, tests/sections.cmake: cli_fsck_flip_idx_2, ...), so that
# ctest -j runs them side by side; sections labelled "long" (tens of seconds) are left out by
# make quick. One script by hand: ctest --test-dir build/check -R cli_fsck_, or
# bash tests/git/test_fsck.sh [--section=NAME] build/check/programs/sha1kit/sha1kit testdata.
# Knobs: JOBS=N, CHECK_JOBS=N (stages of make check at a time, default 2), SAN_CC=gcc|clang,
# CMAKE_ARGS='-D...', TESTDATA=DIR (attack corpus + oracle data; default testdata/ of the repository,
# see testdata/SOURCES.md), TEST_SHARE=N (test_dc's random loops and bit flips in the passes other
# than the native one and in make quick: 1/N of the native count, default 8).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all

SRC := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
B := $(SRC)/build
CMAKE ?= cmake
CTEST ?= ctest
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SAN_CC ?= clang
CMAKE_ARGS ?=
# The default for a test without its own TIMEOUT (each test sets one: 3 times its time on a loaded
# 2-core machine, the sections of the comparison scripts 300 s).
CTEST_TIMEOUT ?= 300

# Test data: the attack corpus, the oracle data and the generator's inputs, all in the repository.
TESTDATA ?= $(SRC)/testdata

# Slow tests in the native pass: SHA1KIT_SLOW=1 forces on, SHA1KIT_SLOW=0 forces off, else on under CI.
_truthy = $(filter 1 y yes true on ON TRUE YES,$(1))
_falsy = $(filter 0 n no false off OFF FALSE NO,$(1))
RUN_SLOW := $(if $(call _truthy,$(SHA1KIT_SLOW)),1,$(if $(call _falsy,$(SHA1KIT_SLOW)),,$(if $(CI),1,)))
CTEST_COMMON := --output-on-failure --no-tests=error -j $(JOBS) --timeout $(CTEST_TIMEOUT)
NATIVE_CTEST_ARGS := $(CTEST_COMMON) $(if $(RUN_SLOW),,-LE slow)
NOSLOW_CTEST_ARGS := $(CTEST_COMMON) -LE slow
# The sanitizer and Wine passes leave out the tests labelled long (the byte-flip sweeps, the largest
# repositories: each comparison with git runs in the native pass); the fuzzers (make fuzz) read
# packs, idx files and loose objects under ASan/UBSan.
SAN_CTEST_ARGS := $(CTEST_COMMON) -LE 'slow|long'
# SAN_SKIP: left out of the sanitizer pass (since 2026-12-04, when make ci had grown past its 20
# minutes): the benchmark and the results site (programs/bench, not the libraries), the install tree
# built as Git builds it (compile and link), and sum's long comparison with GNU sha1sum (the other
# sum sections run there). The byte-flip sweeps, of which one part ran here until then, are left to
# the fuzzers (fuzz/: packs, idx files, loose objects, refs under ASan/UBSan) and to the fsck
# sections on damaged packs, which run here.
SAN_SKIP ?= '^(bench_quick|bench_git|report_site|compat_install|cli_sum_same)$$'

# The passes other than the native one (sanitizers, qemu, Wine, opt-outs) run test_dc's random loops
# and single-bit flips at 1/TEST_SHARE of the native count, every kernel and every recorded vector
# still (tests/test_dc.c, SHA1KIT_TEST_SHARE); the native pass runs them all.
TEST_SHARE ?= 8
SHARE_ENV := SHA1KIT_TEST_SHARE=$(TEST_SHARE)
# Under Wine the comparison scripts run one case in WINE_CASE_SHARE of each of their loops of cases
# (sk_share_case, tests/testlib.sh; each start of sha1kit.exe there costs about a third of a second):
# what the Windows pass adds is the Windows build's files, paths and output, not more cases.
# Under the sanitizers one in SAN_CASE_SHARE: each sanitized start costs 20-30 ms of CPU before
# main (ASan's allocator and shadow pages: about 900 page faults, most of it system time), and the
# processes of these loops were most of the sanitizer stage, the longest of make ci; the native pass
# compares every case, the fuzzers read packs, idx files, loose objects and refs under ASan/UBSan.
# One in 8 since 2026-12-06 (4 before), when CI had passed its 20 minutes again (1267 s, stop 50).
# The SHA-256 sections of test_fsck.sh run at twice the share of the pass (every other case natively).
WINE_CASE_SHARE ?= 8
SAN_CASE_SHARE ?= 8

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
export ASAN_OPTIONS ?= detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:abort_on_error=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1

# The builds other than the native one (sanitizers, qemu, Wine, opt-outs, fuzzers) keep line tables
# only (-g1: file and line in a sanitizer's or debugger's backtrace, no types or variables): their
# compiles were a quarter of their stages' CPU time, -g's debug information a quarter of that (the
# sanitizer build 114 -> 86 s of CPU on 2 cores, 2026-12-06). The native build keeps RelWithDebInfo's -g.
LEAN_DEBUG := "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"

# CMAKE_ARGS come last on each configure line, so they can override the defaults of each run.
CONFIGURE = $(CMAKE) -S $(SRC) -DSHA1KIT_TESTDATA=$(TESTDATA)

.PHONY: all release test quick check ci check-git-current sanitize cross-s390x cross-i686 cross-aarch64 cross-mingw emulate-x86 opt-outs \
	generated fuzz fuzz-merge sysroot-aarch64 format-check format generate demo deps results bench-result \
	corpus sysroot-s390x sysroot-i686 mingw-deps clean distclean help

all: release

# The tool and libraries only: no test packages needed (make test builds the tests).
release:
	$(CMAKE) -S $(SRC) -B $(B)/release -DCMAKE_BUILD_TYPE=Release -DSHA1KIT_BUILD_PROGRAMS=ON \
		-DSHA1KIT_BUILD_TESTS=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/release -j $(JOBS)

# Native pass: default compiler, warnings are errors.
test: corpus
	$(CONFIGURE) -B $(B)/check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/check -j $(JOBS)
	@echo "ctest (native)$(if $(RUN_SLOW), including slow tests, excluding slow tests: SHA1KIT_SLOW=1 to run them)"
	$(CTEST) --test-dir $(B)/check $(NATIVE_CTEST_ARGS)

# The Git comparisons against a current Git (issue #25): the same native build, the reference git
# built (once) by scripts/git-current.sh, and the comparison sections with SHA1KIT_REF_GIT set to it
# (tests/testlib.sh). GIT_CURRENT_TESTS: the ctest regular expression of the sections.
GIT_CURRENT_TESTS ?= cli_fsck_|cli_reftable_|cli_midxchain_|cli_refs_|git_|cli_pack_|cli_hash_object
check-git-current: corpus
	$(CONFIGURE) -B $(B)/check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/check -j $(JOBS)
	@ref=$$($(SRC)/scripts/git-current.sh); \
	echo "ctest (native) against $$("$$ref" version) ($$ref): $(GIT_CURRENT_TESTS)"; \
	SHA1KIT_REF_GIT=$$ref $(CTEST) --test-dir $(B)/check $(NATIVE_CTEST_ARGS) -R '$(GIT_CURRENT_TESTS)'

# Everyday work: the native build and the tests that take seconds: no label long or slow, none of
# QUICK_SKIP (the sections and tests of 6 s or more on 2 cores; each runs in make test and check),
# test_dc's random loops and bit flips at 1/TEST_SHARE (every kernel and vector).
QUICK_SKIP ?= ^(git_repo_discovery|git_repo_index_config_refnames|cli_fsck_wrong_types_1|cli_hash_object|$\
	git_fsck_object_trees|git_fsck_object_gitmodules|git_fsck_object_gitmodules_values|git_fsck_object_commits|$\
	git_loose_sound_1|cli_pack_valid|cli_pack_broken_1|report_browser|$\
	cli_sum_same|cli_fsck_graph_contents|cli_pack_fix_thin|cli_pack_idx_threads|cli_pack_rev)$$
quick: corpus
	$(CONFIGURE) -B $(B)/check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/check -j $(JOBS)
	$(SHARE_ENV) $(CTEST) --test-dir $(B)/check $(CTEST_COMMON) -LE 'slow|long' -E '$(QUICK_SKIP)'

sanitize: corpus
	$(CONFIGURE) -B $(B)/sanitize -DCMAKE_C_COMPILER=$(SAN_CC) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) \
		-DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=ON "-DCMAKE_C_FLAGS=$(SAN_FLAGS)" \
		"-DCMAKE_EXE_LINKER_FLAGS=$(SAN_FLAGS)" "-DCMAKE_SHARED_LINKER_FLAGS=$(SAN_FLAGS)" $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/sanitize -j $(JOBS)
	$(SHARE_ENV) SHA1KIT_CASE_SHARE=$(SAN_CASE_SHARE) $(CTEST) --test-dir $(B)/sanitize $(SAN_CTEST_ARGS) \
		-E $(SAN_SKIP)

# Cross passes: library + unit tests (the CLI tests compare with the host's sha1sum; not built here).
# s390x leaves out compat_install (the install tree linked as Git links it: 24 s of qemu; i686 and
# aarch64 run it).
cross-s390x: sysroot-s390x corpus
	$(CONFIGURE) -B $(B)/cross-s390x -DCMAKE_TOOLCHAIN_FILE=$(SRC)/cmake/toolchain-s390x.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=OFF \
		-DSHA1KIT_BUILD_GIT=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/cross-s390x -j $(JOBS)
	$(SHARE_ENV) $(CTEST) --test-dir $(B)/cross-s390x $(NOSLOW_CTEST_ARGS) -E '^compat_install$$'

cross-i686: sysroot-i686 corpus
	$(CONFIGURE) -B $(B)/cross-i686 -DCMAKE_TOOLCHAIN_FILE=$(SRC)/cmake/toolchain-i686.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=OFF \
		-DSHA1KIT_BUILD_GIT=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/cross-i686 -j $(JOBS)
	$(SHARE_ENV) $(CTEST) --test-dir $(B)/cross-i686 $(NOSLOW_CTEST_ARGS)

# aarch64: the ARMv8 SHA1 and SHA256 kernels under qemu-aarch64 -cpu max, then a build without them
# (portable; only the three tests it runs are built).
cross-aarch64: sysroot-aarch64 corpus
	$(CONFIGURE) -B $(B)/cross-aarch64 -DCMAKE_TOOLCHAIN_FILE=$(SRC)/cmake/toolchain-aarch64.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/cross-aarch64 -j $(JOBS)
	$(SHARE_ENV) $(CTEST) --test-dir $(B)/cross-aarch64 $(NOSLOW_CTEST_ARGS)
	$(CONFIGURE) -B $(B)/cross-aarch64-portable -DCMAKE_TOOLCHAIN_FILE=$(SRC)/cmake/toolchain-aarch64.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=OFF \
		-DSHA1KIT_NO_ARMV8=ON -DSHA1KIT_CROSS_EXPECT=portable $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/cross-aarch64-portable -j $(JOBS) --target test_kernels test_dc test_sha256
	$(SHARE_ENV) $(CTEST) --test-dir $(B)/cross-aarch64-portable $(NOSLOW_CTEST_ARGS) -R 'test_kernels|test_dc|test_sha256'

# Windows x64 (MinGW-w64, cmake/toolchain-mingw64.cmake): the libraries (static, DLLs with import
# libraries), sha1kit.exe, and the tests under Wine in a prefix inside the build tree (the ctest
# fixture wine_prefix makes it first). MINGW_TESTS: the tests that run there (see docs/git.md).
# The unit tests link the real cmocka and jansson: Debian's source packages, cross-built once by
# scripts/mingw-deps.sh into build/mingw-deps/ (kept by make clean, as the cross sysroots are).
# A test that fails runs once more (--repeat until-pass:2) and fails the stage only if it fails
# again: Wine now and then loses one of the thousand program starts of a test (a client whose
# connection to wineserver is reset, about once in 1,000 starts here); a real failure repeats.
# (cli_pack_* and cli_fsck_*: one test per section of the script; those that need POSIX are not
# registered there, tests/sections.cmake.)
MINGW_TESTS ?= '^(wine_prefix|wine_stop|test_win64_abi|test_sha1|test_dc|test_kernels|test_sha256|compat_api|compat_dll|compat_dll_exports|compat_install_win|test_graph|test_typeorder|test_objtab|test_wildmatch|cli_sum_win|cli_hash_object|cli_pack_[a-z0-9_]+|cli_fsck_[a-z0-9_]+|generated_tables_current)$$'
# MINGW_SKIP: sections left out there, whose subject is the object and repository logic (the
# contents of trees, tags, commit-graphs and multi-pack-indexes, collisions with stored objects,
# broken packs, .rev contents, config values, partial clones, shallow and damaged repositories,
# corrupt refs; in SHA-1 and SHA-256 repositories alike), the same C on every platform and run
# natively and under the sanitizers; the other pack and fsck sections (sound and damaged pack files,
# files that shrink or cannot be opened, output files, threads, progress, lost-found, alternates,
# pack order by mtime, usage) read and write the files Windows' own way.
MINGW_SKIP ?= '^cli_(pack_(strict_trees|strict_other|strict_sha256|collision|rev|config|broken_1)|fsck_(sha256_)?(graph_contents|midx_contents|partial|ref_corrupt|refs_index|reparse|special|shallow|graph_bad_pack|missing|bad_objects))$$'
cross-mingw: mingw-deps corpus
	$(CONFIGURE) -B $(B)/cross-mingw -DCMAKE_TOOLCHAIN_FILE=$(SRC)/cmake/toolchain-mingw64.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON -DSHA1KIT_BUILD_PROGRAMS=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/cross-mingw -j $(JOBS)
	$(SHARE_ENV) SHA1KIT_CASE_SHARE=$(WINE_CASE_SHARE) $(CTEST) --test-dir $(B)/cross-mingw $(SAN_CTEST_ARGS) --repeat until-pass:2 -R $(MINGW_TESTS) \
		-E $(MINGW_SKIP)

# x86 kernels this CPU may lack, under qemu-x86_64 (no SHA-NI in qemu): Nehalem has SSSE3 but no
# AVX2, Haswell has AVX2. Runs the kernel, DC and SHA-256 tests of the native build (make test
# first); SHA-256 falls back to portable there. Each run is one single-threaded qemu process: the
# six run JOBS at a time (the log of each is printed in full if it fails, its last line otherwise).
EMULATE_RUNS := Nehalem:ssse3:test_kernels Nehalem:ssse3:test_dc Nehalem:ssse3:test_sha256 \
	Haswell:avx2,ssse3:test_kernels Haswell:avx2,ssse3:test_dc Haswell:avx2,ssse3:test_sha256
emulate-x86:
	@if [ "$$(uname -m)" != x86_64 ]; then echo "emulate-x86: not an x86-64 host, nothing to do"; exit 0; fi; \
	printf '%s\n' $(EMULATE_RUNS) | xargs -P $(JOBS) -I{} bash -c 'spec=$$1; cpu=$${spec%%:*}; \
		t=$${spec##*:}; expect=$${spec#*:}; expect=$${expect%:*}; log=$(B)/check/emulate-$$cpu-$$t.log; \
		if SHA1KIT_TESTDATA=$(TESTDATA) SHA1KIT_EXPECT_KERNELS=$$expect $(SHARE_ENV) \
			qemu-x86_64 -cpu $$cpu $(B)/check/tests/$$t >$$log 2>&1; then \
			echo "qemu-x86_64 -cpu $$cpu $$t (expect $$expect): $$(tail -n 1 $$log)"; \
		else echo "qemu-x86_64 -cpu $$cpu $$t (expect $$expect) FAILED:"; cat $$log; exit 1; fi' emulate {}

# The compile-time opt-outs: a build with each accelerated path left out, and one with all of them
# left out, must pass the kernel, DC and SHA-256 tests (which expect the kernels the build still
# has). Each builds only the static library and the four test programs. A configure runs on one
# core and the four tests are one process each: the builds run JOBS at a time, each with one
# compiler job, and each writes build/opt-NAME.log (printed in full if it fails, its summary
# otherwise). NAME+NAME: one build with all of them left out (since 2026-12-04: a build costs 20-30
# s of CI's CPU, and each is a fallback of the same dispatch that PORTABLE_ONLY takes to its end):
# AVX2 with SSSE3, SSE2 with AVX-512, SHA-NI alone (the CPUs without it). (AVX2 and SSE2 together
# leave the SHA-NI DC kernels without a UBC filter, and test_collides then finds no SHA-NI test.)
OPT_OUTS ?= PORTABLE_ONLY NO_SHANI NO_AVX2+NO_SSSE3 NO_SSE2+NO_AVX512
opt-outs: corpus
	printf '%s\n' $(OPT_OUTS) | xargs -P $(JOBS) -I{} bash -c 'o=$$1; log=$(B)/opt-$$o.log; \
		flags=$$(printf -- "-DSHA1KIT_%s=ON " $${o//+/ }); \
		if { $(CONFIGURE) -B $(B)/opt-$$o -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_WERROR=ON \
			$$flags -DSHA1KIT_BUILD_PROGRAMS=OFF -DSHA1KIT_BUILD_SHARED=OFF $(CMAKE_ARGS) && \
			$(CMAKE) --build $(B)/opt-$$o -j 1 --target test_sha1 test_dc test_kernels test_sha256 && \
			$(SHARE_ENV) $(CTEST) --test-dir $(B)/opt-$$o $(NOSLOW_CTEST_ARGS) -R "test_(sha1|dc|kernels|sha256)"; \
			} >$$log 2>&1; then \
			echo "== $$flags: $$(grep -E "tests passed|Total Test time" $$log | tr "\n" " ")"; \
		else echo "== $$flags FAILED:"; cat $$log; exit 1; fi' opt-outs {}

# libFuzzer targets (clang), each run for FUZZ_SECONDS from its corpus in fuzz/corpus/<name>; new
# inputs go to build/fuzz/new-<name>, the repository's corpus is only read. FUZZ_JOBS targets run at
# a time (default JOBS): each target gets its whole FUZZ_SECONDS of one core, the stage's wall time
# is that of ceil(targets / FUZZ_JOBS) runs (30 s for 5 targets on 2 cores, not 50).
# Each run first replays its whole corpus (about a second), then explores for the rest of the time.
# 10 s each (30 until 2026-12-04 and 15 until 2026-12-06, each time make ci had grown past its 20
# minutes; the first second replays the corpus): in 60-second runs the
# second half found little (coverage counters of dc and pack none, fsck_object 811 -> 822, refs
# 679 -> 686, loose 552 -> 616), and what the exploration finds is
# merged into fuzz/corpus (make fuzz-merge), so that every later run replays it in its first second
# instead of finding it again. For a longer campaign: make fuzz FUZZ_SECONDS=600.
FUZZ_SECONDS ?= 10
FUZZ_TARGETS ?= dc pack fsck_object refs loose
FUZZ_JOBS ?= $(JOBS)
fuzz: corpus
	$(CONFIGURE) -B $(B)/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LEAN_DEBUG) -DSHA1KIT_FUZZ=ON \
		-DSHA1KIT_BUILD_TESTS=OFF -DSHA1KIT_BUILD_PROGRAMS=OFF -DSHA1KIT_BUILD_SHARED=OFF \
		"-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" $(CMAKE_ARGS)
	$(CMAKE) --build $(B)/fuzz -j $(JOBS) --target $(addsuffix _fuzz,$(FUZZ_TARGETS))
	@echo "fuzzing $(FUZZ_TARGETS): $(FUZZ_SECONDS) s each, $(FUZZ_JOBS) at a time"
	printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -I{} bash -c 't=$$1; \
		mkdir -p $(B)/fuzz/new-$$t; \
		if SHA1KIT_TESTDATA=$(TESTDATA) $(B)/fuzz/fuzz/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			-print_final_stats=1 $(B)/fuzz/new-$$t $(SRC)/fuzz/corpus/$$t 2>$(B)/fuzz/$$t.log; then \
			grep -E "^(Done|stat::number_of_executed_units)" $(B)/fuzz/$$t.log | sed "s/^/$$t: /"; \
		else echo "fuzzing $$t FAILED:"; tail -n 40 $(B)/fuzz/$$t.log; exit 1; fi' fuzz {}

# What the last make fuzz found (build/fuzz/new-NAME) into fuzz/corpus/NAME: libFuzzer's -merge=1
# adds the inputs that reach code edges the corpus does not (-use_counters=0: edges, not how often
# each runs, which would keep four times as many files); the corpus's own files stay. Then add the
# new files to the repository.
fuzz-merge:
	for t in $(FUZZ_TARGETS); do \
		n=$$(ls $(SRC)/fuzz/corpus/$$t | wc -l); \
		SHA1KIT_TESTDATA=$(TESTDATA) $(B)/fuzz/fuzz/$${t}_fuzz -merge=1 -use_counters=0 -max_len=4096 \
			$(SRC)/fuzz/corpus/$$t \
			$(B)/fuzz/new-$$t 2>$(B)/fuzz/merge-$$t.log || { tail -n 20 $(B)/fuzz/merge-$$t.log; exit 1; }; \
		echo "fuzz/corpus/$$t: $$n -> $$(ls $(SRC)/fuzz/corpus/$$t | wc -l) inputs"; \
	done

sysroot-aarch64:
	$(SRC)/scripts/cross-sysroot.sh aarch64 $(B)/sysroot/aarch64-linux-gnu

sysroot-s390x:
	$(SRC)/scripts/cross-sysroot.sh s390x $(B)/sysroot/s390x-linux-gnu

sysroot-i686:
	$(SRC)/scripts/cross-sysroot.sh i686 $(B)/sysroot/i686-linux-gnu

mingw-deps:
	$(SRC)/scripts/mingw-deps.sh $(B)/mingw-deps/x86_64-w64-mingw32

# Every file the tests and the generator read must be there (a clone has them in testdata/).
TESTDATA_FILES := shattered-1.pdf shattered-2.pdf sha-mbles-1.bin sha-mbles-2.bin sha1_reducedsha_coll.bin \
	dc-vectors.txt ubc-vectors.txt dc-dvs.json ubc-conditions.json
corpus:
	@for f in $(TESTDATA_FILES); do \
		[ -e "$(TESTDATA)/$$f" ] || { echo "make: test data $(TESTDATA)/$$f is missing (TESTDATA=DIR)" >&2; exit 1; }; \
	done

format-check:
	$(SRC)/scripts/format.sh check

format:
	$(SRC)/scripts/format.sh fix

PYTHON ?= python3
generate:
	$(PYTHON) $(SRC)/tools/gen_dc_tables.py --testdata $(TESTDATA) --srcdir $(SRC)/src

# The generated files must be what the generator makes now (also a ctest in every pass).
generated:
	$(PYTHON) $(SRC)/tools/gen_dc_tables.py --testdata $(TESTDATA) --srcdir $(SRC)/src --check

deps:
	$(SRC)/scripts/install-deps.sh

# The results site: every machine in bench/results/ (one JSON file each, from bench-result).
results: release
	$(B)/release/programs/sha1kit/sha1kit report $(sort $(wildcard $(SRC)/bench/results/*.json)) -o $(B)/results
	@echo "make results: open $(B)/results/index.html"

# One machine's result file: the throughput rows and the Git workloads, in one JSON document.
# The file is named after the CPU (vendor, family, model of /proc/cpuinfo) unless RESULT is given.
GIT_PACK ?=
GIT_REPO ?= $(SRC)
NOTE ?=
RESULT ?=
bench-result:
	@if command -v cargo >/dev/null; then $(SRC)/scripts/rust-sha1dc.sh >/dev/null || \
		echo "make bench-result: the Rust sha1dc peer could not be built: measured without it" >&2; \
	else echo "make bench-result: no cargo: measured without the Rust sha1dc peer" >&2; fi
	$(MAKE) -C $(SRC) release
	@cpu=$$(awk -F': *' '/^vendor_id/ && !v {v=$$2} /^cpu family/ && !f {f=$$2} \
		/^model[[:space:]]*:/ && !m {m=$$2} /^CPU implementer/ && !i {i=$$2} /^CPU part/ && !p {p=$$2} \
		END {if (v != "") print v "-family" f "-model" m; else print "arm-" i "-" p}' /proc/cpuinfo | \
		tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n-' '-'); \
	out="$(or $(RESULT),$(SRC)/bench/results/$$cpu.json)"; \
	if [ -e "$$out" ]; then echo "make bench-result: $$out exists (RESULT=FILE for another name)" >&2; exit 1; fi; \
	pack="$(GIT_PACK)"; \
	if [ -z "$$pack" ]; then \
		mkdir -p $(B)/bench-result; pack=$(B)/bench-result/history.pack; \
		git -C $(SRC) rev-list --objects --all | git -C $(SRC) pack-objects --threads=1 -q --stdout >$$pack; \
	fi; \
	echo "make bench-result: measuring into $$out (a few minutes; keep the machine otherwise idle)"; \
	$(B)/release/programs/sha1kit/sha1kit bench --json --all-hashes --git="$$pack" --git-repo="$(GIT_REPO)" \
		$(if $(NOTE),--note="$(NOTE)") >"$$out.tmp" && mv "$$out.tmp" "$$out" || { rm -f "$$out.tmp"; exit 1; }; \
	echo "make bench-result: wrote $$out; check it with make results, then add it to the repository"

# The staged runs: make check runs CHECK_STAGES (the test suite: the native build and every test,
# after the seconds of format-check and generated) and make ci, what .ci/run calls, runs CI_STAGES
# (the same and every other build: sanitizers, qemu, Wine, opt-outs, fuzzers). Each stage is a make
# target check-stage-NAME; CHECK_JOBS of them run at a time (default 2), started in the order of the
# list as the ones before them finish, and after the stages they need (the rules below: deps before
# all, test before emulate-x86, each cross stage after its sysroot or mingw-deps). The order of
# CI_STAGES: the seconds of format-check and generated first (they fail early), the downloads of
# mingw-deps and the sysroots while test runs, then the longest stages first, so that the short ones
# fill the end. Most stages keep the two cores busy only part of the time (a configure, one qemu or
# Wine process at a time, downloads, the last round of fuzzers), so a second stage beside them fills
# the other core. Each stage writes build/check-logs/NAME.log, printed whole when it ends; at the
# end, each stage's time, when it began and the CPU time (user + system) of its processes, and the
# total. A failed stage: its log, the running ones finish, no new one starts.
CHECK_JOBS ?= 2
CHECK_LOGS := $(B)/check-logs
CHECK_STAGES := deps format-check generated test
CI_STAGES := deps format-check generated test mingw-deps sysroot-s390x sysroot-i686 sysroot-aarch64 sanitize \
	cross-mingw fuzz opt-outs emulate-x86 cross-aarch64 cross-s390x cross-i686
_check_after = $(addprefix check-stage-,$(filter $(1),$(CI_STAGES)))
$(addprefix check-stage-,$(filter-out deps,$(CI_STAGES))): $(call _check_after,deps)
check-stage-emulate-x86: $(call _check_after,test)
check-stage-cross-mingw: $(call _check_after,mingw-deps)
check-stage-cross-s390x: $(call _check_after,sysroot-s390x)
check-stage-cross-i686: $(call _check_after,sysroot-i686)
check-stage-cross-aarch64: $(call _check_after,sysroot-aarch64)
# A stage runs as it does alone (make STAGE): without the jobserver of the make that schedules them.
# Its CPU time is what bash's `times` says of the shell's children (the sub-make and everything it
# waited for), written to NAME.cpu first: in a pipe or $(...), `times` would run in a subshell.
CHECK_SUBFLAGS = $(filter-out -j% --jobserver-auth=% --jobserver-fds=%,$(MAKEFLAGS))
# $(call _run_stages,NAME,STAGES): the staged run of make NAME.
define _run_stages
	@rm -rf $(CHECK_LOGS); mkdir -p $(CHECK_LOGS); t0=$$(date +%s); \
	echo "make $(1): $(words $(2)) stages, $(CHECK_JOBS) at a time; logs in $(CHECK_LOGS)"; \
	if CHECK_T0=$$t0 CHECK_RUN=$(1) $(MAKE) --no-print-directory -C $(SRC) -j $(CHECK_JOBS) $(addprefix check-stage-,$(2)); \
	then rc=0; echo; echo "================ make $(1): all stages passed ================"; \
	else rc=1; echo; echo "================ make $(1) FAILED in: $$(cat $(CHECK_LOGS)/failed 2>/dev/null) ================"; fi; \
	for s in $(2); do [ ! -f $(CHECK_LOGS)/$$s.time ] || echo "  $$(cat $(CHECK_LOGS)/$$s.time)"; done; \
	echo "  total: $$(( $$(date +%s) - t0 ))s"; exit $$rc
endef
check:
	$(call _run_stages,check,$(CHECK_STAGES))

ci:
	$(call _run_stages,ci,$(CI_STAGES))

check-stage-%:
	@t=$$(date +%s); echo "make $${CHECK_RUN:-check}: $* starts at +$$((t - $${CHECK_T0:-$$t}))s"; \
	if MAKEFLAGS='$(CHECK_SUBFLAGS)' $(MAKE) --no-print-directory -C $(SRC) $* >$(CHECK_LOGS)/$*.log 2>&1 </dev/null; \
	then r=passed; else r=FAILED; fi; \
	times >$(CHECK_LOGS)/$*.cpu; \
	cpu=$$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($$i, a, /[ms]/); c += a[1] * 60 + a[2] } \
		printf "%.0f", c }' $(CHECK_LOGS)/$*.cpu); \
	d=$$(( $$(date +%s) - t )); \
	echo "$*: $${d}s (from +$$((t - $${CHECK_T0:-$$t}))s), CPU $${cpu}s" >$(CHECK_LOGS)/$*.time; \
	flock $(CHECK_LOGS)/.print bash -c 'echo; echo "================ make $$5: $$1 $$2 in $$3 s ================"; \
		cat "$$4"' stage $* $$r $$d $(CHECK_LOGS)/$*.log "$${CHECK_RUN:-check}"; \
	[ $$r = passed ] || { echo $* >>$(CHECK_LOGS)/failed; exit 1; }

# First command on a fresh machine: installs (as root) or names (otherwise) the few packages it needs.
demo: corpus
	$(SRC)/scripts/install-deps.sh --demo
	$(MAKE) --no-print-directory -C $(SRC) release
	@bin=$(B)/release/programs/sha1kit/sha1kit; \
	files=(); \
	for f in shattered-1.pdf shattered-2.pdf sha-mbles-1.bin sha-mbles-2.bin sha1_reducedsha_coll.bin; do \
		[ -e "$(TESTDATA)/$$f" ] && files+=("$(TESTDATA)/$$f"); \
	done; \
	for f in /bin/sh /etc/os-release; do [ -e "$$f" ] && files+=("$$f"); done; \
	echo "\$$ sha1kit sum $${files[*]}"; \
	rc=0; "$$bin" sum "$${files[@]}" || rc=$$?; \
	echo "(sha1kit exited with status $$rc)"; \
	if command -v sha1cdsum >/dev/null; then \
		echo; echo "for comparison, the reference (\$$ sha1cdsum ...):"; \
		sha1cdsum "$${files[@]}" || echo "(sha1cdsum exited with status $$?)"; \
	fi

clean:
	rm -rf $(B)/release $(B)/check $(B)/sanitize $(B)/cross-s390x $(B)/cross-i686 $(B)/cross-aarch64 \
		$(B)/cross-aarch64-portable $(B)/cross-mingw $(B)/opt-* $(B)/fuzz $(B)/check-logs

distclean:
	rm -rf $(B)

help:
	@sed -n '1,/^$$/p' $(SRC)/Makefile | sed 's/^# \{0,1\}//'
