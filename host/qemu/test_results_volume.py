#!/usr/bin/env python3
"""The results files and their folder: a volume too full for them keeps only
complete files (each one verified, an incomplete one removed) and the serial
port says which; the results folder is the binary's own folder, deep in
folders with long names, never the volume root.
Usage: test_results_volume.py build/pmuharness.efi"""
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

# results files only: the stick also holds pmuharness-i686.elf (the BIOS kernel)
RESULTS_NAME = re.compile(r"^pmuharness-\d{3}\.(log|json)$")

QUICK_CFG = "on_finish = qemu-exit\nchecks = apic.lvt-pc\n"
BOOT_DIR = "/EFI/BOOT"
# usb-image.sh formats the stick with 512-byte clusters (mkfs.fat -s 1 -S 512).
CLUSTER = 512
# Room for the log's variable lines (elapsed time) between two boots.
LOG_SLACK = 64
# The saved line and the error line of boot/files.c files_results_close.
SAVED = "results.saved: "
LOST = "error: results files: "
# A path component of this many characters, three deep. OVMF's FAT driver
# opens no path of 260 characters or more, so its loader cannot start a
# binary from a deeper folder: this is about as deep as QEMU can show.
PART = 75
FOLDER_MIN = 3 * PART
# The decoy at the volume root selects nothing: read from there, the run
# is NO VERDICT (QEMU status 9), not NO PMU (7).
DECOY_CFG = "on_finish = qemu-exit\nchecks = nomatch*\n"


class Stick:
    """A fresh USB-stick image in a temporary folder, removed afterwards."""

    def __init__(self, efi):
        self.dir = tempfile.mkdtemp(prefix="pmh-vol-")
        self.img = os.path.join(self.dir, "stick.img")
        self.off = q.build_image(efi, self.img)
        q.put(self.img, self.off, QUICK_CFG.encode(), BOOT_DIR + "/pmuharness.cfg")

    def free(self):
        out = subprocess.run(["mdir", "-i", f"{self.img}@@{self.off}", "::/"],
                             capture_output=True, text=True, env=q.ENV, check=True).stdout
        return int(re.search(r"([\d ]+) bytes free", out).group(1).replace(" ", ""))

    def fill(self, leave):
        """A filler file that leaves `leave` bytes free."""
        size = self.free() - leave
        path = os.path.join(self.dir, "filler")
        with open(path, "wb") as f:
            f.truncate(size)
        subprocess.run(["mcopy", "-i", f"{self.img}@@{self.off}", path, "::/FILLER.BIN"],
                       check=True, env=q.ENV)
        os.unlink(path)

    def results(self):
        """{name: bytes} of every results file (pmuharness-NNN.*) on the stick."""
        names = [os.path.basename(p) for p in q.listing(self.img, self.off)
                 if RESULTS_NAME.match(os.path.basename(p))]
        return {n: q.get(self.img, self.off, f"{BOOT_DIR}/{n}") for n in names}

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def complete(files):
    """Errors for any results file that is not complete."""
    errs = []
    for name, data in files.items():
        if name.endswith(".json"):
            try:
                if "verdict" not in json.loads(data):
                    errs.append(f"{name} has no verdict")
            except ValueError as e:
                errs.append(f"{name} is not complete JSON ({len(data)} bytes): {e}")
        elif name.endswith(".log"):
            tail = data.decode("ascii", "replace").splitlines()[-8:]
            if not any(l.startswith("verdict: ") for l in tail):
                errs.append(f"{name} does not end with the verdict lines: {tail}")
    return errs


def boot_stick(st):
    rc, _, lines, _ = q.boot(["-", "--usb", st.img])
    errs = [] if rc == q.NO_PMU_EXIT else [f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT}"]
    return errs, lines, st.results()


# The sizes of the log and the JSON of roomy_stick's run, for log_fits_json_not.
SIZES = {}


def roomy_stick(efi):
    """Room for both: both kept, complete, and the saved line names them."""
    st = Stick(efi)
    try:
        errs, lines, files = boot_stick(st)
    finally:
        st.close()
    want = SAVED + ("pmuharness-001.log written and verified; "
                    "pmuharness-001.json written and verified")
    if want not in lines:
        errs.append(f"no line {want!r}")
    if sorted(files) != ["pmuharness-001.json", "pmuharness-001.log"]:
        errs.append(f"results files {sorted(files)}")
    errs += complete(files)
    if not errs:
        SIZES.update((n.split(".")[1], len(d)) for n, d in files.items())
    return errs


