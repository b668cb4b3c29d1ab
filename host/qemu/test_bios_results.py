#!/usr/bin/env python3
"""The BIOS kernel's results slots sized for the CPUs a stick is made for
(scripts/usb-image.sh --cpus N, `make usb USB_CPUS=N`), booted from the
stick (SeaBIOS, syslinux, mboot.c32) with cpus = all under multi-threaded
TCG (scripts/bios-boot.sh):
- slots of pc/fat.h's formula for 64 CPUs, -smp 64: both saved and
  verified, every result of every CPU in PMHBIOS.JSN (64 x the per-CPU
  results the log's cpu.N.verdict lines count, each CPU the ids its check
  lines name), the log whole in PMHBIOS.LOG;
- a stick made for 1 CPU booted with -smp 16: the JSON is refused before
  anything is written, with the bytes it needs, the slot's size and the
  `make usb USB_CPUS=N` that has room; the slot keeps the previous run's
  document byte for byte; the log is cut with a line that says so; a stick
  made with that N then saves both;
- a default stick (512 CPUs) in 24 MiB of RAM: the log's buffer is what
  the heap can give, said in a warning line, and both files are saved;
- a slot that held a longer document, or whose write did not finish (its
  first sector the busy line), holds one JSON document and spaces after.
Usage: test_bios_results.py [build/pmuharness.efi] (the kernel is beside it)"""
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

NAME = "bios-results"
FAT_H = os.path.join(q.ROOT, "pc", "fat.h")
# QEMU's status for the NO PMU verdict of TCG, and for FAIL (debug-exit 1).
VERDICT_EXITS = (q.NO_PMU_EXIT, 3)
LIMIT_S = 90
SAVED = "results.saved: PMHBIOS.LOG written and verified; PMHBIOS.JSN written and verified"
REFUSED = re.compile(
    r"^error: results files: PMHBIOS\.LOG written and verified; PMHBIOS\.JSN: (\d+) bytes "
    r"needed, the slot on this disk holds (\d+): NOT saved, the slot keeps what it held; make "
    r"the stick for this machine \((\d+) CPUs\) with make usb USB_CPUS=(\d+); what is missing "
    r"is on the console and serial only$")
CUT = re.compile(r"^\(log cut here: (\d+) more bytes than the (\d+)-byte slot holds; the rest "
                 r"is on the console and serial; make usb USB_CPUS=(\d+) has room\)$")
HEAP = re.compile(r"^warning: results log: PMHBIOS\.LOG holds (\d+) bytes, the heap gives (\d+) "
                  r"for the log \(at most 1/2 of the (\d+) it has free\): a longer log is cut")
CPU_VERDICT = re.compile(r"^cpu\.(\d+)\.verdict: \S+(?: \S+)* \((\d+) passed, (\d+) failed, "
                         r"(\d+) skipped\)$")
CHECK = re.compile(r"^(PASS|FAIL|SKIP) ([^\s:@]+)@cpu(\d+)\b")


