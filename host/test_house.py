#!/usr/bin/env python3
"""The house's inventory, read from the code: every PMU driver has a name,
an ops table, a simulated model and a driver unit test; every check has a
row in the docs' checks table (README.md or docs/*.md: "| `id` |"). That
each check is failed by at least one fault is scripts/sim-matrix.py's.
The image budget: build/pmuharness.efi and the BIOS kernel at most 512 KiB
each, and no zero-filled buffer in the EFI file (the PE conversion cannot
express .bss, so the link map puts it into .data, stored in full: at most
ZERO_MAX bytes of .bss symbols there). Every relative link of README.md and
docs/*.md resolves to a file and a heading.
Usage: test_house.py [build/host/pmuharness-sim-fast]"""
import glob
import os
import re
import subprocess
import sys
from typing import Dict, List

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def read(rel: str) -> str:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def drivers() -> Dict[str, str]:
    """enum pmu_driver_id's members (pmu/cpu.h) to their names (pmu/cpu.c)."""
    enum = re.search(r"enum pmu_driver_id \{([^}]*)\}", read("pmu/cpu.h"))
    ids = re.findall(r"PMU_DRV_[A-Z0-9_]+", enum.group(1) if enum else "")
    ids = [i for i in ids if i not in ("PMU_DRV_NONE", "PMU_DRV_COUNT")]
    table = re.search(r"names\[PMU_DRV_COUNT\] = \{([^}]*)\}", read("pmu/cpu.c"))
    names = re.findall(r'"([^"]+)"', table.group(1) if table else "")[1:]
    return dict(zip(ids, names + [""] * (len(ids) - len(names))))


def driver_problems(sim: str) -> List[str]:
    out = []
    models = subprocess.run([sim, "--list-models"], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    modelled = {line.split("\t")[1] for line in models if "\t" in line}
    ops = read("pmu/pmu.c")
    tests = {f: open(f, encoding="utf-8").read()
             for f in glob.glob(os.path.join(ROOT, "host", "unit", "test_drv_*.c"))}
    names = drivers()
    if not names:
        return ["pmu/cpu.h: no enum pmu_driver_id members found"]
    for drv, name in names.items():
        if not name:
            out.append(f"{drv}: no name in pmu/cpu.c pmu_driver_name")
        if not re.search(rf"case {drv}:\s*return &pmu_\w+_ops;", ops):
            out.append(f"{drv} ({name}): no ops table in pmu/pmu.c pmu_ops_for")
        if name not in modelled:
            out.append(f"{drv} ({name}): no simulated model (pmuharness-sim --list-models)")
        if not any(drv in text or f'"{name}"' in text for text in tests.values()):
            out.append(f"{drv} ({name}): no driver unit test (host/unit/test_drv_*.c)")
    print(f"  {len(names)} drivers: {', '.join(names.values())}")
    return out


def check_problems() -> List[str]:
    ids = []
    for f in sorted(glob.glob(os.path.join(ROOT, "tests", "checks", "*.c"))):
        ids += re.findall(r'PMH_CHECK\(\s*\w+,\s*\.id = "([^"]+)"', open(f, encoding="utf-8").read())
    docs = read("README.md") + "".join(
        open(f, encoding="utf-8").read() for f in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    # a row may name several checks: "| `a`, `b` | ..."
    rows = set()
    for cell in re.findall(r"^\| (`[a-z0-9][a-z0-9._-]*`(?:, `[a-z0-9][a-z0-9._-]*`)*) \|", docs,
                           re.M):
        rows.update(re.findall(r"`([^`]+)`", cell))
    print(f"  {len(ids)} checks, {len(rows & set(ids))} with a docs row")
    if not ids:
        return ["tests/checks: no PMH_CHECK found"]
    return [f"check {i}: no row '| `{i}` |' in the docs' checks table" for i in ids
            if i not in rows]


def anchors(text: str) -> List[str]:
    """GitHub's anchors of a Markdown page's headings."""
    out = []
    for h in re.findall(r"^#+ (.+)$", text, re.M):
        out.append(re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-"))
    return out


def link_problems() -> List[str]:
    """Every relative link of README.md and docs/*.md names a file that
    exists and, after '#', a heading of it."""
    out = []
    pages = ["README.md"] + sorted(os.path.relpath(f, ROOT) for f in
                                   glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for page in pages:
        text = read(page)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(os.path.join(ROOT, dest)):
                out.append(f"{page}: link to {target}: {dest} does not exist")
            elif frag and dest.endswith(".md") and frag not in anchors(read(dest)):
                out.append(f"{page}: link to {target}: no heading #{frag} in {dest}")
    print(f"  {len(pages)} pages' links checked")
    return out


BUDGET = 512 * 1024
ZERO_MAX = 4096


def budget_problems() -> List[str]:
    out = []
    build = os.path.join(ROOT, "build")
    for f in ("pmuharness.efi", "pmuharness-i686.elf"):
        path = os.path.join(build, f)
        if not os.path.exists(path):
            out.append(f"build/{f} missing (make)")
        elif os.path.getsize(path) > BUDGET:
            out.append(f"build/{f}: {os.path.getsize(path)} bytes, budget {BUDGET}")
    so = os.path.join(build, "pmuharness.so")
    if not os.path.exists(so):
        return out + ["build/pmuharness.so missing (make)"]
    heads = subprocess.run(["objdump", "-h", so], capture_output=True, text=True,
                           check=True).stdout
    data = re.search(r"\.data\s+([0-9a-f]+)\s+([0-9a-f]+)", heads)
    if not data:
        return out + ["build/pmuharness.so: no .data section"]
    size, lo = int(data.group(1), 16), int(data.group(2), 16)
    zero = 0
    for line in subprocess.run(["nm", "-S", so], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        sym = line.split()
        if len(sym) == 4 and sym[2] in "bB" and lo <= int(sym[0], 16) < lo + size:
            zero += int(sym[1], 16)
    print(f"  pmuharness.efi {os.path.getsize(os.path.join(build, 'pmuharness.efi'))} bytes, "
          f".data {size} bytes of which .bss {zero} (at most {ZERO_MAX})")
    if zero > ZERO_MAX:
        out.append(f"{zero} bytes of zero-filled .bss stored in the EFI file's .data "
                   f"(at most {ZERO_MAX}): allocate it at run time or make it per-CPU")
    return out


def main() -> int:
    sim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "build", "host", "pmuharness-sim-fast")
    passed = failed = 0
    for name, probs in (("drivers", driver_problems(sim)), ("checks", check_problems()),
                        ("image-budget", budget_problems()), ("doc-links", link_problems())):
        if probs:
            failed += 1
            print(f"FAIL house.{name}:\n    " + "\n    ".join(probs))
        else:
            passed += 1
            print(f"PASS house.{name}")
    print(f"house: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
