#!/usr/bin/env python3
"""Network boot with no disk at all: OVMF loads pmuharness.efi over QEMU's
user-network TFTP and the image fetches pmuharness.cfg from the same folder
on that server (the run leaves QEMU through isa-debug-exit only because
that file said so; a bad line is reported with its tftp:// origin), says
it was loaded over the network and that no results files were written; and
SeaBIOS PXE, where the NIC's iPXE ROM runs pmuharness.ipxe (make tftp's
layout), which chains the Multiboot kernel with the config as its module.
Usage: test_netboot.py build/pmuharness.efi"""
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

IPXE = os.path.join(q.ROOT, "boot", "net", "pmuharness.ipxe")
# qemu-exit comes from the TFTP config alone (the default is wait); line 3
# is bad on purpose and must be reported with the file's URL.
CFG = "on_finish = qemu-exit\nchecks = apic.lvt-pc\nno_such_key = 1\n"
# QEMU's user network: the host (and its TFTP server) is 10.0.2.2.
ORIGIN = "tftp://10.0.2.2/pmuharness.cfg"
BAD_LINE = f"config: {ORIGIN}: line 3: unknown key"
NOTE = "note: loaded over the network (tftp://10.0.2.2/pmuharness.efi): "
NOT_SAVED = "no results files; results are on the console and serial only"


def tftp_dir(files):
    d = tempfile.mkdtemp(prefix="pmh-tftp-")
    for name, src in files.items():
        shutil.copy(src, os.path.join(d, name))
    with open(os.path.join(d, "pmuharness.cfg"), "w") as f:
        f.write(CFG)
    return d


def verdict_errs(rc, lines):
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU status {rc}, expected {q.NO_PMU_EXIT} (NO PMU through "
                    "isa-debug-exit: the TFTP config's on_finish = qemu-exit)")
    if not any(l.startswith("verdict: ") for l in lines):
        errs.append("no verdict line")
    close = q.closing(lines)
    if close is None or close != q.counted(lines) or close[1]:
        errs.append(f"closing line {close}, check lines {q.counted(lines)}")
    return errs


def uefi_tftp(efi):
    d = tftp_dir({"pmuharness.efi": efi})
    try:
        rc, _, lines, _ = q.boot([efi, "--tftp", d, "--cpu", "Skylake-Client"])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    errs = verdict_errs(rc, lines)
    if not any(l.startswith(BAD_LINE) for l in lines):
        errs.append(f"no line starting {BAD_LINE!r}")
    if not any(l.startswith(NOTE) and l.endswith(NOT_SAVED) for l in lines):
        errs.append(f"no line {NOTE}...{NOT_SAVED}")
    if any("cannot open the binary's folder" in l for l in lines):
        errs.append("the generic folder error appears on a network boot")
    return errs


def bios_pxe(efi):
    kernel = q.kernel_of(efi)
    d = tftp_dir({"pmuharness-i686.elf": kernel, "pmuharness.ipxe": IPXE})
    try:
        rc, _, lines, _ = q.boot(["none", "--pxe", d, "--cpu", "pentium3"],
                                 script=q.BIOS_BOOT)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    errs = verdict_errs(rc, lines)
    # The kernel reports a bad config line under the module's name.
    if not any(l.startswith("options: pmuharness.cfg: line 3: unknown key") for l in lines):
        errs.append("the module's bad line 3 is not reported: the config did not arrive")
    return errs


def main():
    efi = q.efi_arg()
    t = q.Tally("netboot")
    t.case(uefi_tftp, efi)
    t.case(bios_pxe, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
