#!/usr/bin/env python3
"""Replays real processors' CPUID dumps through the harness's identification
(pmuharness-sim --cpuid-dump) and compares what it prints with the rules
computed here, independently, from Linux and the documents:

- family/model/stepping: Linux arch/x86/lib/cpu.c x86_family(), x86_model()
  (the extended model for every family >= 6, any vendor);
- brand: Linux arch/x86/kernel/cpu/common.c get_model_name() (leaves
  8000_0002h-4h, up to the first NUL, blanks trimmed at both ends);
- hypervisor: Linux hypervisor_cpuid_base() and cpu/hypervisor.c (every
  base 4000_0000h + k * 100h, a known hypervisor after the Hyper-V
  interface preferred), the signatures and version leaves of each;
- driver: Linux arch/x86/events/core.c init_hw_perf_events,
  intel/core.c intel_pmu_init, amd/core.c amd_pmu_init;
- counters: SDM Vol. 2A CPUID leaf 0AH (fixed counter i exists when ECX[i]
  or EDX[4:0] > i, v5), Linux intel_pmu_init (v2-v4 assume 3 fixed on bare metal),
  leaf 23H subleaf 1 bitmaps (Linux update_pmu_cap), and the Alder Lake /
  Raptor Lake P-core counts of intel/core.c (two GP and one fixed more
  than leaf 0AH, which lists what both core types share).

Usage: cpuid_replay.py [--sim PATH] DIR_OR_MIRROR...
A DIR is searched for *_CPUID*.txt files; a bare git mirror (a directory
with HEAD and objects/) is read at HEAD. Every dump is replayed on its CPU 0,
and a hybrid part on the first CPU of its other core type too. Prints one
line per difference and `cpuid-replay: N dumps, M match, K differ`; exit 1
when any differ.
"""
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^CPUID ([0-9A-Fa-f]{8}): ([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})-"
                  r"([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})(?:.*?\[SL ([0-9A-Fa-f]+)\])?")
SECTION = re.compile(r"Logical CPU #(\d+)")
DUMP_NAME = re.compile(r"_CPUID\d*\.txt$")
ANY = None  # a leaf listed without [SL nn] answers every subleaf


def parse(text):
    """{cpu: {(leaf, subleaf or ANY): (a, b, c, d)}} in file order."""
    cpus, cur = {}, 0
    for line in text.splitlines():
        m = SECTION.search(line)
        if m:
            cur = int(m.group(1))
        m = LINE.match(line)
        if m:
            sl = int(m.group(6), 16) if m.group(6) else ANY
            regs = tuple(int(m.group(i), 16) for i in range(2, 6))
            cpus.setdefault(cur, {})[(int(m.group(1), 16), sl)] = regs
    return cpus


class Cpu:
    """CPUID of one logical CPU, what its section leaves out taken from CPU 0."""

    def __init__(self, cpus, n):
        self.t = dict(cpus.get(0, {}))
        self.t.update(cpus.get(n, {}))

    def __call__(self, leaf, sub=0):
        return self.t.get((leaf, sub)) or self.t.get((leaf, ANY)) or (0, 0, 0, 0)


def text(*words):
    return b"".join(w.to_bytes(4, "little") for w in words)


def bits(v, hi, lo):
    return (v >> lo) & ((1 << (hi - lo + 1)) - 1)


def fms(eax):
    """Linux x86_family/x86_model/x86_stepping."""
    fam = bits(eax, 11, 8)
    if fam == 0xF:
        fam += bits(eax, 27, 20)
    model = bits(eax, 7, 4)
    if fam >= 6:
        model += bits(eax, 19, 16) << 4
    return fam, model, bits(eax, 3, 0)


def brand(c):
    if c(0x80000000)[0] < 0x80000004:
        return "(no brand string)"
    raw = b"".join(text(*c(0x80000002 + i)) for i in range(3))
    s = raw.split(b"\0", 1)[0].decode("latin-1")
    s = "".join(ch if " " <= ch <= "~" else "?" for ch in s).strip(" ")
    return s or "(no brand string)"


