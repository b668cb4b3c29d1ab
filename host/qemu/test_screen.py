#!/usr/bin/env python3
"""The machine's screen under OVMF with a display: after the verdict the
screen shows the identification header and a large verdict box in its
colour; after an unexpected exception it shows the crash panel, and the
results log holds the same "fatal:" lines as the serial port. With output =
lava the screen is painted all the same while COM1 carries no escape code.
Taken with the QEMU monitor's screendump (a PPM) while the harness waits at
its end prompt.
Usage: test_screen.py build/pmuharness.efi"""
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

# The end prompt of on_finish = wait (tests/harness.c prompt_again).
PROMPT = "R: run again; Esc: return to the firmware."
# OVMF's graphics console colours (GraphicsConsole's EFI colour table):
# the background of each box the layout paints (tests/screen.h).
NO_PMU_BG = (0x98, 0x98, 0x00)   # brown: the NO PMU box under TCG
CRASH_BG = (0x98, 0x00, 0x98)    # magenta: the crash panel
TITLE_BG = (0x00, 0x98, 0x98)    # cyan: the header's title row
# The title row: pixel rows this share of the text area's width in cyan.
# The verdict box is five full-width text rows, the crash panel four (its
# title and three fatal lines), less what their letters cover: each must
# fill at least one text row fewer with its colour.
BAND = 0.8
BOX_ROWS_MIN = 4
CRASH_ROWS_MIN = 3
# Text in the four header rows under the title: lit pixels.
HEADER_INK_MIN = 500


