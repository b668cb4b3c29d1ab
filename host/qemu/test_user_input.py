#!/usr/bin/env python3
"""What the user typed reaches the harness whole or is refused out loud. UEFI
shell arguments: the image named without ".efi" is not taken for an option,
a line of 50 words and over 511 characters loses nothing, and a word with a
non-ASCII character is refused alone, by number and character, while the
others apply. A pmuharness.cfg larger than the harness reads: the line the
read limit cuts is said and not applied half-read. OVMF's built-in shell
runs a UTF-16 startup.nsh (the only way to type U+00E9 into it) from a
volume without \\EFI\\BOOT\\BOOTX64.EFI.
Usage: test_user_input.py build/pmuharness.efi"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "user-input"
LIMIT_S = 150
CHECK_LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+?):? ")
LONG_WORDS = 50
RUNS = [
    "pmuharness checks=apic.lvt-pc",
    "pmuharness" + " verbose=no" * LONG_WORDS + " checks=apic.self-ipi",
    "pmuharness.efi checks=caf\u00e9 checks=apic.nmi",
    "big\\pmuharness.efi",
]
HELP_RUN = "pmuharness -h"  # last: it prints the keys and has no closing line
# boot/files.c reads pmuharness.cfg up to 32 KiB: a line crosses that point
READ_MAX = 32 * 1024
CUT_LINE = "checks = apic.nmi"


def big_cfg():
    """A config whose line CUT_LINE crosses the read limit: read half, it
    would be "checks = apic.n", which matches no check."""
    head = "on_finish = return\nchecks = apic.lvt-pc\n"
    pad = READ_MAX - len(head) - len(CUT_LINE) // 2
    lines = []
    while pad > 0:
        n = min(pad, 80)
        lines.append("#" * (n - 1) + "\n")
        pad -= n
    text = head + "".join(lines) + CUT_LINE + "\nrepeat = 3\n" + "# tail\n" * 1000
    assert text.index(CUT_LINE) < READ_MAX < text.index(CUT_LINE) + len(CUT_LINE)
    return text.encode("ascii"), text[:READ_MAX].count("\n") + 1


def run_lines(plain):
    """The serial lines of each run: from its first line to its closing line."""
    runs, cur = [], []
    for l in plain:
        cur.append(l)
        if q.CLOSING.match(l):
            runs.append(cur)
            cur = []
    return runs, cur


def main():
    efi = sys.argv[1]
    esp = tempfile.mkdtemp(prefix="pmh-args-")
    serial = esp + ".serial.log"
    shutil.copy(efi, os.path.join(esp, "pmuharness.efi"))
    with open(os.path.join(esp, "pmuharness.cfg"), "w") as f:
        f.write("on_finish = return\n")
    os.mkdir(os.path.join(esp, "big"))
    shutil.copy(efi, os.path.join(esp, "big", "pmuharness.efi"))
    cfg, cut_line = big_cfg()
    with open(os.path.join(esp, "big", "pmuharness.cfg"), "wb") as f:
        f.write(cfg)
    script = "\r\n".join(["@echo -off", "fs0:"] + RUNS + [HELP_RUN, "reset -s", ""])
    with open(os.path.join(esp, "startup.nsh"), "wb") as f:
        f.write(b"\xff\xfe" + script.encode("utf-16-le"))
    assert len(RUNS[1]) > 511
    p = subprocess.run([q.BOOT, efi, "--prepared", "--esp", esp, "--serial", serial,
                        "--timeout", str(LIMIT_S)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=q.ENV)
    raw = open(serial, "rb").read() if os.path.exists(serial) else b""
    runs, tail = run_lines(q.plain(raw))
    t = []

    def expect(name, ok, detail):
        t.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {NAME}.{name}: {detail}")

    def checks_of(run):
        return [m.group(2) for m in map(CHECK_LINE.match, run) if m]

    def errors_of(run):
        return [l for l in run if l.startswith("config: load options:")]

    expect("runs", p.returncode != q.START_FAILED and len(runs) == len(RUNS),
           f"{len(runs)} runs ended with their closing line, expected {len(RUNS)} "
           f"(QEMU status {p.returncode})")
    runs += [[]] * (len(RUNS) - len(runs))
    got = (checks_of(runs[0]), errors_of(runs[0]))
    expect("no-efi-suffix", got == (["apic.lvt-pc"], []),
           f"'pmuharness checks=apic.lvt-pc' ran {got[0]} with errors {got[1]}, "
           "expected apic.lvt-pc alone and none")
    got = (checks_of(runs[1]), errors_of(runs[1]))
    expect("long-line", got == (["apic.self-ipi"], []),
           f"{LONG_WORDS + 2} words, {len(RUNS[1])} characters ran {got[0]} with errors "
           f"{got[1]}, expected apic.self-ipi alone and none")
    errs = errors_of(runs[2])
    ok = (checks_of(runs[2]) == ["apic.nmi"] and len(errs) == 1
          and 'argument 1 "checks=caf\\u00e9"' in errs[0] and "U+00E9" in errs[0])
    expect("non-ascii-word", ok,
           f"ran {checks_of(runs[2])} with errors {errs}, expected apic.nmi and one error "
           "naming argument 1 and U+00E9")
    errs = [l for l in runs[3] if l.startswith("config: pmuharness.cfg:")]
    want = (f"config: pmuharness.cfg: line {cut_line}: the file is {len(cfg)} bytes and only "
            f"the first {READ_MAX} are read: this line, cut there, and the rest are ignored")
    ok = checks_of(runs[3]) == ["apic.lvt-pc"] and len(errs) == 1 and errs[0].startswith(want)
    expect("config-cut", ok, f"a {len(cfg)}-byte config ran {checks_of(runs[3])} with "
           f"errors {errs}, expected apic.lvt-pc and the cut named at line {cut_line}")
    at = [i for i, l in enumerate(tail) if l.startswith("pmuharness options:")]
    tail = tail[at[0]:] if at else tail
    ok = bool(at) and not any(l.startswith(("cpu.", "verdict:", "results.")) for l in tail)
    expect("help", ok, f"'{HELP_RUN}' printed {len(tail)} lines: the option list and no run"
           if ok else f"'{HELP_RUN}' printed: {tail[:3]}")
    leaked = [l for l in q.plain(raw) if any(ord(c) > 0x7e for c in l)]
    expect("plain-ascii", not leaked, f"{len(leaked)} of our lines carry non-ASCII")
    passed = sum(t)
    failed = len(t) - passed
    if failed:
        print("\n".join("    | " + l for l in q.plain(raw)[-40:]))
        print(f"    (kept: {esp} and {serial})")
    else:
        shutil.rmtree(esp, ignore_errors=True)
        os.unlink(serial)
    print(f"{NAME}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
