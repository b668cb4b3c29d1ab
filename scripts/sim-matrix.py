#!/usr/bin/env python3
"""Runs the suite against every simulated CPU, healthy and with every fault,
with every realism effect on: healthy over SEEDS seeds (env SIM_SEEDS,
default 25), each fault over FAULT_SEEDS (env SIM_FAULT_SEEDS, default 12, at
most SEEDS). A healthy model must give 0 FAIL on every seed; every applicable
fault must be caught on every seed by at least one FAIL whose message names the
symptom (SYMPTOM below). Prints the matrix."""
import os
import concurrent.futures as cf
import re
import subprocess
import sys
import time

# Words a FAIL message must contain to count as naming each fault's symptom.
SYMPTOM = {
    "stuck-counter": r"did not count|counted 0|got 0|stuck",
    "narrow-counter": r"width|bits|wrap",
    "no-sign-extend": r"sign|extend",
    "no-overflow-status": r"status|OVF|overflow",
    "lost-pmi": r"PMI|interrupt",
    "spurious-pmi": r"PMI|interrupt|spurious",
    "enable-ignored": r"enable|EN|counted while",
    "global-ctrl-ignored": r"global|GLOBAL",
    "wrong-event": r"instructions|branches|event|expected",
    "msr-fault": r"#GP|fault",
    "overcount": r"expected|got|counted",
    "lvt-stuck-masked": r"mask|LVT|PMI",
    "ack-ignored": r"ack|clear|status|OVF",
    "pmi-storm": r"storm|stuck|will not clear",
    "enable-ignored-one": r"enable|EN|counted while",
    "wrong-vector": r"vector",
    "global-ignored-gp": r"global|GLOBAL",
    "width-high-bits": r"width|bits|above",
    "write-dropped": r"read back|wrote|written",
    "duplicate-pmi": r"PMI|duplicate|extra",
    "status-not-sticky": r"sticky|status|OVF",
    "skid-long": r"skid|PMI",
    "os-ignored": r"USR|OS",
    "edge-ignored": r"edge",
    "inv-ignored": r"invert|inv",
    "cmask-ignored": r"counter mask|cmask|threshold",
    "eoi-ignored": r"EOI|in service|ISR",
    "nmi-lost": r"NMI",
    "cycles-slow": r"cycles",
    "cycles-ref": r"cycles",
    # event decoding: event.semantics names the catalogue event in its FAIL;
    # count.branches catches the doubled Intel branch count too
    "event-dead": r"RETIRED_MISPREDICTED_BRANCH_INSTR|BRANCH_MISSES_RETIRED|MISPREDICTED|"
                  r"BR_MISS_PRED_RETIRED|BRANCH_RETIRED",
    "event-miswired": r"RETIRED_MISPREDICTED_BRANCH_INSTR|BRANCH_MISSES_RETIRED|MISPREDICTED|"
                      r"BR_MISS_PRED_RETIRED|BRANCH_RETIRED",
    "umask-ignored": r"L2_RQSTS|DATA_CACHE_REFILLS|LLC_MISSES|event=0x24|event=0x2e|"
                     r"L2_READ_HIT|BRANCH_RETIRED",
    "miss-counts-hits": r"DATA_CACHE_MISSES|L2_CACHE_MISSES|L2_RQSTS|LLC_MISSES|event=0x24|"
                        r"DATA_READ_MISS|L2_READ_MISS|RD_2NDL_MISS",
    "double-count": r"RETIRED_NEAR_RETURNS|BRANCH_INSTRUCTION_RETIRED|branches|"
                    r"RETIRED_BRANCH_TYPE|BR_INST_RETIRED|BRANCHES",
    "refcyc-core": r"UNHALTED_REFERENCE_CYCLES|CPU_CLK_UNHALTED\.REF|reference",
    "user-as-os": r"USR|OS|ring 3|CPL 3",
    "pce-ignored": r"PCE|ring 3|CPL 3",
    "tr-leaked": r"TR|restored",
    "write-resets": r"written|running|write",
    "fast-rdpmc-full": r"fast|ECX\[31\]|low 32",
    "full-width-no-gp": r"#GP|full-width|width",
    "freeze-ignored": r"freeze|FREEZE|frozen",
    "overflow-freezes": r"overflow|stopped|others|frozen",
    "alias-broken": r"alias|legacy",
    "spflt-ignored": r"SPFLT|USER_PREF",
    "in-tx-ignored": r"IN_TX|transaction",
    "emulated-uncounted": r"emulat",
    "metrics-unscaled": r"PERF_METRICS|add up",
    "lbr-off-by-one": r"LBR|FROM|TO",
    "lbr-filter-ignored": r"LBR|filter",
    "lbr-freeze-ignored": r"LBR|freez|frozen",
    "lbr-callstack-ignored": r"LBR|call-stack|call stack",
    "pebs-next-ip": r"PEBS|IP",
    "pebs-reset-ignored": r"PEBS|reset|reload",
    "ds-threshold-lost": r"threshold|PMI|DS",
    "bts-skips-branch": r"BTS|branch",
    "ibs-rip-outside": r"IBS|RIP",
    "ibs-lvt-ignored": r"IBS|LVT|vector",
}
SEEDS = int(os.environ.get("SIM_SEEDS", "25"))
# A fault is caught by the same check on every seed or it is a finding: 12
# seeds show one the realism hides half the time (0.5^12), at half the cost
# of the healthy runs' 25, which guard against a false FAIL.
FAULT_SEEDS = min(SEEDS, int(os.environ.get("SIM_FAULT_SEEDS", "12")))


