#!/usr/bin/env python3
"""The BIOS kernel as a kvm-unit-tests test (output = kvm-unit-tests).

runner_exit_and_lines: QEMU started as kvm-unit-tests' x86/run starts a
test (its devices, -kernel, -append) ends with QEMU status 77, the runner's
SKIP, for the NO PMU verdict of TCG; result lines start "PASS: ", "FAIL: "
or "SKIP: " (run_tests.sh takes the first four characters as the result
and drops six before the text) and a SUMMARY line is among the last five
(scripts/runtime.bash extract_summary).
real_runner: kvm-unit-tests' own run_tests.sh, from the checkout KUT_DIR
names (it is not a Debian package: SKIP without it), runs the kernel from
a unittests.cfg entry under TCG: NO PMU is its SKIP with our summary, a
crash (checks = apic.fatal-trigger) its FAIL, and its TAP output (-t) has
one test point per result line with the id whole.
Usage: test_kut.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "kvm-unit-tests"
APPEND = "output=kvm-unit-tests on_finish=qemu-exit countdown=0"
# kvm-unit-tests x86/run: the devices and options of every test's QEMU
X86_RUN = ["--no-reboot", "-nodefaults", "-device", "pc-testdev", "-device",
           "isa-debug-exit,iobase=0xf4,iosize=0x4", "-display", "none", "-serial", "stdio",
           "-device", "pci-testdev", "-machine", "accel=tcg"]
RESULT = re.compile(r"^(PASS|FAIL|SKIP): (\S+)")
ESC = re.compile(r"\x1b\[[0-9;]*m")


def runner_exit_and_lines(kernel):
    cmd = ["timeout", str(q.LIMIT_S), "qemu-system-x86_64"] + X86_RUN + [
        "-kernel", kernel, "-append", APPEND]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=q.LIMIT_S + 10)
    lines = q.plain(p.stdout)
    results = [l for l in lines if RESULT.match(l)]
    bare = [l for l in lines if re.match(r"^(PASS|FAIL|SKIP) ", l)]
    summary = [l for l in lines[-5:] if l.startswith("SUMMARY: ")]
    print(f"  QEMU status {p.returncode}; {len(results)} result lines; {summary}")
    errs = []
    if p.returncode != 77:
        errs.append(f"QEMU status {p.returncode}, want 77 (the runner's SKIP for NO PMU)")
    if not results or bare:
        errs.append(f"{len(results)} 'PASS: ' lines, {len(bare)} without the colon")
    want = f"SUMMARY: {len(results)} tests, "
    if len(summary) != 1 or not summary[0].startswith(want) or "verdict NO PMU" not in summary[0]:
        errs.append(f"last five lines {lines[-5:]}: no '{want}... verdict NO PMU'")
    return errs


def kut_tree(kernel, work):
    """A copy of KUT_DIR configured for x86_64 with our kernel as a test."""
    src = os.environ.get("KUT_DIR", "")
    if not src or not os.path.exists(os.path.join(src, "run_tests.sh")):
        raise q.Skip("kvm-unit-tests is not a Debian package: set KUT_DIR to a checkout "
                     "of it to run its runner")
    tree = os.path.join(work, "kut")
    shutil.copytree(src, tree, ignore=shutil.ignore_patterns(".git", "logs"))
    subprocess.run(["./configure", "--arch=x86_64"], cwd=tree, check=True,
                   capture_output=True, timeout=60)
    shutil.copy(kernel, os.path.join(tree, "x86", "pmuharness.flat"))
    with open(os.path.join(tree, "x86", "unittests.cfg"), "w") as f:
        for name, extra in (("pmuharness", ""), ("pmuharness-crash", " checks=apic.fatal-trigger")):
            f.write(f"[{name}]\nfile = pmuharness.flat\n"
                    f"extra_params = -append '{APPEND}{extra}'\narch = x86_64\n"
                    f"groups = pmuharness\ntimeout = {q.LIMIT_S}\n\n")
    return tree


def real_runner(kernel):
    work = tempfile.mkdtemp(prefix="pmh-kut-")
    try:
        tree = kut_tree(kernel, work)
        env = dict(q.ENV, ACCEL="tcg")
        run = subprocess.run(["./run_tests.sh", "-g", "pmuharness"], cwd=tree, env=env,
                             capture_output=True, text=True, timeout=3 * q.LIMIT_S)
        tap = subprocess.run(["./run_tests.sh", "-t", "pmuharness"], cwd=tree, env=env,
                             capture_output=True, text=True, timeout=2 * q.LIMIT_S)
        log = open(os.path.join(tree, "logs", "pmuharness.log")).read().splitlines()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    said = [ESC.sub("", l) for l in run.stdout.splitlines()]
    ids = [RESULT.match(l).group(2).rstrip(":") for l in log if RESULT.match(l)]
    points = [l for l in tap.stdout.splitlines() if re.match(r"^(not )?ok \d+ - ", l)]
    named = [re.sub(r"^(not )?ok \d+ - pmuharness: ", "", l).split(" ")[0].rstrip(":")
             for l in points]
    print("  " + " / ".join(said) + f"; TAP: {len(points)} points for {len(ids)} result lines")
    errs = []
    if not any(re.match(r"^SKIP pmuharness \(\d+ tests, \d+ skipped; verdict NO PMU\)$", l)
               for l in said):
        errs.append(f"no 'SKIP pmuharness (... verdict NO PMU)' in {said}")
    if not any(re.match(r"^FAIL pmuharness-crash \(.*verdict ERROR\)$", l) for l in said):
        errs.append(f"no 'FAIL pmuharness-crash (... verdict ERROR)' in {said}")
    if not ids or named != ids:
        errs.append(f"TAP names {named[:4]}... are not the result ids {ids[:4]}...")
    return errs


def main():
    kernel = q.kernel_or_fail(NAME)
    if not kernel:
        return 1
    t = q.Tally(NAME)
    t.case(runner_exit_and_lines, kernel)
    t.case(real_runner, kernel)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
