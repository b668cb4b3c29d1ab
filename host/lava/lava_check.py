#!/usr/bin/python3
"""`make lava-check`: the harness's LAVA signals (output = lava) from real
runs, read with lava-dispatcher's own regular expressions, against the same
run's results: same test case ids, verdicts and measurements, one for one.

The regular expressions are not retyped here:
- the signal pattern, handle_testcase (KEY=value words) and the monitor's
  test-case-id rule are read from lava-dispatcher's sources
  (lava_dispatcher/actions/test/shell.py, TestShellAction._reset_patterns
  and handle_testcase; lava_dispatcher/actions/test/monitor.py,
  TestMonitorAction.check_patterns), from the installed package, or else
  from the Debian package extracted into build/lava-dispatcher;
- the monitor's start, end and test-case pattern from lava/qemu-uefi.yaml
  (host/lava/test_jobs.py checks that every job carries the same monitor).

Runs: the simulator (models with a PMU: checks PASS with figures) and with
all CPUs, the UEFI image under OVMF (TCG: the PMU checks SKIP) with its
results JSON, and the BIOS kernel under SeaBIOS (-kernel), which writes no
results files: its signals are checked against its own PASS/FAIL/SKIP
lines. event.semantics' case is followed by one case per row of the JSON's
"events" for its CPU, compared one for one like the results. The serial stream is read raw, as LAVA reads it: a signal twice (the
firmware's console mirror) is an extra case, and fails.
Usage: lava_check.py [build/pmuharness.efi] (the sim and kernel beside it)"""
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host", "qemu"))
import qemulib as q  # noqa: E402

NAME = "lava-check"
JOB = os.path.join(ROOT, "lava", "qemu-uefi.yaml")
SHELL_PY = os.path.join("lava_dispatcher", "actions", "test", "shell.py")
MONITOR_PY = os.path.join("lava_dispatcher", "actions", "test", "monitor.py")
EXTRACTED = os.path.join(ROOT, "build", "lava-dispatcher")
SITE = os.path.join("usr", "lib", "python3", "dist-packages")
# Characters outside LAVA's test case ids become '_' (docs/user-guide.md "Running in a LAVA lab").
NOT_ID = re.compile(r"[^A-Za-z0-9._-]")
VERDICT_LINE = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:]+)")
SIM_MODELS = ["skylake", "zen4"]
EVENT_CHECK = "event.semantics"  # its case is followed by its CPU's event rows


def dispatcher_file(rel):
    """rel in the installed lava-dispatcher, or in the Debian package
    extracted into build/ (apt-get download + dpkg-deb -x) when none is."""
    for d in sys.path + [os.path.join(EXTRACTED, SITE)]:
        p = os.path.join(d, rel)
        if os.path.exists(p):
            return p
    os.makedirs(EXTRACTED, exist_ok=True)
    subprocess.run(["apt-get", "download", "lava-dispatcher"], cwd=EXTRACTED, check=True,
                   stdout=subprocess.DEVNULL)
    deb = sorted(glob.glob(os.path.join(EXTRACTED, "lava-dispatcher_*.deb")))[-1]
    subprocess.run(["dpkg-deb", "-x", deb, EXTRACTED], check=True)
    return os.path.join(EXTRACTED, SITE, rel)


def lava_rules():
    """(signal regex, handle_testcase, monitor id rule) from lava-dispatcher."""
    shell = ast.parse(open(dispatcher_file(SHELL_PY)).read())
    signal = None
    for node in ast.walk(shell):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "signal":
                    signal = re.compile(v.value)
    fn = [n for n in shell.body if isinstance(n, ast.FunctionDef) and n.name == "handle_testcase"]
    space = {"JobError": ValueError}
    exec(compile(ast.Module(body=fn, type_ignores=[]), SHELL_PY, "exec"), space)
    mon = ast.parse(open(dispatcher_file(MONITOR_PY)).read())
    subs = [n for n in ast.walk(mon) if isinstance(n, ast.Call)
            and getattr(n.func, "attr", "") == "sub" and isinstance(n.args[0], ast.Constant)]
    rx, repl = subs[0].args[0].value, subs[0].args[1].value
    if not signal or not subs:
        raise RuntimeError("lava-dispatcher's signal pattern or id rule not found")
    return signal, space["handle_testcase"], lambda i: re.sub(rx, repl, i.strip().lower())


