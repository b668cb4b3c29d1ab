#!/usr/bin/env python3
"""Tests of pmuharness-report: hand-made v1 and v2 results (testdata/) and one
real QEMU boot's results go through every output, and each output is parsed
back (xml.etree for JUnit and the HTML, a TAP 13 line parser, the Markdown
table); --diff of two differing runs; bad input is refused by file and field
with nothing written; the HTML is loaded in headless chromium where installed.
Usage: test_report.py [build/pmuharness.efi]  (without it the QEMU case is skipped)"""
import contextlib
import functools
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # keep the source tree clean
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
sys.path.insert(0, HERE)
import qemulib as q  # noqa: E402
import test_report_html as th  # noqa: E402

TOOL = os.path.join(HERE, "pmuharness-report")
FORMATS = os.path.join(HERE, "pmuharness_report_formats.py")
DATA = os.path.join(HERE, "testdata")
V2 = os.path.join(DATA, "v2-two-cpus.json")
V2_RERUN = os.path.join(DATA, "v2-two-cpus-rerun.json")
V1 = os.path.join(DATA, "v1-tcg.json")
EVENTS = os.path.join(DATA, "v2-events.json")  # event.semantics: a PASS, a FAIL, a SKIP row
XHTML = "{http://www.w3.org/1999/xhtml}"
CHROMIUM = "/usr/bin/chromium"
INSTALLED = os.path.join(q.ROOT, "build", "pmuharness-report")
HOSTILE = "<script>alert(1)</script>"
# The tool's exit statuses (its --help epilog).
CHANGED, BAD_INPUT = 1, 2
DELETE = object()
CRASH = {"vector": 6, "error_code": 0, "rip": "0xdead", "check": "x.y",
         "registers": {"rax": "0x1", "rsp": "0x2"}}


class Skip(Exception):
    """A case that cannot run here, with the reason."""


def tool(*args):
    p = subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def render(tmp, inputs, kinds=("markdown", "html", "junit", "tap")):
    """Runs the tool once with every output; returns {kind: path} or raises."""
    outs = {k: os.path.join(tmp, f"out.{k}") for k in kinds}
    args = [a for k in kinds for a in (f"--{k}", outs[k])]
    rc, _, err = tool(*(list(inputs) + args))
    if rc != 0:
        raise AssertionError(f"tool status {rc}: {err.strip()}")
    return outs


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def parse_tap(text):
    """TAP 13: version, plan, test lines with YAML blocks; returns the points or raises."""
    lines = text.splitlines()
    assert lines[0] == "TAP version 13", lines[0]
    plan = re.fullmatch(r"1\.\.(\d+)", lines[1])
    assert plan, f"no plan: {lines[1]!r}"
    points, i = [], 2
    while i < len(lines):
        m = re.fullmatch(r"(ok|not ok) (\d+) - (.*?)(?: # (SKIP) ?(.*))?", lines[i])
        assert m, f"not a test line: {lines[i]!r}"
        assert int(m.group(2)) == len(points) + 1, f"number {m.group(2)} out of order"
        point = {"ok": m.group(1) == "ok", "name": m.group(3), "skip": bool(m.group(4)),
                 "yaml": {}}
        i += 1
        if i < len(lines) and lines[i] == "  ---":
            i += 1
            while lines[i] != "  ...":
                k, v = re.fullmatch(r"  (\w+): (.*)", lines[i]).groups()
                point["yaml"][k] = json.loads(v)  # the tool writes JSON scalars
                i += 1
            i += 1
        points.append(point)
    assert len(points) == int(plan.group(1)), f"plan {plan.group(1)}, {len(points)} points"
    return points


def html_checks(path):
    """The check x CPU table of the HTML, parsed as XML: (header, {check: cells})."""
    root = ET.parse(path).getroot()
    table = [t for t in root.iter(XHTML + "table") if t.get("id") == "checks"]
    assert len(table) == 1, "no single table id=checks"
    head = ["".join(th.itertext()) for th in table[0].find(XHTML + "thead").iter(XHTML + "th")]
    rows = {}
    for tr in table[0].find(XHTML + "tbody"):
        cells = list(tr)
        rows["".join(cells[0].itertext())] = ["".join(c.itertext()) for c in cells[1:]]
    return root, head, rows


