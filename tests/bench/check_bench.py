#!/usr/bin/env python3
"""check_bench.py - run `sha1kit bench` in quick mode and check its outputs (not its numbers).

Usage: check_bench.py SHA1KIT_BINARY SCHEMA_JSON

Checks:
  1. `--quick --json`: valid against bench/schema.json (jsonschema, Debian package python3-jsonschema),
     and consistent: every kernel the machine header lists as supported is measured in its flavour
     (fast and dc), no unsupported kernel is, the default kernels are marked, the peers in the header
     are measured, there is exactly one result per implementation, size and alignment, the sizes are
     the quick defaults, the statistics are ordered and the baseline's ratio is 1; a default kernel
     more than 3% slower than another of its flavour and shape (median) carries default_not_fastest
     naming the fastest, and no other result does.
  2. `--json` with --sizes/--alignment/--only/--batch/--reps: the sizes, alignments and batch width are
     the requested ones.
  3. `--csv` and `--markdown` with the same settings: one CSV row per result; a Markdown table row
     per implementation.
  4. `--plot` (when gnuplot is installed): an SVG file is written, through a temporary file that is
     renamed (no temporary file left, mode 0666 less the umask).
  5. An invalid --sizes is a usage error (exit status 1, nothing on stdout); --help fits 80 columns.
  6. `--plot` safety, before anything is measured: a file name with a control character (gnuplot
     command injection through a newline) or in a missing directory is refused in one line; a name
     starting with '|' is a file, not a pipe; a failing gnuplot (a fake one on PATH) leaves the
     target alone and is reported in one line with its exit status.
  7. `--sizes`: empty elements and duplicates are usage errors; the help documents K, M and G.
  8. Every error message of bench starts with "sha1kit: bench: ".
  9. Every option in --help is accepted; --misaligned, --seed, --baseline, --list and
     --openssl-no-shani (with OpenSSL) do what they say.
"""
import csv
import io
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("check_bench: the Python module jsonschema is missing (Debian package python3-jsonschema)")