# The faults that change what an event counts: event.semantics catches
# them. Under every other fault its rules run too but can only repeat what
# the older checks catch, at most of the matrix's cost: those runs set
# events = none (event.semantics SKIPs; every other check runs as ever).
EVENT_FAULTS = {"event-dead", "event-miswired", "umask-ignored", "miss-counts-hits",
                "double-count", "refcyc-core"}


SPENT: dict[str, float] = {}  # seconds each model's runs took, for the timing line


def run(sim, model, fault, cpus, driver):
    # a machine of several CPUs (a hybrid part) runs healthy on every CPU;
    # a fault meets its first and its last CPU, which on the hybrid model
    # are a P-core and an E-core: each core type with its own counters
    sel = [] if cpus < 2 else ["cpus=all"] if fault == "none" else [f"cpus=0,{cpus - 1}"]
    t = time.monotonic()
    seeds = SEEDS if fault == "none" else FAULT_SEEDS
    p = subprocess.run([sim, "--cpu", model, "--fault", fault, "--realism", "all", "--seeds",
                        str(seeds)] + sel +
                       ([] if fault == "none" or fault in EVENT_FAULTS else ["events=none"]) +
                       (["event=" + RAW_EVENT[driver].removeprefix("event=")]
                        if driver in RAW_EVENT else []),
                       capture_output=True, text=True)
    SPENT[model] = SPENT.get(model, 0.0) + time.monotonic() - t
    return p.returncode, p.stdout + p.stderr


def seeds_of(out):
    """Splits a multi-seed run into (seed, lines) blocks."""
    blocks, cur = [], None
    for l in out.splitlines():
        if l.startswith("sim.realism:"):
            cur = [None, []]
            blocks.append(cur)
        elif cur is not None and l.startswith("sim.seed: ") and cur[0] is None:
            cur[0] = l.split()[1]
        if cur is not None:
            cur[1].append(l)
    return blocks


# Checks that no run of this matrix can fail, each with the reason and the
# test outside it whose injected fault fails the check. Every other check
# must be failed by at least one fault on at least one model.
OUTSIDE: dict[str, tuple[str, str, str]] = {
    "guard.gp": ("host/unit/test_guard_gp.c", "fail_when_the_gp_is_lost",
                 "no model of the matrix enumerates PKS"),
    "idt.restore": ("host/unit/test_idt_restore.c", "fail_when_the_restore_is_lost",
                    "the host build has no IDT"),
}
# event.raw runs on each driver's retired-instructions event (its catalogue
# name or raw encoding), so that the faults of counting and overflow meet it.
RAW_EVENT = {"amd-core": "event=0xc0", "amd-legacy": "event=0xc0",
             "intel-arch": "event=0xc0,umask=0x00", "intel-p6": "event=0xc0",
             "intel-knc": "INSTRUCTIONS_EXECUTED", "intel-netburst": "INSTR_RETIRED.NBOGUSNTAG"}


def outside_ok(check: str) -> str | None:
    """Why an OUTSIDE entry is stale (its test file or test is gone), or None."""
    path, test, _ = OUTSIDE[check]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    try:
        with open(os.path.join(root, path)) as f:
            text = f.read()
    except OSError as e:
        return f"{path}: {e.strerror}"
    if not re.search(r"\b" + re.escape(test) + r"\b", text) or check not in text:
        return f"{path} has no test {test} of {check}"
    return None


def check_ids(out: str) -> set[str]:
    """The check ids of a run's verdict lines (PASS/FAIL/SKIP id ...)."""
    return {m.group(2).rstrip(":").split("@")[0] for m in re.finditer(r"^(PASS|FAIL|SKIP) (\S+)", out, re.M)}


def by_check(results: dict) -> dict[str, dict[str, list[str]]]:
    """Per check, the faults (with the models) whose runs FAIL it."""
    caught: dict[str, dict[str, list[str]]] = {}
    for (m, f), (_, out) in results.items():
        if f == "none":
            continue
        for c in {l.split()[1].rstrip(":").split("@")[0] for l in out.splitlines()
                  if l.startswith("FAIL ")}:
            caught.setdefault(c, {}).setdefault(f, []).append(m)
    return caught


