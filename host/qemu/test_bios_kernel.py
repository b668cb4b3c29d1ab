#!/usr/bin/env python3
"""The legacy BIOS kernel (build/pmuharness-i686.elf) booted with QEMU's
Multiboot loader (-kernel, SeaBIOS) on the real 32-bit identities, without
+lm: Pentium II (no SSE2: LFENCE is #UD there, and an unconditional one
faulted before our IDT), Pentium III, Athlon K7, a NetBurst Pentium 4,
Core Duo (no architectural perfmon under TCG) and Atom N270, and the same
32-bit kernel on a K8 (Opteron_G1) under qemu-system-x86_64. Each must name
the right pmu.driver, PASS the interrupt checks, have no FAIL, end with a
closing line that agrees with the check lines and leave with the NO PMU
verdict through isa-debug-exit (value 3, QEMU status 7), and say that its
results are on the console and serial only. An unexpected exception
(apic.fatal-trigger's #UD) goes through the i386 stubs: reported with its
vector and registers, recovered, and the run ends with ERROR (status 5).
pmuharness.cfg as a Multiboot module (-initrd) applies, its bad line is
reported, and the command line wins over it. The keyboard: at the end
prompt of on_finish = wait (which says the results are not saved) R runs
again and Esc leaves, and the kernel halts. guard.gp takes a real #GP (IA32_PKRS
reserved bit) on TCG's max and the run goes on. The screen's Board row names
the system SeaBIOS's SMBIOS tables describe (QEMU's "QEMU Standard PC ..."),
found through the entry point in 0xF0000-0xFFFFF.
Usage: test_bios_kernel.py [build/pmuharness.efi] (the kernel is beside it)"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

NAME = "bios-kernel"
# (qemu -cpu, expected pmu.driver): the drivers of the UEFI boot matrix for
# the same vendors and families (host/qemu/boot_matrix.py); Core Duo and
# N270 have no P6 model and TCG hides CPUID.0AH, so none.
IDENTITIES = [
    ("pentium2", "intel-p6"),
    ("pentium3", "intel-p6"),
    ("athlon", "amd-legacy"),
    ("qemu32,vendor=GenuineIntel,family=15,model=2", "intel-netburst"),
    ("coreduo", "none"),
    ("n270", "none"),
    ("Opteron_G1", "amd-legacy"),
]
# The 64-bit CPU models need the 64-bit QEMU; its Multiboot loader takes
# the same ELF32 kernel.
QEMU_X86_64 = {"Opteron_G1"}
# The ERROR verdict's debug-exit value 2: QEMU exits with (2 << 1) | 1.
ERROR_EXIT = 5
REQUIRED = ["apic.lvt-pc", "apic.self-ipi", "apic.nmi", "idt.restore"]
CHECK = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:]+)")
NOTE = ("warning: no results files: NOTHING will be saved on the disk (the BIOS lists no hard "
        "disk (0040:0075 is 0)); results are on the console and serial only")


def boot(kernel, cpu, args="on_finish=qemu-exit", cfg=None):
    """(QEMU status, seconds, COM1 lines) of one -kernel boot; cfg: the text
    of a pmuharness.cfg handed over as a module."""
    d = tempfile.mkdtemp(prefix="pmh-bios-")
    serial = os.path.join(d, "serial.log")
    modules = []
    if cfg is not None:
        path = os.path.join(d, "pmuharness.cfg")
        with open(path, "w") as f:
            f.write(cfg)
        modules = ["-initrd", path]
    t0 = time.monotonic()
    qemu = "qemu-system-x86_64" if cpu in QEMU_X86_64 else "qemu-system-i386"
    p = subprocess.run(["timeout", str(q.LIMIT_S), qemu, "-cpu", cpu,
                        "-kernel", kernel, "-append", args] + modules + [
                        "-serial", "file:" + serial,
                        "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                        "-display", "none", "-no-reboot", "-nodefaults"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    secs = time.monotonic() - t0
    raw = open(serial, "rb").read() if os.path.exists(serial) else b""
    shutil.rmtree(d, ignore_errors=True)
    return p.returncode, secs, q.plain(raw)


def identity(kernel, cpu, driver):
    rc, secs, lines = boot(kernel, cpu)
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU)")
    kv = {}
    for l in lines:
        m = re.match(r"^([a-z_.]+): (.*)$", l)
        if m:
            kv.setdefault(m.group(1), m.group(2))
    if kv.get("pmu.driver") != driver:
        errs.append(f"pmu.driver {kv.get('pmu.driver')!r}, expected {driver}")
    if not kv.get("verdict", "").startswith("NO PMU"):
        errs.append(f"verdict {kv.get('verdict')!r}, expected NO PMU")
    if NOTE not in lines:
        errs.append("no line saying where the results are")
    checks = [m.groups() for m in map(CHECK.match, lines) if m]
    errs += [f"unexpected FAIL {c}" for v, c in checks if v == "FAIL"]
    for c in REQUIRED:
        if ("PASS", c) not in checks:
            errs.append(f"no PASS {c}")
    if ("SKIP", "guard.gp") not in checks:
        errs.append("guard.gp did not SKIP (no PKS on this identity)")
    closing = [m for m in map(q.CLOSING.match, lines) if m]
    counted = tuple(sum(1 for v, _ in checks if v == w) for w in ("PASS", "FAIL", "SKIP"))
    if len(closing) != 1:
        errs.append(f"{len(closing)} closing lines, expected 1")
    elif tuple(int(x) for x in closing[0].groups()) != counted:
        errs.append(f"closing line {closing[0].group(0)!r}, check lines count {counted}")
    return errs


def gp_guard(kernel):
    """TCG's max enumerates PKS and, unlike an unknown MSR, faults a reserved
    bit of IA32_PKRS: the guard catches a real #GP on i386 and the run goes
    on. The identities above have no PKS: SKIP there (identity())."""
    rc, _, lines = boot(kernel, "max", "checks=guard.gp,idt.restore on_finish=qemu-exit")
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU)")
    if not any(l.startswith("PASS guard.gp ") and "raised #GP (vector 13)" in l for l in lines):
        errs.append("no PASS guard.gp with the #GP taken")
    if "PASS idt.restore" not in " ".join(l[:16] for l in lines):
        errs.append("idt.restore did not PASS after the fault")
    return errs


def fatal_recovery(kernel):
    """The #UD of apic.fatal-trigger, reported and recovered on i386."""
    rc, _, lines = boot(kernel, "pentium3", "checks=apic.fatal-trigger on_finish=qemu-exit")
    errs = []
    if rc != ERROR_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {ERROR_EXIT} (ERROR)")
    if not any(l.startswith("fatal: unexpected exception vector 6 ") for l in lines):
        errs.append("no fatal line for vector 6")
    if not any(l.startswith("fatal: rax=5a5a1234 rbx=badcafe ") for l in lines):
        errs.append("no register line with the trigger's EAX and EBX")
    if not any(l.startswith("verdict: ERROR") for l in lines):
        errs.append("no ERROR verdict after the recovery")
    return errs