def junit_suites(path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", root.tag
    return root, root.findall("testsuite")


# ---- cases -------------------------------------------------------------------
def help_lists_outputs(tmp):
    rc, out, _ = tool("--help")
    return [] if rc == 0 and all(o in out for o in ("--markdown", "--html", "--junit", "--tap",
                                                   "--diff")) else [f"--help: {rc} {out!r}"]


def junit_per_cpu(tmp):
    _, suites = junit_suites(render(tmp, [V2], ("junit",))["junit"])
    errs = []
    if [s.get("name") for s in suites] != ['Board <A> & "B" (v2-two-cpus) cpu0',
                                           'Board <A> & "B" (v2-two-cpus) cpu1']:
        errs.append(f"suites {[s.get('name') for s in suites]}")
    cpu0 = {c.get("name"): c for c in suites[0].findall("testcase")}
    fail = cpu0["overflow.preload"].find("failure")
    if fail is None or "<none>" not in fail.get("message") or "\x07" in fail.get("message"):
        errs.append("overflow.preload: no failure element with the detail, or a raw control char")
    if cpu0["count.fixed"].find("skipped") is None:
        errs.append("count.fixed: no skipped element")
    if (suites[0].get("tests"), suites[0].get("failures"), suites[0].get("skipped")) != \
            ("4", "1", "1"):
        errs.append(f"cpu0 counts {suites[0].attrib}")
    if "999999/1000000/1000002 events" not in "".join(cpu0["count.instructions"].itertext()):
        errs.append("count.instructions: figures missing")
    if suites[1].get("timestamp") != "2026-11-23T14:05:09":
        errs.append(f"timestamp {suites[1].get('timestamp')}")
    props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    if props.get("Firmware") != "EDK II 0x10000" or "x2apic" not in props.get("CPU", ""):
        errs.append(f"identification properties {props}")
    return errs


def html_table_escaped(tmp):
    root, head, rows = html_checks(render(tmp, [V2], ("html",))["html"])
    errs = []
    if head[1:] != ['Board <A> & "B" (v2-two-cpus) cpu0', 'Board <A> & "B" (v2-two-cpus) cpu1']:
        errs.append(f"header {head}")
    if sorted(rows) != ["apic.lvt-pc", "count.fixed", "count.instructions", "overflow.preload"]:
        errs.append(f"rows {sorted(rows)}")
    elif not rows["count.fixed"][0].startswith("SKIP") or HOSTILE not in rows["count.fixed"][0]:
        errs.append(f"count.fixed cell {rows['count.fixed']}")
    elif "999999/1000000/1000002 events" not in rows["count.instructions"][0]:
        errs.append(f"figures cell {rows['count.instructions']}")
    if list(root.iter(XHTML + "script")):
        errs.append("a detail became a script element")
    box = [p for p in root.iter(XHTML + "p") if p.get("id") == "verdict"]
    if not box or "".join(box[0].itertext()) != "FAIL":
        errs.append("no FAIL verdict box")
    if "Example Corp X99-TEST rev 2" not in "".join(root.itertext()):
        errs.append("board identity missing")
    return errs


def tap_points(tmp):
    points = parse_tap(read(render(tmp, [V2], ("tap",))["tap"]))
    errs = []
    if len(points) != 6:
        errs.append(f"{len(points)} points, expected 6")
    bad = [p["name"] for p in points if not p["ok"]]
    if bad != ['Board <A> & "B" (v2-two-cpus) cpu0 overflow.preload']:
        errs.append(f"not ok: {bad}")
    if [p["name"] for p in points if p["skip"]] != [
            'Board <A> & "B" (v2-two-cpus) cpu0 count.fixed']:
        errs.append("count.fixed is not the one SKIP")
    if points[0]["yaml"].get("median") != 1000000 or \
            points[0]["yaml"].get("counters") != "PMC0, FIXED_CTR0":
        errs.append(f"YAML of point 1: {points[0]['yaml']}")
    return errs


def markdown_table(tmp):
    text = read(render(tmp, [V1, V2], ("markdown",))["markdown"])
    errs = []
    rows = [l for l in text.splitlines() if l.startswith("| ") and "|---" not in l]
    head = [l for l in rows if l.startswith("| Check |")]
    if len(head) != 1 or head[0].count(" cpu") != 3:
        errs.append(f"check header {head}")
    if "<script>" in text or "\x07" in text:
        errs.append("raw HTML or a control character in the Markdown")
    if "**Verdict: FAIL**" not in text or "| Harness | 0.1.0 (-) |" not in text:
        errs.append("overall verdict or the v1 harness line missing")
    if not any(l.startswith("| pmu.probe | SKIP; ") for l in rows):
        errs.append("v1 pmu.probe row missing")
    return errs


XEN_CPUID = {"signature": "XenVMMXenVMM", "leaf": 0x40000100, "max_leaf": 0x40000105,
             "version": "4.17", "hyperv_interface": True}


def hypervisor_shown(tmp):
    """hypervisor_cpuid gives the hypervisor as the log's cpu.hypervisor line
    does; without it (older harnesses) the name alone; a mistyped field is
    refused by file and field."""
    def change(d):
        d["cpus"][0].update(hypervisor="Xen", hypervisor_cpuid=dict(XEN_CPUID))
        d["cpus"][1].update(hypervisor="KVM")
    path = mutated(tmp, "hv.json", change)
    _, suites = junit_suites(render(tmp, [path], ("junit",))["junit"])
    got = [{p.get("name"): p.get("value") for p in s.iter("property")}.get("Hypervisor")
           for s in suites]
    want = ['Xen 4.17 (signature "XenVMMXenVMM" at 0x40000100, behind a Hyper-V interface '
            'at 0x40000000)', "KVM"]
    errs = [] if got == want else [f"Hypervisor properties {got}, expected {want}"]
    for key, bad in (("hyperv_interface", "yes"), ("leaf", "0x40000100"), ("version", 4.17)):
        def wrong(d, key=key, bad=bad):
            d["cpus"][0].update(hypervisor="Xen", hypervisor_cpuid=dict(XEN_CPUID, **{key: bad}))
        rc, _, err = tool(mutated(tmp, f"hv-{key}.json", wrong))
        if rc != BAD_INPUT or f"field 'cpus[0].hypervisor_cpuid.{key}'" not in err:
            errs.append(f"{key} = {bad!r}: status {rc}, message {err.strip()!r}")
    return errs


def v1_maps_to_v2(tmp):
    _, suites = junit_suites(render(tmp, [V1], ("junit",))["junit"])
    errs = []
    props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    if len(suites) != 1 or props.get("Firmware") != "-" or props.get("Started") != "-":
        errs.append(f"v1 suites {len(suites)}, properties {props}")
    if not props.get("Verdict", "").startswith("NO PMU (1 passed, 0 failed, 1 skipped)"):
        errs.append(f"v1 CPU verdict {props.get('Verdict')}")
    # v1 has no per-CPU verdict: each CPU's comes from its checks and the run's.
    two = mutated(tmp, "v1-two.json", lambda d: d["results"].extend(
        dict(r, cpu=1) for r in list(d["results"])), V1)
    failing = mutated(tmp, "v1-fail.json", lambda d: d.update(verdict="FAIL", results=d[
        "results"] + [dict(d["results"][1], cpu=1, verdict="FAIL")]), V1)
    for path, want in ((two, ["NO PMU", "NO PMU"]), (failing, ["PASS", "FAIL"])):
        _, suites = junit_suites(render(tmp, [path], ("junit",))["junit"])
        got = [{p.get("name"): p.get("value") for p in s.iter("property")}["Verdict"].split(" (")[0]
               for s in suites]
        if got != want:
            errs.append(f"{os.path.basename(path)}: CPU verdicts {got}, expected {want}")
    return errs


def diff_changed(tmp):
    errs = []
    rc, out, _ = tool("--diff", V2, V2_RERUN)
    lines = out.splitlines()
    if rc != CHANGED:
        errs.append(f"--diff of differing runs: status {rc}")
    if not any(l.startswith("verdict cpu0 overflow.preload: FAIL -> PASS") for l in lines):
        errs.append(f"verdict change not listed: {lines}")
    if not any(l.startswith("figures cpu1 count.instructions:") and l.endswith(
            "1000000/1000001/1000009 events (tolerance +-8 events a window (SDM Vol 3B 20.2)) "
            "on PMC0") for l in lines):
        errs.append(f"figure change not listed: {lines}")
    if any("apic.lvt-pc" in l for l in lines):
        errs.append("an unchanged check listed")
    rc, out, _ = tool("--diff", V2, V2)
    if rc != 0 or out.strip() != "no change":
        errs.append(f"--diff of a run with itself: {rc} {out!r}")
    rc, _, err = tool("--diff", V2, os.path.join(tmp, "missing.json"))
    if rc != BAD_INPUT or "missing.json" not in err:
        errs.append(f"--diff with a missing file: {rc} {err!r}")
    return errs


def html_events(path):
    """The HTML's events tables, parsed as XML: [(coverage line, [[cells]])]."""
    root = ET.parse(path).getroot()
    body = list(root.find(XHTML + "body"))
    out = []
    for i, el in enumerate(body):
        if el.tag == XHTML + "table" and el.get("class") == "events":
            cov = body[i - 1]
            assert cov.get("class") == "coverage", "no coverage line above an events table"
            rows = [["".join(td.itertext()) for td in tr]
                    for tr in el.find(XHTML + "tbody")]
            out.append(("".join(cov.itertext()), rows))
    return out


def events_markdown_html(tmp):
    """The events table in Markdown and HTML: the coverage line above it, the
    failing event first, every column; a file without events has no section."""
    outs = render(tmp, [EVENTS], ("markdown", "html"))
    errs = []
    md = read(outs["markdown"]).splitlines()
    cov = "amd-k8: 41 of 87 events validated, 30 not validatable; 1 pass, 1 fail, 1 skip"
    head = "| Event | Encoding | Counter | Workload | Rule | Expected | Measured | Result | Note |"
    rows = [l for l in md if l.startswith("| DATA") or l.startswith("| RETIRED")
            or l.startswith("| SEGMENT")]
    if cov not in md or head not in md or md.index(cov) > md.index(head):
        errs.append("Markdown: no coverage line above the events table")
    if [r.split(" | ")[0] for r in rows] != [
            "| DATA\\_CACHE\\_MISSES", "| RETIRED\\_INSTRUCTIONS", "| SEGMENT\\_REGISTER\\_LOADS"]:
        errs.append(f"Markdown rows (the FAIL first): {rows}")
    elif rows[0] != ("| DATA\\_CACHE\\_MISSES | event=0x41 | PERFCTR1 | chase 256 KiB x 1000 | "
                     "&gt;= 0.500 x elements (ours) | 500..1100 | 3 | FAIL | counts &lt;hits&gt; "
                     "&amp; \"misses\"? |"):
        errs.append(f"Markdown FAIL row: {rows[0]}")
    elif " | - | SKIP | a hypervisor filters the event |" not in rows[2]:
        errs.append(f"Markdown SKIP row (nothing measured): {rows[2]}")
    tables = html_events(outs["html"])
    if len(tables) != 1 or tables[0][0] != cov:
        errs.append(f"HTML events tables {tables}")
    elif [r[0] for r in tables[0][1]] != ["DATA_CACHE_MISSES", "RETIRED_INSTRUCTIONS",
                                          "SEGMENT_REGISTER_LOADS"]:
        errs.append(f"HTML rows (the FAIL first): {tables[0][1]}")
    elif tables[0][1][0][5:8] != ["500..1100", "3", "FAIL"] or \
            tables[0][1][0][8] != 'counts <hits> & "misses"?':
        errs.append(f"HTML FAIL row: {tables[0][1][0]}")
    plain = render(tmp, [V2], ("markdown", "html"))
    if "## Events" in read(plain["markdown"]) or html_events(plain["html"]):
        errs.append("an events section for a run without events")
    return errs


def events_junit_tap(tmp):
    """A failing event is a failed JUnit testcase and a not-ok TAP point of
    its own (a CI never reads it as green); passing and skipped rows are not."""
    outs = render(tmp, [EVENTS], ("junit", "tap"))
    errs = []
    _, suites = junit_suites(outs["junit"])
    cases = {c.get("name"): c for c in suites[0].findall("testcase")}
    fail = cases.get("event.DATA_CACHE_MISSES")
    if fail is None or fail.find("failure") is None or \
            "expected 500..1100, measured 3" not in fail.find("failure").get("message"):
        errs.append("JUnit: no failing testcase event.DATA_CACHE_MISSES with expected/measured")
    if "event.RETIRED_INSTRUCTIONS" in cases or "event.SEGMENT_REGISTER_LOADS" in cases:
        errs.append("JUnit: a testcase for an event that did not fail")
    if (suites[0].get("tests"), suites[0].get("failures")) != ("3", "2"):
        errs.append(f"JUnit counts {suites[0].attrib}")
    points = parse_tap(read(outs["tap"]))
    bad = [p["name"] for p in points if not p["ok"]]
    if bad != ["K8 box (v2-events) cpu0 event.semantics",
               "K8 box (v2-events) cpu0 event.DATA_CACHE_MISSES"]:
        errs.append(f"TAP not ok: {bad}")
    elif points[-1]["yaml"].get("measured") != 3 or points[-1]["yaml"].get("expected") != "500..1100":
        errs.append(f"TAP YAML of the failing event: {points[-1]['yaml']}")
    return errs


def events_input_checked(tmp):
    """A mistyped events row is refused by file and field; a row of a CPU
    that cpus lacks too; rows that did not fit are said."""
    errs = []
    for name, change, want in (
            ("evresult.json", lambda d: d["events"][1].update(result="bad"),
             "field 'events[1].result'"),
            ("evcpu.json", lambda d: d["events"][0].update(cpu=7), "field 'events[0].cpu'"),
            ("evexp.json", lambda d: d["events"][0]["expected"].pop("min") and None,
             "field 'events[0].expected.min' is missing"),
            ("evcov.json", lambda d: d["events_coverage"][0].update(failed="1"),
             "field 'events_coverage[0].failed'")):
        path = mutated(tmp, name, change, EVENTS)
        rc, _, err = tool(path)
        if rc != BAD_INPUT or want not in err:
            errs.append(f"{name}: status {rc}, message {err.strip()!r}, wanted {want!r}")
    path = mutated(tmp, "dropped.json", lambda d: d.update(events_dropped=5), EVENTS)
    rc, out, _ = tool(path)
    if rc != 0 or "5 event rows did not fit" not in out:
        errs.append(f"events_dropped not said: {rc}")
    return errs


def mutated(tmp, name, change, base=V2):
    """A copy of a fixture with change(doc) applied (or raw text)."""
    path = os.path.join(tmp, name)
    doc = json.loads(read(base))
    text = change(doc)
    with open(path, "w") as f:
        f.write(text if isinstance(text, str) else json.dumps(doc))
    return path


def bad_input_refused(tmp):
    cases = [
        ("notjson.json", lambda d: "{ not json", "not JSON"),
        ("schema.json", lambda d: d.update(schema="pmuharness-results/9"), "field 'schema'"),
        ("noverdict.json", lambda d: d["results"][1].pop("verdict") and None,
         "field 'results[1].verdict' is missing"),
        ("badcount.json", lambda d: d["summary"].update(passed="4"), "field 'summary.passed'"),
        ("cpu.json", lambda d: d["results"][0].update(cpu=7), "field 'results[0].cpu'"),
        ("nosystem.json", lambda d: d.pop("system") and None, "field 'system' is missing"),
        ("coretype.json", lambda d: d["cpus"][0].update(core_type="big"),
         "field 'cpus[0].core_type'"),
    ]
    errs = []
    out = os.path.join(tmp, "kept.xml")
    for name, change, want in cases:
        with open(out, "w") as f:
            f.write("earlier")
        path = mutated(tmp, name, change)
        rc, _, err = tool(V2, path, "--junit", out, "--html", os.path.join(tmp, "none.html"))
        if rc != BAD_INPUT or path not in err or want not in err:
            errs.append(f"{name}: status {rc}, message {err.strip()!r}, wanted {want!r}")
        if read(out) != "earlier" or os.path.exists(os.path.join(tmp, "none.html")):
            errs.append(f"{name}: an output was written")
    left = [f for f in os.listdir(tmp) if f.startswith(".pmuharness-report.")]
    return errs + ([f"temporary files left: {left}"] if left else [])


def unwritable_output(tmp):
    """An output that cannot be written: status 2 naming it, no temporary file left."""
    bad = os.path.join(tmp, "no-such-dir", "out.html")
    rc, _, err = tool(V2, "--html", bad)
    errs = [] if rc == BAD_INPUT and bad in err else [f"status {rc}, message {err.strip()!r}"]
    left = [f for f in os.listdir(tmp) if f != "no-such-dir"]
    return errs + ([f"files left: {left}"] if left else [])


def outputs_written_through(tmp):
    """An output that is a FIFO or a symlink is written through, never
    replaced by a regular file; a regular file still by a rename; then, the
    code proven, --junit /dev/null leaves /dev/null a character device."""
    errs = []
    fifo, target, link = (os.path.join(tmp, n) for n in ("fifo", "target.xml", "link.xml"))
    os.mkfifo(fifo)
    with open(target, "w") as f:
        f.write("earlier")
    os.symlink(target, link)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    p = subprocess.run([sys.executable, TOOL, V2, "--junit", fifo, "--tap", link],
                       capture_output=True, text=True, timeout=60)
    reader.join(10)
    if p.returncode != 0:
        errs.append(f"status {p.returncode}: {p.stderr.strip()}")
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode) or not got or b"<testsuites" not in got[0]:
        errs.append("the FIFO was replaced or its reader got no JUnit")
    if not os.path.islink(link) or not read(target).startswith("TAP version 13"):
        errs.append("the symlink was replaced or its target not written")
    plain = os.path.join(tmp, "plain.xml")
    with open(plain, "w") as f:
        f.write("earlier")
    ino = os.stat(plain).st_ino
    tool(V2, "--junit", plain)
    if os.stat(plain).st_ino == ino or "<testsuites" not in read(plain):
        errs.append("a regular file was not replaced by a rename")
    if errs:
        return errs  # /dev/null only once the code is seen to write through
    rc, _, err = tool(V2, "--junit", os.devnull, "--tap", os.devnull)
    if rc != 0 or not stat.S_ISCHR(os.stat(os.devnull).st_mode):
        errs.append(f"--junit /dev/null: status {rc} {err.strip()!r}; /dev/null "
                    f"{'still' if stat.S_ISCHR(os.stat(os.devnull).st_mode) else 'NO LONGER'}"
                    " a character device")
    return errs