def monitors():
    """The monitors of the job's test action, in order (one per test set)."""
    with open(JOB) as f:
        job = yaml.safe_load(f)
    return [a["test"]["monitors"] for a in job["actions"] if "test" in a][0]


SETS = ("pmuharness", "pmuharness-identity")  # in the order a run prints them


def from_signals(text, rules):
    """The test cases LAVA's signal handling makes of text, by test set and
    in order, and the errors (a set not opened and closed once, a case
    outside a set)."""
    signal, handle, _ = rules
    cases, errs, inside, opened = {}, [], None, []
    for m in signal.finditer(text):
        name, params = m.group(1), m.group(2).split()
        if name == "TESTSET":
            inside = params[1] if params[0] == "START" else None
            opened += [inside] if inside else []
        elif name == "TESTCASE":
            d = handle(params)
            if not inside:
                errs.append(f"TESTCASE outside a test set: {m.group(0)}")
            cases.setdefault(inside, []).append((d.get("test_case_id"), d.get("result"),
                                                 d.get("measurement"), d.get("units")))
    if tuple(opened) != SETS or inside:
        errs.append(f"test sets {opened}, expected {list(SETS)} each closed")
    return cases, errs


def from_monitor(text, rules):
    """The cases the jobs' monitor actions record, by monitor, one after the
    other as monitor.py runs them: after a monitor's start string, its
    pattern up to its end string, ids as monitor.py makes them."""
    idrule, out, errs, pos = rules[2], {}, [], 0
    for mon in monitors():
        start = re.search(mon["start"], text[pos:])
        if not start:
            errs.append(f"monitor {mon['name']}: its start string never came")
            continue
        pos += start.end()
        end = re.search(mon["end"], text[pos:])
        body = text[pos:pos + end.start()] if end else text[pos:]
        pos += end.end() if end else 0
        # units: "" where the case has no measurement (the pattern's group
        # always matches: lava-server stores a case only with non-NULL units)
        out[mon["name"]] = [(idrule(m["test_case_id"]), m["result"], m["measurement"],
                             m["units"] or None) for m in re.finditer(mon["pattern"], body)]
        errs += [] if end else [f"monitor {mon['name']}: its end string never came"]
        errs += [f"monitor {mon['name']}: {m.group(0)!r}: units None, lava-server would drop "
                 "the case (NOT NULL)" for m in re.finditer(mon["pattern"], body)
                 if m["units"] is None][:3]
    return out, errs


def per_cpu_of(doc):
    cpus = doc["options"]["cpus"]
    return cpus == "all" or (isinstance(cpus, list) and len(cpus) > 1)


def case_id(raw_id, cpu, per_cpu):
    return NOT_ID.sub("_", f"{raw_id}@cpu{cpu}" if per_cpu else raw_id)


def event_cases(doc, cpu, per_cpu):
    """event.semantics' rows of one CPU as cases, in the JSON's order:
    event.NAME (a name's k-th rule on the CPU event.NAME.k), the row's
    result, what it measured in events (a SKIP measured nothing)."""
    cases, seen = [], {}
    for e in doc.get("events", []):
        if e["cpu"] != cpu:
            continue
        k = seen[e["event"]] = seen.get(e["event"], 0) + 1
        name = f"event.{e['event']}" + (f".{k}" if k > 1 else "")
        m = e["measured"]
        cases.append((case_id(name, cpu, per_cpu), e["result"].lower(),
                      None if m is None else str(m), None if m is None else "events"))
    return cases