def check_table(results: dict) -> list[str]:
    """Prints, per check, the faults that fail it; returns the problems."""
    checks: set[str] = set()
    for (m, f), (_, out) in results.items():
        if f == "none":
            checks |= check_ids(out)
    caught = by_check(results)
    w = max(len(c) for c in checks)
    print("fault x check (per check: the faults that FAIL it, on how many models)")
    problems = []
    for c in sorted(checks):
        fs = caught.get(c, {})
        line = ", ".join(f"{f} ({len(ms)})" for f, ms in sorted(fs.items()))
        if not fs and c in OUTSIDE:
            path, test, why = OUTSIDE[c]
            line = f"outside the matrix ({why}): {path} {test}"
            stale = outside_ok(c)
            if stale:
                problems.append(f"check {c}: {stale}")
        elif not fs:
            line = "NONE"
            problems.append(f"check {c}: no fault of the matrix fails it")
        print(f"  {c:<{w}} {line}")
    for c in sorted(set(OUTSIDE) & set(caught)):
        problems.append(f"check {c}: listed as outside the matrix but {', '.join(caught[c])} "
                        "fail it: take it off OUTSIDE")
    return problems


def main():
    sim = sys.argv[1]
    t0 = time.monotonic()
    # name, driver, document, CPUs, the unit test pinning a configuration
    listed = [l.split("\t") for l in subprocess.run(
        [sim, "--list-models"], capture_output=True, text=True, check=True).stdout.splitlines()]
    unit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host", "unit")
    pinned = [f for f in listed if f[4] != "-"]
    for f in pinned:  # left to their own test, which must exist
        if not os.path.exists(os.path.join(unit, f[4])):
            print(f"sim-matrix: FAIL {f[0]} is pinned by host/unit/{f[4]}, which is missing")
            sys.exit(1)
    listed = [f for f in listed if f[4] == "-"]
    models = {f[0]: int(f[3]) for f in listed}
    drivers = {f[0]: f[1] for f in listed}
    faults = subprocess.run([sim, "--list-faults"], capture_output=True, text=True,
                            check=True).stdout.split()
    jobs = [(m, f) for m in models for f in ["none"] + faults]
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        results = dict(zip(jobs, ex.map(lambda j: run(sim, *j, models[j[0]], drivers[j[0]]), jobs)))
    passed = failed = na = 0
    cells = {}
    problems = []
    for (m, f), (rc, out) in results.items():
        fails = [l for l in out.splitlines() if l.startswith("FAIL ")]
        blocks = seeds_of(out)
        if f == "none":
            bad = [(sd, [l for l in b if l.startswith("FAIL ")]) for sd, b in blocks]
            bad = [(sd, fl) for sd, fl in bad if fl]
            ok = rc == 0 and not fails and len(blocks) == SEEDS and len(re.findall(
                r"^\d+ passed, 0 failed", out, re.M)) == SEEDS
            cells[m, f] = "ok" if ok else "FAIL"
            if not ok:
                detail = [f"    | seed {sd}: {l}" for sd, fl in bad for l in fl] or \
                    ["    | " + l for l in out.splitlines()[-30:]]
                problems.append(f"{m} healthy: exit {rc}, {len(bad)} of {SEEDS} seeds failed\n" +
                                "\n".join(detail[:40]))
        elif rc == 3 and out.startswith("n/a"):
            cells[m, f] = "n/a"
            na += 1
            continue
        else:
            missed = [(sd, [l for l in b if l.startswith("FAIL ")]) for sd, b in blocks
                      if not any(l.startswith("FAIL ") and re.search(SYMPTOM[f], l) for l in b)]
            ok = rc == 1 and len(blocks) == FAULT_SEEDS and not missed
            cells[m, f] = "caught" if ok else "MISSED"
            if not ok:
                sd, fl = missed[0] if missed else (None, fails)
                why = "no FAIL" if not fl else "FAIL does not name the symptom"
                problems.append(f"{m} with {f}: {len(missed)} of {FAULT_SEEDS} seeds missed it; "
                                f"seed {sd}: {why} (exit {rc})\n" +
                                "\n".join("    | " + l for l in (fl or out.splitlines()[-15:])))
        passed += bool(ok)
        failed += not ok
    w = max(len(m) for m in models)
    print(f"sim matrix, realism all, {SEEDS} seeds healthy, {FAULT_SEEDS} per fault "
          "(rows: models; columns: none, " +
          ", ".join(faults) + ")")
    for m in models:
        print(f"  {m:<{w}} " + " ".join(f"{cells[m, f]:>6}" for f in ["none"] + faults))
    table_problems = check_table(results)
    failed += len(table_problems)
    for p in problems + table_problems:
        print("FAIL sim." + p)
    print(f"sim: matrix wall time {time.monotonic() - t0:.2f} s; the slowest models: " +
          ", ".join(f"{m} {t:.0f} s" for m, t in sorted(SPENT.items(), key=lambda x: -x[1])[:5]))
    print(f"sim: {passed} passed, {failed} failed, {na} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
