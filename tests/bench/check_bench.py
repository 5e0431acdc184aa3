#!/usr/bin/env python3
"""check_bench.py - run `sha1kit bench` in quick mode and check its outputs (not its numbers).

Usage: check_bench.py SHA1KIT_BINARY SCHEMA_JSON

Checks:
  1. `--quick --json`: valid against bench/schema.json (jsonschema, Debian package python3-jsonschema),
     and consistent: every kernel the machine header lists as supported is measured in its flavour
     (fast and dc), no unsupported kernel is, the default kernels are marked, the peers in the header
     are measured, there is exactly one result per implementation, size and alignment, the sizes are
     the quick defaults, the statistics are ordered and the baseline's ratio is 1.
  2. `--json` with --sizes/--alignment/--only/--batch/--reps: the sizes, alignments and batch width are
     the requested ones.
  3. `--csv` and `--markdown` with the same settings: one CSV row per result; a Markdown table row
     per implementation.
  4. `--plot` (when gnuplot is installed): an SVG file is written.
  5. An invalid --sizes is a usage error (exit status 1, nothing on stdout); --help fits 80 columns.
"""
import csv
import io
import json
import math
import os
import re
import shutil
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
                    if i["library"] == "sha1kit" and i["flavour"] == flavour and i["shape"] == "single"}
        supported = [k["name"] for k in m[key] if k["supported"]]
        check(default in supported, f"{what}: default {flavour} kernel {default} not listed as supported")
        for k in m[key]:
            if not k["supported"]:
                check(k["name"] not in measured, f"{what}: unsupported {flavour} kernel {k['name']} measured")
            elif complete:
                check(k["name"] in measured, f"{what}: supported {flavour} kernel {k['name']} not measured")
        for name, i in measured.items():
            check(i["default"] == (name == default), f"{what}: {i['id']}: wrong 'default' mark")
    # Batch rows: the library's own kernel, the requested messages per call.
    batch = [i for i in impls.values() if i["shape"] == "batch"]
    for i in batch:
        check(i["messages_per_call"] == s["batch"], f"{what}: {i['id']}: messages_per_call != settings.batch")
        check(i["kernel"] == (m["kernel"] if i["flavour"] == "fast" else m["dc_kernel"]),
              f"{what}: {i['id']}: batch row on a kernel other than the default")
        check(not i["default"], f"{what}: {i['id']}: a batch row is marked default")
    if complete:
        check(any(i["flavour"] == "fast" for i in batch) == (s["batch"] > 0),
              f"{what}: batch={s['batch']} but fast batch rows: {[i['id'] for i in batch]}")
        libs = {i["library"] for i in impls.values()}
        for p in m["peers"]:
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
    doc = json.loads(run(binary, "--quick", "--json"))
    if validate(doc, schema, "--quick --json"):
        check(doc["settings"]["quick"] is True, "--quick --json: settings.quick is not true")
        check_consistency(doc, "--quick --json", QUICK_SIZES, [0], complete=True)

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
    else:
        print("check_bench: gnuplot not installed: --plot not checked")

    # 5. Usage error; the help fits 80 columns.
    check(run(binary, "--sizes=12X", expect=1) == "", "invalid --sizes wrote to stdout")
    long_lines = [line for line in run(binary, "--help").splitlines() if len(line) > 80]
    check(not long_lines, f"--help: lines over 80 columns: {long_lines[:3]}")

    for msg in failures:
        print("FAIL:", msg)
    if failures:
        sys.exit(1)
    print("check_bench: all checks passed")


if __name__ == "__main__":
    main()
