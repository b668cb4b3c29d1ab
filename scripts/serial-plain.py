#!/usr/bin/env python3
"""`make run`'s terminal filter: QEMU's COM1 (and stderr) in, our own lines
out, each once and as they come. The firmware mirrors its console to COM1
with ANSI escape codes (a colour, a screen clear), so its copy of each of
our lines carries ESC and ours does not (docs/user-guide.md "Output"): lines with ESC
are dropped, CRs too. QEMU's "TCG doesn't support requested feature"
warnings (a CPU model's CPUID bits TCG does not emulate; harmless for a
harness that reads CPUID) are counted and said once at the end."""
import os
import re
import sys

TCG_WARNING = "TCG doesn't support requested feature"
SPLIT = re.compile(rb"\r\n|\r|\n")


def main():
    out = sys.stdout.buffer
    pending = b""
    hidden = 0

    def emit(line):
        nonlocal hidden
        if b"\x1b" in line:
            return
        if TCG_WARNING.encode() in line:
            hidden += 1
            return
        out.write(line + b"\n")
        out.flush()

    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        data = pending + chunk
        # a CR at the very end may be half of a CRLF: keep it for the next chunk
        hold = b"\r" if data.endswith(b"\r") else b""
        parts = SPLIT.split(data[:len(data) - len(hold)])
        pending = parts.pop() + hold
        for line in parts:
            emit(line)
    pending = pending.rstrip(b"\r")
    if pending:
        emit(pending)
    if hidden:
        out.write(b"run: %d QEMU warnings hidden: TCG does not emulate some CPUID features "
                  b"of this CPU model (harmless: the harness reads CPUID as it is)\n" % hidden)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
