#!/usr/bin/env python3
"""Runs the harness twice from the UEFI shell, then once with a test trigger
that raises an unexpected #UD, and then a shell command: proves that the
harness hands the machine back as it found it (IDT, LVTPC, console) with
on_finish = return, after a normal run and after a recovered exception. The binary is put at the volume root with no
\\EFI\\BOOT\\BOOTX64.EFI, so OVMF falls through to its built-in UEFI shell, which
runs startup.nsh from FS0:."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BOOT = os.path.join(HERE, "..", "..", "scripts", "qemu-boot.sh")
NAME = "shell-twice"
LIMIT_S = 120

# The marker is assembled by the shell from a variable, so that only an
# executed echo (not a listing of the script) can print it.
STARTUP = "\r\n".join([
    "@echo -off",
    "fs0:",
    "\\pmuharness.efi",
    "\\pmuharness.efi",
    "\\pmuharness.efi checks=apic.fatal-trigger",
    "set M ALIVE",
    "echo SHELL-STILL-%M%",
    "reset -s",
    "",
])
MARKER = "SHELL-STILL-ALIVE"
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
BANNER = re.compile(r"^\s*=+\s+(PASS|FAIL|ERROR|NO PMU|NO VERDICT)\s+=+$")
ESC = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def main():
    efi = sys.argv[1]
    cpu = os.environ.get("PMH_SHELL_CPU", "Skylake-Client")
    esp = tempfile.mkdtemp(prefix="pmh-shell-")
    serial = esp + ".serial.log"  # outside the folder that becomes the volume
    shutil.copy(efi, os.path.join(esp, "pmuharness.efi"))
    with open(os.path.join(esp, "pmuharness.cfg"), "w") as f:
        f.write("on_finish = return\n")
    with open(os.path.join(esp, "startup.nsh"), "w", newline="") as f:
        f.write(STARTUP)
    try:
        p = subprocess.run([BOOT, efi, "--prepared", "--esp", esp, "--cpu", cpu,
                            "--serial", serial, "--timeout", str(LIMIT_S)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(serial, "rb") as f:
            raw = f.read().decode("ascii", "replace")
    except OSError as e:
        print(f"FAIL {NAME}.boot: {e}")
        print(f"{NAME}: 0 passed, 1 failed")
        return 1
    plain = [l.rstrip("\r") for l in raw.split("\n") if "\x1b" not in l]
    # The shell's own output reaches the serial port through the firmware's
    # console mirror, with escape codes: strip them to find the marker.
    stripped = [ESC.sub("", l).rstrip("\r") for l in raw.split("\n")]

    results = []

    def expect(name, ok, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {NAME}.{name}: {detail}")

    expect("exit", p.returncode == 0,
           f"QEMU exit status {p.returncode}, expected 0 (shell 'reset -s' powered off)")
    closing = [(i, CLOSING.match(l)) for i, l in enumerate(plain) if CLOSING.match(l)]
    banners = [(i, BANNER.match(l).group(1)) for i, l in enumerate(plain) if BANNER.match(l)]
    expect("runs", len(closing) == 3 and len(banners) == 3,
           f"{len(closing)} closing lines and {len(banners)} verdict banners, expected 3 and 3")
    ok = len(closing) == 3 and len(banners) == 3 and all(
        c[0] < b[0] for c, b in zip(closing, banners)) and all(
        banners[k][0] < closing[k + 1][0] for k in range(2))
    # TCG has no PMU: a clean run is NO PMU, never PASS.
    expect("verdicts", ok and [v for _, v in banners] == ["NO PMU", "NO PMU", "ERROR"],
           "each run ends with its closing line then its verdict: "
           + ", ".join(v for _, v in banners) + " (expected NO PMU, NO PMU, ERROR)")
    # the third run: the unexpected-exception report and the recovery
    fatal = [l for l in plain if l.startswith("fatal:")]
    want = [r"^fatal: unexpected exception vector 6 error 0x0 at rip 0x[0-9a-f]+$",
            r"^fatal: rax=5a5a1234 rbx=badcafe rcx=",
            r"^fatal: rbp=[0-9a-f]+ rsp=[0-9a-f]+ "]
    ok = len(fatal) == 3 and all(re.match(w, l) for w, l in zip(want, fatal))
    ok = ok and any(l.startswith("error: the harness stopped after an unexpected exception")
                    for l in plain)
    expect("fatal-report", ok, "#UD reported with vector, error code, RIP and registers, "
           "then the harness stopped: " + (" | ".join(fatal) if fatal else "no fatal lines"))
    finish = [l for l in plain if l.startswith("options.on_finish:")]
    expect("on-finish", finish == ["options.on_finish: return"] * 3,
           f"on_finish lines {finish}")
    first_two = plain[:closing[1][0]] if len(closing) >= 2 else plain
    bad = [l for l in first_two if l.startswith(("fatal:", "error:", "warning: unexpected"))]
    expect("no-fatal", not bad,
           f"{len(bad)} fatal/error lines in the first two runs" + (f": {bad[0]}" if bad else ""))
    marker_at = [i for i, l in enumerate(stripped) if l.strip() == MARKER]
    # positions in `stripped` and `plain` differ; compare through raw offsets
    last_closing = raw.rfind(closing[-1][1].group(0)) if closing else -1
    marker_off = raw.find(MARKER)
    expect("shell-alive", bool(marker_at) and marker_off > last_closing >= 0,
           f"'{MARKER}' printed by the shell after all three runs" if marker_at
           else f"'{MARKER}' not printed: the shell did not survive the runs")
    # results files: the second run must not overwrite the first
    files = sorted(os.listdir(esp))
    want = ["pmuharness-001.json", "pmuharness-001.log", "pmuharness-002.json",
            "pmuharness-002.log", "pmuharness-003.json", "pmuharness-003.log"]
    have = [f for f in want if f in files]
    ok = have == want
    detail = f"results files {have}"
    if ok and len(closing) == 3:
        for n, (_, m) in zip(("001", "002", "003"), closing):
            try:
                with open(os.path.join(esp, f"pmuharness-{n}.json")) as f:
                    s = json.load(f)["summary"]
                if (s["passed"], s["failed"], s["skipped"]) != tuple(int(x) for x in m.groups()):
                    ok = False
                    detail = f"pmuharness-{n}.json summary differs from its closing line"
            except (OSError, ValueError, KeyError) as e:
                ok = False
                detail = f"pmuharness-{n}.json unreadable: {e}"
    expect("results-files", ok, detail)

    passed = sum(results)
    failed = len(results) - passed
    if failed:
        print("\n".join("    | " + l for l in stripped[-30:] if l.strip()))
        print(f"    (kept: {esp} and {serial})")
    else:
        shutil.rmtree(esp, ignore_errors=True)
        os.unlink(serial)
    print(f"{NAME}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
