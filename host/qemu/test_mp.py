#!/usr/bin/env python3
"""Per-CPU runs through the firmware's MP Services: Skylake-Client with
-smp 4 under TCG, one host thread per vCPU (--mttcg), so that the CPUs of
a parallel run really run at once. With cpus = all (every CPU at once)
every apic.* check and idt.restore PASS on cpu0..cpu3, the lines come in
CPU order, one cpu.N.verdict line per CPU agrees with that CPU's check
lines, and the closing line and the JSON results (every result of every
CPU, in CPU order, with cpu numbers) agree; cpus = serial (one CPU after
another) gives the same results; two parallel runs and a serial one from
the UEFI shell in one boot leave the shell working; cpus = 0,7 warns
about CPU 7 and runs cpu0 only; without the option only the boot CPU
runs, with plain ids; an exception on an AP is that CPU's FAIL and the
other CPU still runs.
Usage: test_mp.py build/pmuharness.efi"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "mp"
CPU = "Skylake-Client"
SMP = 4
# the checks that need no PMU: they must PASS on every CPU under TCG
REQUIRED = ["apic.lvt-pc", "apic.self-ipi", "apic.nmi", "idt.restore", "ring3.entry"]
CHECK = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:@]+)(@cpu(\d+))?(:| |$)")
VERDICT_LINE = re.compile(r"^cpu\.(\d+)\.verdict: (PASS|FAIL|NO PMU|NO VERDICT) "
                          r"\((\d+) passed, (\d+) failed, (\d+) skipped\)$")


def run(extra_cfg, smp=SMP, keep=None):
    """Boots with the cfg; returns (rc, lines, JSON document or None); keep:
    a path the JSON file is copied to."""
    d = tempfile.mkdtemp(prefix="pmh-mp-")
    esp = os.path.join(d, "esp")
    serial = os.path.join(d, "serial.log")
    try:
        p = subprocess.run([q.BOOT, EFI, "--cpu", CPU, "--smp", str(smp), "--mttcg", "--esp", esp,
                            "--cfg", "on_finish = qemu-exit\n" + extra_cfg, "--serial", serial,
                            "--timeout", str(q.LIMIT_S)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(q.ENV, TMPDIR=d))
        raw = open(serial, "rb").read() if os.path.exists(serial) else b""
        boot_dir = os.path.join(esp, "EFI", "BOOT")
        jsons = sorted(f for f in os.listdir(boot_dir) if f.endswith(".json")) \
            if os.path.isdir(boot_dir) else []
        doc = json.load(open(os.path.join(boot_dir, jsons[-1]))) if jsons else None
        if keep and jsons:
            shutil.copy(os.path.join(boot_dir, jsons[-1]), keep)
        return p.returncode, q.plain(raw), doc
    finally:
        shutil.rmtree(d, ignore_errors=True)


def checks(lines):
    """(verdict, id, cpu or None) for every check line."""
    out = []
    for l in lines:
        m = re.match(r"^FAIL cpu\.(\d+): ", l)  # a CPU's run that failed as a whole
        if m:
            out.append(("FAIL", "cpu.run", int(m.group(1))))
            continue
        m = CHECK.match(l)
        if m:
            out.append((m.group(1), m.group(2), int(m.group(4)) if m.group(4) else None))
    return out


def common(rc, lines):
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (verdict NO PMU under TCG)")
    errs += [f"unexpected {l}" for l in lines if l.startswith("FAIL ")]
    c = q.closing(lines)
    if c is None:
        errs.append("no single closing line")
    elif c != q.counted(lines):
        errs.append(f"closing line says {c}, check lines count {q.counted(lines)}")
    return errs, c


def per_cpu_run(cfg):
    """One run of every CPU (cpus = all or serial): the checks that need no
    PMU PASS on each, the lines in CPU order, a verdict line per CPU that
    agrees with its lines and the JSON. Returns (errors, JSON results as
    sorted (id, cpu, verdict))."""
    rc, lines, doc = run(cfg)
    errs, c = common(rc, lines)
    got = checks(lines)
    cpus = list(range(SMP))
    for cpu in cpus:
        for cid in REQUIRED:
            v = [x[0] for x in got if x[1] == cid and x[2] == cpu]
            if v != ["PASS"]:
                errs.append(f"{cid}@cpu{cpu}: {v}, expected one PASS")
    if any(x[2] is None for x in got):
        errs.append("a check line without @cpuN in a per-CPU run")
    order = [x[2] for x in got if x[2] is not None]
    if order != sorted(order):
        errs.append("check lines not in CPU order")
    # each AP's identity (the boot CPU's may be there too: its own APIC)
    ident = [re.match(r"^cpu\.(\d+)\.identity: apic\.id (0x[0-9a-f]+)", l) for l in lines]
    ids = {int(m.group(1)): m.group(2) for m in ident if m}
    aps = {k: v for k, v in ids.items() if k != 0}
    if sorted(aps) != cpus[1:] or len(set(aps.values())) != SMP - 1 or "0x0" in aps.values() \
            or ids.get(0, "0x0") != "0x0":
        errs.append(f"identity lines {ids}, expected distinct non-zero APIC IDs for 1..3")
    # each AP's own IDTR (not the BSP's, not ours) is back after its run
    idtr = [re.match(r"^cpu\.(\d+)\.idtr: (0x[0-9a-f]+/0x[0-9a-f]+) before and after the run$",
                     l) for l in lines]
    idtr = [int(m.group(1)) for m in idtr if m]
    if idtr != cpus[1:]:
        errs.append(f"IDTR-restored lines for {idtr}, expected 1..3")
    verdicts = [VERDICT_LINE.match(l) for l in lines]
    verdicts = [m for m in verdicts if m]
    if [int(m.group(1)) for m in verdicts] != cpus:
        errs.append(f"verdict lines for {[m.group(1) for m in verdicts]}, expected 0..3")
    tot = [0, 0, 0]
    for m in verdicts:
        cpu, word = int(m.group(1)), m.group(2)
        n = tuple(int(m.group(k)) for k in (3, 4, 5))
        mine = tuple(sum(1 for x in got if x[2] == cpu and x[0] == v)
                     for v in ("PASS", "FAIL", "SKIP"))
        if n != mine:
            errs.append(f"cpu.{cpu}.verdict counts {n}, its check lines count {mine}")
        if word != "NO PMU":  # TCG: the APIC checks pass, the PMU cannot be measured
            errs.append(f"cpu.{cpu}.verdict {word}, expected NO PMU")
        tot = [a + b for a, b in zip(tot, n)]
    if c and tuple(tot) != c:
        errs.append(f"per-CPU verdicts add up to {tuple(tot)}, closing line says {c}")
    if doc is None:
        errs.append("no results JSON on the boot volume")
        return errs, []
    res = doc["results"]
    if sorted({r["cpu"] for r in res}) != cpus:
        errs.append(f"JSON results carry cpus {sorted({r['cpu'] for r in res})}")
    if [r["cpu"] for r in res] != sorted(r["cpu"] for r in res):
        errs.append("JSON results not in CPU order")
    if c and len(res) != sum(c):
        errs.append(f"{len(res)} JSON results, the closing line counts {sum(c)}")
    ids0 = sorted(r["id"] for r in res if r["cpu"] == 0)
    for cpu in cpus[1:]:
        if sorted(r["id"] for r in res if r["cpu"] == cpu) != ids0:
            errs.append(f"JSON results of cpu {cpu} are not the checks cpu 0 ran")
    s = doc["summary"]
    if c and (s["passed"], s["failed"], s["skipped"]) != c:
        errs.append(f"JSON summary {s} differs from the closing line {c}")
    for cpu in cpus:
        for cid in REQUIRED:
            v = [r["verdict"] for r in res if r["id"] == cid and r["cpu"] == cpu]
            if v != ["PASS"]:
                errs.append(f"JSON {cid} cpu {cpu}: {v}, expected one PASS")
    return errs, sorted((r["id"], r["cpu"], r["verdict"]) for r in res)


PARALLEL: list = []  # all_cpus' results, for serial_same


def all_cpus():
    errs, res = per_cpu_run("cpus = all\n")
    PARALLEL[:] = res
    return errs


def serial_same():
    """cpus = serial: the same checks, one CPU after another, and the same
    results as every CPU at once."""
    errs, res = per_cpu_run("cpus = serial\n")
    if PARALLEL and res and res != PARALLEL:
        diff = sorted(set(res) ^ set(PARALLEL))[:6]
        errs.append(f"results differ from cpus = all's: {diff}")
    return errs


def list_with_unknown():
    rc, lines, doc = run("cpus = 0,7\n")
    errs, c = common(rc, lines)
    warn = [l for l in lines if l.startswith("warning:") and "CPU 7" in l]
    if len(warn) != 1:
        errs.append(f"{len(warn)} warning lines about CPU 7, expected 1")
    got = checks(lines)
    if not got or {x[2] for x in got} != {0}:
        errs.append(f"check lines ran on {sorted({str(x[2]) for x in got})}, expected cpu0 only")
    for cid in REQUIRED:
        if ("PASS", cid, 0) not in got:
            errs.append(f"no PASS {cid}@cpu0")
    verdicts = [l for l in lines if VERDICT_LINE.match(l)]
    if len(verdicts) != 1 or not verdicts[0].startswith("cpu.0.verdict: NO PMU"):
        errs.append(f"verdict lines {verdicts}, expected cpu.0 NO PMU only")
    if doc is None or {r["cpu"] for r in doc["results"]} != {0}:
        errs.append("JSON results not all on cpu 0")
    return errs


def ap_exception_recovered():
    """An unexpected #UD on an AP (the test trigger) is reported, counted as
    that CPU's FAIL, and the other CPU still runs (both at once, the boot
    CPU waiting)."""
    rc, lines, doc = run("cpus = 1,2\nchecks = apic.fatal-trigger,apic.nmi\n")
    errs = []
    if rc != 3:
        errs.append(f"QEMU exit status {rc}, expected 3 (debug-exit value 1: failures)")
    for cpu in (1, 2):
        want = [f"PASS apic.nmi@cpu{cpu}",
                f"FAIL cpu.{cpu}: the run stopped after an unexpected exception"]
        for w in want:
            if not any(l.startswith(w) for l in lines):
                errs.append(f"no line {w!r}")
        if f"cpu.{cpu}.verdict: FAIL (1 passed, 1 failed, 0 skipped)" not in lines:
            errs.append(f"cpu.{cpu}.verdict is not FAIL (1 passed, 1 failed, 0 skipped)")
    if sum(1 for l in lines if l.startswith("fatal: unexpected exception vector 6")) != 2:
        errs.append("expected one #UD report per AP")
    if q.closing(lines) != (2, 2, 0):
        errs.append(f"closing line {q.closing(lines)}, expected (2, 2, 0)")
    if doc is None or sorted((r["id"], r["cpu"], r["verdict"]) for r in doc["results"]) != [
            ("apic.nmi", 1, "PASS"), ("apic.nmi", 2, "PASS"),
            ("cpu.run", 1, "FAIL"), ("cpu.run", 2, "FAIL")]:
        errs.append("JSON results are not apic.nmi PASS and cpu.run FAIL on cpus 1 and 2")
    return errs


def smt_threads_in_waves():
    """-smp 4,threads=2 (two cores of two threads; OVMF's GetProcessorInfo
    gives each its thread): the run says it starts a core's threads one at
    a time, in 2 waves, and its results are those of four single-thread
    CPUs at once."""
    rc, lines, doc = run("cpus = all\n", smp="4,threads=2")
    errs, _ = common(rc, lines)
    want = "cpus: 4 CPUs at once, a core's threads one at a time (2 waves)"
    if not any(l.startswith(want) for l in lines):
        errs.append(f"no line {want!r}")
    res = sorted((r["id"], r["cpu"], r["verdict"]) for r in doc["results"]) if doc else []
    if PARALLEL and res != PARALLEL:
        errs.append(f"results differ from all_cpus': {sorted(set(res) ^ set(PARALLEL))[:6]}")
    return errs


def boot_cpu_exception_recovered():
    """Every CPU at once with the test trigger: the boot CPU's #UD ends its
    share as an AP's does (its FAIL, its crash record), the platform's
    recovery comes back, and the AP's run and the next check go on."""
    rc, lines, doc = run("cpus = all\nchecks = apic.fatal-trigger,apic.nmi\n", smp=2)
    errs = []
    if rc != 3:
        errs.append(f"QEMU exit status {rc}, expected 3 (debug-exit value 1: failures)")
    for cpu in (0, 1):
        for w in (f"PASS apic.nmi@cpu{cpu}",
                  f"FAIL cpu.{cpu}: the run stopped after an unexpected exception"):
            if not any(l.startswith(w) for l in lines):
                errs.append(f"no line {w!r}")
    if doc is None or doc["crash"] is None or doc["crash"]["check"] != "apic.fatal-trigger":
        errs.append("no crash record naming apic.fatal-trigger in the JSON")
    if q.closing(lines) != (2, 2, 0):
        errs.append(f"closing line {q.closing(lines)}, expected (2, 2, 0)")
    return errs


