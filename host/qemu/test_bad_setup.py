#!/usr/bin/env python3
"""Set-ups that cannot give a verdict must not look like one: QEMU that fails
to start (a bad -cpu model) is status 66 with QEMU's message, never 1 (the
PASS status).
Usage: test_bad_setup.py build/pmuharness.efi"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

RUN = os.path.join(q.ROOT, "scripts", "qemu-run.sh")
BAD_CPU = "no-such-cpu"


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


def main():
    efi = sys.argv[1]
    t = q.Tally("bad-setup")
    for case in (qemu_start_failure,):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
