#!/usr/bin/env python3
"""A bare `make` in a clean clone, as a new user types it: exits 0 having
built the UEFI image, the BIOS kernel and the report tool (a rule placed
before `all:` once made an object file the default goal and `make` built
only that). The clone is of the repository's HEAD; the make runs with the
environment of a fresh shell (no MAKEFLAGS from an enclosing make) and -j2
(the parallelism changes no goal).
Usage: test_bare_make.py"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
WANT = ["build/pmuharness.efi", "build/pmuharness-i686.elf", "build/pmuharness-report"]
LIMIT_S = 600


def main() -> int:
    if not os.path.isdir(os.path.join(ROOT, ".git")):
        print("SKIP bare-make.clean-clone: not a git checkout, nothing to clone")
        print("bare-make: 0 passed, 0 failed, 1 skipped")
        return 0
    work = tempfile.mkdtemp(prefix="pmh-make-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
    try:
        clone = os.path.join(work, "clone")
        subprocess.run(["git", "clone", "-q", ROOT, clone], check=True, timeout=120)
        t0 = time.monotonic()
        p = subprocess.run(["make", "-j2"], cwd=clone, env=env, capture_output=True, text=True,
                           timeout=LIMIT_S)
        secs = time.monotonic() - t0
        missing = [f for f in WANT if not os.path.isfile(os.path.join(clone, f))]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ok = p.returncode == 0 and not missing
    detail = f"make exit {p.returncode} in {secs:.0f} s; missing: {missing or 'none'}"
    print(f"{'PASS' if ok else 'FAIL'} bare-make.clean-clone: {detail}")
    if not ok:
        print("\n".join("    | " + l for l in (p.stdout + p.stderr).splitlines()[-15:]))
    print(f"bare-make: {int(ok)} passed, {int(not ok)} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