def unusable_text_refused(tmp):
    """A lone surrogate, U+FFFE or U+FFFF in a string or key, or nesting too
    deep to parse: status 2 and one line naming the file, no output."""
    cases = [
        ("surrogate.json", lambda d: d["results"][0].update(detail="\ud800"),
         "field 'results[0].detail' holds U+D800"),
        ("fffe.json", lambda d: d["cpus"][0].update(brand="x\ufffe"),
         "field 'cpus[0].brand' holds U+FFFE"),
        ("ffff.json", lambda d: d["options"].update(event="\uffff"), "holds U+FFFF"),
        ("key.json", lambda d: d["crash"] is None and d.update(crash=dict(
            CRASH, registers={"r\udfff": "0x1"})) and None, "holds U+DFFF"),
        ("deep.json", lambda d: "[" * 100000 + "]" * 100000, "nested too deep"),
        ("raw.json", lambda d: json.dumps(d).replace('"detail": "', '"detail": "\\ud800', 1),
         "holds U+D800"),
    ]
    errs = []
    for name, change, want in cases:
        path = mutated(tmp, name, change)
        out = os.path.join(tmp, "out.xml")
        rc, _, err = tool(path, "--junit", out)
        if rc != BAD_INPUT or path not in err or want not in err or len(err.splitlines()) != 1:
            errs.append(f"{name}: status {rc}, message {err!r}, wanted {want!r}")
        if os.path.exists(out):
            errs.append(f"{name}: an output was written")
    return errs