# Hypervisor signatures at 4000_0000h + k * 100h, as each is written down:
# Linux kvm_para.h KVM_SIGNATURE, Xen public/arch-x86/cpuid.h, the Hyper-V
# TLFS, Linux vmware.c, bhyve.c, acrn.c, the QNX Hypervisor guide (EBX and
# ECX read big-endian spell "QNXQVMBS": "QXNQSBMV" as bytes), published
# lists (QNX's 12-byte form, Parallels), VirtualBox GIMHv.cpp, QEMU
# target/i386/cpu.c (TCG). A prefix shorter than 12 bytes is all that
# identifies it.
HV_SIGS = ((b"KVMKVMKVM\0\0\0", "KVM"), (b"XenVMMXenVMM", "Xen"), (b"Microsoft Hv", "Hyper-V"),
           (b"VMwareVMware", "VMware"), (b"bhyve bhyve ", "bhyve"), (b"ACRNACRNACRN", "ACRN"),
           (b"QXNQSBMV", "QNX"), (b" QNXQVMBSQG ", "QNX"),
           (b"prl hyperv  ", "Parallels"), (b" lrpepyh  vr", "Parallels"),
           (b"VBoxVBoxVBox", "VirtualBox"), (b"TCGTCGTCGTCG", "QEMU TCG"))
HV_FIRST, HV_END, HV_STEP = 0x40000000, 0x40010000, 0x100
HV_IFACE = 0x31237648  # "Hv#1" at 4000_0001h: the Hyper-V interface (TLFS)


def printable(raw):
    return "".join(chr(b) if 0x20 <= b <= 0x7E else "?" for b in raw)


def hv_known(raw):
    return next((name for sig, name in HV_SIGS if raw.startswith(sig)), None)


def hv_scan(c):
    """(base, EAX, name or None, raw signature, Hyper-V in front) of the
    hypervisor Linux would pick (hypervisor_cpuid_base() over every base,
    the highest known detection wins; "Microsoft Hv" only at 4000_0000h),
    None when no base answers. A base answers with a known signature or an
    EAX inside its own 100h range; a base that returns the highest basic
    leaf's values (Intel's answer out of range, SDM Vol. 2A CPUID) ends the
    scan."""
    echo = c(c(0)[0])
    pick, face = None, False
    for base in range(HV_FIRST, HV_END, HV_STEP):
        r = c(base)
        if r == echo:
            break
        raw = text(*r[1:])
        name = hv_known(raw)
        if not name and not base <= r[0] < base + HV_STEP:
            continue
        if base == HV_FIRST:
            face = name == "Hyper-V" or c(HV_FIRST + 1)[0] == HV_IFACE
        if pick is None or (name and name != "Hyper-V"):
            pick = (base, r[0], name, raw)
    return pick and pick + (face and pick[0] > HV_FIRST,)


def hypervisor(c):
    """The cpu.hypervisor line: name, version (Xen base + 1, Hyper-V
    4000_0002h), signature and base."""
    if not c(1)[2] >> 31 & 1:
        return "none"
    found = hv_scan(c)
    if not found:
        return (f"unknown (CPUID.1:ECX[31] set, no leaf of {HV_FIRST:#x}-"
                f"{HV_END - HV_STEP:#x} answers)")
    base, top, name, raw, face = found
    sig = printable(raw.split(b"\0", 1)[0])
    ver = ""
    if name == "Xen" and top >= base + 1:
        a = c(base + 1)[0]
        ver = f" {a >> 16}.{a & 0xFFFF}"
    elif name == "Hyper-V" and top >= base + 2 and c(base + 2)[1]:
        a, b = c(base + 2)[:2]
        ver = f" {b >> 16}.{b & 0xFFFF}.{a}"
    label = name or sig.strip(" ") or "unknown"
    behind = f", behind a Hyper-V interface at {HV_FIRST:#x}" if face else ""
    return (f'{label}{ver} ({"" if name else "unknown "}signature "{sig}" at {base:#x}'
            f"{behind})")


