#!/usr/bin/env python3
"""A pmuharness.cfg that is on the stick but cannot be read (its cluster
chain cut: the FAT marks its second cluster free before the file's size is
reached) is named with its firmware status, none of it applies, and the run
does not end waiting for a key on defaults it could not read: on_finish
becomes return (docs/user-guide.md "Options"). Before, nothing was said and the
default on_finish = wait waited for ever.
Usage: test_config_read.py build/pmuharness.efi"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "config-read"
CFG = "/EFI/BOOT/pmuharness.cfg"
# three 512-byte clusters; what it says would make the run exit QEMU
TEXT = ("on_finish = qemu-exit\nchecks = apic.lvt-pc\n" + "# padding\n" * 150).encode()
LIMIT_S = 60


def cut_chain(img, off):
    """Marks the config's second cluster free in both FATs (FAT32)."""
    out = subprocess.run(["mshowfat", "-i", f"{img}@@{off}", "::" + CFG], capture_output=True,
                         text=True, env=q.ENV, check=True).stdout
    first = int(re.search(r"<(\d+)", out).group(1))
    with open(img, "r+b") as f:
        f.seek(off)
        bs = f.read(512)
        # FAT32 boot sector: bytes per sector, reserved sectors, FATs, FAT length
        sector, = struct.unpack_from("<H", bs, 11)
        reserved, = struct.unpack_from("<H", bs, 14)
        fats, fatlen = bs[16], struct.unpack_from("<I", bs, 36)[0]
        assert bs[82:87] == b"FAT32", bs[82:90]
        for k in range(fats):
            f.seek(off + (reserved + k * fatlen) * sector + 4 * (first + 1))
            f.write(struct.pack("<I", 0))
    return first


def wait_for(serial, proc, pattern):
    end = time.monotonic() + LIMIT_S
    while time.monotonic() < end and proc.poll() is None:
        lines = q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []
        if any(pattern in l for l in lines):
            return lines
        time.sleep(0.5)
    return q.plain(open(serial, "rb").read()) if os.path.exists(serial) else []


def cut_chain_named(efi):
    work = tempfile.mkdtemp(prefix="pmh-cfg-")
    try:
        img, serial = os.path.join(work, "stick.img"), os.path.join(work, "com1.log")
        off = q.build_image(efi, img)
        q.put(img, off, TEXT, CFG)
        cut_chain(img, off)
        proc = subprocess.Popen([q.BOOT, "-", "--usb", img, "--serial", serial, "--timeout",
                                 str(LIMIT_S)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=dict(q.ENV, TMPDIR=work),
                                start_new_session=True)
        try:
            lines = wait_for(serial, proc, "verdict: ")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
            proc.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    err = [l for l in lines if l.startswith("error: config: pmuharness.cfg could not be read")]
    fin = [l for l in lines if l.startswith("options.on_finish: ")]
    ran = [l for l in lines if re.match(r"^(PASS|FAIL|SKIP) ", l)]
    print(f"  {err[0] if err else 'no error line'}; {fin}; {len(ran)} checks ran")
    errs = []
    if not err:
        errs.append("the unreadable config was not named: " + " / ".join(lines[-4:]))
    if fin != ["options.on_finish: return"]:
        errs.append(f"on_finish lines {fin}, want return")
    if len(ran) < 2:  # the config's selection did not apply: every check ran
        errs.append(f"{len(ran)} checks ran: the cut config's selection applied")
    return errs


def main():
    t = q.Tally(NAME)
    t.case(cut_chain_named, q.efi_arg())
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