def parallel_twice_from_shell():
    """Two runs of every CPU at once, then one after another, in one boot
    from the UEFI shell (on_finish = return): each ends with its verdict
    lines, and the shell runs on after them (what a run leaves on the APs,
    their IDT, stacks and state, does not break the next one)."""
    d = tempfile.mkdtemp(prefix="pmh-mp-shell-")
    esp, serial = os.path.join(d, "esp"), os.path.join(d, "serial.log")
    os.mkdir(esp)
    shutil.copy(EFI, os.path.join(esp, "pmuharness.efi"))
    with open(os.path.join(esp, "pmuharness.cfg"), "w") as f:
        f.write("on_finish = return\ncpus = all\n")
    with open(os.path.join(esp, "startup.nsh"), "w", newline="") as f:
        f.write("\r\n".join(["@echo -off", "fs0:", "\\pmuharness.efi", "\\pmuharness.efi",
                             "\\pmuharness.efi cpus=serial", "set M ALIVE",
                             "echo SHELL-STILL-%M%", "reset -s", ""]))
    try:
        subprocess.run([q.BOOT, EFI, "--prepared", "--esp", esp, "--cpu", CPU, "--smp", str(SMP),
                        "--mttcg", "--serial", serial, "--timeout", str(q.LIMIT_S)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(q.ENV, TMPDIR=d))
        raw = open(serial, "rb").read() if os.path.exists(serial) else b""
    finally:
        shutil.rmtree(d, ignore_errors=True)
    lines = q.plain(raw)
    errs = [f"unexpected {l}" for l in lines if l.startswith(("FAIL ", "fatal", "error"))]
    verdicts = [int(m.group(1)) for m in map(VERDICT_LINE.match, lines) if m]
    if verdicts != list(range(SMP)) * 3:
        errs.append(f"verdict lines for {verdicts}, expected 0..3 three times")
    if "SHELL-STILL-ALIVE" not in raw.decode("ascii", "replace"):
        errs.append("the shell did not run on after the three runs")
    return errs


REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report",
                      "pmuharness-report")
