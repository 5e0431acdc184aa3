#!/usr/bin/env python3
"""check_report.py - `sha1kit bench --git` and `sha1kit report`, for real.

Usage: check_report.py MODE SHA1KIT_BINARY SCHEMA_JSON SOURCE_DIR WORK_DIR
  MODE git      `bench --git=PACK --git-repo=DIR` on a small repository made here with git: the
                JSON validates against bench/schema.json and holds what was run (tools with their
                versions and SHA-1 backends, every workload for every tool, the runs asked for,
                medians within min/max, git's ratio 1, sha1kit's ratio git's median over its own);
                the table and Markdown show the rows; a git whose idx differs from the real git's,
                one whose fsck prints something else and one that fails are refused in one line
                with nothing on stdout; bad options are refused.
  MODE site     `report` on two machines (the second one's strings hostile: `<script>`, quotes,
                markup) and every file of bench/results/: index.html has one table per message size
                and per Git workload, machines as columns, the right numbers in the right cells,
                every string escaped, no script, font or network address; the charts are well-formed
                SVG with one line per implementation. Refused in one line naming the file, writing
                nothing: malformed JSON, files that do not follow the schema (each also refused by
                jsonschema), the same run twice, a missing file.
  MODE browser  the site of `site` opened in headless Chromium (Debian package chromium) over the
                DevTools protocol (cdp.py): no console error, no exception, no failed load, no CSP
                violation; the DOM has the tables, both machines and the hostile CPU name as text;
                every chart loaded; a screenshot is kept in WORK_DIR/screenshot.png. First the
                console check is shown to see errors on a broken page. Without Chromium: a failure
                under CI (CI set), else exit status 77 (ctest reports the test as skipped).
"""
import copy
import glob
import html.parser
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    import jsonschema
except ImportError:
    sys.exit("check_report: the Python module jsonschema is missing (Debian package python3-jsonschema)")

failures = []
HOSTILE_CPU = "<script>alert('x')</script> & \"Evil\" CPU"
HOSTILE_NOTE = "<b>bold?</b> <img src=x onerror=alert(1)>"


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


BENCH_TMP = None  # TMPDIR of the bench runs: their work directories must be gone afterwards


def run(args, expect=0, env=None, cwd=None):
    if BENCH_TMP is not None:
        env = dict(env if env is not None else os.environ, TMPDIR=BENCH_TMP)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, env=env, cwd=cwd)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if expect is not None and p.returncode != expect:
        sys.exit(f"check_report: `{' '.join(args)}` exited {p.returncode}, expected {expect}\n{err}")
    return p.returncode, out, err


GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
               GIT_AUTHOR_DATE="2020-01-01T00:00:00Z", GIT_COMMITTER_DATE="2020-01-01T00:00:00Z")


def make_repo(work):
    """A repository with a few commits (deltas included), repacked into one pack; returns (repo, pack)."""
    repo = os.path.join(work, "repo")
    if os.path.exists(repo):
        shutil.rmtree(repo)
    run(["git", "init", "-q", repo], env=GIT_ENV)
    text = "".join(f"line {i} of a file that changes a little in every commit\n" for i in range(400))
    for c in range(6):
        with open(os.path.join(repo, "a.txt"), "w") as f:
            f.write(text.replace(f"line {c * 7} ", f"LINE {c * 7} "))
        with open(os.path.join(repo, f"f{c}.txt"), "w") as f:
            f.write(f"file {c}\n" * (c + 1))
        run(["git", "-C", repo, "add", "."], env=GIT_ENV)
        run(["git", "-C", repo, "commit", "-q", "-m", f"commit {c}"], env=GIT_ENV)
    run(["git", "-C", repo, "repack", "-adq"], env=GIT_ENV)
    packs = glob.glob(os.path.join(repo, ".git", "objects", "pack", "*.pack"))
    if len(packs) != 1:
        sys.exit(f"check_report: expected one pack in {repo}, found {packs}")
    return repo, packs[0]


def bench_git(binary, work, *extra):
    repo, pack = make_repo(work)
    rc, out, err = run([binary, "bench", "--quick", "--only=portable", "--json", f"--git={pack}",
                        f"--git-repo={repo}", "--git-reps=2", "--note=test run", *extra])
    return json.loads(out), repo, pack


