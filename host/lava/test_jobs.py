#!/usr/bin/python3
"""Every job definition under lava/ against lava-common's own job schema
(lava_common.schemas.validate, strict: an unknown key is an error), that
every job's monitor is the same one (lava_check.py reads one of them),
and that a job with a misspelt key is refused: the validation is real.
Also what the schema cannot know: the monitor pattern's units group matches
on a case without a measurement (lava-server drops a case with NULL units),
each job's device type is one LAVA ships or lava/TYPE.jinja2, and a qemu
job's context holds nothing qemu.jinja2 ignores or that breaks a TCG worker
(machine:/cpu: for amd64, -enable-kvm or -cpu host in extra_options: the
template adds them itself unless no_kvm: true). host/lava/test_lava_server.py
runs the jobs on a real lava-server.
Debian's python3 (/usr/bin/python3): lava-common is a Debian package."""
import copy
import glob
import os
import re
import sys

import yaml
from lava_common.schemas import validate
from voluptuous import Invalid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
JOBS = sorted(glob.glob(os.path.join(ROOT, "lava", "*.yaml")))
SHIPPED = "/usr/share/lava-server/device-types"  # lava-server's own templates
SHIPPED_TYPES = ("qemu", "x86")  # where lava-server is not installed
NO_MEASUREMENT = "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=apic.nmi RESULT=pass>"
MEASURED = "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=skid RESULT=pass MEASUREMENT=3 UNITS=events>"


def lint(name, job):
    """What lava-common's schema does not check; errors."""
    errs = []
    for mon in [m for ms in monitors(job) for m in ms]:
        rx = re.compile(mon["pattern"])
        a, b = rx.search(NO_MEASUREMENT), rx.search(MEASURED)
        if not a or a["units"] is None or a["measurement"] is not None:
            errs.append(f"{name}: monitor {mon['name']}: a case without a measurement must "
                        "match with units '' (lava-server drops a case with NULL units)")
        if not b or (b["measurement"], b["units"]) != ("3", "events"):
            errs.append(f"{name}: monitor {mon['name']}: MEASUREMENT=3 UNITS=events not read")
    dtype = job["device_type"]
    own = os.path.join(ROOT, "lava", f"{dtype}.jinja2")
    shipped = os.path.exists(os.path.join(SHIPPED, f"{dtype}.jinja2")) if os.path.isdir(
        SHIPPED) else dtype in SHIPPED_TYPES
    if not shipped and not os.path.exists(own):
        errs.append(f"{name}: device type {dtype}: neither LAVA's nor lava/{dtype}.jinja2")
    if dtype == "qemu":
        ctx = job.get("context", {})
        extra = " ".join(ctx.get("extra_options", []))
        if "-enable-kvm" in extra or "-cpu host" in extra:
            errs.append(f"{name}: -enable-kvm/-cpu host in extra_options (qemu.jinja2 adds "
                        "them unless no_kvm: true; lava-run refuses them without KVM)")
        if ctx.get("arch") in ("amd64", "x86_64") and ({"machine", "cpu"} & set(ctx)):
            errs.append(f"{name}: machine:/cpu: in an amd64 context: qemu.jinja2 ignores them")
    return errs


def monitors(job):
    return [a["test"]["monitors"] for a in job["actions"] if "test" in a]


def main():
    errs = []
    if len(JOBS) < 4:
        errs.append(f"lava/: {len(JOBS)} job files, expected the 4 of lava/README")
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
        bad_lint = lint(name, job)
        if bad_lint:
            errs += bad_lint
            continue
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
    for err in errs:
        print("FAIL " + err, flush=True)
    print(f"lava-jobs: {len(JOBS) - len(errs)} passed, {len(errs)} failed")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