def from_json(doc):
    """The cases the results JSON says there must be, by test set: one per
    result (event.semantics' followed by its CPU's event rows), then each
    identified CPU's identification from "cpus"."""
    per_cpu = per_cpu_of(doc)
    checks = []
    for r in doc["results"]:
        f = r["figures"]
        checks.append((case_id(r["id"], r["cpu"], per_cpu), r["verdict"].lower(),
                       str(f["median"]) if f else None, f["unit"] if f else None))
        if r["id"] == EVENT_CHECK:
            checks += event_cases(doc, r["cpu"], per_cpu)
    # the run's end (tests/report_lava.c lava_end): the verdict, pass only
    # for PASS, and a crash as a failed case
    checks.append(verdict_case(doc["verdict"]))
    if doc.get("crash"):
        checks.append(CRASH_CASE)
    ident = []
    for c in doc["cpus"]:
        if c["pmu"] is None:
            continue
        p, n = c["pmu"], c["cpu"]

        def named(key, word):
            ident.append((case_id(f"{key}.{word}", n, per_cpu), "pass", None, None))

        def number(key, v, unit, result="pass"):
            ident.append((case_id(key, n, per_cpu), result, str(v), unit))

        named("cpu.vendor", c["vendor"])
        for k in ("family", "model", "stepping"):
            number(f"cpu.{k}", c[k], "number")
        if c["hypervisor"] is not None:
            named("cpu.hypervisor", c["hypervisor"])
        named("pmu.driver", p["driver"])
        ident.append((case_id("pmu.status", n, per_cpu),
                      "pass" if p["status"] == "functional" else "skip", None, None))
        number("pmu.version", p["version"], "version")
        for k, unit in (("gp_counters", "counters"), ("gp_width", "bits"),
                        ("fixed_counters", "counters"), ("fixed_width", "bits")):
            number(f"pmu.{k}", p[k], unit)
    return {SETS[0]: checks, SETS[1]: ident}


def compare(what, got, want):
    errs = []
    if got != want:
        extra = [c for c in got if c not in want]
        missing = [c for c in want if c not in got]
        errs.append(f"{what}: {len(got)} cases, expected {len(want)}; extra {extra[:3]}, "
                    f"missing {missing[:3]}" if extra or missing or len(got) != len(want)
                    else f"{what}: same cases in another order")
    return errs


def check(text, want, rules):
    """Signals and monitors against the expected cases of each test set
    (want: set -> cases; a set given as None is only required to be there);
    errors."""
    got, errs = from_signals(text, rules)
    mon, merrs = from_monitor(text, rules)
    for name in SETS:
        if want.get(name) is None:
            errs += [] if got.get(name) else [f"no cases in test set {name}"]
            continue
        errs += compare(f"signals {name}", got.get(name, []), want[name])
        mwant = [(rules[2](i), v, m, u) for i, v, m, u in want[name]]
        errs += compare(f"monitor {name}", mon.get(name, []), mwant)
    return errs + merrs


def sim_run(sim, model, extra=()):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        p = subprocess.run([sim, "--cpu", model, "--json", f.name, "output=lava", *extra],
                           capture_output=True, text=True, timeout=q.LIMIT_S)
        return p.stdout, json.load(open(f.name))