def validate(doc, schema, what):
    v = jsonschema.Draft202012Validator(schema)
    errors = list(v.iter_errors(doc))
    for e in errors[:5]:
        failures.append(f"{what}: schema: {'/'.join(map(str, e.path))}: {e.message}")
    return not errors


def one_line_error(rc, out, err, what, prefix, want=None):
    lines = err.splitlines()
    check(rc == 1, f"{what}: exit status {rc}, expected 1")
    check(out == "", f"{what}: wrote to stdout: {out[:80]!r}")
    check(len(lines) == 1, f"{what}: {len(lines)} lines on stderr, expected 1: {err!r}")
    check(bool(lines) and lines[0].startswith(prefix), f"{what}: message does not start with {prefix!r}: {err!r}")
    if want is not None:
        check(want in err, f"{what}: message lacks {want!r}: {err!r}")


FAKE_GIT = r"""#!/bin/sh
# A git that is not quite git: for bench --git's checks.
case "$1" in
version) echo "git version 9.9.9-fake"; echo "cpu: none"; echo "SHA-1: FAKE_SHA1"; exit 0 ;;
index-pack)
	[ "$FAKE_MODE" = fail ] && { echo "fatal: fake failure" >&2; exit 3; }
	printf 'not an idx' >"$3"; exit 0 ;;
verify-pack) exit 0 ;;
fsck) echo "dangling blob 0123456789012345678901234567890123456789"; exit 0 ;;
esac
exit 1
"""


