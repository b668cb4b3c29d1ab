#!/usr/bin/env python3
"""Set-ups that cannot give a verdict must not look like one: QEMU that fails
to start (a bad -cpu model) is status 66 with QEMU's message, never 1 (the
PASS status); a folder where every results name is taken says so; config
errors printed before the log file opens keep their start in the log; a
selection that matches nothing is an error line and NO VERDICT.
Usage: test_bad_setup.py build/pmuharness.efi"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

RUN = os.path.join(q.ROOT, "scripts", "qemu-run.sh")
BAD_CPU = "no-such-cpu"
QUICK_CFG = "on_finish = qemu-exit\nchecks = apic.lvt-pc\n"
# boot/files.c RESULTS_MAX: pmuharness-001 to pmuharness-999
RESULTS_MAX = 999
# NO VERDICT: debug-exit value 4, QEMU status (4 << 1) | 1
NO_VERDICT_EXIT = 9


def qemu_start_failure(efi):
    errs = []
    rc, _, _, raw, err = q.boot_raw([efi, "--cpu", BAD_CPU])
    if rc != q.START_FAILED:
        errs.append(f"qemu-boot.sh status {rc}, expected {q.START_FAILED}")
    if "QEMU failed to start" not in err or BAD_CPU not in err:
        errs.append(f"stderr lacks the start-up failure and QEMU's message: {err!r}")
    if raw:
        errs.append(f"serial output from a QEMU that did not start: {raw[:80]!r}")
    try:
        q.boot([efi, "--cpu", BAD_CPU])
        errs.append("qemulib.boot returned a status for a QEMU that did not start")
    except q.StartFailed as e:
        if BAD_CPU not in str(e):
            errs.append(f"StartFailed without QEMU's message: {e}")
    # make run's script: its own line and the same status
    d = tempfile.mkdtemp(prefix="pmh-run-")
    try:
        p = subprocess.run([RUN, os.path.abspath(efi)], cwd=d, capture_output=True, text=True,
                           env=dict(q.ENV, CPU=BAD_CPU, TMPDIR=d), timeout=60)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if p.returncode != q.START_FAILED:
        errs.append(f"qemu-run.sh status {p.returncode}, expected {q.START_FAILED}")
    if "run: QEMU failed to start" not in p.stdout:
        errs.append(f"qemu-run.sh did not say QEMU failed to start: {p.stdout!r}")
    return errs


def results_names_used_up(efi):
    errs = []
    esp = tempfile.mkdtemp(prefix="pmh-full-")
    try:
        boot_dir = os.path.join(esp, "EFI", "BOOT")
        os.makedirs(boot_dir)
        for i in range(1, RESULTS_MAX + 1):
            open(os.path.join(boot_dir, f"pmuharness-{i:03d}.log"), "w").close()
        rc, _, lines, _ = q.boot([efi, "--esp", esp, "--cfg", QUICK_CFG])
        made = [f for f in os.listdir(boot_dir) if f.endswith(".json")]
    finally:
        shutil.rmtree(esp, ignore_errors=True)
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU)")
    want = ("warning: no results files: the names pmuharness-001 to pmuharness-999 are all "
            "used beside the binary")
    if not any(l.startswith(want) for l in lines):
        errs.append("no line saying the results names ran out; warnings: "
                    + repr([l for l in lines if l.startswith("warning")]))
    if made:
        errs.append(f"results files written anyway: {made}")
    return errs


def selection_matches_nothing(efi):
    """checks or cpus that select nothing: an error line, NO VERDICT (QEMU
    status 9), never the PASS status."""
    errs = []
    for cfg, want in (("checks = nomatch*", "error: checks = nomatch*: matches no check"),
                      ("cpus = 999", "error: cpus = 999: matches no CPU")):
        rc, _, lines, _ = q.boot([efi, "--cfg", "on_finish = qemu-exit\n" + cfg + "\n"])
        if rc != NO_VERDICT_EXIT:
            errs.append(f"{cfg}: QEMU exit status {rc}, expected {NO_VERDICT_EXIT}")
        if not any(l.startswith(want) for l in lines):
            errs.append(f"{cfg}: no line {want!r}")
        if any(re.match(r"(PASS|FAIL|SKIP) ", l) for l in lines):
            errs.append(f"{cfg}: checks ran")
    return errs


def early_errors_keep_start(efi):
    """120 bad config lines, printed before the log file opens: the log keeps
    the first ones and says how many did not fit (boot/console.c LOG_BUF)."""
    errs = []
    esp = tempfile.mkdtemp(prefix="pmh-early-")
    cfg = QUICK_CFG + "".join(f"bad_key_{i:03d} = 1\n" for i in range(1, 121))
    try:
        rc, _, lines, _ = q.boot([efi, "--esp", esp, "--cfg", cfg])
        path = os.path.join(esp, "EFI", "BOOT", "pmuharness-001.log")
        log = open(path, "rb").read().decode("ascii", "replace").splitlines() \
            if os.path.exists(path) else []
    finally:
        shutil.rmtree(esp, ignore_errors=True)
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU)")
    if sum("bad_key_" in l for l in lines) != 120:
        errs.append("the serial port lacks some of the 120 config errors")
    cfg_lines = [l for l in log if "bad_key_" in l]
    if not cfg_lines or "bad_key_001" not in cfg_lines[0]:
        errs.append(f"the log does not start with the first config error: {cfg_lines[:1]}")
    dropped = [l for l in log if re.match(r"warning: (\d+) lines printed before the log file "
                                          r"opened did not fit", l)]
    n = int(re.match(r"warning: (\d+)", dropped[0]).group(1)) if dropped else 0
    if len(cfg_lines) + n != 120:
        errs.append(f"{len(cfg_lines)} config errors in the log and {n} said dropped, not 120")
    if not any(l.startswith("verdict: ") for l in log):
        errs.append("the log lacks the verdict")
    return errs


def main():
    efi = sys.argv[1]
    t = q.Tally("bad-setup")
    for case in (qemu_start_failure, results_names_used_up, selection_matches_nothing,
                 early_errors_keep_start):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
