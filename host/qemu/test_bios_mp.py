#!/usr/bin/env python3
"""Per-CPU runs on the legacy BIOS kernel (build/pmuharness-i686.elf): the
processors from the ACPI MADT, the APs started with INIT-SIPI-SIPI into the
real-mode trampoline, under qemu-system-i386 -kernel -smp 4 on a Pentium
III with multi-threaded TCG (one host thread per CPU). cpus = all runs
every CPU at once: every apic.* check and idt.restore PASS on cpu0..cpu3,
each AP names its own APIC ID, the check lines come in CPU order, one
cpu.N.verdict line per CPU (in CPU order) agrees with that CPU's check
lines and the closing line with their sum; cpus = serial (one CPU after
another) gives the same results ids; -smp 16 runs all 16; cpus = 0,7
warns about CPU 7 and runs cpu0 only; an exception on an AP is that CPU's
FAIL and the other AP still runs; without ACPI the Intel MP table is read;
R at the end prompt starts the halted APs again.
Usage: test_bios_mp.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402
import test_mp as mp  # noqa: E402  (the per-CPU line parsers of the UEFI test)
import test_bios_kernel as bk  # noqa: E402  (COM1 polling, the end prompt)

NAME = "bios-mp"
CPU = "pentium3"
SMP = 4
FAIL_EXIT = 3  # debug-exit value 1 (FAIL): QEMU exits with (1 << 1) | 1
MTTCG = ["-accel", "tcg,thread=multi"]  # the CPUs of a parallel run at once
ELAPSED = re.compile(r"^harness\.elapsed_us: (\d+)$")


def boot(kernel, args, machine="pc", smp=SMP):
    """(QEMU status, COM1 lines) of one -kernel boot with -smp smp."""
    d = tempfile.mkdtemp(prefix="pmh-bios-mp-")
    serial = os.path.join(d, "serial.log")
    try:
        p = subprocess.run(["timeout", str(q.LIMIT_S), "qemu-system-i386", "-machine", machine, "-cpu", CPU]
                           + MTTCG + ["-smp", str(smp), "-kernel", kernel,
                            "-append", "on_finish=qemu-exit " + args,
                            "-serial", "file:" + serial,
                            "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                            "-display", "none", "-no-reboot", "-nodefaults"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        raw = open(serial, "rb").read() if os.path.exists(serial) else b""
        return p.returncode, q.plain(raw)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def verdicts(lines, got, cpus, word):
    """Each CPU's verdict line against its check lines; their sum."""
    errs, tot = [], [0, 0, 0]
    found = [m for m in map(mp.VERDICT_LINE.match, lines) if m]
    if [int(m.group(1)) for m in found] != cpus:
        errs.append(f"verdict lines for {[m.group(1) for m in found]}, expected {cpus}")
    for m in found:
        cpu = int(m.group(1))
        n = tuple(int(m.group(k)) for k in (3, 4, 5))
        mine = tuple(sum(1 for x in got if x[2] == cpu and x[0] == v)
                     for v in ("PASS", "FAIL", "SKIP"))
        if n != mine:
            errs.append(f"cpu.{cpu}.verdict counts {n}, its check lines count {mine}")
        if m.group(2) != word:
            errs.append(f"cpu.{cpu}.verdict {m.group(2)}, expected {word}")
        tot = [a + b for a, b in zip(tot, n)]
    return errs, tuple(tot)


def in_cpu_order(lines, got):
    """The check lines and the cpu.N.identity lines come CPU by CPU."""
    errs = []
    seq = [x[2] for x in got if x[2] is not None]
    if seq != sorted(seq):
        errs.append(f"check lines not in CPU order: cpus {seq}")
    ident = [int(m.group(1)) for m in map(re.compile(r"^cpu\.(\d+)\.identity: ").match, lines)
             if m]
    if ident != sorted(ident):
        errs.append(f"identity lines not in CPU order: cpus {ident}")
    return errs


def every_cpu(kernel, args, smp):
    """cpus = all (or serial) on smp CPUs: (errors, check lines, elapsed us)."""
    rc, lines = boot(kernel, args, smp=smp)
    errs, c = mp.common(rc, lines)
    got = mp.checks(lines)
    cpus = list(range(smp))
    for cpu in cpus:
        for cid in mp.REQUIRED:
            v = [x[0] for x in got if x[1] == cid and x[2] == cpu]
            if v != ["PASS"]:
                errs.append(f"{cid}@cpu{cpu}: {v}, expected one PASS")
    if any(x[2] is None for x in got):
        errs.append("a check line without @cpuN in a per-CPU run")
    ident = [re.match(r"^cpu\.(\d+)\.identity: apic\.id (0x[0-9a-f]+) \(xapic\), "
                      r"pmu\.driver intel-p6", l) for l in lines]
    ids = {int(m.group(1)): m.group(2) for m in ident if m}
    # the boot CPU's own share may name it too (APIC ID 0x0 under QEMU)
    aps = {c: i for c, i in ids.items() if c != 0}
    if sorted(aps) != cpus[1:] or len(set(aps.values())) != smp - 1 or "0x0" in aps.values() \
            or ids.get(0, "0x0") != "0x0":
        errs.append(f"identity lines {ids}, expected distinct non-zero APIC IDs for "
                    f"1..{smp - 1} (and 0x0 for 0 if it has one)")
    errs += in_cpu_order(lines, got)
    e, tot = verdicts(lines, got, cpus, "NO PMU")
    errs += e
    if c and tot != c:
        errs.append(f"per-CPU verdicts add up to {tot}, closing line says {c}")
    us = [int(m.group(1)) for m in map(ELAPSED.match, lines) if m]
    return errs, got, us[0] if us else None


