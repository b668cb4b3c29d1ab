#!/usr/bin/env python3
"""QEMU+OVMF boot matrix: boots the harness under TCG with each CPU identity and
asserts identification, the verdict, the exit status and the results files;
then the report tool turns the matrix's results files into JUnit XML and
HTML that parse, with a testsuite per CPU that ran and a testcase per check."""
import shutil
import xml.etree.ElementTree as ET
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BOOT = os.path.join(HERE, "..", "..", "scripts", "qemu-boot.sh")
REPORT = os.path.join(HERE, "..", "report", "pmuharness-report")
COLLECTED = tempfile.mkdtemp(prefix="pmh-matrix-")  # each boot's JSON, for the report

# (qemu -cpu, smp, vendor, display family, expected pmu.driver). The drivers
# follow Linux's driver choice (init_hw_perf_events, intel_pmu_init) applied
# to what QEMU's TCG exposes:
# it hides CPUID.0AH (so Skylake-Client has no arch perfmon) and the AMD core
# extension (so EPYC and Opteron_G5 are amd-legacy).
MATRIX = [
    ("Skylake-Client", 1, "Intel", 0x6, "none"),
    ("EPYC", 1, "AMD", 0x17, "amd-legacy"),
    ("Opteron_G1", 1, "AMD", 0xF, "amd-legacy"),
    ("Opteron_G5", 1, "AMD", 0x15, "amd-legacy"),
    ("athlon,+lm", 1, "AMD", 0x6, "amd-legacy"),
    ("pentium3,+lm", 1, "Intel", 0x6, "intel-p6"),
    ("qemu64,vendor=GenuineIntel,family=15,model=2", 1, "Intel", 0xF, "intel-netburst"),
    ("qemu64,vendor=GenuineIntel,family=11,model=1", 1, "Intel", 0xB, "intel-knc"),
    ("max", 1, "AMD", 0xF, "amd-legacy"),
    ("Skylake-Client", 4, "Intel", 0x6, "none"),
]

# Checks that must PASS under TCG on every identity (the interrupt plumbing
# does not need a PMU). Extended as checks land.
# Each id (or glob: at least one match) must PASS; apic.fatal-trigger is a
# test trigger that runs only when named, so the interrupt checks are named.
REQUIRED_PASS = [p for p in os.environ.get(
    "PMH_REQUIRED_PASS", "apic.lvt-pc,apic.self-ipi,apic.nmi,idt.restore").split(",") if p]
LIMIT_S = 60

LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+?)(:| |$)")
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")


def plain_lines(path):
    """Our own COM1 lines: the firmware's console mirror carries escape codes."""
    with open(path, "rb") as f:
        data = f.read().decode("ascii", "replace")
    return [l.rstrip("\r") for l in data.split("\n") if "\x1b" not in l]