def mode_git(binary, schema, src, work):
    doc, repo, pack = bench_git(binary, work)
    validate(doc, schema, "bench --git --json")
    g = doc.get("git")
    if not check(isinstance(g, dict), "bench --git --json: no git member"):
        return
    _, gv, _ = run(["git", "version", "--build-options"])
    version = gv.splitlines()[0].removeprefix("git version ")
    backend = next((line.split(": ", 1)[1] for line in gv.splitlines()
                    if line.startswith(("SHA-1: ", "sha1: "))), None)
    tools = {t["id"]: t for t in g["tools"]}
    check(list(tools) == ["sha1kit", "git"], f"git.tools: {list(tools)}")
    check(tools["git"]["version"] == version, f"git.tools git version {tools['git']['version']} != {version}")
    check(tools["git"]["sha1_backend"] == backend, f"git.tools git sha1_backend {tools['git']['sha1_backend']}")
    check(tools["git"]["path"] == os.path.realpath(shutil.which("git")), "git.tools git path is not git on PATH")
    check(tools["sha1kit"]["path"] == os.path.realpath(binary), f"git.tools sha1kit path {tools['sha1kit']['path']}")
    _, sv, _ = run([binary, "--version"])
    check(sv.splitlines()[0] == "sha1kit " + tools["sha1kit"]["version"], "git.tools sha1kit version")
    check(g["runs"] == 2 and g["warmup"] == 1, f"git runs/warmup: {g['runs']}/{g['warmup']}")
    with open(pack, "rb") as f:
        magic, _ver, count = struct.unpack(">4sII", f.read(12))
    check(g["pack"] == {"path": os.path.realpath(pack), "bytes": os.path.getsize(pack), "objects": count},
          f"git.pack: {g['pack']}")
    check(g["repository"] == {"path": os.path.realpath(repo)}, f"git.repository: {g['repository']}")
    check(doc.get("note") == "test run", f"note: {doc.get('note')!r}")
    rows = [(w["workload"], w["tool"]) for w in g["workloads"]]
    want = [(w, t) for w in ("index-pack", "verify-pack", "fsck") for t in ("sha1kit", "git")]
    check(rows == want, f"git.workloads: {rows}")
    med = {(w["workload"], w["tool"]): w for w in g["workloads"]}
    for w in g["workloads"]:
        what = f"git.workloads {w['workload']}/{w['tool']}"
        check(w["runs"] == 2 and len(w["samples"]) == 2, f"{what}: {w['runs']} runs, {len(w['samples'])} samples")
        for key, sk in (("wall_s", "wall_s"), ("user_s", "user_s"), ("sys_s", "sys_s"), ("max_rss_kib", "max_rss_kib")):
            vals = sorted(s[sk] for s in w["samples"])
            check(math.isclose(w[key]["min"], vals[0], rel_tol=1e-6, abs_tol=1e-9)
                  and math.isclose(w[key]["max"], vals[-1], rel_tol=1e-6, abs_tol=1e-9)
                  and math.isclose(w[key]["median"], (vals[0] + vals[1]) / 2, rel_tol=1e-6, abs_tol=1e-9),
                  f"{what}: {key} {w[key]} does not summarise the samples {vals}")
        check(all(s["max_rss_kib"] > 100 for s in w["samples"]), f"{what}: peak RSS under 100 KiB?")
        check(all(s["wall_s"] > 0 for s in w["samples"]), f"{what}: a wall time of 0")
        gitw = med[(w["workload"], "git")]["wall_s"]["median"]
        check(math.isclose(w["ratio_to_git"]["wall"], gitw / w["wall_s"]["median"], rel_tol=1e-5),
              f"{what}: ratio_to_git.wall {w['ratio_to_git']['wall']} != git median / median")
        cmd = w["command"]
        check(cmd[0] == tools[w["tool"]]["path"], f"{what}: command runs {cmd[0]}")
        if w["workload"] == "index-pack":
            check(cmd[1:3] == ["index-pack", "-o"] and cmd[-1] == os.path.realpath(pack), f"{what}: command {cmd}")
            check("--no-rev-index" in cmd, f"{what}: the idx alone (--no-rev-index): {cmd}")
        elif w["workload"] == "verify-pack":
            check(cmd[1] == "verify-pack" and cmd[2].endswith(".idx"), f"{what}: command {cmd}")
        else:
            want_cmd = ["fsck", "--no-dangling", "--no-progress"] if w["tool"] == "sha1kit" else \
                ["fsck", "--full", "--no-dangling", "--no-progress"]
            check(cmd[1:] == want_cmd, f"{what}: command {cmd}")
    check(med[("index-pack", "git")]["ratio_to_git"]["wall"] == 1.0, "git's own ratio is not 1")
    check(os.listdir(BENCH_TMP) == [], f"bench --git left files in its TMPDIR: {os.listdir(BENCH_TMP)}")

    # Table and Markdown.
    _, out, _ = run([binary, "bench", "--quick", "--only=portable", f"--git={pack}", "--git-reps=1"])
    check(re.search(r"^index-pack\s+sha1kit\s+\d+\.\d+ \[", out, re.M) is not None, "table: no index-pack row")
    check(re.search(r"^verify-pack\s+git\s", out, re.M) is not None, "table: no verify-pack git row")
    check("Pack: " + os.path.realpath(pack) in out, "table: the pack is not named")
    _, out, _ = run([binary, "bench", "--quick", "--only=portable", "--markdown", f"--git-repo={repo}",
                     "--git-reps=1"])
    check(re.search(r"^\| fsck \| sha1kit \| \d", out, re.M) is not None, "markdown: no fsck row")

    # Every workload, --git-only (what bench/pack-bench.sh runs): one row per workload and tool, in
    # bench_git.c's order, the commands as documented, and no throughput rows.
    loose = os.path.join(work, "loose")
    if os.path.exists(loose):
        shutil.rmtree(loose)
    run(["git", "init", "-q", "--bare", loose], env=GIT_ENV)
    with open(pack, "rb") as f:
        subprocess.run(["git", "--git-dir", loose, "unpack-objects", "-q"], stdin=f, check=True, env=GIT_ENV)
    head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], stdout=subprocess.PIPE, check=True,
                          env=GIT_ENV).stdout.decode().strip()
    run(["git", "--git-dir", loose, "update-ref", "refs/heads/master", head], env=GIT_ENV)
    every = ["index-pack", "index-pack-1", "index-verify", "index-verify-1", "verify-pack", "fsck", "fsck-1",
             "fsck-loose"]
    _, out, _ = run([binary, "bench", "--git-only", "--markdown", f"--git={pack}", f"--git-repo={repo}",
                     f"--git-loose={loose}", "--git-reps=1", "--git-workloads=" + ",".join(reversed(every))])
    check("Median time per message" not in out and "GB/s" not in out, "--git-only: throughput rows")
    check(re.search(r"^- \*\*CPU:\*\* .+ logical CPUs$", out, re.M) is not None, "--git-only: no CPU line")
    got = re.findall(r"^\| ([a-z1-]+) \| (sha1kit|git) \| (\d+\.\d+) \[", out, re.M)
    check([(w, t) for w, t, _ in got] == [(w, t) for w in every for t in ("sha1kit", "git")],
          f"--git-only: rows {[(w, t) for w, t, _ in got]}")
    check(all(float(x) > 0 for _, _, x in got), "--git-only: a wall time of 0")
    check(re.search(r"^\| index-pack \| sha1kit \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \| [1-9]\d* \| "
                    r"\d+\.\d\dx \| \d+\.\d\dx \| 1\.00x \| 1\.00x \|$", out, re.M) is not None,
          "--git-only: sha1kit's index-pack row lacks minor faults or its ratio 1.00x to itself")
    check(f"Repository of loose objects: {os.path.realpath(loose)}" in out, "--git-only: the loose repository")
    doc2 = json.loads(run([binary, "bench", "--quick", "--only=portable", "--json", f"--git={pack}",
                           f"--git-repo={repo}", f"--git-loose={loose}", "--git-reps=1",
                           "--git-workloads=index-pack-1,index-verify,fsck-1,fsck-loose"])[1])
    validate(doc2, schema, "bench --git-workloads --json")
    cmds = {(w["workload"], w["tool"]): w["command"][1:] for w in doc2["git"]["workloads"]}
    check(list(cmds) == [(w, t) for w in ("index-pack-1", "index-verify", "fsck-1", "fsck-loose")
                         for t in ("sha1kit", "git")], f"--git-workloads rows: {list(cmds)}")
    check(cmds.get(("index-pack-1", "git"), [])[:2] == ["index-pack", "--threads=1"], f"index-pack-1: {cmds}")
    check(cmds.get(("index-verify", "sha1kit"), [])[:3] == ["index-pack", "--no-rev-index", "--verify"]
          and cmds[("index-verify", "sha1kit")][-1].endswith("/p.pack"), f"index-verify: {cmds}")
    check(cmds.get(("fsck-1", "sha1kit")) == ["fsck", "--threads=1", "--no-dangling", "--no-progress"]
          and cmds.get(("fsck-1", "git")) == ["fsck", "--full", "--no-dangling", "--no-progress"], f"fsck-1: {cmds}")
    check(doc2["git"].get("loose_repository") == {"path": os.path.realpath(loose)}, "json: loose_repository")
    check(all(s["minor_faults"] > 0 for w in doc2["git"]["workloads"] for s in w["samples"]),
          "json: a run without minor page faults")
    check(os.listdir(BENCH_TMP) == [], f"bench --git-only left files: {os.listdir(BENCH_TMP)}")

    # Another git that gets it wrong, or fails: refused, nothing on stdout.
    fake = os.path.join(work, "fake-git")
    with open(fake, "w") as f:
        f.write(FAKE_GIT)
    os.chmod(fake, 0o755)
    base = [binary, "bench", "--quick", "--only=portable", "--json", "--git-reps=1", f"--git-binary={fake}"]
    one_line_error(*run(base + [f"--git={pack}"], expect=None), "fake git index-pack", "sha1kit: bench: --git: ",
                   "the idx of git-2 index-pack differs from git's")
    one_line_error(*run(base + [f"--git-repo={repo}"], expect=None), "fake git fsck", "sha1kit: bench: --git: ",
                   "git-2 fsck prints other than git fsck")
    one_line_error(*run(base + [f"--git={pack}"], expect=None, env=dict(os.environ, FAKE_MODE="fail")),
                   "failing git", "sha1kit: bench: --git: ", "git-2 index-pack failed with exit status 3 (fatal: fake failure)")
    # The fake's version and backend are read (seen in a run where it is not asked to index).
    notpack = os.path.join(work, "not-a-pack")
    with open(notpack, "w") as f:
        f.write("hello\n")
    one_line_error(*run(base + [f"--git={notpack}"], expect=None), "--git=not-a-pack", "sha1kit: bench: --git: ",
                   "is not a Git pack")
    one_line_error(*run([binary, "bench", "--quick", "--git=/nonexistent/p.pack"], expect=None), "--git=missing",
                   "sha1kit: bench: --git: ", "No such file")
    one_line_error(*run([binary, "bench", "--quick", f"--git={pack}", "--git-binary=/bin/true"], expect=None),
                   "--git-binary=/bin/true", "sha1kit: bench: --git")
    one_line_error(*run([binary, "bench", "--quick", f"--git-repo={pack}"], expect=None), "--git-repo=FILE",
                   "sha1kit: bench: --git-repo: ", "Not a directory")
    one_line_error(*run([binary, "bench", "--git-only", "--git-workloads=fsck-loose", f"--git={pack}"],
                        expect=None), "fsck-loose without --git-loose", "sha1kit: bench: --git-workloads: ",
                   "fsck-loose needs --git-loose=DIR")
    check(os.listdir(BENCH_TMP) == [], f"refused bench --git runs left files: {os.listdir(BENCH_TMP)}")
    for args, what in ((["--git-binary=git"], "--git-binary without --git"),
                       ([f"--git={pack}", "--csv"], "--git with --csv"),
                       ([f"--git={pack}", "--git-reps=0"], "--git-reps=0"),
                       ([f"--git={pack}", "--git-workloads=index-pack,bogus"], "--git-workloads=...,bogus"),
                       (["--git-workloads=fsck"], "--git-workloads without --git"),
                       (["--git-only"], "--git-only without --git"),
                       ([f"--git={pack}", "--git-only", "--json"], "--git-only --json")):
        rc, out, err = run([binary, "bench", "--quick", *args], expect=None)
        check(rc == 1 and out == "" and "Try 'sha1kit bench --help'" in err, f"{what}: not a usage error: {err!r}")