def read_ppm(path):
    """(width, height, rgb bytes) of a binary P6 PPM with maxval 255."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", fields
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def row_counts(w, h, rgb, colour):
    """Per pixel row, how many pixels have exactly this colour."""
    want = bytes(colour)
    return [sum(1 for x in range(w) if rgb[(y * w + x) * 3:(y * w + x) * 3 + 3] == want)
            for y in range(h)]


class Layout:
    """The text area in a screendump, found by the header's title row: the
    firmware centres it on the screen; one text row is glyph_h pixels."""

    def __init__(self, w, h, rgb):
        self.w, self.h, self.rgb = w, h, rgb
        title = row_counts(w, h, rgb, TITLE_BG)
        self.text_w = max(title)
        rows = [y for y, n in enumerate(title) if self.text_w and n >= BAND * self.text_w]
        self.top = rows[0] if rows else 0
        self.glyph_h = len(rows)

    def area_rows(self, colour):
        """The pixels of this colour, in full-width text rows."""
        n = sum(row_counts(self.w, self.h, self.rgb, colour))
        return n / (self.text_w * self.glyph_h) if self.glyph_h else 0

    def header_ink(self):
        a = (self.top + self.glyph_h) * self.w * 3
        b = (self.top + 5 * self.glyph_h) * self.w * 3
        return sum(1 for i in range(a, b, 3) if self.rgb[i:i + 3] != b"\0\0\0")


class Boot:
    """A boot with a VGA display and the monitor on a socket, waiting at the
    end prompt (on_finish = wait, no countdown)."""

    def __init__(self, efi, cfg):
        self.dir = tempfile.mkdtemp(prefix="pmh-scr-")
        self.esp = os.path.join(self.dir, "esp")
        self.serial = os.path.join(self.dir, "serial.log")
        self.mon = os.path.join(self.dir, "mon.sock")
        self.proc = subprocess.Popen(
            [q.BOOT, efi, "--esp", self.esp, "--cfg", cfg, "--serial", self.serial,
             "--timeout", str(q.LIMIT_S), "--", "-device", "VGA",
             "-monitor", f"unix:{self.mon},server=on,wait=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=dict(q.ENV, TMPDIR=self.dir), start_new_session=True)

    def lines(self):
        raw = open(self.serial, "rb").read() if os.path.exists(self.serial) else b""
        return q.plain(raw)

    def wait_prompt(self):
        end = time.monotonic() + q.LIMIT_S
        while time.monotonic() < end and self.proc.poll() is None:
            if any(PROMPT in l for l in self.lines()):
                time.sleep(2)  # the layout is painted after the serial line
                return True
            time.sleep(0.5)
        return False

    def monitor(self, cmd):
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.mon)
        s.settimeout(10)
        s.sendall(cmd.encode() + b"\n")
        time.sleep(1)
        try:
            s.recv(65536)
        except OSError:
            pass
        s.close()

    def screendump(self):
        path = os.path.join(self.dir, "screen.ppm")
        self.monitor("screendump " + path)
        end = time.monotonic() + 10
        while time.monotonic() < end and not os.path.exists(path):
            time.sleep(0.2)
        time.sleep(0.5)
        return read_ppm(path)

    def finish(self):
        """quit; the results folder as qemu-boot.sh copied it back."""
        try:
            self.monitor("quit")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        return os.path.join(self.esp, "EFI", "BOOT")

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def end_screen(efi):
    """A whole run (NO PMU under TCG): the header, the NO PMU box."""
    b = Boot(efi, "on_finish = wait\ncountdown = 0\n")
    try:
        if not b.wait_prompt():
            return ["no end prompt on the serial port: " + " / ".join(b.lines()[-3:])]
        w, h, rgb = b.screendump()
        b.finish()
    finally:
        b.close()
    lay = Layout(w, h, rgb)
    box, ink = lay.area_rows(NO_PMU_BG), lay.header_ink()
    ok = lay.glyph_h > 0 and box >= BOX_ROWS_MIN and ink >= HEADER_INK_MIN
    info = (f"{w}x{h}: title row {lay.glyph_h} px high at y={lay.top}, NO PMU box "
            f"{box:.1f} text rows, header ink {ink} px")
    print("  " + info)
    return [] if ok else [info]


def crash_screen(efi):
    """checks = apic.fatal-trigger (#UD): the crash panel on the screen and
    the fatal lines in the results log as on the serial port."""
    b = Boot(efi, "on_finish = wait\ncountdown = 0\nchecks = apic.fatal-trigger\n")
    try:
        if not b.wait_prompt():
            return ["no end prompt on the serial port: " + " / ".join(b.lines()[-3:])]
        w, h, rgb = b.screendump()
        serial_fatal = [l for l in b.lines() if l.startswith("fatal: ")]
        folder = b.finish()
        logs = sorted(f for f in os.listdir(folder) if f.endswith(".log"))
        log = open(os.path.join(folder, logs[-1]), "rb").read().decode() if logs else ""
    finally:
        b.close()
    lay = Layout(w, h, rgb)
    panel = lay.area_rows(CRASH_BG)
    log_fatal = [l for l in log.splitlines() if l.startswith("fatal: ")]
    ok = (panel >= CRASH_ROWS_MIN and len(serial_fatal) >= 3 and log_fatal == serial_fatal
          and "vector 6" in log_fatal[0])
    info = (f"crash panel {panel:.1f} text rows; fatal lines: serial "
            f"{len(serial_fatal)}, log {len(log_fatal)}"
            f"{': ' + log_fatal[0] if log_fatal else ''}")
    print("  " + info)
    return [] if ok else [info]


def lava_crash(efi):
    """output = lava with a crash: the screen is still painted (on the
    display's own console), COM1 carries no escape code from our first line
    on (OVMF's ANSI copy of the console is left out), and the crash and the
    verdict are failed LAVA cases inside the checks' set, before its STOP."""
    b = Boot(efi, "output = lava\non_finish = wait\ncountdown = 0\n"
             "checks = apic.fatal-trigger\n")
    try:
        if not b.wait_prompt():
            return ["no end prompt on the serial port: " + " / ".join(b.lines()[-3:])]
        w, h, rgb = b.screendump()
        raw = open(b.serial, "rb").read()
        b.finish()
    finally:
        b.close()
    panel = Layout(w, h, rgb).area_rows(CRASH_BG)
    ours = raw.find(b"pmuharness: ")
    esc = raw[ours:].count(b"\x1b") if ours >= 0 else -1
    lines = q.plain(raw)
    want = ["<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=fail>",
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=harness.crash RESULT=fail>",
            "<LAVA_SIGNAL_TESTSET STOP>"]
    at = [lines.index(x) if x in lines else -1 for x in want]
    starts = sum(l.startswith("<LAVA_SIGNAL_TESTSET START") for l in lines)
    stops = sum(l == "<LAVA_SIGNAL_TESTSET STOP>" for l in lines)
    ok = (panel >= CRASH_ROWS_MIN and esc == 0 and -1 not in at and at == sorted(at)
          and starts == stops == 2)
    info = (f"crash panel {panel:.1f} text rows; escape codes on COM1 after our first "
            f"line: {esc}; verdict, crash, STOP at lines {at}; sets {starts} START, "
            f"{stops} STOP")
    print("  " + info)
    return [] if ok else [info]


def main():
    efi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(q.ROOT, "build", "pmuharness.efi")
    t = q.Tally("screen")
    t.case(end_screen, efi)
    t.case(crash_screen, efi)
    t.case(lava_crash, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