def boot(efi, cpu, smp, extra_cfg=""):
    esp = tempfile.mkdtemp(prefix="pmh-esp-")
    serial = os.path.join(esp, "serial.log")
    cfg = "on_finish = qemu-exit\n" + extra_cfg
    t0 = time.monotonic()
    p = subprocess.run([BOOT, efi, "--cpu", cpu, "--smp", str(smp), "--esp", esp,
                        "--cfg", cfg, "--serial", serial, "--timeout", str(LIMIT_S)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode, time.monotonic() - t0, esp, serial


def check(efi, entry):
    cpu, smp, vendor, family, driver = entry
    name = f"{cpu} -smp {smp}"
    errs = []
    rc, secs, esp, serial = boot(efi, cpu, smp)
    lines = plain_lines(serial) if os.path.exists(serial) else []
    kv = {}
    for l in lines:
        m = re.match(r"^([a-z_.]+): (.*)$", l)
        if m:
            kv.setdefault(m.group(1), m.group(2))
    # TCG has no PMU: the verdict is NO PMU, debug-exit value 3, QEMU status 7.
    if rc == 66:  # qemu-boot.sh: QEMU itself did not start
        errs.append(f"QEMU failed to start with -cpu {cpu} (qemu-boot.sh status 66)")
    elif rc != 7:
        errs.append(f"QEMU exit status {rc}, expected 7 (debug-exit value 3, NO PMU)")
    if "verdict: NO PMU" not in " ".join(l[:15] for l in lines if l.startswith("verdict: ")):
        errs.append("no 'verdict: NO PMU' line")
    if not any(re.fullmatch(r" *=+ +NO PMU +=+", l) for l in lines):
        errs.append("no NO PMU banner")
    if secs > LIMIT_S:
        errs.append(f"took {secs:.1f} s, limit {LIMIT_S} s")
    if not kv.get("cpu.vendor", "").startswith(vendor):
        errs.append(f"cpu.vendor {kv.get('cpu.vendor')!r}, expected {vendor}")
    if kv.get("cpu.family") != hex(family):
        errs.append(f"cpu.family {kv.get('cpu.family')!r}, expected {hex(family)}")
    if kv.get("pmu.driver") != driver:
        errs.append(f"pmu.driver {kv.get('pmu.driver')!r}, expected {driver}")
    if kv.get("pmu.status") not in ("not-functional", "absent"):
        errs.append(f"pmu.status {kv.get('pmu.status')!r}, expected not functional under TCG")
    for key in ("cpu.model", "cpu.stepping", "cpu.brand", "cpu.hypervisor", "apic.mode"):
        if key not in kv:
            errs.append(f"missing identification line {key}")
    verdicts = [LINE.match(l) for l in lines]
    verdicts = [m for m in verdicts if m]
    fails = [l for l in lines if l.startswith("FAIL ")]
    errs += [f"unexpected {l}" for l in fails]
    closing = [CLOSING.match(l) for l in lines if CLOSING.match(l)]
    if len(closing) != 1:
        errs.append(f"{len(closing)} closing lines, expected 1")
    else:
        c = tuple(int(x) for x in closing[0].groups())
        counted = tuple(sum(1 for m in verdicts if m.group(1) == v) for v in ("PASS", "FAIL", "SKIP"))
        if c != counted:
            errs.append(f"closing line says {c}, check lines count {counted}")
        if c[0] + c[1] + c[2] == 0:
            errs.append("no check ran")
    # guard.gp: the one identity that enumerates PKS (TCG's max) takes the
    # reserved-bit #GP of IA32_PKRS through the guard; the others SKIP
    want = "PASS" if cpu == "max" else "SKIP"
    if not [m for m in verdicts if m.group(2) == "guard.gp" and m.group(1) == want]:
        errs.append(f"no {want} guard.gp")
    for pat in REQUIRED_PASS:
        ok = [m for m in verdicts if re.fullmatch(pat.replace(".", r"\.").replace("*", ".*"),
                                                  m.group(2).split("@")[0]) and m.group(1) == "PASS"]
        if not ok:
            errs.append(f"no PASS for {pat}")
    # results files on the boot volume
    boot_dir = os.path.join(esp, "EFI", "BOOT")
    jsons = sorted(f for f in os.listdir(boot_dir) if f.endswith(".json")) if os.path.isdir(boot_dir) else []
    logs = sorted(f for f in os.listdir(boot_dir) if f.endswith(".log")) if os.path.isdir(boot_dir) else []
    if not jsons or not logs:
        errs.append("results JSON or log missing on the boot volume")
    else:
        try:
            with open(os.path.join(boot_dir, jsons[-1])) as f:
                doc = json.load(f)
            s = doc["summary"]
            if closing and (s["passed"], s["failed"], s["skipped"]) != tuple(int(x) for x in closing[0].groups()):
                errs.append("JSON summary differs from the closing line")
            if doc.get("verdict") != "NO PMU" or not doc.get("verdict_reason"):
                errs.append(f"JSON verdict {doc.get('verdict')!r}, expected 'NO PMU' with a reason")
            if doc["cpus"][0]["pmu"]["driver"] != driver:
                errs.append("JSON pmu.driver differs")
        except (OSError, ValueError, KeyError) as e:
            errs.append(f"results JSON unreadable: {e}")
        with open(os.path.join(boot_dir, logs[-1]), "rb") as f:
            log = f.read().decode("ascii", "replace")
        if closing and closing[0].group(0) not in log:
            errs.append("log file lacks the closing line")
    if errs:
        tail = "\n".join("    | " + l for l in lines[-25:])
        return False, f"FAIL qemu.boot[{name}] ({secs:.1f} s): " + "; ".join(errs) + "\n" + tail
    safe = re.sub(r"[^A-Za-z0-9]+", "-", name)
    shutil.copy(os.path.join(boot_dir, jsons[-1]), os.path.join(COLLECTED, safe + ".json"))
    subprocess.run(["rm", "-rf", esp])
    return True, f"PASS qemu.boot[{name}] driver={driver} {secs:.1f} s"


def report_of_matrix():
    """The report tool over every boot's results: JUnit with one testsuite
    per CPU of each file, one testcase per result and the verdict's where it
    is not PASS, and HTML that parses."""
    files = sorted(os.path.join(COLLECTED, f) for f in os.listdir(COLLECTED))
    junit, html = os.path.join(COLLECTED, "m.xml"), os.path.join(COLLECTED, "m.html")
    p = subprocess.run([REPORT, "--junit", junit, "--html", html] + files,
                       capture_output=True, text=True)
    if p.returncode != 0:
        return False, f"FAIL qemu.report: status {p.returncode}: {p.stderr.strip()[:300]}"
    docs = [json.load(open(f)) for f in files]
    want_suites = sum(len(d["cpus"]) for d in docs)
    # and a failing "verdict" case where the run is not PASS (NO PMU here):
    # CI never shows it green
    want_cases = sum(len(d["results"]) + (d["verdict"] != "PASS") for d in docs)
    try:
        root = ET.parse(junit).getroot()
        ET.parse(html)
    except ET.ParseError as e:
        return False, f"FAIL qemu.report: output does not parse: {e}"
    suites = root.findall("testsuite") if root.tag == "testsuites" else [root]
    cases = sum(len(s.findall("testcase")) for s in suites)
    ok = len(files) == len(MATRIX) and len(suites) == want_suites and cases == want_cases
    return ok, (f"{'PASS' if ok else 'FAIL'} qemu.report: {len(files)} results files -> JUnit "
                f"{len(suites)} testsuites (want {want_suites}), {cases} testcases (want "
                f"{want_cases}); HTML parses")


def main():
    efi = sys.argv[1]
    jobs = int(os.environ.get("PMH_QEMU_JOBS", "2"))
    passed = failed = 0
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        for ok, msg in ex.map(lambda e: check(efi, e), MATRIX):
            print(msg, flush=True)
            passed += ok
            failed += not ok
    ok, msg = report_of_matrix()
    print(msg, flush=True)
    passed += ok
    failed += not ok
    if ok:
        shutil.rmtree(COLLECTED, ignore_errors=True)
    print(f"qemu: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
