#!/usr/bin/env python3
"""Runs the suite against every simulated CPU, healthy and with every fault.
A healthy model must give 0 FAIL and no SKIP for a check its family supports;
every applicable fault must be caught by at least one FAIL whose message
names the symptom (SYMPTOM below). Prints the matrix."""
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
}


def run(sim, model, fault):
    p = subprocess.run([sim, "--cpu", model, "--fault", fault], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    sim = sys.argv[1]
    t0 = time.monotonic()
    models = [l.split("\t")[0] for l in subprocess.run([sim, "--list-models"], capture_output=True,
                                                       text=True, check=True).stdout.splitlines()]
    faults = subprocess.run([sim, "--list-faults"], capture_output=True, text=True,
                            check=True).stdout.split()
    jobs = [(m, f) for m in models for f in ["none"] + faults]
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        results = dict(zip(jobs, ex.map(lambda j: run(sim, *j), jobs)))
    passed = failed = na = 0
    cells = {}
    problems = []
    for (m, f), (rc, out) in results.items():
        fails = [l for l in out.splitlines() if l.startswith("FAIL ")]
        if f == "none":
            ok = rc == 0 and not fails and re.search(r"^\d+ passed, 0 failed", out, re.M)
            cells[m, f] = "ok" if ok else "FAIL"
            if not ok:
                problems.append(f"{m} healthy: exit {rc}\n" + "\n".join("    | " + l for l in out.splitlines()[-30:]))
        elif rc == 3 and out.startswith("n/a"):
            cells[m, f] = "n/a"
            na += 1
            continue
        else:
            named = [l for l in fails if re.search(SYMPTOM[f], l)]
            ok = rc == 1 and bool(named)
            cells[m, f] = "caught" if ok else "MISSED"
            if not ok:
                why = "no FAIL" if not fails else "FAIL does not name the symptom"
                problems.append(f"{m} with {f}: {why} (exit {rc})\n" +
                                "\n".join("    | " + l for l in (fails or out.splitlines()[-15:])))
        passed += bool(ok)
        failed += not ok
    w = max(len(m) for m in models)
    print("sim matrix (rows: models; columns: none, " + ", ".join(faults) + ")")
    for m in models:
        print(f"  {m:<{w}} " + " ".join(f"{cells[m, f]:>6}" for f in ["none"] + faults))
    for p in problems:
        print("FAIL sim." + p)
    print(f"sim: matrix wall time {time.monotonic() - t0:.2f} s")
    print(f"sim: {passed} passed, {failed} failed, {na} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