# ---- site ----------------------------------------------------------------------------------------

def hostile_copy(doc):
    d = copy.deepcopy(doc)
    d["machine"]["cpu_model"] = HOSTILE_CPU
    d["machine"]["os"] = "Linux 0.0 <i>x86</i>"
    d["machine"]["date"] = "2001-02-03T04:05:06Z"
    d["note"] = HOSTILE_NOTE
    for r in d["results"]:  # another machine: other numbers
        r["gb_per_s"]["median"] = round(r["gb_per_s"]["median"] * 1.5, 6)
    return d


def site_inputs(binary, schema, src, work):
    """(list of files, their documents): a measured machine, its hostile twin, bench/results/*.json."""
    doc, _, _ = bench_git(binary, work)
    files = []
    for name, d in (("a.json", doc), ("b.json", hostile_copy(doc))):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            json.dump(d, f)
        files.append(path)
    results = sorted(glob.glob(os.path.join(src, "bench", "results", "*.json")))
    check(results, "bench/results/ has no result file")
    for r in results:
        with open(r) as f:
            validate(json.load(f), schema, r)
    files += results
    docs = []
    for p in files:
        with open(p) as f:
            docs.append(json.load(f))
    return files, docs


class Tables(html.parser.HTMLParser):
    """The tables of index.html: class, data-* attributes, header cells and rows of cell texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.cur, self.cell, self.tags = [], None, None, []
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "table":
            self.cur = {"attrs": a, "head": [], "rows": []}
        elif tag == "tr" and self.cur is not None:
            self.cur["rows"].append([])
        elif tag in ("td", "th") and self.cur is not None:
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")

    def handle_endtag(self, tag):
        if tag == "table" and self.cur is not None:
            self.cur["head"] = self.cur["rows"].pop(0) if self.cur["rows"] else []
            self.tables.append(self.cur)
            self.cur = None
        elif tag in ("td", "th") and self.cell is not None:
            self.cur["rows"][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def expected_keys(docs):
    return sorted({(r["misalignment"], r["size"]) for d in docs for r in d["results"]})


def build_site(binary, files, out):
    return run([binary, "report", *files, "-o", out], expect=None)


def mode_site(binary, schema, src, work):
    files, docs = site_inputs(binary, schema, src, work)
    out = os.path.join(work, "site")
    shutil.rmtree(out, ignore_errors=True)
    rc, so, err = build_site(binary, files, out)
    if not check(rc == 0 and err == "", f"report: exit status {rc}: {err}"):
        return
    names = sorted(os.listdir(out))
    want = sorted(["index.html"] + [f"chart-{i + 1}.svg" for i in range(len(files))])
    check(names == want, f"report wrote {names}, expected {want}")
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        page = f.read()
    low = page.lower()
    check("<script" not in low, "index.html has a <script")
    check("<b>bold" not in page and "<i>x86" not in page and "<img src=x" not in page,
          "index.html has markup from a JSON string")
    check("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Evil&quot; CPU" in page,
          "index.html lacks the escaped hostile CPU name")
    check("&lt;img src=x onerror=alert(1)&gt;" in page, "index.html lacks the escaped note")
    for bad in ("http://", "https://", "@import", "url(", "font-face", "//fonts", "<link rel=\"stylesheet"):
        check(bad not in low, f"index.html refers to {bad!r}")
    p = Tables()
    p.feed(page)
    thr = [t for t in p.tables if "throughput" in t["attrs"].get("class", "")]
    keys = expected_keys(docs)
    check([(int(t["attrs"]["data-misalignment"]), int(t["attrs"]["data-size"])) for t in thr] == keys,
          f"throughput tables {[(t['attrs']['data-misalignment'], t['attrs']['data-size']) for t in thr]} != {keys}")
    for t in p.tables:
        check(len(t["head"]) == len(files) + 1, f"table {t['attrs']}: {len(t['head'])} header cells")
        for i, d in enumerate(docs):
            check(t["head"][i + 1].startswith(d["machine"]["cpu_model"]),
                  f"table {t['attrs']}: column {i + 1} is not {d['machine']['cpu_model']!r}")
            check(d["machine"]["date"] in t["head"][i + 1], f"table {t['attrs']}: column {i + 1} lacks the date")
    # The numbers: every cell of every throughput table against the documents.
    for t in thr:
        size, mis = int(t["attrs"]["data-size"]), int(t["attrs"]["data-misalignment"])
        for row in t["rows"]:
            impl = row[0]
            for i, d in enumerate(docs):
                r = next((x for x in d["results"] if x["implementation"] == impl and x["size"] == size
                          and x["misalignment"] == mis), None)
                cell = row[i + 1]
                if r is None:
                    check(cell == "\u2014", f"{impl} {size}: machine {i + 1} has {cell!r}, expected a dash")
                    continue
                want = f"{r['gb_per_s']['median']:.3f}"
                if r["ratio_to_baseline"] is not None:
                    want += f" ({r['ratio_to_baseline']:.2f}\u00d7)"
                check(cell == want, f"{impl} {size}: machine {i + 1} has {cell!r}, expected {want!r}")
        measured = {x["implementation"] for d in docs for x in d["results"] if x["size"] == size
                    and x["misalignment"] == mis}
        check({row[0] for row in t["rows"]} == measured, f"size {size}: rows {[r[0] for r in t['rows']]}")
    gits = [t for t in p.tables if "git" in t["attrs"].get("class", "").split()]
    check([t["attrs"]["data-workload"] for t in gits] == ["index-pack", "verify-pack", "fsck"],
          f"git tables: {[t['attrs'].get('data-workload') for t in gits]}")
    a = docs[0]["git"]
    for t in gits:
        for row in t["rows"]:
            tool = {"git (on PATH)": "git"}.get(row[0], row[0])
            w = next((x for x in a["workloads"] if x["workload"] == t["attrs"]["data-workload"]
                      and x["tool"] == tool), None)
            if w is None:
                continue
            want = f"{w['wall_s']['median']:.3f} s ({w['ratio_to_git']['wall']:.2f}\u00d7)"
            check(row[1].startswith(want), f"git {t['attrs']['data-workload']} {tool}: {row[1]!r} does not start {want!r}")
    text = "".join(p.text)
    check(HOSTILE_CPU in text, "the hostile CPU name is not in the page's text")
    check("how to add your machine" in low and "bench/results/" in page, "no 'how to add your machine' paragraph")

    # The charts: well-formed SVG, a line per implementation with aligned results, escaped title.
    for i, d in enumerate(docs):
        path = os.path.join(out, f"chart-{i + 1}.svg")
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            check(False, f"{path}: not well-formed: {e}")
            continue
        ns = "{http://www.w3.org/2000/svg}"
        lines = root.findall(f"{ns}polyline")
        impls = [im["id"] for im in d["implementations"]]
        check(len(lines) == len(impls), f"{path}: {len(lines)} polylines for {len(impls)} implementations")
        check(root.find(f"{ns}title").text == d["machine"]["cpu_model"], f"{path}: title")
        with open(path) as f:
            svg = f.read()
        check("<script" not in svg.lower() and "href" not in svg, f"{path}: script or link")

    # Refusals: one line naming the file, nothing written.
    base = docs[0]
    cases = []

    def bad(name, mutate, want, schema_says=True):
        d = copy.deepcopy(base)
        mutate(d)
        cases.append((name, d, want, schema_says))

    bad("no-cpu", lambda d: d["machine"].pop("cpu_model"), "cpu_model")
    bad("size-string", lambda d: d["results"][0].__setitem__("size", "64"), "results[0]")
    bad("extra-key", lambda d: d.__setitem__("bogus", 1), "bogus")
    bad("unknown-impl", lambda d: d["results"][0].__setitem__("implementation", "nope"), "nope",
        schema_says=False)  # a cross-field rule: check_bench.py checks it for bench's own output
    bad("git-no-wall", lambda d: d["git"]["workloads"][0].pop("wall_s"), "wall_s")
    bad("bad-date", lambda d: d["machine"].__setitem__("date", "yesterday"), "date")
    bad("schema-2", lambda d: d.__setitem__("schema", "sha1kit-bench/2"), "schema")
    out2 = os.path.join(work, "refused")
    for name, d, want, schema_says in cases:
        path = os.path.join(work, f"bad-{name}.json")
        with open(path, "w") as f:
            json.dump(d, f)
        v = jsonschema.Draft202012Validator(schema)
        if schema_says:
            check(any(True for _ in v.iter_errors(d)), f"bad-{name}.json: valid for jsonschema, refused by report?")
        rc, so, err = build_site(binary, [files[0], path], out2)
        one_line_error(rc, so, err, f"report bad-{name}.json", f"sha1kit: report: {path}: ", want)
        check(not os.path.exists(out2), f"report bad-{name}.json: created {out2}")
    malformed = os.path.join(work, "malformed.json")
    with open(malformed, "w") as f:
        f.write('{"schema": "sha1kit-bench/1", "tool": ')
    one_line_error(*build_site(binary, [malformed], out2), "report malformed.json",
                   f"sha1kit: report: {malformed}: ", "not valid JSON (line 1")
    dup = os.path.join(work, "a-again.json")
    shutil.copy(files[0], dup)
    one_line_error(*build_site(binary, [files[0], dup], out2), "report duplicate",
                   f"sha1kit: report: {dup}: ", f"the same run as {files[0]}")
    one_line_error(*build_site(binary, [os.path.join(work, "missing.json")], out2), "report missing file",
                   "sha1kit: report: ", "missing.json")
    adir = os.path.join(work, "a-directory")
    os.makedirs(adir, exist_ok=True)
    one_line_error(*build_site(binary, [adir], out2), "report of a directory",
                   f"sha1kit: report: {adir}: ", "Is a directory")
    check(not os.path.exists(out2), f"a refused report created {out2}")
    # An existing site stays as it was when the inputs are refused.
    before = {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)}
    rc, _, _ = build_site(binary, [files[0], malformed], out)
    check(rc == 1, "report with a malformed file succeeded")
    after = {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)}
    check(before == after, "a refused report changed the existing site")
    rc, so, err = run([binary, "report", files[0]], expect=None)
    check(rc == 1 and "no output directory" in err and "Try 'sha1kit report --help'" in err,
          f"report without -o: {err!r}")
    rc, so, err = run([binary, "report", "--help"], expect=None)
    check(rc == 0 and "Usage: sha1kit report" in so and all(len(x) <= 80 for x in so.splitlines()),
          "report --help: missing or over 80 columns")


# ---- browser -------------------------------------------------------------------------------------

BROKEN_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title>
<link rel="icon" href="data:,"></head><body><p>broken on purpose</p>
<script>console.error("an error on the console"); undefined_function();</script>
<img src="missing-chart.svg" alt="missing"></body></html>
"""
CSP_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<link rel="icon" href="data:,"><title>csp</title></head><body><script>document.title = "ran";</script></body></html>
"""

DOM_QUERY = r"""(() => {
  const tables = Array.from(document.querySelectorAll('table.results'));
  return {
    title: document.title,
    scripts: document.querySelectorAll('script').length,
    throughput: tables.filter(t => t.classList.contains('throughput')).map(t => +t.dataset.size),
    git: tables.filter(t => t.classList.contains('git')).map(t => t.dataset.workload),
    columns: tables.map(t => Array.from(t.tHead.rows[0].cells).slice(1).map(c => c.querySelector('.cpu').textContent)),
    rows: tables.map(t => t.tBodies[0].rows.length),
    images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0})),
    headings: Array.from(document.querySelectorAll('h2')).map(h => h.textContent),
  };
})()"""


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def mode_browser(binary, schema, src, work):
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("CI"):
            sys.exit("check_report: chromium is not installed (Debian package chromium; "
                     "scripts/install-deps.sh installs it): under CI this test must run")
        print("check_report: SKIPPED: chromium is not installed (Debian package chromium)")
        sys.exit(77)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    import cdp

    files, docs = site_inputs(binary, schema, src, work)
    out = os.path.join(work, "site")
    shutil.rmtree(out, ignore_errors=True)
    rc, so, err = build_site(binary, files, out)
    if not check(rc == 0, f"report: exit status {rc}: {err}"):
        return
    broken = os.path.join(work, "broken")
    os.makedirs(broken, exist_ok=True)
    with open(os.path.join(broken, "broken.html"), "w") as f:
        f.write(BROKEN_PAGE)
    with open(os.path.join(broken, "csp.html"), "w") as f:
        f.write(CSP_PAGE)
    with cdp.Browser(chromium) as b:
        # The check can see errors: a console.error, an exception, a missing image, a CSP violation.
        page = b.load("file://" + os.path.join(broken, "broken.html"))
        e = page.errors
        check(any("an error on the console" in x for x in e), f"broken page: console.error not seen: {e}")
        check(any("undefined_function" in x for x in e), f"broken page: exception not seen: {e}")
        check(any("missing-chart.svg" in x for x in e), f"broken page: missing image not seen: {e}")
        page = b.load("file://" + os.path.join(broken, "csp.html"))
        check(any("Content Security Policy" in x for x in page.errors), f"CSP violation not seen: {page.errors}")
        check(page.evaluate("document.title") == "csp", "the CSP page ran its script")

        page = b.load("file://" + os.path.join(out, "index.html"))
        check(page.errors == [], f"index.html: console errors: {page.errors}")
        dom = page.evaluate(DOM_QUERY)
        page.screenshot(os.path.join(work, "screenshot.png"))
    check(dom["scripts"] == 0, f"DOM: {dom['scripts']} script elements")
    check(dom["title"] == "sha1kit benchmark results", f"DOM: title {dom['title']!r}")
    keys = expected_keys(docs)
    check(dom["throughput"] == [s for _, s in keys], f"DOM: throughput tables {dom['throughput']} != {keys}")
    check(dom["git"] == ["index-pack", "verify-pack", "fsck"], f"DOM: git tables {dom['git']}")
    cpus = [d["machine"]["cpu_model"] for d in docs]
    for i, cols in enumerate(dom["columns"]):
        check(cols == cpus, f"DOM: table {i + 1} columns {cols} != {cpus}")
    check(HOSTILE_CPU in cpus and all(r > 0 for r in dom["rows"]), "DOM: a table without rows")
    check(len(dom["images"]) == len(files) and all(i["ok"] for i in dom["images"]),
          f"DOM: charts not all loaded: {dom['images']}")
    check(dom["headings"][:2] == ["Throughput by message size", "Git workloads"], f"DOM: headings {dom['headings']}")
    with open(os.path.join(work, "screenshot.png"), "rb") as f:
        png = f.read()
    check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, f"screenshot: {len(png)} bytes, not a PNG page")
    print(f"check_report: screenshot of the site: {os.path.join(work, 'screenshot.png')}")


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("git", "site", "browser"):
        sys.exit(__doc__)
    mode, binary, schema_path, src, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    global BENCH_TMP
    BENCH_TMP = os.path.join(os.path.abspath(work), "tmp")
    shutil.rmtree(BENCH_TMP, ignore_errors=True)
    os.makedirs(BENCH_TMP)
    with open(schema_path) as f:
        schema = json.load(f)
    {"git": mode_git, "site": mode_site, "browser": mode_browser}[mode](binary, schema, src, work)
    if failures:
        for f in failures:
            print("FAIL:", f)
        sys.exit(f"check_report {mode}: {len(failures)} failure(s)")
    print(f"check_report {mode}: all checks passed")


if __name__ == "__main__":
    main()