QUICK_SIZES = [64, 1024, 16384]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def run(binary, *args, expect=0):
    p = subprocess.run([binary, "bench", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != expect:
        sys.exit(f"check_bench: `sha1kit bench {' '.join(args)}` exited {p.returncode}, expected {expect}\n"
                 f"{p.stderr.decode(errors='replace')}")
    return p.stdout.decode()


def run_raw(binary, *args, cwd=None, env=None):
    """(exit status, stdout, stderr) of `sha1kit bench ARGS`."""
    p = subprocess.run([binary, "bench", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       cwd=cwd, env=env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


PREFIX = "sha1kit: bench: "
TRY = "Try 'sha1kit bench --help' for more information."
TINY = ["--sizes=64", "--only=portable", "--reps=1", "--sample-ms=1", "--warmup=0"]


def check_error(binary, args, what, cwd=None, env=None, usage=None, want=None):
    """`args` fail with exit status 1 before measuring (nothing on stdout), with a one-line
    "sha1kit: bench: " message (plus the "Try" line of a usage error). Returns the message."""
    rc, out, err = run_raw(binary, *args, cwd=cwd, env=env)
    lines = err.splitlines()
    check(rc == 1, f"{what}: exit status {rc}, expected 1")
    check(out == "", f"{what}: wrote to stdout (measured before failing?): {out[:80]!r}")
    msgs = [line for line in lines if line != TRY]
    check(len(msgs) == 1, f"{what}: {len(msgs)} message lines, expected 1: {err!r}")
    check(all(line.startswith(PREFIX) for line in msgs), f"{what}: message without '{PREFIX}': {err!r}")
    if usage is not None:
        check((TRY in lines) == usage, f"{what}: 'Try ... --help' line {'missing' if usage else 'unexpected'}")
    if want is not None:
        check(want in err, f"{what}: message lacks {want!r}: {err!r}")
    return err


def fake_gnuplot(d, body):
    """A directory holding an executable `gnuplot` shell script with `body`, for PATH."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "gnuplot"), "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(os.path.join(d, "gnuplot"), 0o755)
    return dict(os.environ, PATH=d + os.pathsep + os.environ.get("PATH", ""))


def check_plot(binary, real_gnuplot):
    """6. --plot: file names, directories, gnuplot failures; 4. the temporary file and its mode."""
    mask = os.umask(0)
    os.umask(mask)
    with tempfile.TemporaryDirectory() as d:
        # A harmless gnuplot when the real one is missing: the checks come before it runs.
        env = None if real_gnuplot else fake_gnuplot(os.path.join(d, "fake-ok"), "cat >/dev/null\n")
        work = os.path.join(d, "work")
        os.mkdir(work)
        for ctl in ("\n", "\r", "\t", "\x1b", "\x7f"):
            name = f"x.svg{ctl}system(\"touch PWNED\")"
            check_error(binary, ["--quick", "--plot", name], f"--plot name with {ctl!r}", cwd=work, env=env,
                        usage=False, want="control character")
        check_error(binary, ["--quick", "--plot", os.path.join(d, "missing", "x.svg")], "--plot missing dir",
                    env=env, usage=False, want="No such file or directory")
        check_error(binary, ["--quick", "--plot", d], "--plot a directory", env=env, usage=False)
        check_error(binary, ["--quick", "--plot", ""], "--plot ''", env=env, usage=False)
        if os.geteuid() != 0:
            ro = os.path.join(d, "ro")
            os.mkdir(ro, 0o555)
            check_error(binary, ["--quick", "--plot", os.path.join(ro, "x.svg")], "--plot read-only dir",
                        env=env, usage=False, want="Permission denied")
        check(not os.path.exists(os.path.join(work, "PWNED")), "--plot: a gnuplot command ran")
        check(os.listdir(work) == [], f"--plot: refused names left files: {os.listdir(work)}")

        # A gnuplot that writes half a chart to its output, then fails: the target is untouched.
        bad = fake_gnuplot(os.path.join(d, "fake-bad"),
                           "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" | head -1)\n"
                           "printf '<svg partial' > \"$out\"\n"
                           "printf 'gnuplot> set output\\n   ^\\n   line 9: cannot open file\\n' >&2\n"
                           "i=0; while [ $i -lt 50 ]; do echo noise $i; i=$((i+1)); done >&2\n"
                           "exit 3\n")
        target = os.path.join(work, "keep.svg")
        with open(target, "w") as f:
            f.write("old")
        rc, out, err = run_raw(binary, *TINY, "--plot", target, env=bad)
        check(rc == 1, f"--plot, gnuplot fails: exit status {rc}")
        msgs = err.splitlines()
        check(len(msgs) == 1 and msgs[0].startswith(PREFIX) and "exit status 3" in msgs[0]
              and "cannot open file" in msgs[0],
              f"--plot, gnuplot fails: not one line with the exit status: {err!r}")
        with open(target) as f:
            check(f.read() == "old", "--plot, gnuplot fails: the target was changed")
        check(sorted(os.listdir(work)) == ["keep.svg"], f"--plot, gnuplot fails: left {os.listdir(work)}")
        os.unlink(target)

        if not real_gnuplot:
            return
        # '|' starts a pipe in gnuplot's "set output": here it must be a file name like any other.
        rc, out, err = run_raw(binary, *TINY, "--plot", "|touch PWNED", cwd=work)
        check(rc == 0, f"--plot '|touch PWNED': exit status {rc}: {err!r}")
        check(not os.path.exists(os.path.join(work, "PWNED")), "--plot '|touch PWNED' ran a command")
        check(os.listdir(work) == ["|touch PWNED"], f"--plot '|touch PWNED': files {os.listdir(work)}")
        # Unordered sizes, a quote in the name, an existing file replaced; mode from the umask.
        svg = os.path.join(work, "it's.svg")
        with open(svg, "w") as f:
            f.write("old")
        rc, out, err = run_raw(binary, "--sizes=4K,64,1K", *TINY[1:], "--plot", svg)
        check(rc == 0, f"--plot it's.svg: exit status {rc}: {err!r}")
        with open(svg, encoding="utf-8", errors="replace") as f:
            check(f.read().rstrip().endswith("</svg>"), "--plot it's.svg: not a complete SVG")
        check(stat.S_IMODE(os.stat(svg).st_mode) == 0o666 & ~mask, "--plot: mode is not 0666 less the umask")
        check(sorted(os.listdir(work)) == ["it's.svg", "|touch PWNED"], f"--plot: left {os.listdir(work)}")


def check_sizes_and_prefix(binary, have_plot):
    """7. --sizes; 8. the prefix of every error message."""
    for bad in ("1K,,2K", ",64", "64,", ","):
        check_error(binary, [f"--sizes={bad}", "--list"], f"--sizes={bad}", usage=True, want="empty element")
    for dup in ("64,64", "1K,1024", "1M,4K,1024K"):
        check_error(binary, [f"--sizes={dup}", "--list"], f"--sizes={dup}", usage=True, want="duplicate size")
    for bad in ("2G", "1T", "12X", "-1", "0x40", "1KK"):
        check_error(binary, [f"--sizes={bad}", "--list"], f"--sizes={bad}", usage=True, want="K, M or G")
    rc, _, err = run_raw(binary, "--sizes=1G,1GiB", "--list")
    check(rc == 1 and "duplicate size" in err, "--sizes=1G,1GiB: G is not accepted")
    rc, _, err = run_raw(binary, "--sizes=0,1B,1K,1KiB1,1M,1G", "--list")
    check(rc == 1 and "'1KiB1'" in err, f"--sizes: bad element not named: {err!r}")
    check(run(binary, "--sizes=0,1B,2K,3KiB,1M,1G", "--list") != "", "--sizes with K, M, G refused")
    help_text = " ".join(run(binary, "--help").split())
    check("K, M or G" in help_text, "--help: --sizes does not document the suffixes K, M and G")

    errors = [["--foo"], ["--quick=1"], ["--reps"], ["--s=1"], ["--reps=0"], ["--reps=x"], ["--sample-ms=0"],
              ["--sample-ms=1,5"], ["--warmup=-1"], ["--alignment=x"], ["--seed=x"], ["--batch=99999"],
              ["--baseline=nope"], ["--only=zzz"], ["--json", "--csv"], ["extra"], ["--sizes=12X"]]
    for args in errors:
        check_error(binary, args, f"bench {' '.join(args)}", usage=True)
    if have_plot:
        # a directory that surely does not exist (a shared machine may have a /nonexistent)
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "missing", "x.svg")
            check_error(binary, [f"--plot={missing}"], "--plot=MISSING_DIR/x.svg", usage=False)
            check(not os.path.exists(os.path.dirname(missing)), "--plot into a missing directory created it")


def check_options(binary, doc):
    """9. Each option of --help is accepted, and the ones not checked elsewhere work."""
    have_openssl = any(p["library"] == "openssl" for p in doc["machine"]["peers"])
    values = {"sizes": "64,1K", "reps": "1", "sample-ms": "0.5", "warmup": "0", "alignment": "both", "seed": "7",
              "only": "portable", "baseline": "sha1kit-fast-portable", "batch": "2", "plot": "x.svg",
              "git": "x.pack", "git-repo": ".", "git-binary": "git", "git-reps": "2", "note": "a note",
              "git-loose": ".", "git-workloads": "fsck", "git-object-format": "sha256"}
    opts = re.findall(r"^\s+(--[a-z-]+)(=\S+)?", run(binary, "--help"), re.M)
    check(len(opts) >= 19, f"--help: only {len(opts)} options found")
    with tempfile.TemporaryDirectory() as d:
        for name, arg in opts:
            args = [f"{name}={values[name[2:]]}"] if arg else [name]
            if name not in ("--help", "--version", "--list"):
                args.append("--list")
            rc, out, err = run_raw(binary, *args, cwd=d)
            ok = rc == 0 or (name == "--plot" and not shutil.which("gnuplot") and "needs gnuplot" in err) \
                or (name == "--openssl-no-shani" and not have_openssl and "without OpenSSL" in err)
            check(ok, f"--help lists {name}, but `bench {' '.join(args)}` fails: {err.strip()!r}")
    listed = run(binary, "--list")
    for i in doc["implementations"]:
        check(re.search(r"^" + re.escape(i["id"]) + r"\s", listed, re.M), f"--list lacks {i['id']}")
    got = json.loads(run(binary, *TINY, "--misaligned", "--seed=7", "--baseline=sha1kit-fast-portable", "--json"))
    s = got["settings"]
    check(s["misalignments"] == [1], "--misaligned: not only misaligned buffers")
    check(s["seed"] == "0x0000000000000007", f"--seed=7: settings.seed is {s['seed']}")
    check(s["baseline"] == "sha1kit-fast-portable", f"--baseline: settings.baseline is {s['baseline']}")
    base = [r for r in got["results"] if r["implementation"] == "sha1kit-fast-portable"]
    check(base and all(math.isclose(r["ratio_to_baseline"], 1.0) for r in base), "--baseline: ratio is not 1")
    check(s["messages"] == "distinct", f"default: settings.messages is {s.get('messages')}")
    got = json.loads(run(binary, *TINY, "--fixed-message", "--json"))
    check(got["settings"]["messages"] == "fixed", f"--fixed-message: settings.messages is {got['settings']}")
    check(all(r["distinct_messages"] == 1 for r in got["results"]), "--fixed-message: more than one message")
    if have_openssl:
        got = json.loads(run(binary, *TINY, "--openssl-no-shani", "--json"))
        check(got["machine"]["openssl_ia32cap"] == ":~0x20000000",
              f"--openssl-no-shani: OPENSSL_ia32cap is {got['machine']['openssl_ia32cap']}")


def validate(doc, schema, what):
    v = jsonschema.Draft202012Validator(schema)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:10]:
        failures.append(f"{what}: schema: {'/'.join(map(str, e.path))}: {e.message}")
    return not errors


def check_consistency(doc, what, sizes, misalignments, complete):
    m, s = doc["machine"], doc["settings"]
    impls = {i["id"]: i for i in doc["implementations"]}
    check(len(impls) == len(doc["implementations"]), f"{what}: duplicate implementation ids")
    check(s["sizes"] == sizes, f"{what}: settings.sizes {s['sizes']} != {sizes}")
    check(s["misalignments"] == misalignments, f"{what}: settings.misalignments {s['misalignments']}")

    # Every supported kernel, in its flavour; no unsupported one.
    for flavour, key, default in (("fast", "fast_kernels", m["kernel"]), ("dc", "dc_kernels", m["dc_kernel"])):
        measured = {i["kernel"]: i for i in impls.values()
                    if i["library"] == "sha1kit" and i["flavour"] == flavour and i["shape"] == "single"
                    and i["id"] != "sha1kit-dc-oneshot"}
        supported = [k["name"] for k in m[key] if k["supported"]]
        check(default in supported, f"{what}: default {flavour} kernel {default} not listed as supported")
        for k in m[key]:
            if not k["supported"]:
                check(k["name"] not in measured, f"{what}: unsupported {flavour} kernel {k['name']} measured")
            elif complete:
                check(k["name"] in measured, f"{what}: supported {flavour} kernel {k['name']} not measured")
        for name, i in measured.items():
            check(i["default"] == (name == default), f"{what}: {i['id']}: wrong 'default' mark")
        if flavour == "dc" and complete:
            # sha1kit_dc() one-shot: one row, on the kernel the library chooses, not marked (the
            # mark is the init/update/final row's)
            one = impls.get("sha1kit-dc-oneshot")
            check(one is not None and one["kernel"] == default and not one["default"],
                  f"{what}: no one-shot SHA-1DC row on the default kernel {default}")
    # Batch rows: one per batch kernel the CPU runs, the requested messages per call, and (in a
    # complete run) exactly one row per flavour marked as the batch API's own choice.
    batch = [i for i in impls.values() if i["shape"] == "batch"]
    for i in batch:
        check(i["messages_per_call"] == s["batch"], f"{what}: {i['id']}: messages_per_call != settings.batch")
    for flavour in ("fast", "dc"):
        rows = [i for i in batch if i["flavour"] == flavour]
        kernels = [i["kernel"] for i in rows]
        check(len(set(kernels)) == len(kernels), f"{what}: {flavour} batch kernel measured twice: {kernels}")
        if complete:
            check(bool(rows) == (s["batch"] > 0), f"{what}: batch={s['batch']} but {flavour} batch rows: {kernels}")
            if rows:
                check(sum(i["default"] for i in rows) == 1, f"{what}: {flavour} batch rows: not one default")
    if complete:
        libs = {i["library"] for i in impls.values()}
        for p in m["peers"]:
            if p["library"] == "ipsec-mb" and s["batch"] == 0:
                continue  # a batch-only peer: no row without batch rows
            if "(unavailable: " in p["version"]:
                check(p["library"] not in libs, f"{what}: peer {p['library']} unavailable but measured")
                continue  # linked, but it cannot run on this machine (bench_peers.c): listed only
            check(p["library"] in libs, f"{what}: peer {p['library']} linked but not measured")
        if any(p["library"] == "openssl" for p in m["peers"]):
            check(s["baseline"] == "openssl-evp", f"{what}: OpenSSL linked but baseline is {s['baseline']}")
    if s["baseline"] is not None:
        check(s["baseline"] in impls, f"{what}: baseline {s['baseline']} is not an implementation")

    # One result per implementation x size x alignment, with sane statistics.
    seen = {}
    for r in doc["results"]:
        key = (r["implementation"], r["size"], r["misalignment"])
        check(key not in seen, f"{what}: duplicate result {key}")
        seen[key] = r
        check(r["implementation"] in impls, f"{what}: result for unknown implementation {key[0]}")
        # distinct random messages in turn: 1 MiB of them at a stride of the size rounded up to 64,
        # 1 to 4096 of them; --fixed-message: one
        stride = max(64, (r["size"] + 63) // 64 * 64)
        want = 1 if s.get("messages") == "fixed" else min(4096, max(1, (1 << 20) // stride))
        check(r.get("distinct_messages") == want,
              f"{what}: {key}: distinct_messages {r.get('distinct_messages')}, expected {want}")
        ns = r["ns_per_message"]
        check(ns["min"] <= ns["q1"] <= ns["median"] <= ns["q3"] <= ns["max"], f"{what}: {key}: unordered stats")
        check(len(r["samples_ns_per_message"]) == r["repetitions"] == s["repetitions"],
              f"{what}: {key}: sample count")
        check(min(r["samples_ns_per_message"]) == ns["min"], f"{what}: {key}: min is not the smallest sample")
        if r["size"] > 0 and ns["median"] > 0:
            check(math.isclose(r["gb_per_s"]["median"], r["size"] / ns["median"], rel_tol=1e-3),
                  f"{what}: {key}: GB/s does not match ns/message")
        if s["baseline"] is not None:
            check(r["ratio_to_baseline"] is not None, f"{what}: {key}: no ratio")
            if r["implementation"] == s["baseline"]:
                check(math.isclose(r["ratio_to_baseline"], 1.0, rel_tol=1e-6), f"{what}: {key}: baseline ratio != 1")
    # A default more than 3% slower than the fastest sha1kit row of its flavour and shape at a size
    # carries default_not_fastest naming that row; no other result does.
    for (name, z, a), r in seen.items():
        i = impls[name]
        flag = r.get("default_not_fastest")
        if i["library"] != "sha1kit" or not i["default"]:
            check(flag is None, f"{what}: {name}: default_not_fastest on a row that is not a default")
            continue
        # (the same kernel through another call, sha1kit-dc-oneshot, is not another kernel)
        group = [(seen[(j, z, a)]["ns_per_message"]["median"], j) for j, o in impls.items()
                 if o["library"] == "sha1kit" and o["flavour"] == i["flavour"] and o["shape"] == i["shape"]
                 and (j == name or o["kernel"] != i["kernel"]) and (j, z, a) in seen]
        best_ns, best = min(group)
        ratio = r["ns_per_message"]["median"] / best_ns if best_ns > 0 else 1.0
        if abs(ratio - 1.03) < 1e-4:
            continue  # at the threshold the rounded JSON medians cannot tell
        if ratio > 1.03:
            check(flag is not None and flag["fastest"] == best, f"{what}: {name} at {z}: default_not_fastest {flag}, fastest {best}")
            check(flag is None or math.isclose(flag["slower_by"], ratio - 1, rel_tol=1e-3, abs_tol=1e-4),
                  f"{what}: {name} at {z}: slower_by {flag and flag['slower_by']} != {ratio - 1}")
        else:
            check(flag is None, f"{what}: {name} at {z}: default_not_fastest {flag} though within 3%")
    expected = {(i, z, a) for i in impls for z in sizes for a in misalignments}
    missing, extra = sorted(expected - set(seen)), sorted(set(seen) - expected)
    check(not missing, f"{what}: no result for {missing[:5]}")
    check(not extra, f"{what}: unexpected results {extra[:5]}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, schema_file = sys.argv[1], sys.argv[2]
    with open(schema_file) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)

    # 1. The CI run.
    doc = doc_quick = json.loads(run(binary, "--quick", "--json"))

    # A full disk under the JSON: one line, "sha1kit: write error", and a failure. The reason is
    # added when the end of the output was still buffered, so that a last flush fails with it (a
    # document longer than the stdio buffer, as with the Rust peer's rows: util.c finish).
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([binary, "bench", *TINY, "--json"], stdout=full, stderr=subprocess.PIPE,
                               timeout=120)
        err = p.stderr.decode(errors="replace")
        check(p.returncode != 0 and err.splitlines() in (["sha1kit: write error"],
                                                         ["sha1kit: write error: No space left on device"]),
              f"--json > /dev/full: exit {p.returncode}, stderr {err!r}")
    if validate(doc, schema, "--quick --json"):
        check(doc["settings"]["quick"] is True, "--quick --json: settings.quick is not true")
        check_consistency(doc, "--quick --json", QUICK_SIZES, [0], complete=True)

    # A peer is not measured at sizes above its limit (ipsec-mb 1.3 refuses SHA-1 jobs of 65535
    # bytes or more): a note, no result there, its results at the other sizes.
    if any(i["library"] == "ipsec-mb" for i in doc_quick["implementations"]):
        rc, out, err = run_raw(binary, "--sizes=64,64K", "--only=ipsec", "--reps=1", "--sample-ms=1", "--warmup=0",
                               "--json")
        check(rc == 0, f"--sizes=64,64K --only=ipsec exited {rc}: {err}")
        check("ipsec-mb is not measured above 65534 bytes" in err, "--sizes=64,64K: no note about ipsec-mb's limit")
        if rc == 0:
            d = json.loads(out)
            validate(d, schema, "--sizes=64,64K --only=ipsec --json")
            got = sorted((x["implementation"], x["size"]) for x in d["results"])
            check(("ipsec-mb", 64) in got and ("ipsec-mb", 65536) not in got,
                  f"--sizes=64,64K: ipsec-mb results {got}")
        rc, out, err = run_raw(binary, "--sizes=64,64K", "--only=ipsec", "--reps=1", "--sample-ms=1", "--warmup=0",
                               "--markdown")
        check(rc == 0 and "| ipsec-mb |" in out and "— |" in out, "--markdown: no empty cell for ipsec-mb at 64 KiB")

    # --all-hashes: the SHA-1 and the SHA-256 rows, each baseline's ratio 1 at every size, the
    # SHA-256 rows' ratios to openssl-evp-sha256 (when OpenSSL is linked); refused with --sha256.
    doc = json.loads(run(binary, "--all-hashes", "--sizes=64", "--only=portable", "--reps=1", "--sample-ms=1",
                         "--warmup=0", "--batch=0", "--json"))
    if validate(doc, schema, "--all-hashes --json"):
        flavours = {i["flavour"] for i in doc["implementations"]}
        check({"fast", "dc", "sha256"} <= flavours, f"--all-hashes: flavours {sorted(flavours)}")
        s = doc["settings"]
        if s["baseline"] is not None:
            check(s.get("baseline_sha256") == "openssl-evp-sha256",
                  f"--all-hashes: settings.baseline_sha256 is {s.get('baseline_sha256')}")
            med = {r["implementation"]: r["ns_per_message"]["median"] for r in doc["results"]}
            for r in doc["results"]:
                if r["implementation"] in (s["baseline"], s["baseline_sha256"]):
                    check(math.isclose(r["ratio_to_baseline"], 1.0), f"--all-hashes: {r['implementation']} ratio")
                flav = next(i["flavour"] for i in doc["implementations"] if i["id"] == r["implementation"])
                base = s["baseline_sha256"] if flav == "sha256" else s["baseline"]
                check(math.isclose(r["ratio_to_baseline"], med[base] / med[r["implementation"]], rel_tol=1e-4),
                      f"--all-hashes: {r['implementation']}: ratio not to {base}")
    check(run_raw(binary, "--all-hashes", "--sha256", "--list")[0] == 1, "--all-hashes --sha256 accepted")

    # --sha256: the SHA-256 rows only (sha1kit's kernels, single-stream and batch, and OpenSSL's), the
    # baseline OpenSSL's SHA-256, one default among sha1kit's rows of each shape; the digest check of every row passed (exit status 0).
    doc = json.loads(run(binary, "--sha256", "--sizes=64,1K", "--reps=2", "--sample-ms=1", "--warmup=0", "--json"))
    if validate(doc, schema, "--sha256 --json"):
        check_consistency(doc, "--sha256 --json", [64, 1024], [0], complete=False)
        rows = doc["implementations"]
        check(rows and all(i["flavour"] == "sha256" for i in rows), "--sha256: a row that is not SHA-256")
        ids = {i["id"] for i in rows}
        check("sha1kit-sha256-portable" in ids, f"--sha256: no sha1kit-sha256-portable row: {sorted(ids)}")
        for shape in ("single", "batch"):
            check(sum(i["default"] for i in rows if i["library"] == "sha1kit" and i["shape"] == shape) == 1,
                  f"--sha256: not one default {shape} row")
        check(any(i["shape"] == "batch" and i["kernel"] == "single" for i in rows),
              f"--sha256: no sha1kit-sha256-batch-single row: {sorted(ids)}")
        if any(p["library"] == "openssl" for p in doc["machine"]["peers"]):
            check(doc["settings"]["baseline"] == "openssl-evp-sha256",
                  f"--sha256: baseline {doc['settings']['baseline']}")
    check(all(i["flavour"] != "sha256" for i in doc_quick["implementations"]), "--quick: a SHA-256 row")

    # 2-3. Requested sizes and alignments, in every output format.
    small = ["--sizes=0,100,4K", "--alignment=both", "--only=portable,batch", "--batch=3", "--reps=2",
             "--sample-ms=1", "--warmup=0"]
    doc = json.loads(run(binary, *small, "--json"))
    if validate(doc, schema, "--sizes --json"):
        check_consistency(doc, "--sizes --json", [0, 100, 4096], [0, 1], complete=False)
        check(doc["settings"]["only"] == "portable,batch", "--only not recorded in settings")
        check(any(i["shape"] == "batch" for i in doc["implementations"]), "--batch=3: no batch row")
        n_impls = len(doc["implementations"])
        rows = list(csv.DictReader(io.StringIO(run(binary, *small, "--csv"))))
        check(len(rows) == 3 * 2 * n_impls, f"--csv: {len(rows)} rows, expected {3 * 2 * n_impls}")
        check({int(r["size"]) for r in rows} == {0, 100, 4096}, "--csv: sizes")
        check(all(float(r["ns_median"]) >= 0 for r in rows), "--csv: ns_median")
        md = run(binary, *small, "--markdown")
        check("| implementation | 0 B | 100 B | 4 KiB |" in md, "--markdown: no table header for the sizes")
        for i in doc["implementations"]:
            rows = re.findall(r"^\| " + re.escape(i["id"]) + r"( \\\*)? \|", md, re.M)
            check(len(rows) == 2, f"--markdown: {i['id']} not once in each of the 2 tables")

    # 4. The chart.
    if shutil.which("gnuplot"):
        with tempfile.TemporaryDirectory() as d:
            svg = os.path.join(d, "bench.svg")
            run(binary, "--sizes=64,1K", "--only=portable", "--reps=1", "--sample-ms=1", "--plot", svg)
            with open(svg, encoding="utf-8", errors="replace") as f:
                check("<svg" in f.read(), "--plot: the file is not an SVG")
            check(os.listdir(d) == ["bench.svg"], f"--plot: left files {os.listdir(d)}")
    else:
        print("check_bench: gnuplot not installed: --plot checked with a fake gnuplot only")
    check_plot(binary, shutil.which("gnuplot") is not None)

    # 5. Usage error; the help fits 80 columns.
    check(run(binary, "--sizes=12X", expect=1) == "", "invalid --sizes wrote to stdout")
    long_lines = [line for line in run(binary, "--help").splitlines() if len(line) > 80]
    check(not long_lines, f"--help: lines over 80 columns: {long_lines[:3]}")

    # 7-9.
    check_sizes_and_prefix(binary, shutil.which("gnuplot") is not None)
    check_options(binary, doc_quick)

    for msg in failures:
        print("FAIL:", msg)
    if failures:
        sys.exit(1)
    print("check_bench: all checks passed")


if __name__ == "__main__":
    main()
