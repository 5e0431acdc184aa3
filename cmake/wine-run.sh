#!/usr/bin/env bash
# wine-run.sh PROGRAM.exe [ARGS...] - how the MinGW-w64 build runs its programs (the
# CMAKE_CROSSCOMPILING_EMULATOR of cmake/toolchain-mingw64.cmake): under wine64, in the prefix
# $WINEPREFIX (the build tree's), quiet (WINEDEBUG=-all), with Mono and Gecko off (their installers
# wait for a display), and without winemenubuilder, which would write menus and MIME types into
# $HOME (the tests set HOME=/nonexistent for git; as root Wine would create it).
#
# Windows has no /proc/cpuinfo: the kernels tests/test_kernels.c must find are read here from the
# host's (Wine runs the code on this CPU), independently of the library's CPUID probe, and handed on
# as SHA1KIT_EXPECT_KERNELS unless the caller set it.
set -euo pipefail
: "${WINEPREFIX:?wine-run.sh: WINEPREFIX must be set}"
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=;winemenubuilder.exe=d'
# Read with bash alone (no grep, cut or awk): the comparison scripts run the programs thousands of
# times, and each process started costs up to 12 ms of CPU on some VMs.
if [ -z "${SHA1KIT_EXPECT_KERNELS:-}" ] && [ -r /proc/cpuinfo ]; then
	flags='' vendor='' family='' model=''
	while IFS=: read -r key value; do
		key=${key%"${key##*[![:space:]]}"} # the key without its trailing blanks
		value=${value# }
		case $key in
		flags) flags=" $value " ;;
		vendor_id) vendor=$value ;;
		"cpu family") family=$value ;;
		model) model=$value ;;
		esac
		if [ -n "$flags" ] && [ -n "$vendor" ] && [ -n "$family" ] && [ -n "$model" ]; then
			break # the first processor's lines are enough
		fi
	done </proc/cpuinfo
	has() { [[ "$flags" == *" $1 "* ]]; }
	list=()
	if has sha_ni; then list+=(shani); fi
	if has avx2 && has bmi1 && has bmi2; then list+=(avx2); fi
	if has ssse3; then list+=(ssse3); fi
	if has avx512f && has avx512bw; then list+=(avx512f); fi
	join_kernels() {
		local IFS=,
		SHA1KIT_EXPECT_KERNELS="${list[*]}"
	}
	join_kernels
	# an empty list would read as "unset": portable alone is named as such
	export SHA1KIT_EXPECT_KERNELS=${SHA1KIT_EXPECT_KERNELS:-portable}
	# the CPU, for the kernel preferences by vendor and family (src/dispatch.c)
	export SHA1KIT_EXPECT_CPU="$vendor $family $model"
fi
exec "${SHA1KIT_WINE:-wine}" "$@"
