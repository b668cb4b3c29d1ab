#!/usr/bin/env python3
"""The legacy BIOS kernel on a machine it cannot run on says so and halts,
instead of resetting or hanging without a word: a 486 and a Pentium (no
CMOV, which the C code, built for i686, may use anywhere, before any IDT
exists) and 4 MiB of RAM (the image, with its stack and heap in .bss, ends
past the RAM) each print their line on COM1 within a bounded time and then
stay halted (QEMU is killed here). A Pentium III with enough memory gets
past the checks. QEMU's Multiboot loader (-kernel) under SeaBIOS.
Usage: test_bios_minimum.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "bios-minimum"
# The line must come within this (TCG, SeaBIOS's boot included).
WAIT_S = 20
# After it, the machine must stay halted: no reset (-no-reboot would end
# QEMU), no other line.
QUIET_S = 2
NEED_CPU = "pmuharness needs an i686-class CPU (CMOV): this CPU "
NO_CMOV = re.compile(r"^pmuharness needs an i686-class CPU \(CMOV\): this CPU \((\w+), family "
                     r"(\d+)\) has no CMOV \(CPUID\.1:EDX bit 15 clear\); halted$")
NEED_MEM = re.compile(r"^pmuharness needs (\d+) KiB of memory above 1 MiB for its image \(code, "
                      r"data, stack and 4 MiB heap\): this machine has (\d+) KiB \(Multiboot "
                      r"mem_upper\); halted$")


def run(kernel, cpu, mem, until):
    """(lines, QEMU's status or None while it ran) of a boot watched until
    until(lines) or WAIT_S, then QUIET_S more; QEMU killed then."""
    d = tempfile.mkdtemp(prefix="pmh-bmin-")
    serial = os.path.join(d, "serial.log")
    # QEMU itself, not under timeout(1): killing it here must end it
    p = subprocess.Popen(["qemu-system-i386", "-cpu", cpu, "-m", str(mem), "-kernel", kernel,
                          "-append", "on_finish=qemu-exit", "-serial", "file:" + serial,
                          "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                          "-display", "none", "-no-reboot", "-nodefaults"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + WAIT_S
        lines = []
        while time.monotonic() < end and p.poll() is None:
            lines = q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []
            if until(lines):
                break
            time.sleep(0.1)
        time.sleep(QUIET_S)
        lines = q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []
        return lines, p.poll()
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def halted_with(lines, rc, pattern):
    """The errors unless the line matching pattern is the only line and
    QEMU was still running (halted) when killed."""
    errs = []
    lines = [l for l in lines if l]
    hits = [m for m in map(pattern.match, lines) if m]
    if not hits:
        errs.append(f"no such line within {WAIT_S} s; COM1: {lines[-3:]!r}")
    elif len(lines) != 1:
        errs.append(f"{len(lines)} lines on COM1, expected the message alone: {lines[:4]!r}")
    if rc is not None:
        errs.append(f"QEMU ended (status {rc}): reset or exited instead of halting")
    return errs, hits


def cpu_case(kernel, cpu, family):
    def fn():
        lines, rc = run(kernel, cpu, 128, lambda ls: any(l.startswith(NEED_CPU) for l in ls))
        errs, hits = halted_with(lines, rc, NO_CMOV)
        if hits and hits[0].group(2) != str(family):
            errs.append(f"family {hits[0].group(2)}, expected {family}")
        return errs
    fn.__name__ = cpu
    return fn


def small_memory(kernel):
    """-m 4: under 3 MiB above 1 MiB (2944 KiB on QEMU 7.2), less than the image's end."""
    lines, rc = run(kernel, "pentium3", 4, lambda ls: any(NEED_MEM.match(l) for l in ls))
    errs, hits = halted_with(lines, rc, NEED_MEM)
    if hits:
        need, have = int(hits[0].group(1)), int(hits[0].group(2))
        if not 0 < have < 3072:
            errs.append(f"says {have} KiB, QEMU's -m 4 has less than 3072 above 1 MiB")
        if need <= have:
            errs.append(f"needs {need} KiB, not more than the {have} it has")
    return errs


def enough(kernel):
    """A Pentium III (family 6, CMOV) with 16 MiB gets past both checks to
    the run and its closing line."""
    lines, rc = run(kernel, "pentium3", 16, lambda ls: q.closing(ls) is not None)
    errs = []
    if any(l.startswith("pmuharness needs") for l in lines):
        errs.append("a check refused a machine that has what it needs")
    if q.closing(lines) is None:
        errs.append(f"no closing line; COM1 ends {lines[-3:]!r}")
    return errs


def main():
    kernel = q.kernel_or_fail(NAME)
    if kernel is None:
        return 1
    t = q.Tally(NAME)
    t.case(cpu_case(kernel, "486", 4))
    t.case(cpu_case(kernel, "pentium", 5))
    t.case(small_memory, kernel)
    t.case(enough, kernel)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
