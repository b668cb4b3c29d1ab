#!/usr/bin/env python3
"""scripts/firmware-probe.sh, the check `make run KVM=1` makes before it
boots (/dev/kvm can open and still not run a guest): it returns as soon as
the firmware first writes to COM1, not after its limit (it once always
waited out 15 s on a working KVM), and fails at its limit when the
firmware never speaks. Run here with TCG (no KVM on the build machines);
a paused machine (-S) is the firmware that never speaks.
Usage: test_firmware_probe.py [build/pmuharness.efi] (unused)"""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

PROBE = os.path.join(q.ROOT, "scripts", "firmware-probe.sh")
CODE = os.environ.get("OVMF_CODE", "/usr/share/OVMF/OVMF_CODE_4M.fd")
VARS = os.environ.get("OVMF_VARS", "/usr/share/OVMF/OVMF_VARS_4M.fd")
LIMIT = 50  # the probe's limit here: far above OVMF's first COM1 line under TCG


def probe(limit, *accel):
    t0 = time.monotonic()
    p = subprocess.run([PROBE, str(limit), CODE, VARS] + list(accel), capture_output=True,
                       text=True, timeout=limit + 20, env=q.ENV)
    return p.returncode, time.monotonic() - t0


def returns_when_firmware_speaks():
    rc, secs = probe(LIMIT, "-accel", "tcg")
    print(f"  status {rc} after {secs:.1f} s (limit {LIMIT} s)")
    return [] if rc == 0 and secs < LIMIT / 2 else [f"status {rc} after {secs:.1f} s"]


def fails_at_limit_when_silent():
    rc, secs = probe(3, "-accel", "tcg", "-S")
    print(f"  status {rc} after {secs:.1f} s (limit 3 s)")
    return [] if rc == 1 and 2.5 <= secs < 10 else [f"status {rc} after {secs:.1f} s"]


def main():
    t = q.Tally("firmware-probe")
    t.case(returns_when_firmware_speaks)
    t.case(fails_at_limit_when_silent)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