def diff_other_cpu(tmp):
    """--diff of runs on different processors says so, CPU by CPU."""
    other = mutated(tmp, "amd.json", lambda d: d["cpus"][1].update(
        vendor="AuthenticAMD", family=0x19, model=0x61))
    rc, out, _ = tool("--diff", V2, other)
    lines = [l for l in out.splitlines() if l.startswith("different CPUs:")]
    if rc != CHANGED or len(lines) != 1 or not lines[0].startswith("different CPUs: cpu1 is ") \
            or "AuthenticAMD family 0x19 model 0x61" not in lines[0]:
        return [f"status {rc}, output {out!r}"]
    rc, out, _ = tool("--diff", V2, V2)
    return [] if "different CPUs" not in out else ["the same CPUs called different"]


def paths(node, prefix=()):
    """Every key path of a JSON document."""
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else []
    for k, v in items:
        yield prefix + (k,)
        yield from paths(v, prefix + (k,))


def no_crash_on_any_field(tmp):
    """Each field of the v2 fixture removed or replaced by another JSON type: the
    tool writes everything (0) or refuses by file and field (2), never a traceback.
    The v1 fixture and the v2 one with a crash record and a hypervisor cover
    every field."""
    loader = importlib.machinery.SourceFileLoader("pmuharness_report", TOOL)
    mod = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location(loader.name, TOOL, loader=loader))
    loader.exec_module(mod)
    crashed = json.loads(read(V2))
    crashed["crash"] = CRASH
    crashed["cpus"][0].update(hypervisor="Xen", hypervisor_cpuid=dict(XEN_CPUID))
    with_events = json.loads(read(EVENTS))
    doc_path = os.path.join(tmp, "m.json")
    outs = [a for k in ("markdown", "html", "junit", "tap")
            for a in (f"--{k}", os.path.join(tmp, "out." + k))]
    errs = []
    for base, path in [(b, p) for b in (json.loads(read(V1)), crashed, with_events)
                       for p in paths(b)]:
        for new in (DELETE, "x", -1, None, [], {}, True):
            doc = json.loads(json.dumps(base))
            parent = functools.reduce(lambda n, k: n[k], path[:-1], doc)
            if new is DELETE:
                del parent[path[-1]]
            else:
                parent[path[-1]] = new
            with open(doc_path, "w") as f:
                json.dump(doc, f)
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    rc = mod.main([doc_path] + outs)
            except Exception as e:  # what the tool must never do
                rc = f"{type(e).__name__}: {e}"
            if rc not in (0, BAD_INPUT) or (rc == BAD_INPUT and doc_path not in err.getvalue()):
                errs.append(f"{'.'.join(map(str, path))} = {new!r}: {rc} {err.getvalue()!r}")
    return errs[:10] + ([f"... {len(errs)} in all"] if len(errs) > 10 else [])


