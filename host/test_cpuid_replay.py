#!/usr/bin/env python3
"""Tests of host/cpuid_replay.py on a few CPUID lines typed here (from the
SDM, AMD's CPUID specification and Linux's rules), not whole dumps.

Usage: test_cpuid_replay.py SIM [--mirror DIR]
SIM is pmuharness-sim(-fast). --mirror DIR also replays a collection of real
dumps (a directory or a bare git mirror; about 20 s), and is skipped with the
reason when DIR does not exist.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "cpuid_replay.py")
# Dumps kept in the repository (host/cpuid_dumps/README): a KVM guest whose
# leaf 0AH is zero.
DUMPS = os.path.join(HERE, "cpuid_dumps")
KVM_NOPMU = "QEMU-KVM-Skylake-pmu-off_CPUID.txt"

# Zhaoxin KX-7000: family 7, the extended model counts (Linux x86_model):
# model 0x6b; no PMU driver here; no microcode MSR documented.
ZHAOXIN = """\
CPUID 00000000: 0000000D-746E6543-736C7561-48727561
CPUID 00000001: 000607B1-00800800-7EFAFBBF-BFEBFBFF
"""

# Zen 4: family 0xf + 0xa, PERFCTR_CORE (8000_0001h ECX[23]), PerfMonV2 with
# 6 counters (8000_0022h EAX[0], EBX[3:0]), a brand padded with blanks.
ZEN4 = """\
CPUID 00000000: 00000010-68747541-444D4163-69746E65
CPUID 00000001: 00A60F12-00100800-7EF8320B-178BFBFF
CPUID 80000000: 80000022-68747541-444D4163-69746E65
CPUID 80000001: 00A60F12-00000000-75C237FF-2FD3FBFF
CPUID 80000002: 20444D41-657A7952-2037206E-30303737
CPUID 80000003: 2D382058-65726F43-6F725020-73736563
CPUID 80000004: 2020726F-20202020-20202020-00202020
CPUID 80000022: 00000007-00000006-00000000-00000000
"""

# A perfmon v6 hybrid part in two sections: leaf 7 EDX[15] hybrid, 7.1
# EAX[8] leaf 23H; the P-core (1AH 0x40) with 10 GP (23H.1 EAX 0x3FF) and 4
# fixed, the E-core (0x20) 8 GP and 3 fixed; 0AH says v5, 8 GP, 3 fixed.
HYBRID = """\
------[ CPUID Registers / Logical CPU #0 ]------
CPUID 00000000: 00000023-756E6547-6C65746E-49656E69
CPUID 00000001: 000C0660-00800800-7FFAFBFF-BFEBFBFF
CPUID 00000007: 00000002-00000000-00000000-00008000 [SL 00]
CPUID 00000007: 00000100-00000000-00000000-00000000 [SL 01]
CPUID 0000000A: 07300805-00000000-00000007-00008603
CPUID 0000001A: 40000002-00000000-00000000-00000000
CPUID 00000023: 0000000B-00000000-00000000-00000000 [SL 00]
CPUID 00000023: 000003FF-0000000F-00000000-00000000 [SL 01]
------[ CPUID Registers / Logical CPU #1 ]------
CPUID 0000001A: 20000002-00000000-00000000-00000000
CPUID 00000023: 000000FF-00000007-00000000-00000000 [SL 01]
"""

# Xen 4.17 with Viridian (Xen public/arch-x86/cpuid.h: its leaves at the
# first free base, 4000_0100h, behind the Hyper-V interface at 4000_0000h,
# "Hv#1" at 4000_0001h); an AMD identity, whose leaves past the range are
# zeros; a Rome-like core extension, so the driver is amd-core.
XEN_VIRIDIAN = """\
CPUID 00000000: 0000000D-68747541-444D4163-69746E65
CPUID 00000001: 00830F10-00000800-F6D83203-178BFBFF
CPUID 40000000: 40000005-7263694D-666F736F-76482074
CPUID 40000001: 31237648-00000000-00000000-00000000
CPUID 40000002: 00004F7C-000A0000-00000000-00000000
CPUID 40000100: 40000105-566E6558-65584D4D-4D4D566E
CPUID 40000101: 00040011-00000000-00000000-00000000
CPUID 80000000: 80000008-68747541-444D4163-69746E65
CPUID 80000001: 00830F10-00000000-00C001F3-2FD3FBFF
"""


def run(args):
    r = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True,
                       check=False)
    return r.returncode, r.stdout


def write(d, name, body):
    with open(os.path.join(d, name), "w", encoding="ascii") as f:
        f.write(body)


def sim_lines(sim, d, name, cpu=0):
    out = subprocess.run([sim, "--cpuid-dump", os.path.join(d, name), "--dump-cpu", str(cpu)],
                         capture_output=True, text=True, check=True).stdout
    return dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    sim, passed, failed = argv[0], 0, 0

    def check(what, ok):
        nonlocal passed, failed
        print(f"{'ok' if ok else 'FAIL'}: {what}")
        passed, failed = passed + ok, failed + (not ok)

    with tempfile.TemporaryDirectory() as d:
        write(d, "Zhaoxin_CPUID.txt", ZHAOXIN)
        write(d, "Zen4_CPUID.txt", ZEN4)
        write(d, "Hybrid_CPUID.txt", HYBRID)
        write(d, "XenViridian_CPUID.txt", XEN_VIRIDIAN)
        rc, out = run(["--sim", sim, d])
        check("four typed dumps agree with the rules",
              rc == 0 and out.strip() == "cpuid-replay: 4 dumps, 4 match, 0 differ")
        x = sim_lines(sim, d, "XenViridian_CPUID.txt")
        check("Xen behind Viridian: Xen at 0x40000100 with its version, not Hyper-V",
              x.get("cpu.hypervisor") == 'Xen 4.17 (signature "XenVMMXenVMM" at 0x40000100, '
              "behind a Hyper-V interface at 0x40000000)")
        z = sim_lines(sim, d, "Zhaoxin_CPUID.txt")
        check("Zhaoxin family 7: model 0x6b, no driver, microcode not read",
              z.get("cpu.model") == "0x6b" and z.get("pmu.driver") == "none" and
              z.get("cpu.microcode") == "not read: no documented MSR for CentaurHauls")
        a = sim_lines(sim, d, "Zen4_CPUID.txt")
        check("Zen 4: brand trimmed, amd-core, PerfMonV2 with 6 counters",
              a.get("cpu.brand") == "AMD Ryzen 7 7700X 8-Core Processor" and
              a.get("pmu.driver") == "amd-core" and a.get("pmu.version") == "2" and
              a.get("pmu.counters", "").startswith("6 general-purpose"))
        p, e = sim_lines(sim, d, "Hybrid_CPUID.txt"), sim_lines(sim, d, "Hybrid_CPUID.txt", 1)
        check("hybrid: the P-core 10 GP + 4 fixed by leaf 23H, the E-core 8 + 3",
              p.get("cpu.core_type") == "0x40 core" and e.get("cpu.core_type") == "0x20 atom" and
              p.get("pmu.counters") == "10 general-purpose x 48 bits, 4 fixed x 48 bits" and
              e.get("pmu.counters") == "8 general-purpose x 48 bits, 3 fixed x 48 bits" and
              p.get("pmu.enumeration") == "cpuid 0x23")
        # A harness that says something else is a difference, and exit 1.
        fake = os.path.join(d, "fake-sim")
        write(d, "fake-sim", "#!/bin/sh\necho 'cpu.model: 0xb'\n")
        os.chmod(fake, 0o755)
        rc, out = run(["--sim", fake, d])
        check("a wrong harness is reported per line and exits 1",
              rc == 1 and "Zhaoxin_CPUID.txt cpu0: cpu.model: harness '0xb', rules '0x6b'"
              in out and out.strip().endswith("4 dumps, 0 match, 4 differ"))

    # The KVM guest without its vPMU: identification agrees with the rules,
    # and NO PMU says KVM and how its vPMU is turned on.
    rc, out = run(["--sim", sim, DUMPS])
    check("the kept dumps agree with the rules",
          rc == 0 and out.strip().endswith("1 match, 0 differ"))
    k = sim_lines(sim, DUMPS, KVM_NOPMU)
    check("KVM guest with leaf 0AH zero: NO PMU naming KVM and its switch",
          k.get("cpu.hypervisor") == 'KVM (signature "KVMKVMKVM" at 0x40000000)' and
          k.get("pmu.driver") == "none" and k.get("pmu.status") == "absent" and
          k.get("pmu.reason") == k.get("pmu.status_reason") ==
          "hypervisor KVM exposes no PMU (CPUID.0AH version 0): enable it with QEMU -cpu "
          "host,pmu=on and kvm.enable_pmu=1 (Linux arch/x86/kvm/x86.c enable_pmu)")

    if argv[1:2] == ["--mirror"]:
        src = argv[2]
        if not os.path.exists(src):
            print(f"skipped: replay of real dumps: no collection at {src}")
        else:
            rc, out = run(["--sim", sim, src])
            print(out, end="")
            check("the collection agrees with the rules", rc == 0)
    print(f"cpuid-replay: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