def uefi_run(efi):
    """(raw COM1 text, results JSON) of a TCG boot under OVMF, two CPUs."""
    d = tempfile.mkdtemp(prefix="pmh-lava-")
    try:
        serial, esp = os.path.join(d, "serial.log"), os.path.join(d, "esp")
        subprocess.run([q.BOOT, efi, "--smp", "2", "--esp", esp, "--serial", serial,
                        "--cfg", "on_finish = qemu-exit\noutput = lava\ncpus = all\n",
                        "--timeout", str(q.LIMIT_S)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=q.ENV)
        raw = open(serial, "rb").read().decode("ascii", "replace")
        jsons = sorted(glob.glob(os.path.join(esp, "EFI", "BOOT", "pmuharness-*.json")))
        return raw, json.load(open(jsons[-1]))
    finally:
        shutil.rmtree(d, ignore_errors=True)


CRASH_CASE = ("harness.crash", "fail", None, None)  # after the verdict's
VERDICT_OF = re.compile(r"^verdict: (PASS|FAIL|ERROR|NO PMU|NO VERDICT)\b")


def verdict_case(verdict):
    """The run's verdict as tests/report_lava.c lava_end signals it: pass
    only for PASS (a vPMU that went away fails the lab's job as a FAIL does)."""
    return ("verdict", "pass" if verdict == "PASS" else "fail", None, None)


def line_cases(lines, default=None):
    """(the checks' set's cases, the verdict) from a run's own lines: a case
    per result line, the verdict's from its "verdict:" line (default where
    there is none; None: no verdict case), a crash's after it."""
    checks = [(NOT_ID.sub("_", m[2]), m[1].lower(), None, None)
              for m in map(VERDICT_LINE.match, lines) if m]
    verdict = next((m.group(1) for m in map(VERDICT_OF.match, lines) if m), default)
    if verdict:
        checks.append(verdict_case(verdict))
    if any(l.startswith("crash: ") for l in lines):
        checks.append(CRASH_CASE)
    return checks, verdict


def bios_run(kernel):
    """(raw COM1 text, cases from its own verdict lines) of a -kernel boot."""
    d = tempfile.mkdtemp(prefix="pmh-lava-")
    try:
        serial = os.path.join(d, "serial.log")
        subprocess.run([os.path.join(ROOT, "scripts", "bios-boot.sh"), kernel, "--cfg", "none",
                        "--append", "on_finish=qemu-exit output=lava", "--serial", serial,
                        "--timeout", str(q.LIMIT_S)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        raw = open(serial, "rb").read().decode("ascii", "replace")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    lines = q.plain(raw)
    checks, _ = line_cases(lines)
    driver = [l.split(": ", 1)[1] for l in lines if l.startswith("pmu.driver: ")]
    return raw, {SETS[0]: checks, SETS[1]: None, "driver": driver[:1]}


def main():
    efi = q.efi_arg()
    build = os.path.dirname(os.path.abspath(efi))
    sim = os.path.join(build, "host", "pmuharness-sim-fast")
    rules = lava_rules()
    t = q.Tally(NAME)

    def sim_model(model, extra=()):
        text, doc = sim_run(sim, model, extra)
        want = from_json(doc)
        errs = check(text, want, rules)
        if not any(c[1] == "pass" and c[2] is not None for c in want[SETS[0]]):
            errs.append(f"{model}: no PASS with a measurement: nothing exercised")
        return errs

    def sim_skylake():
        return sim_model("skylake")

    def sim_zen4():
        return sim_model("zen4")

    def sim_all_cpus():
        errs = sim_model("alderlake", ["cpus=all"])
        return errs

    def qemu_uefi():
        raw, doc = uefi_run(efi)
        want = from_json(doc)
        errs = check(raw, want, rules)
        ids = [c[0] for w in want.values() for c in w]
        if len(set(ids)) != len(ids) or not want[SETS[0]] or not want[SETS[1]]:
            errs.append(f"{len(ids)} cases from the JSON, ids not unique or a set empty")
        return errs

    def qemu_bios():
        raw, want = bios_run(q.kernel_of(efi))
        errs = check(raw, want, rules) + ([] if want[SETS[0]] else ["no verdict lines"])
        got, _ = from_signals(raw, rules)
        drv = [c[0] for c in got.get(SETS[1], []) if c[0].startswith("pmu.driver.")]
        if drv != [f"pmu.driver.{d}" for d in want["driver"]] or not drv:
            errs.append(f"identity set says {drv}, the pmu.driver line {want['driver']}")
        return errs

    def broken_stream():
        """The comparison fails on a dropped, a doubled and a changed case."""
        text, doc = sim_run(sim, "skylake")
        want = from_json(doc)
        lines = text.splitlines(keepends=True)
        tc = [i for i, l in enumerate(lines) if "LAVA_SIGNAL_TESTCASE" in l]
        bad = {"dropped": lines[:tc[0]] + lines[tc[0] + 1:],
               "doubled": lines[:tc[0]] + [lines[tc[0]]] + lines[tc[0]:],
               "changed": [l.replace("RESULT=pass", "RESULT=fail", 1) for l in lines],
               "identity changed": [l.replace("gp_width RESULT=pass MEASUREMENT=48",
                                              "gp_width RESULT=pass MEASUREMENT=47")
                                    for l in lines]}
        if not any("gp_width RESULT=pass MEASUREMENT=48" in l for l in lines):
            return ["skylake's identity set has no gp_width of 48 to change"]
        return [f"{k}: not noticed" for k, v in bad.items() if not check("".join(v), want, rules)]

    def broken_event_stream():
        """The event rows are compared one for one: a stream with an event
        case dropped, doubled or changed fails. The skylake run's own rows
        where it has some; always a run given an event.semantics case and
        three rows (a pass, a fail, a skip) in the emitter's syntax (its cmocka test
        pins the syntax), so the comparison is proven before any CPU has
        rows."""
        text, doc = sim_run(sim, "skylake")
        real = [i for i, l in enumerate(text.splitlines()) if "TEST_CASE_ID=event." in l
                and f"TEST_CASE_ID={EVENT_CHECK}" not in l]
        doc2 = json.loads(json.dumps(doc))
        # a CPU of their own (7), so that the run's own rows stay as they are
        doc2["results"].append({"id": EVENT_CHECK, "cpu": 7, "verdict": "FAIL",
                                "detail": "1 of 2 events counted wrong", "figures": None})
        row = {"cpu": 7, "table": "t", "encoding": "event=0xc0", "counter": "gp0",
               "workload": "loop", "footprint": None, "iterations": 1000, "rule": "exact",
               "expected": {"min": 1000, "max": 1000}, "note": None, "source": None}
        doc2["events"] = doc.get("events", []) + [
            dict(row, event="SYN_PASS", measured=1000, result="PASS"),
            dict(row, event="SYN_FAIL", measured=-3, result="FAIL"),
            dict(row, event="SYN_SKIP", measured=None, result="SKIP")]
        per = "_cpu7" if per_cpu_of(doc) else ""
        added = [f"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID={EVENT_CHECK}{per} RESULT=fail>\n",
                 f"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.SYN_PASS{per} RESULT=pass "
                 "MEASUREMENT=1000 UNITS=events>\n",
                 f"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.SYN_FAIL{per} RESULT=fail "
                 "MEASUREMENT=-3 UNITS=events>\n",
                 f"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.SYN_SKIP{per} RESULT=skip>\n"]
        lines = text.splitlines(keepends=True)
        # before the checks' set's end: its verdict case, then its STOP
        stop = [i for i, l in enumerate(lines) if "TEST_CASE_ID=verdict " in l][0]
        good = lines[:stop] + added + lines[stop:]
        errs = [f"synthetic rows: {e}" for e in check("".join(good), from_json(doc2), rules)]
        tc = stop + 2  # the failing row's case
        bad = {"dropped": good[:tc] + good[tc + 1:], "doubled": good[:tc] + [good[tc]] + good[tc:],
               "changed": good[:tc] + [good[tc].replace("=-3", "=-4")] + good[tc + 1:],
               "skip measured": good[:tc + 1] + [good[tc + 1].replace(
                   "RESULT=skip>", "RESULT=skip MEASUREMENT=0 UNITS=events>")] + good[tc + 2:]}
        if real:  # the skylake run's own first event case dropped
            bad["real row dropped"] = lines[:real[0]] + lines[real[0] + 1:]
        return errs + [f"{k}: not noticed" for k, v in bad.items()
                       if not check("".join(v), from_json(doc2 if k != "real row dropped"
                                                          else doc), rules)]

    def unit_lines():
        """Every signal the emitter's unit test prints is one whole LAVA
        signal whose KEY=value words handle_testcase takes (the verdict lines
        of its suite run between them are not signals)."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "lines")
            subprocess.run([os.path.join(build, "host", "unit", "test_report_lava")],
                           env=dict(os.environ, PMH_LAVA_LINES=out), check=True,
                           capture_output=True)
            lines = [l for l in open(out).read().splitlines() if not VERDICT_LINE.match(l)]
        errs = [f"not a whole signal: {l!r}" for l in lines if not rules[0].fullmatch(l)]
        for l in lines:
            m = rules[0].fullmatch(l)
            if m and m.group(1) == "TESTCASE":
                rules[1](m.group(2).split())  # raises on a malformed word
        return errs + ([] if len(lines) > 20 else [f"only {len(lines)} lines"])

    for case in (unit_lines, sim_skylake, sim_zen4, sim_all_cpus, broken_stream,
                 broken_event_stream, qemu_uefi, qemu_bios):
        t.case(case)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