def crash_is_an_error(tmp):
    path = mutated(tmp, "crash.json", lambda d: d.update(verdict="ERROR", crash=CRASH))
    outs = render(tmp, [path], ("junit", "tap"))
    _, suites = junit_suites(outs["junit"])
    err = [e for e in suites[0].iter("error")]
    points = parse_tap(read(outs["tap"]))
    if len(err) != 1 or "vector 6" not in err[0].get("message"):
        return ["no JUnit error element with the vector"]
    return [] if not points[-1]["ok"] and "harness.crash" in points[-1]["name"] else \
        ["no TAP not-ok point for the crash"]


def verdict_not_green(tmp):
    """A run that measured nothing (NO PMU, NO VERDICT) or lost results
    (ERROR without a crash record) is a failed JUnit testcase and a not-ok
    TAP point named verdict, even when every check passed or skipped; a
    PASS run and a FAIL run whose failing check shows it get none."""
    errs = []
    cases = [("nopmu.json", "NO PMU", "failure"), ("noverdict.json", "NO VERDICT", "failure"),
             ("lost.json", "ERROR", "error")]
    for name, verdict, kind in cases:
        def change(d, verdict=verdict):
            d.update(verdict=verdict, verdict_reason="why " + verdict)
            d["results"] = [r for r in d["results"] if r["verdict"] != "FAIL"]
        outs = render(tmp, [mutated(tmp, name, change)], ("junit", "tap"))
        _, suites = junit_suites(outs["junit"])
        case = [c for c in suites[0].findall("testcase") if c.get("name") == "verdict"]
        el = case[0].find(kind) if case else None
        if el is None or el.get("message") != f"{verdict}: why {verdict}":
            errs.append(f"{verdict}: no JUnit testcase verdict with a {kind}")
        bad = int(suites[0].get("failures")) + int(suites[0].get("errors"))
        if bad != 1:
            errs.append(f"{verdict}: JUnit failures + errors {bad}, expected 1")
        points = parse_tap(read(outs["tap"]))
        if [p["name"].split()[-1] for p in points if not p["ok"]] != ["verdict"] or \
                points[-1]["yaml"].get("verdict") != verdict:
            errs.append(f"{verdict}: TAP not-ok points {[p for p in points if not p['ok']]}")
    for path in (V2, V2_RERUN, mutated(tmp, "crash.json",
                                        lambda d: d.update(verdict="ERROR", crash=CRASH))):
        outs = render(tmp, [path], ("junit", "tap"))
        _, suites = junit_suites(outs["junit"])
        if any(c.get("name") == "verdict" for s in suites for c in s.findall("testcase")) or \
                any(p["name"].endswith(" verdict") for p in parse_tap(read(outs["tap"]))):
            errs.append(f"{os.path.basename(path)}: a verdict case its checks already show")
    return errs


