#!/usr/bin/env python3
"""The USB-stick image: its layout, a boot as a USB mass-storage device with the
results read back from the image, the interactive finish (countdown, R to run
again, Esc to return), and a read-only or full stick.
Usage: test_usb.py build/pmuharness.efi"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

# MBR partition type of FAT32 addressed by LBA: UEFI mounts it, syslinux boots it.
MBR_FAT32_LBA = 0x0C
ESC = b"\x1b"
QEMU_EXIT_CFG = b"on_finish = qemu-exit\n"


class Stick:
    """A fresh image in a temporary folder, removed afterwards."""

    def __init__(self, efi, cfg=None):
        self.dir = tempfile.mkdtemp(prefix="pmh-usb-")
        self.img = os.path.join(self.dir, "stick.img")
        self.off = q.build_image(efi, self.img)
        if cfg is not None:
            q.put(self.img, self.off, cfg, "/EFI/BOOT/pmuharness.cfg")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)

    def get(self, path):
        return q.get(self.img, self.off, path)

    def listing(self):
        return q.listing(self.img, self.off)

    def snapshot(self):
        return {p: self.get(p) for p in self.listing() if not p.endswith("/")}

    def results(self):
        return sorted(p for p in self.listing() if re.search(r"/pmuharness-\d{3}\.(log|json)$", p))


def readme_keys():
    """The keys of the user guide's Options table (that section only)."""
    with open(os.path.join(q.ROOT, "docs", "user-guide.md")) as f:
        text = f.read()
    m = re.search(r"^## Options\n(.*?)^## ", text, re.M | re.S)
    return re.findall(r"^\| `([a-z_]+)` \|", m.group(1) if m else "", re.M)


def check_results(stick, number, close):
    """The JSON and log of run `number` are complete and agree with the closing line."""
    errs = []
    base = f"/EFI/BOOT/pmuharness-{number:03d}"
    js, log = stick.get(base + ".json"), stick.get(base + ".log")
    if js is None or log is None:
        return [f"{base}.json/.log missing on the stick: {stick.listing()}"]
    try:
        doc = json.loads(js)
        s = doc["summary"]
        if doc.get("schema") != "pmuharness-results/2":
            errs.append(f"{base}.json schema {doc.get('schema')!r}")
        if close and (s["passed"], s["failed"], s["skipped"]) != close:
            errs.append(f"{base}.json summary {s} differs from the closing line {close}")
        if len(doc["results"]) != s["passed"] + s["failed"] + s["skipped"]:
            errs.append(f"{base}.json has {len(doc['results'])} results, summary {s}")
    except (ValueError, KeyError, TypeError) as e:
        errs.append(f"{base}.json unreadable: {e}")
    text = log.decode("ascii", "replace")
    if close and "%d passed, %d failed, %d skipped" % close not in text:
        errs.append(f"{base}.log lacks the closing line")
    if "==========" not in text:
        errs.append(f"{base}.log lacks the verdict banner")
    return errs


def image_layout(efi):
    """MBR + one active FAT32 (LBA) partition: the layout both UEFI and BIOS boot."""
    errs = []
    with Stick(efi) as st:
        with open(st.img, "rb") as f:
            mbr = f.read(512)
            f.seek(st.off)
            bs = f.read(512)
        entry = mbr[446:462]
        if mbr[510:512] != b"\x55\xaa":
            errs.append("no MBR signature")
        if entry[0] != 0x80 or entry[4] != MBR_FAT32_LBA:
            errs.append(f"partition 1: status {entry[0]:#x}, type {entry[4]:#x}, "
                        f"expected active (0x80) FAT32 LBA ({MBR_FAT32_LBA:#x})")
        if int.from_bytes(entry[8:12], "little") * 512 != st.off:
            errs.append("MBR partition start differs from the offset sgdisk reports")
        if any(mbr[462:510]):
            errs.append("MBR has more than one partition")
        if bs[82:90] != b"FAT32   " or bs[510:512] != b"\x55\xaa":
            errs.append(f"the ESP is not FAT32: {bs[82:90]!r}")
        if int.from_bytes(bs[28:32], "little") * 512 != st.off:
            errs.append("FAT hidden-sector count differs from the partition offset")
        if st.get("/EFI/BOOT/BOOTX64.EFI") != open(efi, "rb").read():
            errs.append("\\EFI\\BOOT\\BOOTX64.EFI differs from the binary")
        if not (st.get("/README.TXT") or b"").strip():
            errs.append("README.TXT missing or empty")
        cfg = (st.get("/EFI/BOOT/pmuharness.cfg") or b"").decode()
        active = [l.strip() for l in cfg.splitlines() if l.strip() and not l.startswith("#")]
        if active != ["on_finish = wait"]:
            errs.append(f"default cfg sets {active}, expected only on_finish = wait")
        keys = readme_keys()
        if len(keys) < 5:
            errs.append(f"user guide options table not found ({keys})")
        for k in keys:
            if not re.search(rf"^#?{k} =", cfg, re.M):
                errs.append(f"default cfg does not document {k}")
    return errs


