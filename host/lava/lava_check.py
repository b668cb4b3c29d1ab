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
lines. The serial stream is read raw, as LAVA reads it: a signal twice (the
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
# Characters outside LAVA's test case ids become '_' (README, output = lava).
NOT_ID = re.compile(r"[^A-Za-z0-9._-]")
VERDICT_LINE = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:]+)")
SIM_MODELS = ["skylake", "zen4"]


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


def monitor():
    with open(JOB) as f:
        job = yaml.safe_load(f)
    return [a["test"]["monitors"][0] for a in job["actions"] if "test" in a][0]


def from_signals(text, rules):
    """The test cases LAVA's signal handling makes of text, in order, and
    the errors (a test set not opened and closed once, a case outside it)."""
    signal, handle, _ = rules
    cases, errs, inside, sets = [], [], False, 0
    for m in signal.finditer(text):
        name, params = m.group(1), m.group(2).split()
        if name == "TESTSET":
            inside = params[0] == "START"
            sets += inside
        elif name == "TESTCASE":
            d = handle(params)
            if not inside:
                errs.append(f"TESTCASE outside the test set: {m.group(0)}")
            cases.append((d.get("test_case_id"), d.get("result"),
                          d.get("measurement"), d.get("units")))
    if sets != 1 or inside:
        errs.append(f"{sets} test sets opened, last one {'open' if inside else 'closed'}")
    return cases, errs


def from_monitor(text, rules):
    """The cases the jobs' monitor action records: after its start string,
    its pattern up to its end string, ids as monitor.py makes them."""
    mon, idrule = monitor(), rules[2]
    start = re.search(mon["start"], text)
    if not start:
        return [], ["the monitor's start string never came"]
    end = re.search(mon["end"], text[start.end():])
    body = text[start.end():start.end() + end.start()] if end else text[start.end():]
    cases = [(idrule(m["test_case_id"]), m["result"], m["measurement"], m["units"])
             for m in re.finditer(mon["pattern"], body)]
    return cases, [] if end else ["the monitor's end string never came"]


def from_json(doc):
    """The cases the results JSON says there must be."""
    cpus = doc["options"]["cpus"]
    per_cpu = cpus == "all" or (isinstance(cpus, list) and len(cpus) > 1)
    out = []
    for r in doc["results"]:
        raw = f"{r['id']}@cpu{r['cpu']}" if per_cpu else r["id"]
        f = r["figures"]
        out.append((NOT_ID.sub("_", raw), r["verdict"].lower(),
                    str(f["median"]) if f else None, f["unit"] if f else None))
    return out


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
    """Signals and monitor against the expected cases; errors."""
    got, errs = from_signals(text, rules)
    errs += compare("signals", got, want)
    mon, merrs = from_monitor(text, rules)
    mwant = [(rules[2](i), v, m, u) for i, v, m, u in want]
    return errs + merrs + compare("monitor", mon, mwant)


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
    want = [(NOT_ID.sub("_", m[2]), m[1].lower(), None, None)
            for m in map(VERDICT_LINE.match, q.plain(raw)) if m]
    return raw, want


def main():
    efi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "pmuharness.efi")
    build = os.path.dirname(os.path.abspath(efi))
    sim = os.path.join(build, "host", "pmuharness-sim-fast")
    rules = lava_rules()
    t = q.Tally(NAME)

    def sim_model(model, extra=()):
        text, doc = sim_run(sim, model, extra)
        want = from_json(doc)
        errs = check(text, want, rules)
        if not any(c[1] == "pass" and c[2] is not None for c in want):
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
        if len({c[0] for c in want}) != len(want) or not want:
            errs.append(f"{len(want)} results in the JSON, ids not unique or none")
        return errs

    def qemu_bios():
        raw, want = bios_run(os.path.join(build, "pmuharness-i686.elf"))
        return check(raw, want, rules) + ([] if want else ["no verdict lines"])

    def broken_stream():
        """The comparison fails on a dropped, a doubled and a changed case."""
        text, doc = sim_run(sim, "skylake")
        want = from_json(doc)
        lines = text.splitlines(keepends=True)
        tc = [i for i, l in enumerate(lines) if "LAVA_SIGNAL_TESTCASE" in l]
        bad = {"dropped": lines[:tc[0]] + lines[tc[0] + 1:],
               "doubled": lines[:tc[0]] + [lines[tc[0]]] + lines[tc[0]:],
               "changed": [l.replace("RESULT=pass", "RESULT=fail", 1) for l in lines]}
        return [f"{k}: not noticed" for k, v in bad.items() if not check("".join(v), want, rules)]

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

    for case in (unit_lines, sim_skylake, sim_zen4, sim_all_cpus, broken_stream, qemu_uefi, qemu_bios):
        t.case(case)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