def qemu_results(tmp, efi):
    """One real boot (2 CPUs, each runs the suite) through every output."""
    esp = os.path.join(tmp, "esp")
    rc, _, _, _ = q.boot([efi, "--smp", "2", "--esp", esp,
                          "--cfg", "on_finish = qemu-exit\ncpus = all\n"])
    path = os.path.join(esp, "EFI", "BOOT", "pmuharness-001.json")
    if not os.path.exists(path):
        return [f"QEMU status {rc}: no results file"]
    doc = json.loads(read(path))
    outs = render(tmp, [path])
    _, suites = junit_suites(outs["junit"])
    errs = []
    cases = sum(len(s.findall("testcase")) for s in suites)
    failing = sum(e["result"] == "FAIL" for e in doc.get("events", []))  # a testcase each
    # a run that measured nothing (TCG: NO PMU) has a failing "verdict" case
    failing += doc["verdict"] in ("NO PMU", "NO VERDICT")
    if len(suites) != 2 or cases != len(doc["results"]) + failing:
        errs.append(f"{len(suites)} suites, {cases} testcases for {len(doc['results'])} results"
                    f" and {failing} failing events")
    _, head, rows = html_checks(outs["html"])
    if len(head) != 3 or len(rows) != len({r["id"] for r in doc["results"]}):
        errs.append(f"HTML table {len(head)} columns, {len(rows)} rows")
    if len(parse_tap(read(outs["tap"]))) != len(doc["results"]) + failing:
        errs.append("TAP points differ from the results")
    return errs