def usb_boot(efi):
    """Boots as usb-storage on xhci; results read back with mtools."""
    errs = []
    with Stick(efi, QEMU_EXIT_CFG) as st:
        before = st.snapshot()
        rc, secs, lines, _ = q.boot(["-", "--usb", st.img])
        if rc != q.NO_PMU_EXIT:
            errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU under TCG)")
        if any(l.startswith("Starting in") for l in lines):
            errs.append("on_finish = qemu-exit counted down")
        close = q.closing(lines)
        if close is None:
            errs.append("no single closing line")
        elif close != q.counted(lines):
            errs.append(f"closing line {close}, check lines {q.counted(lines)}")
        files = "results.files: pmuharness-001.log pmuharness-001.json"
        if files not in lines:
            errs.append(f"no '{files}' line")
        errs += check_results(st, 1, close)
        after = st.snapshot()
        new = sorted(set(after) - set(before))
        if new != ["::/EFI/BOOT/pmuharness-001.json", "::/EFI/BOOT/pmuharness-001.log"]:
            errs.append(f"files created: {new}, expected only the results beside the binary")
        changed = [p for p in before if after.get(p) != before[p]]
        if changed:
            errs.append(f"files changed on the stick: {changed}")
        if errs:
            errs += ["    | " + l for l in lines[-15:]]
        print(f"  usb boot: {secs:.1f} s", flush=True)
    return errs


def wait_rerun_return(efi):
    """Default cfg: countdown runs out, results are on the stick at the prompt,
    R makes a second numbered run, Esc returns to the firmware."""
    errs = []
    with Stick(efi) as st:
        con = q.Console(["-", "--usb", st.img])
        try:
            if not con.expect(r"^Starting in 3 s\. Esc", 30):
                return ["no countdown line"] + con.lines()[-10:]
            t3 = time.monotonic()
            if not con.expect(r"^Starting in 1 s", 5):
                errs.append("countdown did not reach 1 s")
            if not con.expect(r"^cpu\.vendor: ", 10):
                return errs + ["the run did not start after the countdown"] + con.lines()[-10:]
            waited = time.monotonic() - t3
            if waited < 2.0:
                errs.append(f"countdown of 3 s lasted {waited:.1f} s")
            if not con.expect(r"^Results saved\. R: run again", 30):
                return errs + ["no key prompt after the run"] + con.lines()[-10:]
            close = q.closing(con.lines())
            # Pull-the-stick guarantee: complete files while the prompt waits.
            errs += check_results(st, 1, close)
            con.mark()
            con.send(b"r")
            if not con.expect(r"^Results saved\. R: run again", 30):
                return errs + ["R did not run again"] + con.lines()[-10:]
            second = con.lines()
            if any(l.startswith("Starting in") for l in second):
                errs.append("the rerun counted down again")
            if "results.files: pmuharness-002.log pmuharness-002.json" not in second:
                errs.append("the rerun did not write pmuharness-002")
            errs += check_results(st, 2, q.closing(second))
            errs += check_results(st, 1, close)  # the first run's files untouched
            con.mark()
            con.send(ESC)
            if not con.expect(r"^Returning to the firmware\.$", 15):
                errs.append("Esc at the prompt did not return")
            # EFI_SUCCESS: the boot manager shows its menu (UEFI spec 3.1.1).
            elif not con.expect(r"^BdsDxe: (loading|starting) Boot\d+ \"UiApp\"", 15):
                errs.append("the firmware's boot manager did not take over after Esc")
            if st.results() != [f"::/EFI/BOOT/pmuharness-00{n}.{e}" for n in (1, 2)
                                for e in ("json", "log")]:
                errs.append(f"results files {st.results()}")
        finally:
            con.close()
    return errs


