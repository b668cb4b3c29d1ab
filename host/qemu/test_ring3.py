#!/usr/bin/env python3
"""ring3.entry on the real targets under QEMU TCG: the UEFI image under OVMF
(Skylake-Client: x86-64, its own page tables with U/S for the excursion)
and the BIOS kernel with QEMU's Multiboot loader (-kernel, pentium3: i386,
flat), each on the boot CPU and with -smp 2 and cpus = all (the AP enters
CPL 3 too). Every CPU must PASS ring3.entry: the workload came back from
CPL 3, RDPMC at CPL 3 with CR4.PCE clear raised #GP (TCG's helper_rdpmc,
as the SDM says) and came back as vector 13, and GDTR, IDTR, CR3, CR4 and
TR read as before (OVMF and bios/ load no TR: the line must say that the
harness's TSS stays loaded). No FAIL, no fatal or unexpected-NMI line, the
closing line agrees with the check lines, and the run leaves with NO PMU.
Usage: test_ring3.py [build/pmuharness.efi] (the BIOS kernel is beside it)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "ring3"
CHECK = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:@]+)(@cpu(\d+))?(:| |$)")
# TR: as before, or one that named no TSS of the GDT (0, a loader's) before
# and the harness's TSS left loaded.
TR_KEPT = re.compile(r"TR 0x[0-9a-f]+ before named no TSS of this GDT \((null|its loader's "
                     r"selector)\), 0x[0-9a-f]+ after: the harness's TSS stays loaded")
TR_SAME = re.compile(r"and TR 0x[0-9a-f]+ as before")


def uefi(cpus):
    cfg = "checks = ring3.entry\non_finish = qemu-exit\n" + ("cpus = all\n" if cpus > 1 else "")
    rc, _, lines, _ = q.boot([q.efi_arg(), "--cpu", "Skylake-Client", "--smp", str(cpus),
                              "--cfg", cfg], timeout=q.LIMIT_S)
    return rc, lines


def bios(cpus):
    kernel = q.kernel_of(q.efi_arg())
    if not os.path.exists(kernel):
        raise RuntimeError(f"{kernel} missing (make i686)")
    d = tempfile.mkdtemp(prefix="pmh-ring3-")
    serial = os.path.join(d, "serial.log")
    args = "checks=ring3.entry on_finish=qemu-exit" + (" cpus=all" if cpus > 1 else "")
    try:
        p = subprocess.run(["timeout", str(q.LIMIT_S), "qemu-system-i386", "-cpu", "pentium3",
                            "-smp", str(cpus), "-kernel", kernel, "-append", args,
                            "-serial", "file:" + serial,
                            "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                            "-display", "none", "-no-reboot", "-nodefaults"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        raw = open(serial, "rb").read() if os.path.exists(serial) else b""
        return p.returncode, q.plain(raw)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def judge(rc, lines, cpus):
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU)")
    checks = [(m, l) for m, l in ((CHECK.match(l), l) for l in lines) if m]
    for m, l in checks:
        if m.group(1) != "PASS":
            errs.append(f"unexpected: {l}")
    want = [None] if cpus == 1 else [str(n) for n in range(cpus)]
    for cpu in want:
        got = [l for m, l in checks if m.group(2) == "ring3.entry" and m.group(4) == cpu
               and m.group(1) == "PASS"]
        name = "ring3.entry" + (f"@cpu{cpu}" if cpu else "")
        if len(got) != 1:
            errs.append(f"{len(got)} PASS lines for {name}, expected 1")
            continue
        if "#GP caught" not in got[0]:
            errs.append(f"{name}: the RDPMC #GP is not named: {got[0]}")
        if not (TR_KEPT.search(got[0]) or TR_SAME.search(got[0])):
            errs.append(f"{name}: TR neither as before nor the harness's kept: {got[0]}")
    bad = [l for l in lines if l.startswith(("fatal:", "warning: unexpected NMI"))]
    errs += [f"unexpected line: {l}" for l in bad]
    closing = q.closing(lines)
    if closing != q.counted(lines):
        errs.append(f"closing line {closing}, check lines count {q.counted(lines)}")
    return errs


def uefi_boot_cpu():
    return judge(*uefi(1), 1)


def uefi_ap():
    return judge(*uefi(2), 2)


def bios_boot_cpu():
    return judge(*bios(1), 1)


def bios_ap():
    return judge(*bios(2), 2)


def main():
    t = q.Tally(NAME)
    for case in (uefi_boot_cpu, uefi_ap, bios_boot_cpu, bios_ap):
        t.case(case)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
