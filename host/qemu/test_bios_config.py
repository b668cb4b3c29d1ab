#!/usr/bin/env python3
"""The BIOS kernel's pmuharness.cfg on a stick whose FAT chain is cut
(SeaBIOS, syslinux, mboot.c32, as an IDE disk): the file's fourth cluster's
FAT entry names a free cluster, so syslinux hands over its first 2048 bytes
and zeros (the options at its end lost, on_finish = qemu-exit among them).
The kernel checks the file's chain itself, says which file and what is
wrong in an error line, applies none of its options and, instead of
waiting at the end prompt on defaults, halts after the run (on_finish =
poweroff); QEMU is killed once the halt line is on COM1. The same stick
uncut runs with the file's options and leaves through isa-debug-exit.
Usage: test_bios_config.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402
import test_bios_results as br  # noqa: E402  (the stick)

NAME = "bios-config"
CFG = "".join(f"# line {i:03d} of a config whose last cluster is lost ..........\n"
              for i in range(34)) + "checks = idt.restore\non_finish = qemu-exit\n"
ERROR = re.compile(r"^error: options: \\EFI\\BOOT\\pmuharness\.cfg cannot be read \(disk 0x80, "
                   r"FAT32 partition 1: its cluster chain is cut at cluster (\d+) \(FAT entry "
                   r"0x0: free\) after (\d+) of its (\d+) bytes\): NONE of its options apply; "
                   r"on_finish = poweroff instead of waiting on defaults")
HALTED = "halted: switch the machine off"
WAIT_S = 60


def cut(st, at, to):
    """The FAT entry (every FAT) of the cfg's cluster number at along its
    chain (0: its first) set to name cluster to, which must be free; to."""
    out = subprocess.run(["mshowfat", "-i", f"{st.img}@@{st.off}", "::/EFI/BOOT/pmuharness.cfg"],
                         capture_output=True, text=True, env=q.ENV, check=True).stdout
    c = int(re.search(r"<(\d+)", out).group(1))
    with open(st.img, "r+b") as f:
        f.seek(st.off)
        b = f.read(512)
        rsvd, nfats = struct.unpack_from("<H", b, 14)[0], b[16]
        fatsz = struct.unpack_from("<I", b, 36)[0]

        def entry(k, n):
            return st.off + (rsvd + k * fatsz) * 512 + 4 * n
        for _ in range(at):
            f.seek(entry(0, c))
            c = struct.unpack("<I", f.read(4))[0] & 0x0fffffff
        f.seek(entry(0, to))
        if struct.unpack("<I", f.read(4))[0]:
            raise RuntimeError(f"cluster {to} is not free")
        for k in range(nfats):
            f.seek(entry(k, c))
            f.write(struct.pack("<I", to))
    return to


def boot_until(img, done):
    """(COM1 lines, QEMU's status or None while it ran) of a SeaBIOS boot of
    img as an IDE disk, watched until done(lines) or WAIT_S; killed then."""
    d = tempfile.mkdtemp(prefix="pmh-bcfg-")
    serial = os.path.join(d, "serial.log")
    p = subprocess.Popen([q.BIOS_BOOT, "none", "--ide", img, "--timeout", str(WAIT_S + 10),
                          "--serial", serial], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    lines, end = [], time.monotonic() + WAIT_S
    try:
        while time.monotonic() < end and p.poll() is None:
            lines = q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []
            if done(lines):
                break
            time.sleep(0.2)
        time.sleep(0.5)
        lines = q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []
        return lines, p.poll()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
        p.wait()


def cut_after(efi, at):
    """The cfg's chain cut after its cluster number at (0: its first)."""
    with br.Stick(efi, 1, CFG) as st:
        free = cut(st, at, 20000)
        lines, rc = boot_until(st.img, lambda ls: HALTED in ls)
    errs = []
    m = [m for m in map(ERROR.match, lines) if m]
    got = tuple(int(x) for x in m[0].groups()) if m else None
    if not m:
        errs.append("no error line naming the file and its cut chain; COM1 has "
                    f"{[l for l in lines if 'options' in l]!r}")
    elif got != (free, 512 * (at + 1), len(CFG)):
        errs.append(f"the error names cluster, bytes read, size {got}, expected "
                    f"{(free, 512 * (at + 1), len(CFG))}")
    if "options.on_finish: poweroff" not in lines:
        errs.append("on_finish is not poweroff")
    if HALTED not in lines:
        errs.append(f"no '{HALTED}' within {WAIT_S} s (waiting at a prompt?)")
    if any("R: run again" in l for l in lines):
        errs.append("the end prompt waits on defaults")
    if rc is not None:
        errs.append(f"QEMU ended (status {rc}) instead of halting")
    return errs


def cut_chain(efi):
    return cut_after(efi, 3)


def first_cluster_cut(efi):
    """Cut after its first cluster: syslinux, when it loaded the file as a
    module, stopped at its boot: prompt and the kernel never ran; the
    kernel reads the file itself now (boot/usb/syslinux.cfg)."""
    return cut_after(efi, 0)


def uncut(efi):
    with br.Stick(efi, 1, CFG) as st:
        lines, rc = boot_until(st.img, lambda ls: False)
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU status {rc}, expected {q.NO_PMU_EXIT}: the file's on_finish = "
                    "qemu-exit")
    if any(l.startswith("error: options") for l in lines):
        errs.append("an error line for a readable file")
    if q.closing(lines) != (1, 0, 0):
        errs.append(f"closing {q.closing(lines)}, expected the file's one check")
    return errs


def main():
    return q.kernel_cases(NAME, (cut_chain, first_cluster_cut, uncut))


if __name__ == "__main__":
    sys.exit(main())