def formula():
    """pc/fat.h's slot sizes: bytes of (JSN, LOG) for a stick made for n CPUs."""
    text = open(FAT_H).read()
    k = {m.group(1): int(m.group(2))
         for m in re.finditer(r"^#define (SLOT_\w+_KIB)\s+(\d+)u?\s*$", text, re.M)}
    rnd = k["SLOT_ROUND_KIB"]

    def size(n, per):
        return -(-(k["SLOT_FIXED_KIB"] + n * per) // rnd) * rnd * 1024
    return lambda n: (size(n, k["SLOT_JSON_PER_CPU_KIB"]), size(n, k["SLOT_LOG_PER_CPU_KIB"]))


SLOTS = formula()
# The first bytes of a results JSON of ours (pc/fat.h SLOT_JSON_START), and
# the first sector bios/disk.c writes before the rest of a slot.
JSON_START = b'{\n  "schema": "pmuharness-results/'
BUSY = b"PMHBIOS-SLOT/1 pmuharness BIOS results slot: a write did not finish; nothing here\n"


class Stick:
    """usb-image.sh --cpus n in a temporary folder, its cfg replaced."""

    def __init__(self, efi, cpus, cfg):
        self.dir = tempfile.mkdtemp(prefix="pmh-bres-")
        self.img = os.path.join(self.dir, "stick.img")
        out = subprocess.run([q.USB_IMAGE, efi, self.img, "--cpus", str(cpus)], check=True,
                             capture_output=True, text=True, env=q.ENV).stdout
        self.off = int(re.search(r"byte offset (\d+)", out).group(1))
        self.cfg(cfg)

    def cfg(self, text):
        q.put(self.img, self.off, text.encode(), "/EFI/BOOT/pmuharness.cfg")

    def put_slot(self, name, data):
        q.put(self.img, self.off, data, "/" + name)

    def slot(self, name):
        return q.get(self.img, self.off, "/" + name) or b""

    def boot(self, smp, extra=()):
        """(QEMU status, seconds, COM1 lines) of a SeaBIOS boot from the stick as an
        IDE disk with -smp smp."""
        rc, secs, lines, _ = q.boot(["none", "--ide", self.img, "--smp", str(smp)]
                                    + (["--"] + list(extra) if extra else []),
                                    LIMIT_S, q.BIOS_BOOT)
        return rc, secs, lines

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


def text_of(name, data, size):
    """The text before a slot's padding; errors where the slot is not size bytes
    of text, spaces and a final newline."""
    text = data[:-1].rstrip(b" ")
    if len(data) != size or not data.endswith(b"\n") or not text.endswith(b"\n"):
        return text, [f"{name}: {len(data)} bytes, not {size} of text, spaces and a final "
                      "newline"]
    return text, []


def per_cpu(lines):
    """{cpu: passed + failed + skipped} from the cpu.N.verdict lines."""
    return {int(m.group(1)): sum(int(m.group(k)) for k in (2, 3, 4))
            for m in map(CPU_VERDICT.match, lines) if m}


def every_result(st, rc, lines, smp, cpus):
    """Both slots saved; PMHBIOS.JSN holds each CPU's every result (the counts
    of the log's cpu.N.verdict lines, the ids of its check lines); the log whole."""
    errs = []
    if rc not in VERDICT_EXITS:
        errs.append(f"QEMU exit status {rc}, expected a verdict's {VERDICT_EXITS}")
    if SAVED not in lines:
        errs.append(f"no '{SAVED}' line")
    jsize, lsize = SLOTS(cpus)
    log, e = text_of("PMHBIOS.LOG", st.slot("PMHBIOS.LOG"), lsize)
    errs += e
    js, e = text_of("PMHBIOS.JSN", st.slot("PMHBIOS.JSN"), jsize)
    errs += e
    log_lines = log.decode("ascii", "replace").splitlines()
    counts = per_cpu(log_lines)
    if sorted(counts) != list(range(smp)):
        errs.append(f"PMHBIOS.LOG: cpu.N.verdict lines for {sorted(counts)}, not 0..{smp - 1}")
    close = q.closing(lines)
    if not close or "%d passed, %d failed, %d skipped" % close not in log_lines \
            or any(l.startswith("(log cut here") for l in log_lines):
        errs.append("PMHBIOS.LOG: no closing line, or cut")
    try:
        doc = json.loads(js)
        res = doc["results"]
    except (ValueError, KeyError, TypeError) as e:
        return errs + [f"PMHBIOS.JSN does not parse as a results document: {e}"]
    want = sum(counts.values())
    if len(res) != want or (close and len(res) != sum(close)):
        errs.append(f"PMHBIOS.JSN: {len(res)} results, the log's cpu.N.verdict lines count "
                    f"{want}, the closing line {close}")
    checks = {}
    for m in map(CHECK.match, lines):
        if m:
            checks.setdefault(int(m.group(3)), []).append((m.group(2), m.group(1)))
    for cpu in range(smp):
        mine = [(r["id"], r["verdict"]) for r in res if r.get("cpu") == cpu]
        if len(mine) != counts.get(cpu) or sorted(mine) != sorted(checks.get(cpu, [])):
            errs.append(f"PMHBIOS.JSN: cpu {cpu} has {len(mine)} results, its verdict line "
                        f"counts {counts.get(cpu)}, its check lines {len(checks.get(cpu, []))}")
            break
    if len(doc.get("cpus", [])) != smp:
        errs.append(f"PMHBIOS.JSN: {len(doc.get('cpus', []))} cpus, expected {smp}")
    per = len(counts) and want // len(counts)
    print(f"  {NAME}: -smp {smp}, stick for {cpus} CPUs: {len(res)} results ({per} a CPU); "
          f"JSON {len(js)} bytes ({len(js) // smp} a CPU) in a {jsize}-byte slot, log "
          f"{len(log)} ({len(log) // smp} a CPU) in {lsize}", flush=True)
    return errs


def sixty_four_cpus(efi):
    """-smp 64, cpus = all, every check, on a stick made for 64 CPUs."""
    with Stick(efi, 64, "on_finish = qemu-exit\ncpus = all\n") as st:
        rc, secs, lines = st.boot(64)
        errs = every_result(st, rc, lines, 64, 64)
        print(f"  {NAME}: -smp 64 boot {secs:.1f} s", flush=True)
        return errs + (["    | " + l for l in lines[-10:]] if errs else [])


def too_small(efi):
    """A stick made for 1 CPU, -smp 16: the JSON refused whole, the slot as the
    previous run left it, the log cut; the advised USB_CPUS then has room."""
    errs = []
    with Stick(efi, 1, "on_finish = qemu-exit\ncpus = all\nchecks = apic.*\n") as st:
        rc, _, lines = st.boot(1)  # a document of a run that fits, to be kept
        if SAVED not in lines:
            return [f"first boot (-smp 1): no '{SAVED}' line"] + ["    | " + l for l in lines[-8:]]
        before = st.slot("PMHBIOS.JSN")
        st.cfg("on_finish = qemu-exit\ncpus = all\n")
        rc, secs, lines = st.boot(16)
        print(f"  {NAME}: -smp 16 on a stick for 1 CPU: {secs:.1f} s", flush=True)
        if rc not in VERDICT_EXITS:
            errs.append(f"QEMU exit status {rc}, expected a verdict's {VERDICT_EXITS}")
        m = [m for m in map(REFUSED.match, lines) if m]
        jsize, lsize = SLOTS(1)
        if len(m) != 1:
            errs.append("no error line that refuses PMHBIOS.JSN with the size it needs, the "
                        "slot's and make usb USB_CPUS=N")
            advice = None
        else:
            need, held, machine, advice = (int(x) for x in m[0].groups())
            print(f"  {NAME}: {m[0].group(0)}", flush=True)
            if held != jsize or need <= held:
                errs.append(f"refusal: {need} bytes needed, slot {held}; the slot is {jsize}")
            if machine != 16 or advice < 16 or SLOTS(advice)[0] < need \
                    or (advice > 16 and SLOTS(advice - 1)[0] >= need):
                errs.append(f"refusal: USB_CPUS={advice} for {machine} CPUs and {need} bytes: "
                            f"not the least stick for 16 CPUs with room for it")
        if st.slot("PMHBIOS.JSN") != before:
            errs.append("PMHBIOS.JSN changed: a refused document must leave the slot as it was")
        log, e = text_of("PMHBIOS.LOG", st.slot("PMHBIOS.LOG"), lsize)
        errs += e
        log_lines = log.decode("ascii", "replace").splitlines()
        cut = [m for m in map(CUT.match, log_lines[-1:]) if m]
        if not cut or int(cut[0].group(2)) != lsize:
            errs.append(f"PMHBIOS.LOG: last line {log_lines[-1:]}, expected the cut line "
                        f"naming its {lsize}-byte slot")
        kept = log_lines[1:-1]
        at = lines.index(kept[0]) if kept and kept[0] in lines else -1
        if at < 0 or lines[at:at + len(kept)] != kept:
            errs.append("PMHBIOS.LOG: the lines kept are not the run's first lines in order")
    if advice:
        with Stick(efi, advice, "on_finish = qemu-exit\ncpus = all\n") as st:
            rc, secs, lines = st.boot(16)
            print(f"  {NAME}: -smp 16 on a stick for USB_CPUS={advice}: {secs:.1f} s", flush=True)
            errs += [f"USB_CPUS={advice}: {e}" for e in every_result(st, rc, lines, 16, advice)]
    return errs + (["    | " + l for l in lines[-10:]] if errs else [])


def small_heap(efi):
    """The default stick (512 CPUs) in 24 MiB of RAM: the log's buffer is what
    the heap gives, a warning says so, both files saved."""
    errs = []
    with Stick(efi, 512, "on_finish = qemu-exit\nchecks = apic.*\n") as st:
        rc, _, lines = st.boot(1, ["-m", "24"])
        m = [m for m in map(HEAP.match, lines) if m]
        jsize, lsize = SLOTS(512)
        if len(m) != 1:
            errs.append("no warning line that the heap gives less than PMHBIOS.LOG's slot")
        elif int(m[0].group(1)) != lsize or not 0 < int(m[0].group(2)) < lsize \
                or int(m[0].group(2)) > int(m[0].group(3)) // 2:
            errs.append(f"heap warning: {m[0].group(0)}")
        if rc != q.NO_PMU_EXIT or SAVED not in lines:
            errs.append(f"QEMU exit status {rc}, or no '{SAVED}' line")
        log, e = text_of("PMHBIOS.LOG", st.slot("PMHBIOS.LOG"), lsize)
        errs += e
        if m and m[0].group(0) not in log.decode("ascii", "replace"):
            errs.append("PMHBIOS.LOG lacks the heap warning")
    return errs + (["    | " + l for l in lines[-10:]] if errs else [])


def rewrite(efi):
    """What a slot held before is overwritten to its end where it must be: a
    longer document's text (the walk goes on past the new text until the
    padding), and the whole slot after a write that did not finish (its first
    sector the busy line of bios/disk.c), garbage near its end included."""
    errs = []
    jsize, _ = SLOTS(4)
    with Stick(efi, 4, "on_finish = qemu-exit\nchecks = apic.*\n") as st:
        for what, head, tail in (
                ("a longer document before", JSON_START + b"x" * 150000 + b"\n", b""),
                ("a write that did not finish", BUSY, b"garbage from an older run\n")):
            old = head + b" " * (jsize - len(head) - len(tail) - 4096 - 1)
            old += tail + b" " * 4096 + b"\n"
            st.put_slot("PMHBIOS.JSN", old)
            rc, _, lines = st.boot(1)
            js = st.slot("PMHBIOS.JSN")
            text, e = text_of("PMHBIOS.JSN", js, jsize)
            errs += [f"{what}: {x}" for x in e]
            if rc != q.NO_PMU_EXIT or SAVED not in lines:
                errs.append(f"{what}: QEMU exit status {rc}, or no '{SAVED}' line")
            try:
                json.loads(js)
            except ValueError as x:
                errs.append(f"{what}: PMHBIOS.JSN is not one JSON document then spaces: {x}")
    return errs + (["    | " + l for l in lines[-10:]] if errs else [])


def main():
    return q.kernel_cases(NAME, (sixty_four_cpus, too_small, small_heap, rewrite))


if __name__ == "__main__":
    sys.exit(main())