def config_module(kernel):
    """pmuharness.cfg as a module, under the command line."""
    cfg = "checks = apic.*\nnot_a_key = 1\non_finish = wait\n"
    rc, _, lines = boot(kernel, "pentium3", cfg=cfg)
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT}: the command line's "
                    "on_finish=qemu-exit must win over the file's wait")
    if not any(l.startswith("options: pmuharness.cfg: line 2: ") for l in lines):
        errs.append("the file's bad line 2 was not reported")
    closing = [m.group(0) for m in map(q.CLOSING.match, lines) if m]
    if closing != ["3 passed, 0 failed, 0 skipped"]:
        errs.append(f"closing {closing}, expected the three apic.* checks of the file")
    return errs


PROMPT = "R: run again; Esc: return to the firmware."


def serial_lines(path):
    return q.plain(open(path, "rb").read()) if os.path.exists(path) else []


def wait_for(path, pred, secs=20):
    """Polls COM1's file until pred(lines); the lines then, or None."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        lines = serial_lines(path)
        if pred(lines):
            return lines
        time.sleep(0.1)
    return None


def keyboard(kernel):
    """R at the end prompt runs again, Esc leaves; keys through QEMU's monitor."""
    d = tempfile.mkdtemp(prefix="pmh-bios-")
    serial, mon = os.path.join(d, "serial.log"), os.path.join(d, "mon.sock")
    # QEMU itself, not under timeout(1): killing it here must end it
    p = subprocess.Popen(["qemu-system-i386", "-cpu", "pentium3",
                          "-kernel", kernel, "-append", "checks=idt.restore countdown=1",
                          "-serial", "file:" + serial, "-monitor", f"unix:{mon},server,nowait",
                          "-display", "none", "-no-reboot", "-nodefaults"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    errs = []
    try:
        def prompts(n):
            return lambda ls: sum(1 for l in ls if l.endswith(PROMPT)) >= n

        if not wait_for(serial, prompts(1)):
            return ["no end prompt"]
        m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        m.connect(mon)
        m.sendall(b"sendkey r\n")
        if not wait_for(serial, prompts(2)):
            return ["R did not run again"]
        m.sendall(b"sendkey esc\n")
        lines = wait_for(serial, lambda ls: "halted: switch the machine off" in ls)
        m.sendall(b"quit\n")
        m.close()
        if lines is None:
            return ["Esc did not leave and halt"]
        if not any("NOT saved" in l for l in lines if l.endswith(PROMPT)):
            errs.append("the end prompt does not say the results are not saved")
        closing = [m for m in map(q.CLOSING.match, lines) if m]
        if len(closing) != 2:
            errs.append(f"{len(closing)} closing lines, expected 2 (two runs)")
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)
    return errs


# QEMU's SMBIOS type 1 for the i440FX machine (hw/i386/pc_piix.c, the
# manufacturer hw/smbios/smbios.c's default); SeaBIOS's tables carry it
# and OVMF's show the same on the UEFI image's screen.
BOARD = "Board    QEMU Standard PC (i440FX + PIIX, 1996)"


def vga_rows(mon_sock, d):
    """The VGA text buffer's 25 rows (QEMU's monitor: pmemsave 0xB8000)."""
    path = os.path.join(d, "vga.bin")
    m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    m.connect(mon_sock)
    m.sendall(f'pmemsave 0xb8000 4000 "{path}"\n'.encode())
    end = time.monotonic() + 10
    while time.monotonic() < end and (not os.path.exists(path) or
                                       os.path.getsize(path) < 4000):
        time.sleep(0.1)
    m.sendall(b"quit\n")
    m.close()
    cells = open(path, "rb").read()[0:4000:2].decode("latin-1")
    return [cells[i:i + 80].rstrip() for i in range(0, 2000, 80)]


def board(kernel):
    """The screen's Board row at the end prompt names QEMU's system, and its
    firmware SeaBIOS (SMBIOS types 1 and 0)."""
    d = tempfile.mkdtemp(prefix="pmh-bios-")
    serial, mon = os.path.join(d, "serial.log"), os.path.join(d, "mon.sock")
    p = subprocess.Popen(["qemu-system-i386", "-cpu", "pentium3", "-kernel", kernel,
                          "-append", "checks=idt.restore countdown=0",
                          "-serial", "file:" + serial, "-monitor", f"unix:{mon},server,nowait",
                          "-display", "none", "-no-reboot", "-nodefaults", "-vga", "std"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_for(serial, lambda ls: any(l.endswith(PROMPT) for l in ls)):
            return ["no end prompt"]
        rows = vga_rows(mon, d)
        got = [r.strip() for r in rows if r.strip().startswith("Board ")]
        if not got or not got[0].startswith(BOARD + " "):
            return [f"the screen's board row is {got!r}, expected {BOARD!r}"]
        # and the firmware as SMBIOS type 0 names it (SeaBIOS's vendor)
        fw = re.search(r"Firmware (.*)$", got[0])
        if not fw or not fw.group(1).startswith("SeaBIOS"):
            return [f"the screen's firmware is {fw.group(1) if fw else None!r}, expected "
                    "SeaBIOS's name from SMBIOS type 0"]
        return []
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def case_for(kernel, cpu, driver):
    def fn():
        return identity(kernel, cpu, driver)
    fn.__name__ = cpu.split(",")[0] + ("-family15" if "family=15" in cpu else "")
    return fn


def main():
    kernel = q.kernel_or_fail(NAME)
    if kernel is None:
        return 1
    t = q.Tally(NAME)
    for cpu, driver in IDENTITIES:
        t.case(case_for(kernel, cpu, driver))
    t.case(gp_guard, kernel)
    t.case(fatal_recovery, kernel)
    t.case(config_module, kernel)
    t.case(keyboard, kernel)
    t.case(board, kernel)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
