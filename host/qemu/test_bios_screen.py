#!/usr/bin/env python3
"""The legacy BIOS kernel's screen: once a run has started, the layout of
tests/screen.h is painted into the VGA text buffer, so at the end prompt of
on_finish = wait the screen (QEMU's screendump) shows the verdict box in the
NO PMU colours (black on brown) under TCG, while COM1 keeps the plain lines.
Usage: test_bios_screen.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402
import test_bios_kernel as bk  # noqa: E402  (COM1 polling, the end prompt)

NAME = "bios-screen"
# The CGA palette's brown (attribute 6) as QEMU's VGA draws it, per channel
# within a small tolerance of 0xaa 0x55 0x00.
BROWN = (0xaa, 0x55, 0x00)
TOLERANCE = 8
# The verdict box spans several rows and most of the width: far more
# pixels than any single character cell.
MIN_BOX_PIXELS = 5000


def ppm_pixels(path):
    """The (r, g, b) pixels of a binary PPM (P6, maxval 255)."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    pixels = data[pos + 1:]
    w, h = int(fields[1]), int(fields[2])
    return [tuple(pixels[i:i + 3]) for i in range(0, 3 * w * h, 3)]


def near(p, want):
    return all(abs(a - b) <= TOLERANCE for a, b in zip(p, want))


def verdict_box(kernel):
    d = tempfile.mkdtemp(prefix="pmh-bios-scr-")
    serial, mon = os.path.join(d, "serial.log"), os.path.join(d, "mon.sock")
    shot = os.path.join(d, "screen.ppm")
    p = subprocess.Popen(["qemu-system-i386", "-cpu", "pentium3", "-vga", "std",
                          "-kernel", kernel, "-append", "checks=apic.* countdown=1",
                          "-serial", "file:" + serial, "-monitor", f"unix:{mon},server,nowait",
                          "-display", "none", "-no-reboot", "-nodefaults"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lines = bk.wait_for(serial, lambda ls: any(l.endswith(bk.PROMPT) for l in ls))
        if not lines:
            return ["no end prompt on COM1"]
        errs = []
        if q.closing(lines) is None:
            errs.append("COM1 has no closing line (the plain lines must stay there)")
        m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        m.connect(mon)
        m.sendall(f"screendump {shot}\n".encode())
        end = time.monotonic() + 10
        while time.monotonic() < end and not os.path.exists(shot):
            time.sleep(0.1)
        time.sleep(0.5)  # the file is written in one go; let it finish
        m.sendall(b"quit\n")
        m.close()
        if not os.path.exists(shot):
            return errs + ["no screendump"]
        brown = sum(1 for px in ppm_pixels(shot) if near(px, BROWN))
        if brown < MIN_BOX_PIXELS:
            errs.append(f"{brown} pixels in the NO PMU box's brown, expected at least "
                        f"{MIN_BOX_PIXELS} (no verdict box on the VGA screen)")
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
    t.case(verdict_box, kernel)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