VENDORS = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "HygonGenuine": "Hygon"}
P6_MODELS = {1, 3, 5, 6, 7, 8, 9, 10, 11, 13}  # Linux p6_pmu_init
# Alder Lake, Alder Lake-L, Raptor Lake, Raptor Lake-P, Raptor Lake-S
# (Linux intel-family.h; intel/core.c intel_pmu_init case INTEL_ALDERLAKE...)
ADL_RPL = {0x97, 0x9A, 0xB7, 0xBA, 0xBF}
CORE_TYPES = {0x40: "core", 0x20: "atom"}


def core_type(c):
    if c(0)[0] >= 0x1A and c(7)[3] >> 15 & 1:  # CPUID.7:EDX[15] hybrid
        return c(0x1A)[0] >> 24
    return 0


def counters(c, fam, model, ctype):
    """(version, gp, gp width, fixed, fixed width, enumeration) of arch perfmon."""
    a, _, cc, d = c(0x0A)
    ver, gp, gpw = bits(a, 7, 0), bits(a, 15, 8), bits(a, 23, 16)
    nf, fw = bits(d, 4, 0), bits(d, 12, 5) or gpw
    hv = c(1)[2] >> 31 & 1
    ext = c(0)[0] >= 0x23 and c(7, 1)[0] >> 8 & 1 and c(0x23, 0)[0] & 1
    if ext:  # leaf 23H subleaf 1: bitmaps (Linux update_pmu_cap)
        s1 = c(0x23, 1)
        return ver, bin(s1[0]).count("1"), gpw, bin(s1[1]).count("1"), fw, "0x23"
    # leaf 0AH lists the P-core's own 8 GP where the E-cores are off
    # (i9-12900K, i5-1350P dumps): nothing to add then
    if ctype == 0x40 and fam == 6 and model in ADL_RPL and gp < 8:
        gp, nf = gp + 2, nf + 1
    if ver == 1:
        nf = 0
    elif ver < 5:
        nf = max(nf, 0 if hv else 3)
    else:
        nf = bin(cc | ((1 << nf) - 1)).count("1")
    return ver, gp, gpw, nf, fw if nf else 0, "0x0a"


def driver(c, vendor, fam, model):
    """The harness's driver name by Linux's dispatch (init_hw_perf_events);
    ('none', why) where none."""
    if c(0)[0] < 1:
        return "none"
    if vendor == "GenuineIntel":
        a = c(0x0A)[0] if c(0)[0] >= 0x0A else 0
        if bits(a, 7, 0) >= 1:
            return "intel-arch"
        if fam == 6:
            return "intel-p6" if model in P6_MODELS else "none"
        return {0xF: "intel-netburst", 0xB: "intel-knc"}.get(fam, "none")
    if vendor in ("AuthenticAMD", "HygonGenuine"):
        if fam < 6:
            return "none"
        core = c(0x80000000)[0] >= 0x80000001 and c(0x80000001)[2] >> 23 & 1
        return "amd-core" if core else "amd-legacy"
    # Linux has zhaoxin_pmu_init for Centaur/Zhaoxin; the harness has no
    # driver for them, so "none" is what it must say.
    return "none"


FIXED_PMU = {  # driver: (GP counters, width), SDM Vol. 3B, AMD APM Vol. 2 §13.2;
    # NetBurst's counters need IA32_MISC_ENABLE (an MSR, absent in a replay): its driver alone
    "intel-p6": (2, 40), "intel-knc": (2, 40), "amd-legacy": (4, 48),
}