def full_volume(efi):
    """No free cluster: both files removed, the serial port says so."""
    st = Stick(efi)
    try:
        st.fill(0)
        errs, lines, files = boot_stick(st)
    finally:
        st.close()
    errs += complete(files)
    if files:
        errs.append(f"files left on a full volume: {sorted(files)}")
    lost = [l for l in lines if l.startswith(LOST)]
    for n in ("pmuharness-001.log", "pmuharness-001.json"):
        if not lost or not re.search(re.escape(n) + r": volume full \(EFI status 0x[0-9a-f]+\): "
                                     r"removed", lost[0]):
            errs.append(f"no error line saying {n} was removed: {lost}")
    if any(l.startswith(SAVED) for l in lines):
        errs.append("a saved line on a full volume")
    return errs


def log_fits_json_not(efi):
    """Room for the log alone: the log stays, complete; the JSON goes."""
    if sorted(SIZES) != ["json", "log"]:
        return ["no sizes from roomy_stick to size the volume with"]
    log_len, json_len = SIZES["log"], SIZES["json"]
    room = -(-(log_len + LOG_SLACK) // CLUSTER) * CLUSTER
    if json_len <= room - log_len:
        return [f"the JSON ({json_len} bytes) fits the log's slack; cannot size the case"]
    st = Stick(efi)
    try:
        st.fill(room)
        errs, lines, files = boot_stick(st)
    finally:
        st.close()
    errs += complete(files)
    if sorted(files) != ["pmuharness-001.log"]:
        errs.append(f"results files {sorted(files)}, expected the log alone")
    lost = [l for l in lines if l.startswith(LOST)]
    if not lost or not re.search(r"pmuharness-001\.json: volume full \(EFI status 0x[0-9a-f]+\):"
                                 r" removed", lost[0]) or \
            "pmuharness-001.log written and verified" not in lost[0]:
        errs.append(f"no error line naming the removed JSON and the kept log: {lost}")
    return errs


def long_folder_path(efi):
    """The binary three 75-character folders deep, run from the UEFI shell:
    its own pmuharness.cfg is read and the results land beside it; the
    decoy config at the root is not read and nothing is written there."""
    errs = []
    esp = tempfile.mkdtemp(prefix="pmh-deep-")
    parts = [c * PART for c in "abc"]
    deep = os.path.join(esp, *parts)
    os.makedirs(deep)
    shutil.copy(efi, os.path.join(deep, "pmuharness.efi"))
    with open(os.path.join(deep, "pmuharness.cfg"), "w") as f:
        f.write(QUICK_CFG)
    with open(os.path.join(esp, "pmuharness.cfg"), "w") as f:
        f.write(DECOY_CFG)
    path = "\\" + "\\".join(parts) + "\\pmuharness.efi"
    with open(os.path.join(esp, "startup.nsh"), "w", newline="") as f:
        f.write("\r\n".join(["@echo -off", "fs0:", path, "reset -s", ""]))
    try:
        rc, _, lines, _ = q.boot([efi, "--prepared", "--esp", esp])
        here = sorted(f for f in os.listdir(deep) if RESULTS_NAME.match(f))
        root = sorted(f for f in os.listdir(esp) if RESULTS_NAME.match(f))
    finally:
        shutil.rmtree(esp, ignore_errors=True)
    if len(path) < FOLDER_MIN:
        errs.append(f"the path is {len(path)} characters, not over {FOLDER_MIN}")
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (the folder's own cfg)")
    if here != ["pmuharness-001.json", "pmuharness-001.log"]:
        errs.append(f"results files beside the binary: {here}")
    if root:
        errs.append(f"results files at the volume root: {root}")
    if not any(l.startswith(SAVED) for l in lines):
        errs.append("no saved line")
    return errs


def main():
    efi = sys.argv[1]
    t = q.Tally("results-volume")
    for case in (roomy_stick, full_volume, log_fits_json_not, long_folder_path):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