def countdown_any_key(efi):
    errs = []
    with Stick(efi) as st:
        con = q.Console(["-", "--usb", st.img])
        try:
            if not con.expect(r"^Starting in 3 s", 30):
                return ["no countdown line"]
            t0 = time.monotonic()
            con.send(b"x")
            if not con.expect(r"^cpu\.vendor: ", 10):
                return ["a key did not start the run"] + con.lines()[-10:]
            if time.monotonic() - t0 > 2.5:
                errs.append(f"the run started {time.monotonic() - t0:.1f} s after the key")
            if any(l.startswith("Starting in 2") for l in con.lines()):
                errs.append("the countdown went on after a key")
            if not con.expect(r"^Results saved\. R: run again", 30):
                errs.append("no key prompt after the run")
            con.send(ESC)
            if not con.expect(r"^Returning to the firmware\.$", 15):
                errs.append("Esc at the prompt did not return")
        finally:
            con.close()
    return errs


def countdown_esc_skips(efi):
    errs = []
    with Stick(efi) as st:
        con = q.Console(["-", "--usb", st.img])
        try:
            if not con.expect(r"^Starting in 3 s", 30):
                return ["no countdown line"]
            con.send(ESC)
            if not con.expect(r"^Run skipped \(Esc\): returning to the firmware\.$", 10):
                errs.append("Esc during the countdown did not skip the run")
            # EFI_ABORTED: the boot manager goes on to its next boot option.
            elif not con.expect(r"^BdsDxe: (loading|starting) Boot\d+ ", 15):
                errs.append("the firmware's boot manager did not take over after Esc")
            if any(l.startswith("cpu.vendor") for l in con.lines()):
                errs.append("the run started despite Esc")
        finally:
            con.close()
        if st.results():
            errs.append(f"a skipped run wrote {st.results()}")
    return errs


def read_only_stick(efi):
    errs = []
    with Stick(efi, QEMU_EXIT_CFG) as st:
        h0 = hashlib.sha256(open(st.img, "rb").read()).hexdigest()
        rc, secs, lines, _ = q.boot(["-", "--usb", st.img, "--ro"])
        if rc != q.NO_PMU_EXIT:
            errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU under TCG)")
        if not any(l.startswith("warning: cannot create results files beside the binary "
                                "(write-protected volume") for l in lines):
            errs.append("no write-protected warning")
        close = q.closing(lines)
        if close is None or close != q.counted(lines):
            errs.append(f"closing line {close}, check lines {q.counted(lines)}")
        if hashlib.sha256(open(st.img, "rb").read()).hexdigest() != h0:
            errs.append("the read-only image changed")
        if errs:
            errs += ["    | " + l for l in lines[-15:]]
    return errs


def full_stick(efi):
    errs = []
    with Stick(efi, QEMU_EXIT_CFG) as st:
        out = subprocess.run(["mdir", "-i", f"{st.img}@@{st.off}", "::/"], capture_output=True,
                             text=True, env=q.ENV).stdout
        free = int(re.search(r"([\d ]+) bytes free", out).group(1).replace(" ", ""))
        filler = os.path.join(st.dir, "FILLER.BIN")
        with open(filler, "wb") as f:
            f.truncate(free)
        subprocess.run(["mcopy", "-i", f"{st.img}@@{st.off}", filler, "::/FILLER.BIN"],
                       check=True, env=q.ENV)
        out = subprocess.run(["mdir", "-i", f"{st.img}@@{st.off}", "::/"], capture_output=True,
                             text=True, env=q.ENV).stdout
        if not re.search(r"\b0 bytes free", out):
            return ["could not fill the stick: " + out.splitlines()[-1]]
        rc, secs, lines, _ = q.boot(["-", "--usb", st.img])
        if rc != q.NO_PMU_EXIT:
            errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (NO PMU under TCG)")
        if not any(l.startswith("warning: writing the log file failed (volume full") for l in lines):
            errs.append("no volume-full warning for the log")
        close = q.closing(lines)
        if close is None or close != q.counted(lines):
            errs.append(f"closing line {close}, check lines {q.counted(lines)}")
        if not any(re.match(r"^ +=+ +(PASS|FAIL|ERROR|NO PMU|NO VERDICT) +=+$", l) for l in lines):
            errs.append("no verdict banner")
        if errs:
            errs += ["    | " + l for l in lines[-15:]]
    return errs


def main():
    efi = sys.argv[1]
    t = q.Tally("usb")
    for case in (image_layout, usb_boot, wait_rerun_return, countdown_any_key,
                 countdown_esc_skips, read_only_stick, full_stick):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