def expect(c):
    """The identification lines the harness must print for this CPU."""
    v = text(c(0)[1], c(0)[3], c(0)[2]).decode("latin-1")
    fam, model, step = fms(c(1)[0])
    vname = VENDORS.get(v, "other")
    e = {"cpu.vendor": f"{vname} ({v})", "cpu.family": hex(fam), "cpu.model": hex(model),
         "cpu.stepping": hex(step), "cpu.brand": brand(c), "cpu.hypervisor": hypervisor(c)}
    ctype = core_type(c) if vname == "Intel" else 0
    if ctype:
        e["cpu.core_type"] = f"0x{ctype:x} {CORE_TYPES.get(ctype, '')}".rstrip()
    if vname in ("AMD", "Hygon") or (vname == "Intel" and fam >= 6):
        e["cpu.microcode"] = "unreadable: MSR 0x8b #GP"  # no MSR in a dump
    elif vname == "Intel":
        e["cpu.microcode"] = "not read: no documented MSR before family 6"
    else:
        e["cpu.microcode"] = f"not read: no documented MSR for {v}"
    d = e["pmu.driver"] = driver(c, v, fam, model)
    if d == "intel-arch":
        ver, gp, gpw, nf, fw, en = counters(c, fam, model, ctype)
        e["pmu.version"] = str(ver)
        e["pmu.counters"] = f"{gp} general-purpose x {gpw} bits, {nf} fixed x {fw} bits"
        e["pmu.enumeration"] = f"cpuid {en}"
    elif d == "amd-core":
        e5 = c(0x80000022) if c(0x80000000)[0] >= 0x80000022 else (0, 0, 0, 0)
        gp = bits(e5[1], 3, 0) if e5[0] & 1 else 6
        if e5[0] & 1:  # PerfMonV2 (AMD APM Vol. 3 E.4.23) is version 2
            e["pmu.version"] = "2"
        e["pmu.counters"] = f"{gp} general-purpose x 48 bits, 0 fixed x 0 bits"
    elif d in FIXED_PMU:
        gp, w = FIXED_PMU[d]
        e["pmu.counters"] = f"{gp} general-purpose x {w} bits, 0 fixed x 0 bits"
    return e


def harness(sim, path, cpu):
    out = subprocess.run([sim, "--cpuid-dump", path, "--dump-cpu", str(cpu)],
                         capture_output=True, text=True, check=False).stdout
    got = {}
    for line in out.splitlines():
        k, _, val = line.partition(": ")
        got[k] = val
    return got


def compare(sim, name, body):
    """Difference lines for one dump (empty when it matches)."""
    cpus = parse(body)
    todo = [0]
    first = core_type(Cpu(cpus, 0))
    for n in sorted(cpus):
        if first and n and core_type(Cpu(cpus, n)) not in (0, first):
            todo.append(n)
            break
    diffs = []
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write(body)
        f.flush()
        for n in todo:
            want, got = expect(Cpu(cpus, n)), harness(sim, f.name, n)
            extra = ("cpu.core_type", "pmu.version", "pmu.enumeration")
            if want["pmu.driver"] != "intel-netburst":
                extra += ("pmu.counters",)
            keys = list(want) + [k for k in extra if k in got and k not in want]
            for k in keys:
                if want.get(k) != got.get(k):
                    diffs.append(f"{name} cpu{n}: {k}: harness {got.get(k)!r}, "
                                 f"rules {want.get(k)!r}")
    return diffs


def dumps(src):
    """(name, text) of every CPUID dump in a directory or a bare git mirror."""
    if os.path.isdir(os.path.join(src, "objects")) and os.path.exists(os.path.join(src, "HEAD")):
        git = ["git", "-C", src]
        names = subprocess.run(git + ["ls-tree", "-r", "--name-only", "HEAD"], check=True,
                               capture_output=True, text=True).stdout.splitlines()
        for n in sorted(x for x in names if DUMP_NAME.search(x)):
            blob = subprocess.run(git + ["show", f"HEAD:{n}"], capture_output=True, check=True)
            yield n, blob.stdout.decode("latin-1")
        return
    for root, _, files in sorted(os.walk(src)):
        for fn in sorted(files):
            if DUMP_NAME.search(fn):
                with open(os.path.join(root, fn), encoding="latin-1") as f:
                    yield os.path.relpath(os.path.join(root, fn), src), f.read()


def main(argv):
    sim = "build/host/pmuharness-sim-fast"
    if argv[:1] == ["--sim"]:
        sim, argv = argv[1], argv[2:]
    if not argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    n = same = 0
    for src in argv:
        for name, body in dumps(src):
            if not parse(body):
                continue  # a listing without CPUID lines
            d = compare(sim, name, body)
            n += 1
            same += not d
            for line in d:
                print(line)
    print(f"cpuid-replay: {n} dumps, {same} match, {n - same} differ")
    return 1 if n - same else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
