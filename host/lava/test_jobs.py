#!/usr/bin/python3
"""Every job definition under lava/ against lava-common's own job schema
(lava_common.schemas.validate, strict: an unknown key is an error), that
every job's monitor is the same one (lava_check.py reads one of them),
and that a job with a misspelt key is refused: the validation is real.
Debian's python3 (/usr/bin/python3): lava-common is a Debian package."""
import copy
import glob
import os
import sys

import yaml
from lava_common.schemas import validate
from voluptuous import Invalid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
JOBS = sorted(glob.glob(os.path.join(ROOT, "lava", "*.yaml")))


def monitors(job):
    return [a["test"]["monitors"] for a in job["actions"] if "test" in a]


def main():
    errs = []
    if len(JOBS) < 4:
        errs.append(f"lava/: {len(JOBS)} job files, expected the 4 of README")
    seen = []
    for path in JOBS:
        name = os.path.relpath(path, ROOT)
        with open(path) as f:
            job = yaml.safe_load(f)
        try:
            validate(job, strict=True)
        except Invalid as e:
            errs.append(f"{name}: {e.path}: {e.msg}")
            continue
        seen += monitors(job)
        # A misspelt key in the test action and at the top level: refused.
        for where, spoil in (("actions[-1].test", lambda j: j["actions"][-1]["test"]),
                             ("top level", lambda j: j)):
            bad = copy.deepcopy(job)
            spoil(bad)["timeuot"] = {"minutes": 1}
            try:
                validate(bad, strict=True)
                errs.append(f"{name}: a misspelt key at the {where} was accepted")
            except Invalid:
                pass
        print(f"PASS lava job {name}", flush=True)
    if seen and any(m != seen[0] for m in seen):
        errs.append("the jobs' monitors differ: lava_check.py checks only the first")
    for e in errs:
        print("FAIL " + e, flush=True)
    print(f"lava-jobs: {len(JOBS) - len(errs)} passed, {len(errs)} failed")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
