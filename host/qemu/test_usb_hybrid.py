#!/usr/bin/env python3
"""The one stick image of `make usb` boots both ways: under SeaBIOS (legacy
BIOS) its MBR, syslinux and mboot.c32 start the Multiboot kernel with the
stick's own pmuharness.cfg as its module, as an IDE disk and as usb-storage
(xHCI and EHCI); under OVMF the same FAT32 partition gives
\\EFI\\BOOT\\BOOTX64.EFI, which writes its results files beside itself (read
back with mtools). Each boot reaches the NO PMU verdict of TCG with only the
checks the stick's cfg selects, one closing line that agrees with the check
lines, and the file system is clean for fsck.fat -n before and after.
`make run BOOT=bios` and `BOOT=bios-usb` (scripts/qemu-run.sh) reach the
verdict with its status and line, CFG applied, the given image untouched.
Usage: test_usb_hybrid.py build/pmuharness.efi (the kernel is beside it)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402
import test_bios_results as br  # noqa: E402  (pc/fat.h's slot sizes)

BIOS_BOOT = os.path.join(q.ROOT, "scripts", "bios-boot.sh")
RUN = os.path.join(q.ROOT, "scripts", "qemu-run.sh")
# qemu-run.sh's status and last line for the NO PMU verdict (docs/user-guide.md "Exit codes").
RUN_NO_PMU = 3
RUN_VERDICT = "run: verdict: NO PMU, nothing usable to validate (results on the console only)"
# The stick's cfg for these boots: leave through isa-debug-exit, and only the
# interrupt checks, so a boot that ran without this file shows.
CFG = b"on_finish = qemu-exit\nchecks = apic.*\n"
APIC_CHECKS = ["apic.lvt-pc", "apic.self-ipi", "apic.nmi"]
CHECK = re.compile(r"^(?:PASS|FAIL|SKIP) ([^\s:]+)")
CHECK_V = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:]+)")
# The BIOS kernel's results slots (docs/user-guide.md "Legacy BIOS"): sized for the CPUs
# the stick is made for (usb-image.sh --cpus, default 512 as make usb's
# USB_CPUS), the text then spaces up to a final newline; the log's first
# line the magic.
STICK_CPUS = 512
JSN_BYTES, LOG_BYTES = br.SLOTS(STICK_CPUS)
SLOT_BYTES = {"PMHBIOS.LOG": LOG_BYTES, "PMHBIOS.JSN": JSN_BYTES}
SLOT_MAGIC = b"PMHBIOS-SLOT/1 "
FILES = "results.files: PMHBIOS.LOG PMHBIOS.JSN"
SAVED = "results.saved: PMHBIOS.LOG written and verified; PMHBIOS.JSN written and verified"
SYSLINUX_FILES = ["::/syslinux/ldlinux.sys", "::/syslinux/ldlinux.c32", "::/syslinux/mboot.c32",
                  "::/syslinux/libcom32.c32", "::/syslinux/syslinux.cfg"]


class Stick:
    def __init__(self, efi):
        self.dir = tempfile.mkdtemp(prefix="pmh-hyb-")
        self.img = os.path.join(self.dir, "stick.img")
        self.off = q.build_image(efi, self.img)
        q.put(self.img, self.off, CFG, "/EFI/BOOT/pmuharness.cfg")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)

    def fsck(self, when):
        """fsck.fat -n of the partition (it takes no offset: a copy of it)."""
        part = os.path.join(self.dir, "part.img")
        with open(self.img, "rb") as src, open(part, "wb") as dst:
            src.seek(self.off)
            shutil.copyfileobj(src, dst)
        p = subprocess.run(["fsck.fat", "-n", part], capture_output=True, text=True)
        os.remove(part)
        if p.returncode:
            return [f"fsck.fat -n {when} the boot: status {p.returncode}: "
                    + " / ".join((p.stdout + p.stderr).strip().splitlines()[-4:])]
        return []


def verdict_errs(rc, lines):
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU under TCG)")
    ran = [m.group(1) for m in map(CHECK.match, lines) if m]
    if ran != APIC_CHECKS:
        errs.append(f"checks run {ran}, expected the stick cfg's {APIC_CHECKS}")
    close = q.closing(lines)
    if close is None or close != q.counted(lines) or close[1]:
        errs.append(f"closing line {close}, check lines {q.counted(lines)}")
    return errs


def bios_boot(st, how):
    """(QEMU status, seconds, COM1 lines) of a SeaBIOS boot as how says."""
    rc, secs, lines, _ = q.boot(["none"] + how, q.LIMIT_S, BIOS_BOOT)
    return rc, secs, lines


def slot_errs(st, lines):
    """results.saved said, both slots read back: the log's closing line, the
    JSON parsed with the run's checks and verdicts, the padding."""
    errs = [] if SAVED in lines else [f"no '{SAVED}' line"]
    if FILES not in lines:
        errs.append(f"no '{FILES}' line naming the files as they are on the stick")
    log = q.get(st.img, st.off, "/PMHBIOS.LOG") or b""
    js = q.get(st.img, st.off, "/PMHBIOS.JSN") or b""
    close = q.closing(lines)
    for name, data in (("PMHBIOS.LOG", log), ("PMHBIOS.JSN", js)):
        text = data[:-1].rstrip(b" ")  # the padding: spaces, the slot's last byte \n
        if len(data) != SLOT_BYTES[name] or not data.endswith(b"\n") or b"\0" in data \
                or not text.endswith(b"\n") or len(text) > SLOT_BYTES[name] // 2:
            errs.append(f"{name}: not {SLOT_BYTES[name]} bytes of text, spaces and a final "
                        "newline")
    if not log.startswith(SLOT_MAGIC) or not close \
            or ("%d passed, %d failed, %d skipped" % close).encode() not in log:
        errs.append("PMHBIOS.LOG: no magic first line or no closing line")
    try:
        doc = json.loads(js)
        got = {r["id"]: r["verdict"] for r in doc["results"]}
        want = {m.group(2): m.group(1) for m in map(CHECK_V.match, lines) if m}
        if doc["schema"] != "pmuharness-results/2" or got != want:
            errs.append(f"PMHBIOS.JSN: checks {got}, the serial lines say {want}")
    except (ValueError, KeyError, TypeError) as e:
        errs.append(f"PMHBIOS.JSN does not parse as a results document: {e}")
    return errs


