#!/usr/bin/env python3
"""Network boot with no disk at all, from QEMU's user-network TFTP; the run
leaves QEMU through isa-debug-exit only because pmuharness.cfg there said
so, and a bad line is reported with the file's origin:
- uefi_tftp: OVMF's own PXE (romfile=) loads pmuharness.efi, which fetches
  a config over 32 KiB through the firmware's PXE base code: its first
  32 KiB apply (a line past them would make the run wait), the cut is
  reported, the run says who loaded it and that no results files are
  written;
- uefi_ipxe: QEMU's default virtio-net ROM, iPXE, loads pmuharness.efi
  (the DHCP boot file), which downloads the same config through iPXE's
  download protocol; no "not found" for the results files;
- uefi_ipxe_script: iPXE runs pmuharness.ipxe (make tftp's), which fetches
  pmuharness.cfg as an image and chains pmuharness.efi, which reads it from
  iPXE's file system;
- bios_pxe: SeaBIOS PXE, where the NIC's iPXE ROM runs the same script,
  which chains the Multiboot kernel with the config as its module.
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
# Over 32 KiB: CFG, comments across the 32 KiB mark, then a line that would
# keep the run waiting for a key if anything past the cut applied.
PAD = "# padding to cross the 32 KiB a config is read up to ...........\n"
BIG_LINES = 3 + (32 * 1024 + 2048) // len(PAD)
BIG_CFG = CFG + PAD * (BIG_LINES - 3) + "on_finish = wait\n"
CUT = (f"config: {ORIGIN}: line {3 + (32 * 1024 - len(CFG)) // len(PAD) + 1}: the file is "
       f"{len(BIG_CFG)} bytes and only the first 32768 are read")
# A boot whose config is not applied waits for a key: cut short.
BOUND_S = 40


def tftp_dir(files, cfg=CFG):
    d = tempfile.mkdtemp(prefix="pmh-tftp-")
    for name, src in files.items():
        shutil.copy(src, os.path.join(d, name))
    with open(os.path.join(d, "pmuharness.cfg"), "w") as f:
        f.write(cfg)
    return d


def expect(lines, errs, prefix, why):
    """One line starts with prefix, else why goes to errs."""
    if not any(l.startswith(prefix) for l in lines):
        errs.append(f"no line starting {prefix!r} ({why})")


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


def uefi_boot(efi, cfg, ipxe, bootfile="pmuharness.efi"):
    """OVMF booting from a TFTP folder laid out as make tftp's: its lines."""
    d = tftp_dir({"pmuharness.efi": efi, "pmuharness.ipxe": IPXE}, cfg)
    args = [efi, "--tftp", d, "--bootfile", bootfile, "--cpu", "Skylake-Client"]
    try:
        rc, secs, lines, _ = q.boot(args + (["--ipxe"] if ipxe else []), timeout=BOUND_S)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    errs = verdict_errs(rc, lines)
    if secs >= BOUND_S:
        errs.append(f"not done within {BOUND_S} s")
    if any("cannot open the binary's folder" in l or "(not found" in l for l in lines):
        errs.append("a file-system error appears on a network boot")
    return errs, lines


def uefi_tftp(efi):
    errs, lines = uefi_boot(efi, BIG_CFG, ipxe=False)
    expect(lines, errs, "boot: loaded by the firmware's PXE over TFTP from "
           "tftp://10.0.2.2/pmuharness.efi", "who loaded the image")
    expect(lines, errs, f"config: {ORIGIN} read through the firmware's PXE base code "
           f"({len(BIG_CFG)} bytes)", "where the config came from")
    expect(lines, errs, BAD_LINE, "the file's own bad line")
    expect(lines, errs, CUT, "the 32 KiB cut")
    if not any(l.startswith(NOTE) and l.endswith(NOT_SAVED) for l in lines):
        errs.append(f"no line {NOTE}...{NOT_SAVED}")
    return errs


def uefi_ipxe(efi):
    errs, lines = uefi_boot(efi, BIG_CFG, ipxe=True)
    expect(lines, errs, "boot: loaded by iPXE from tftp://10.0.2.2/pmuharness.efi (its DHCP "
           "boot file)", "who loaded the image")
    expect(lines, errs, f"config: {ORIGIN} read through iPXE's download protocol "
           f"({len(BIG_CFG)} bytes)", "where the config came from")
    expect(lines, errs, BAD_LINE, "the file's own bad line")
    expect(lines, errs, CUT, "the 32 KiB cut")
    note = "note: loaded over the network (by iPXE, tftp://10.0.2.2/pmuharness.efi): "
    if not any(l.startswith(note) and l.endswith(NOT_SAVED) for l in lines):
        errs.append(f"no line {note}...{NOT_SAVED}")
    return errs


def uefi_ipxe_script(efi):
    errs, lines = uefi_boot(efi, CFG, ipxe=True, bootfile="pmuharness.ipxe")
    expect(lines, errs, "boot: loaded by iPXE as pmuharness.efi (a script chained it; DHCP "
           "boot file tftp://10.0.2.2/pmuharness.ipxe)", "who loaded the image")
    expect(lines, errs, "config: iPXE image pmuharness.cfg read through iPXE's file system "
           f"(imgfetch) ({len(CFG)} bytes)", "where the config came from")
    expect(lines, errs, "config: iPXE image pmuharness.cfg: line 3: unknown key",
           "the file's own bad line")
    note = "note: loaded over the network (by iPXE, pmuharness.efi): "
    if not any(l.startswith(note) and l.endswith(NOT_SAVED) for l in lines):
        errs.append(f"no line {note}...{NOT_SAVED}")
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
    t.case(uefi_ipxe, efi)
    t.case(uefi_ipxe_script, efi)
    t.case(bios_pxe, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