LAVA_CASE = re.compile(r"^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(\S+) RESULT=(\w+)")


def sixty_four_cpus():
    """64 CPUs at once with output = lava: every result of every CPU in the
    JSON (the same checks on each), one LAVA test case per result of the
    checks' set, one JUnit test case per result from the report tool, and
    the closing line's counts (what the screen's end shows) the JSON's."""
    smp = 64
    d = tempfile.mkdtemp(prefix="pmh-mp-64-")
    try:
        keep = os.path.join(d, "run.json")
        rc, lines, doc = run("cpus = all\noutput = lava\n", smp=smp, keep=keep)
        errs, c = common(rc, lines)
        if doc is None:
            return errs + ["no results JSON on the boot volume"]
        res = doc["results"]
        per = {cpu: sorted(r["id"] for r in res if r["cpu"] == cpu) for cpu in range(smp)}
        if any(per[cpu] != per[0] or not per[0] for cpu in per) or len(res) != smp * len(per[0]):
            errs.append(f"{len(res)} JSON results, not {len(per[0])} on each of {smp} CPUs")
        if c and (sum(c), c) != (len(res), (doc["summary"]["passed"], doc["summary"]["failed"],
                                            doc["summary"]["skipped"])):
            errs.append(f"closing line {c}, JSON {len(res)} results, summary {doc['summary']}")
        # the checks' set only: the identity set follows its STOP
        stop = next((i for i, l in enumerate(lines) if l.startswith(
            "<LAVA_SIGNAL_TESTSET STOP")), len(lines))
        # and the run's verdict, a case of its own before the STOP
        cases = [m for m in map(LAVA_CASE.match, lines[:stop]) if m]
        if len(cases) != len(res) + 1:
            errs.append(f"{len(cases)} LAVA test cases, {len(res)} JSON results and the "
                        "verdict")
        junit = os.path.join(d, "run.xml")
        subprocess.run([REPORT, "--junit", junit, keep], check=True,
                       stdout=subprocess.DEVNULL)
        n = open(junit).read().count("<testcase ")
        if n < len(res):
            errs.append(f"{n} JUnit test cases for {len(res)} results")
        return errs
    finally:
        shutil.rmtree(d, ignore_errors=True)


def default_boot_cpu_only():
    rc, lines, doc = run("")
    errs, c = common(rc, lines)
    got = checks(lines)
    if not got or any(x[2] is not None for x in got):
        errs.append("expected plain check ids (boot CPU only) without a cpus option")
    if any(VERDICT_LINE.match(l) or ".identity:" in l for l in lines):
        errs.append("per-CPU lines without a cpus option")
    if c and c[0] != len(REQUIRED):
        errs.append(f"{c[0]} passed, expected {len(REQUIRED)} (one CPU)")
    return errs


def main():
    global EFI
    EFI = sys.argv[1]
    t = q.Tally(NAME)
    for case in (all_cpus, serial_same, list_with_unknown, ap_exception_recovered,
                 smt_threads_in_waves, boot_cpu_exception_recovered,
                 parallel_twice_from_shell, sixty_four_cpus, default_boot_cpu_only):
        t.case(case)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