def damaged_magic(st, how):
    """Garbage over the JSON slot's first bytes: nothing saved, its bytes kept."""
    q.put(st.img, st.off, b"garbage" + b" " * (JSN_BYTES - 8) + b"\n", "/PMHBIOS.JSN")
    before = q.get(st.img, st.off, "/PMHBIOS.JSN")
    _, _, lines = bios_boot(st, how + [st.img])
    errs = []
    if not any(l.startswith("warning: no results files: NOTHING will be saved") and
               "PMHBIOS JSN: the file does not start with the slot magic" in l for l in lines):
        errs.append("damaged magic: no 'NOTHING will be saved ... slot magic' line")
    if q.get(st.img, st.off, "/PMHBIOS.JSN") != before:
        errs.append("damaged magic: the JSON slot's bytes changed")
    return errs


def seabios(efi, how, name):
    errs = []
    with Stick(efi) as st:
        errs += st.fsck("before")
        rc, secs, lines = bios_boot(st, how + [st.img])
        errs += verdict_errs(rc, lines)
        if not any(l.startswith("pmu.driver: ") for l in lines):
            errs.append("no pmu.driver line")
        errs += slot_errs(st, lines)
        if how == ["--ide"]:  # a second boot overwrites both; a damaged magic stops it
            rc, _, lines2 = bios_boot(st, how + [st.img])
            errs += [f"second boot: {e}" for e in verdict_errs(rc, lines2) + slot_errs(st, lines2)]
            errs += damaged_magic(st, how)
        errs += st.fsck("after")
        if errs:
            errs += ["    | " + l for l in lines[-12:]]
        print(f"  {name}: {secs:.1f} s", flush=True)
    return errs


def layout(efi):
    """The BIOS half of the stick: syslinux installed, its cfg naming the kernel
    and no module (the kernel reads the UEFI binary's own cfg from the stick),
    the kernel the build's; fsck clean."""
    errs = []
    kernel = q.kernel_of(efi)
    with Stick(efi) as st:
        # mdir hides ldlinux.* (hidden, system): each is read instead.
        errs += [f"{f} missing" for f in SYSLINUX_FILES if not q.get(st.img, st.off, f)]
        if q.get(st.img, st.off, "/pmuharness-i686.elf") != open(kernel, "rb").read():
            errs.append("/pmuharness-i686.elf differs from the build's kernel")
        cfg = (q.get(st.img, st.off, "/syslinux/syslinux.cfg") or b"").decode()
        if not re.search(r"^\s*APPEND /pmuharness-i686\.elf$", cfg, re.M):
            errs.append("syslinux.cfg does not load the kernel alone (no module)")
        errs += st.fsck("of the new image, before")
    return errs