def installed_copy(tmp):
    """`make` installs the tool as build/pmuharness-report; it must be this one."""
    if not os.path.exists(INSTALLED):
        raise Skip(f"{INSTALLED} is not built (make host)")
    p = subprocess.run([INSTALLED, V1], capture_output=True, text=True)
    mods = sorted(f for f in os.listdir(HERE) if re.fullmatch(r"pmuharness_report_\w+\.py", f))
    errs = []
    for src in [TOOL] + [os.path.join(HERE, m) for m in mods]:
        dst = os.path.join(os.path.dirname(INSTALLED), os.path.basename(src))
        if not os.path.exists(dst):
            errs.append(f"{os.path.basename(src)} is not installed beside {INSTALLED} (Makefile)")
        elif read(src) != read(dst):
            errs.append(f"{os.path.basename(src)} differs from the installed copy")
    return errs + ([] if p.returncode == 0 and "**Verdict: NO PMU**" in p.stdout else
                   [f"status {p.returncode}: no Markdown on standard output"])


def chromium_loads_html(tmp):
    if not os.path.exists(CHROMIUM):
        raise Skip(f"{CHROMIUM} is not installed")
    html = render(tmp, [V1, V2], ("html",))["html"]
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                        "file://" + html], capture_output=True, text=True, timeout=60)
    dom = p.stdout
    return [] if 'id="checks"' in dom and "overflow.preload" in dom else \
        [f"chromium status {p.returncode}: no checks table in the DOM"]