def all_cpus(kernel):
    return every_cpu(kernel, "cpus=all", SMP)[0]


def serial_same_ids(kernel):
    """cpus = serial runs the CPUs one after another: the same results
    (check id and CPU) as cpus = all, which runs them at once."""
    errs, par, t_par = every_cpu(kernel, "cpus=all", SMP)
    e, ser, t_ser = every_cpu(kernel, "cpus=serial", SMP)
    errs += [f"cpus=serial: {x}" for x in e]
    a, b = {(x[1], x[2]) for x in par}, {(x[1], x[2]) for x in ser}
    if a != b:
        errs.append(f"results only with cpus=all: {sorted(a - b, key=str)[:8]}, only with "
                    f"cpus=serial: {sorted(b - a, key=str)[:8]} (at most 8 each)")
    if len(par) != len(ser):
        errs.append(f"{len(par)} results with cpus=all, {len(ser)} with cpus=serial")
    print(f"  {NAME}: -smp {SMP} harness.elapsed_us cpus=all {t_par}, cpus=serial {t_ser}",
          flush=True)
    return errs


def sixteen_cpus(kernel):
    """cpus = all on -smp 16: all 16 at once, every one's lines and verdict."""
    return every_cpu(kernel, "cpus=all", 16)[0]


def list_with_unknown(kernel):
    rc, lines = boot(kernel, "cpus=0,7")
    errs, _ = mp.common(rc, lines)
    if sum(1 for l in lines if l.startswith("warning:") and "CPU 7" in l) != 1:
        errs.append("expected one warning line about CPU 7")
    got = mp.checks(lines)
    if not got or {x[2] for x in got} != {0}:
        errs.append(f"check lines ran on {sorted({str(x[2]) for x in got})}, expected cpu0 only")
    errs += verdicts(lines, got, [0], "NO PMU")[0]
    return errs


def ap_exception_recovered(kernel):
    """An unexpected #UD on an AP (the test trigger) is reported, counted as
    that CPU's FAIL, and the other AP still runs (both at once, the boot CPU
    not selected: it only waits); the lines in CPU order."""
    rc, lines = boot(kernel, "cpus=1,2 checks=apic.fatal-trigger,apic.nmi")
    errs = []
    if rc != FAIL_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {FAIL_EXIT} (failures)")
    for cpu in (1, 2):
        for w in (f"PASS apic.nmi@cpu{cpu}",
                  f"FAIL cpu.{cpu}: the run stopped after an unexpected exception"):
            if not any(l.startswith(w) for l in lines):
                errs.append(f"no line {w!r}")
        if f"cpu.{cpu}.verdict: FAIL (1 passed, 1 failed, 0 skipped)" not in lines:
            errs.append(f"cpu.{cpu}.verdict is not FAIL (1 passed, 1 failed, 0 skipped)")
    if sum(1 for l in lines if l.startswith("fatal: unexpected exception vector 6")) != 2:
        errs.append("expected one #UD report per AP")
    if q.closing(lines) != (2, 2, 0):
        errs.append(f"closing line {q.closing(lines)}, expected (2, 2, 0)")
    errs += in_cpu_order(lines, mp.checks(lines))
    return errs


def mp_table_without_acpi(kernel):
    """Without ACPI the processors come from the Intel MP table (SeaBIOS
    lists only the boot CPU there): no warning that per-CPU runs are
    unavailable, and the boot CPU's per-CPU run."""
    rc, lines = boot(kernel, "cpus=all", machine="pc,acpi=off")
    errs, _ = mp.common(rc, lines)
    errs += [f"unexpected {l}" for l in lines if l.startswith("warning: cpus:")]
    got = mp.checks(lines)
    for cid in mp.REQUIRED:
        if ("PASS", cid, 0) not in got:
            errs.append(f"no PASS {cid}@cpu0")
    errs += verdicts(lines, got, [0], "NO PMU")[0]
    return errs


def run_again(kernel):
    """R at the end prompt runs again: the APs, halted after their first
    run, start again with INIT-SIPI-SIPI and run the suite a second time."""
    d = tempfile.mkdtemp(prefix="pmh-bios-mp-")
    serial, mon = os.path.join(d, "serial.log"), os.path.join(d, "mon.sock")
    p = subprocess.Popen(["qemu-system-i386", "-cpu", CPU] + MTTCG + ["-smp", str(SMP),
                          "-kernel", kernel,
                          "-append", "cpus=all checks=apic.nmi countdown=1",
                          "-serial", "file:" + serial, "-monitor", f"unix:{mon},server,nowait",
                          "-display", "none", "-no-reboot", "-nodefaults"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def prompts(n):
            return lambda ls: sum(1 for l in ls if l.endswith(bk.PROMPT)) >= n

        if not bk.wait_for(serial, prompts(1)):
            return ["no end prompt"]
        m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        m.connect(mon)
        m.sendall(b"sendkey r\n")
        lines = bk.wait_for(serial, prompts(2))
        m.close()
        if not lines:
            return ["R did not run again"]
        errs = [f"unexpected {l}" for l in lines if l.startswith("FAIL ")]
        for cpu in range(SMP):
            n = sum(1 for l in lines if l.startswith(f"PASS apic.nmi@cpu{cpu} "))
            if n != 2:
                errs.append(f"{n} PASS apic.nmi@cpu{cpu} lines, expected 2 (two runs)")
        return errs
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def main():
    kernel = q.kernel_or_fail(NAME)
    if kernel is None:
        return 1
    t = q.Tally(NAME)
    for case in (all_cpus, serial_same_ids, sixteen_cpus, list_with_unknown,
                 ap_exception_recovered, mp_table_without_acpi, run_again):
        t.case(case, kernel)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