def seabios_ide(efi):
    return seabios(efi, ["--ide"], "SeaBIOS IDE")


def seabios_usb_xhci(efi):
    return seabios(efi, ["--usb"], "SeaBIOS usb-storage on xHCI")


def seabios_usb_ehci(efi):
    return seabios(efi, ["--ehci", "--usb"], "SeaBIOS usb-storage on EHCI")


def ovmf_usb(efi):
    errs = []
    with Stick(efi) as st:
        errs += st.fsck("before")
        rc, secs, lines, _ = q.boot(["-", "--usb", st.img])
        errs += verdict_errs(rc, lines)
        files = "results.files: pmuharness-001.log pmuharness-001.json"
        if files not in lines:
            errs.append(f"no '{files}' line")
        close = q.closing(lines)
        log = q.get(st.img, st.off, "/EFI/BOOT/pmuharness-001.log") or b""
        js = q.get(st.img, st.off, "/EFI/BOOT/pmuharness-001.json") or b""
        if not close or ("%d passed, %d failed, %d skipped" % close).encode() not in log:
            errs.append("pmuharness-001.log missing or without the closing line")
        if b'"schema": "pmuharness-results/2"' not in js and b'"schema":"pmuharness-results/2"' not in js:
            errs.append("pmuharness-001.json missing or not a results file")
        errs += st.fsck("after")
        if errs:
            errs += ["    | " + l for l in lines[-12:]]
        print(f"  OVMF usb-storage: {secs:.1f} s", flush=True)
    return errs


def make_run(efi, boot, env=None):
    """scripts/qemu-run.sh (make run) with BOOT=boot on a Pentium III, only the
    interrupt checks: the verdict's status and line, the right driver."""
    env = dict(q.ENV, BOOT=boot, CPU="pentium3", CFG="checks = apic.*", TIMEOUT="60", **(env or {}))
    p = subprocess.run([RUN, efi], capture_output=True, text=True, env=env, timeout=120)
    lines = p.stdout.splitlines()
    errs = []
    if p.returncode != RUN_NO_PMU:
        errs.append(f"qemu-run.sh status {p.returncode}, expected {RUN_NO_PMU} (NO PMU)")
    if not lines or lines[-1] != RUN_VERDICT:
        errs.append(f"last line {lines[-1:]}, expected {RUN_VERDICT!r}")
    if "pmu.driver: intel-p6" not in lines:
        errs.append("no 'pmu.driver: intel-p6' line")
    ran = [m.group(1) for m in map(CHECK.match, lines) if m]
    if ran != APIC_CHECKS:
        errs.append(f"checks run {ran}, expected CFG's {APIC_CHECKS}")
    if errs:
        errs += ["    | " + l for l in (lines + p.stderr.splitlines())[-12:]]
    return errs


def make_run_bios(efi):
    return make_run(efi, "bios")


def make_run_bios_usb(efi):
    with Stick(efi) as st:
        errs = make_run(efi, "bios-usb", {"USB_IMG": st.img})
        if q.get(st.img, st.off, "/EFI/BOOT/pmuharness.cfg") != CFG:
            errs.append("make run BOOT=bios-usb changed the image it was given")
    return errs


def make_run_bad_boot(efi):
    p = subprocess.run([RUN, efi], capture_output=True, text=True, env=dict(q.ENV, BOOT="bois"))
    if p.returncode != 2 or "expected uefi, bios, bios-usb, net or bios-net" not in p.stderr:
        return [f"BOOT=bois: status {p.returncode}, stderr {p.stderr.strip()!r}"]
    return []


def make_run_bios_bad_cpu(efi):
    """QEMU refusing the CPU model is told apart from a verdict (status 66)."""
    p = subprocess.run([RUN, efi], capture_output=True, text=True,
                       env=dict(q.ENV, BOOT="bios", CPU="no-such-cpu"))
    if p.returncode != q.START_FAILED or "QEMU failed to start" not in p.stdout:
        return [f"CPU=no-such-cpu: status {p.returncode}, output {p.stdout.strip()[-200:]!r}"]
    return []


def main():
    efi = sys.argv[1]
    t = q.Tally("usb-hybrid")
    for case in (layout, seabios_ide, seabios_usb_xhci, seabios_usb_ehci, ovmf_usb,
                 make_run_bios, make_run_bios_usb, make_run_bad_boot, make_run_bios_bad_cpu):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