def html_checklist(tmp):
    return th.html_structure(tmp, render)


def chromium_screen(tmp):
    """Set PMH_REPORT_SCREENSHOT=FILE to keep the screenshot."""
    return th.chromium_screen(tmp, render, Skip)


def main():
    efi = sys.argv[1] if len(sys.argv) > 1 else None
    cases = [help_lists_outputs, junit_per_cpu, html_table_escaped, tap_points, markdown_table,
             hypervisor_shown, v1_maps_to_v2, diff_changed, bad_input_refused, unwritable_output,
             events_markdown_html, events_junit_tap, events_input_checked,
             no_crash_on_any_field, crash_is_an_error, verdict_not_green,
             outputs_written_through, unusable_text_refused, diff_other_cpu,
             html_checklist, chromium_screen, installed_copy, chromium_loads_html,
             qemu_results]
    passed = failed = skipped = 0
    for fn in cases:
        tmp = tempfile.mkdtemp(prefix="pmh-report-")
        t0 = time.monotonic()
        try:
            if fn is qemu_results and not efi:
                raise Skip("no EFI binary given")
            errs = fn(tmp, efi) if fn is qemu_results else fn(tmp)
        except Skip as e:
            skipped += 1
            print(f"SKIP report.{fn.__name__}: {e}", flush=True)
            continue
        except Exception as e:  # a broken case is a failed case, with the reason
            errs = [f"{type(e).__name__}: {e}"]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        secs = time.monotonic() - t0
        if errs:
            failed += 1
            print(f"FAIL report.{fn.__name__} ({secs:.1f} s): " + "\n    ".join(errs), flush=True)
        else:
            passed += 1
            print(f"PASS report.{fn.__name__} ({secs:.1f} s)", flush=True)
    print(f"report: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
