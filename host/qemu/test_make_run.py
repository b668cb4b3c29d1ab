#!/usr/bin/env python3
"""`make run` as a person sees it, under a pseudo-terminal (script(1)): it
returns by itself with the verdict's status, prints no escape sequence and
no line twice (the firmware's mirror of each line is dropped), hides QEMU's
harmless TCG warnings behind one line, and a second run keeps the first
run's results files and names its own.
Usage: test_make_run.py build/pmuharness.efi"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "make-run"
RUN = os.path.join(q.ROOT, "scripts", "qemu-run.sh")
LIMIT_S = 120
# TCG has no PMU: NO PMU, qemu-run.sh status 3 (docs/user-guide.md "Exit codes")
CFG = "checks = apic.lvt-pc"
NO_PMU_STATUS = 3
RESULTS = re.compile(r"^run: verdict: .*\(results in (\S+)\.log and \.json\)$")


def run_in_pty(efi, esp):
    env = dict(q.ENV, CFG=CFG, RUN_ESP=esp, CPU="Skylake-Client")
    cmd = f"{RUN} {efi}"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, env=env,
                       timeout=LIMIT_S + 60, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout


def main():
    efi = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="pmh-run-")
    esp = os.path.join(work, "esp")
    results = []

    def expect(name, ok, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {NAME}.{name}: {detail}")

    rc1, out1 = run_in_pty(efi, esp)
    rc2, out2 = run_in_pty(efi, esp)
    text = out1.decode("ascii", "replace")
    lines = [l for l in re.split(r"\r\n|\r|\n", text) if l.strip()]
    expect("status", rc1 == NO_PMU_STATUS and rc2 == NO_PMU_STATUS,
           f"statuses {rc1}, {rc2}, expected {NO_PMU_STATUS} (NO PMU) twice")
    escs = out1.count(b"\x1b") + out2.count(b"\x1b")
    expect("no-escapes", escs == 0, f"{escs} escape characters on the terminal")
    # banner lines are ours and unique too; only blank lines may repeat
    dups = sorted({l for l in lines if lines.count(l) > 1})
    expect("no-line-twice", not dups and any(l.startswith("cpu.vendor:") for l in lines),
           f"{len(lines)} lines, repeated: {dups[:3]}")
    warn = [l for l in lines if "TCG doesn't support" in l]
    said = [l for l in lines if re.match(r"^run: \d+ QEMU warnings hidden", l)]
    expect("tcg-warnings", not warn and len(said) == 1,
           f"{len(warn)} raw TCG warnings, {len(said)} summary lines")
    names = []
    for out in (out1, out2):
        m = [RESULTS.match(l) for l in re.split(r"\r\n|\r|\n", out.decode("ascii", "replace"))]
        m = [x.group(1) for x in m if x]
        names.append(m[0] if m else None)
    files = sorted(os.listdir(os.path.join(esp, "EFI", "BOOT"))) if os.path.isdir(esp) else []
    want = ["pmuharness-001.json", "pmuharness-001.log", "pmuharness-002.json",
            "pmuharness-002.log"]
    ok = (all(f in files for f in want) and names[0] and names[1]
          and names[0].endswith("pmuharness-001") and names[1].endswith("pmuharness-002"))
    expect("results-kept", bool(ok), f"files {files}, named {names}")
    passed = sum(results)
    failed = len(results) - passed
    if failed:
        print("\n".join("    | " + l for l in lines[-20:]))
        print(f"    (kept: {work})")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{NAME}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
