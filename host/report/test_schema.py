#!/usr/bin/env python3
"""Validates results JSON against host/report/pmuharness-results-2.schema.json
with a small validator of the schema subset it uses (type, properties,
required, items, enum, const, oneOf, additionalProperties, $ref into
$defs, maxItems, minimum): documents from
the simulator (several models and a fault) and, given the EFI image, one
from a QEMU boot with two CPUs; and shows that a document missing a required
field or with a wrong type is refused.

usage: test_schema.py [SIM] [EFI]   (defaults build/host/pmuharness-sim-fast,
build/pmuharness.efi; the QEMU cases are skipped when the image is absent)
       test_schema.py --validate FILE...   (any results files; exit 1 on an error)"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host", "qemu"))
import qemulib as q  # noqa: E402

SCHEMA = os.path.join(HERE, "pmuharness-results-2.schema.json")
EVENTS_FIXTURE = os.path.join(HERE, "testdata", "v2-events.json")
TYPES = {"object": dict, "array": list, "string": str, "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "boolean":
        return isinstance(v, bool)
    return isinstance(v, TYPES[t])


def validate(v, s, path="$", root=None):
    """The list of errors of v against schema s (empty: valid); root, the
    whole schema, resolves "$ref": "#/$defs/NAME"."""
    root = s if root is None else root
    if "$ref" in s:
        s = root["$defs"][s["$ref"].split("/")[-1]]
    errs = []
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            return [f"{path}: {json.dumps(v)[:60]} is not {'/'.join(ts)}"]
    if "const" in s and v != s["const"]:
        errs.append(f"{path}: {v!r} is not {s['const']!r}")
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{path}: {v!r} is not one of {s['enum']}")
    if "minimum" in s and type_ok(v, "integer") and v < s["minimum"]:
        errs.append(f"{path}: {v} is below {s['minimum']}")
    if "maxItems" in s and isinstance(v, list) and len(v) > s["maxItems"]:
        errs.append(f"{path}: {len(v)} items, at most {s['maxItems']}")
    if "oneOf" in s:
        n = sum(1 for sub in s["oneOf"] if not validate(v, sub, path, root))
        if n != 1:
            errs.append(f"{path}: matches {n} of oneOf, not exactly one")
    if isinstance(v, dict):
        props = s.get("properties", {})
        errs += [f"{path}: no {k}" for k in s.get("required", []) if k not in v]
        for k, sub in v.items():
            if k in props:
                errs += validate(sub, props[k], f"{path}.{k}", root)
            elif s.get("additionalProperties") is False:
                errs.append(f"{path}: unexpected {k}")
            elif isinstance(s.get("additionalProperties"), dict):
                errs += validate(sub, s["additionalProperties"], f"{path}.{k}", root)
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            errs += validate(x, s["items"], f"{path}[{i}]", root)
    return errs


def sim_doc(sim, *args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([sim, *args, "--json", f.name], stdout=subprocess.DEVNULL, check=False)
        return json.load(open(f.name))


def qemu_doc(efi, cfg="cpus = all\n"):
    """The JSON of a boot with two CPUs and cfg (by default cpus = all:
    QEMU's SMBIOS and firmware clock, both CPUs)."""
    d = tempfile.mkdtemp(prefix="pmh-schema-")
    esp = os.path.join(d, "esp")
    try:
        subprocess.run([q.BOOT, efi, "--smp", "2", "--esp", esp, "--cfg",
                        "on_finish = qemu-exit\n" + cfg, "--timeout", str(q.LIMIT_S)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(q.ENV, TMPDIR=d))
        boot_dir = os.path.join(esp, "EFI", "BOOT")
        jsons = sorted(f for f in os.listdir(boot_dir) if f.endswith(".json"))
        return json.load(open(os.path.join(boot_dir, jsons[-1])))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def validate_files(paths):
    """--validate FILE...: each file against the schema; its errors printed."""
    schema = json.load(open(SCHEMA))
    bad = 0
    for p in paths:
        errs = validate(json.load(open(p)), schema)
        bad += bool(errs)
        print(f"{'FAIL' if errs else 'PASS'} {p}" + "".join(f"\n    {e}" for e in errs))
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ["--validate"]:
        return validate_files(sys.argv[2:])
    sim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/host/pmuharness-sim-fast")
    efi = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build/pmuharness.efi")
    schema = json.load(open(SCHEMA))
    t = q.Tally("schema")

    def sim_models():
        errs = []
        for args in (["--cpu", "skylake"], ["--cpu", "opteron"], ["--cpu", "pentium3"],
                     ["--cpu", "nopmu"], ["--cpu", "skylake", "--fault", "stuck-counter"]):
            doc = sim_doc(sim, *args)
            errs += [f"{' '.join(args)}: {e}" for e in validate(doc, schema)]
            if not doc["cpus"] or doc["cpus"][0]["verdict"] is None:
                errs.append(f"{' '.join(args)}: no per-CPU record")
            if doc["cpus"] and doc["cpus"][0]["core_type"] is not None:
                errs.append(f"{' '.join(args)}: a core type on a part that is not hybrid")
            # the hypervisor by name and what its leaves said; null on bare metal
            hv = doc["cpus"][0].get("hypervisor"), doc["cpus"][0].get("hypervisor_cpuid")
            want = (("QEMU TCG", {"signature": "TCGTCGTCGTCG", "leaf": 0x40000000,
                                  "max_leaf": 0x40000001, "version": None,
                                  "hyperv_interface": False})
                    if args[1] == "nopmu" else (None, None))
            if doc["cpus"] and hv != want:
                errs.append(f"{' '.join(args)}: hypervisor {hv}, expected {want}")
        # a hypervisor's findings: a filter's restrictions, a counter the host took
        for model, field, kind in (("skylake-kvm-deny", "restricted", "policy"),
                                   ("vmware", "hypervisor_findings", "host")):
            doc = sim_doc(sim, "--cpu", model, "--realism", "all")
            errs += [f"{model}: {e}" for e in validate(doc, schema)]
            if not [f for f in doc.get(field, []) if f["kind"] == kind]:
                errs.append(f"{model}: no {kind} finding in {field}")
        # the hybrid machine: each CPU's own core type (P-cores 0-1, E-cores 2-3)
        doc = sim_doc(sim, "--cpu", "alderlake", "cpus=all", "checks=pmu.probe")
        errs += [f"alderlake cpus=all: {e}" for e in validate(doc, schema)]
        types = [c["core_type"] for c in doc["cpus"]]
        if types != ["core", "core", "atom", "atom"]:
            errs.append(f"alderlake cpus=all: core types {types}")
        return errs

    def sim_figures():
        doc = sim_doc(sim, "--cpu", "skylake", "checks=count.instructions,overflow.preload")
        figs = {r["id"]: r["figures"] for r in doc["results"]}
        errs = [f"{k}: no figures" for k, v in figs.items() if not v]
        errs += [f"{k}: no tolerance" for k, v in figs.items() if v and not v["tolerance"]]
        errs += [f"{k}: no counters" for k, v in figs.items() if v and not v["counters"]]
        return errs + validate(doc, schema)

    def sim_samples():
        """Figures keep their samples, at most 64 (every one in the order
        taken up to 64, else 64 by rank, min and max among them); skid names
        its skid in instructions and its PMI latency in cycles."""
        doc = sim_doc(sim, "--cpu", "skylake", "repeat=101", "checks=count.instructions,skid")
        errs = validate(doc, schema)
        figs = {r["id"]: r["figures"] for r in doc["results"]}
        ci, sk = figs.get("count.instructions") or {}, figs.get("skid") or {}
        smp = ci.get("samples", [])
        if ci.get("samples_taken") != 101 or len(smp) != 64 or smp != sorted(smp) or \
                (smp[:1], smp[-1:]) != ([ci["min"]], [ci["max"]]):
            errs.append(f"count.instructions samples {ci.get('samples_taken')} {smp}")
        lat = (sk.get("series") or [{}])[0]
        if (sk.get("name"), sk.get("unit"), lat.get("name"), lat.get("unit")) != \
                ("skid", "instructions", "PMI latency", "cycles"):
            errs.append(f"skid figure {sk.get('name')} {sk.get('unit')}, series {lat}")
        for f in (sk, lat):
            s = f.get("samples", [])
            if not s or len(s) != f.get("samples_taken") or sorted(s)[len(s) // 2] != f["median"]:
                errs.append(f"{f.get('name')}: samples {s}, median {f.get('median')}")
        def fig(d, check):
            return next(r["figures"] for r in d["results"] if r["id"] == check)
        for mutate, what in (
                (lambda d: fig(d, "count.instructions").update(samples=list(range(65))),
                 "65 samples"),
                (lambda d: fig(d, "skid")["series"][0].update(samples=["1"]),
                 "a sample as string"),
                (lambda d: fig(d, "skid").update(samples_taken=-1), "samples_taken < 0")):
            bad = copy.deepcopy(doc)
            mutate(bad)
            if not validate(bad, schema):
                errs.append(f"{what}: accepted")
        return errs

    def refuses_bad():
        good = sim_doc(sim, "--cpu", "skylake", "checks=pmu.probe")
        errs = validate(good, schema)
        for mutate, what in ((lambda d: d.pop("verdict"), "no verdict"),
                             (lambda d: d["cpus"][0].pop("brand"), "a CPU without brand"),
                             (lambda d: d["summary"].update(passed="3"), "a count as string"),
                             (lambda d: d["results"][0].update(verdict="OK"), "a bad verdict"),
                             (lambda d: d["cpus"][0].update(core_type="big"), "a bad core type"),
                             (lambda d: d["cpus"][0].update(hypervisor_cpuid={"signature": 1}),
                              "a bad hypervisor_cpuid"),
                             (lambda d: d.update(extra=1), "an unknown field")):
            bad = copy.deepcopy(good)
            mutate(bad)
            if not validate(bad, schema):
                errs.append(f"{what}: accepted")
        return errs

    def events_table():
        """event.semantics' rows and coverage: the harness writes the keys
        (optional in the schema, so older documents stay valid); the
        fixture with a PASS, a FAIL and a SKIP row fits, a wrong row does not."""
        doc = sim_doc(sim, "--cpu", "skylake", "checks=pmu.probe")
        errs = [f"sim: no {k}" for k in ("events", "events_coverage", "events_dropped")
                if k not in doc]
        old = copy.deepcopy(doc)
        for k in ("events", "events_coverage", "events_dropped"):
            old.pop(k, None)
        errs += [f"without the events keys: {e}" for e in validate(old, schema)]
        good = json.load(open(EVENTS_FIXTURE))
        errs += [f"fixture: {e}" for e in validate(good, schema)]
        for mutate, what in ((lambda d: d["events"][0].update(result="OK"), "a bad result"),
                             (lambda d: d["events"][1].update(measured="3"), "measured as string"),
                             (lambda d: d["events"][0].pop("rule"), "a row without rule"),
                             (lambda d: d["events"][0]["expected"].pop("max"), "no max"),
                             (lambda d: d["events"][0].update(extra=1), "an unknown row field"),
                             (lambda d: d["events_coverage"][0].pop("validated"),
                              "coverage without validated"),
                             (lambda d: d.update(events_dropped=None), "events_dropped null")):
            bad = copy.deepcopy(good)
            mutate(bad)
            if not validate(bad, schema):
                errs.append(f"{what}: accepted")
        return errs

    def qemu_boot():
        doc = qemu_doc(efi)
        errs = validate(doc, schema)
        if len(doc["cpus"]) != 2:
            errs.append(f"{len(doc['cpus'])} CPU records, expected 2")
        for k in ("started", "elapsed_us", "firmware", "system"):
            if doc[k] is None:
                errs.append(f"{k} is null under OVMF")
        return errs

    def qemu_crash():
        """An unexpected #UD (the test trigger): the crash record names the
        vector, RIP, the trigger's registers and the check."""
        doc = qemu_doc(efi, "checks = apic.fatal-trigger\n")
        errs = validate(doc, schema)
        c = doc["crash"] or {}
        want = {"vector": 6, "error_code": 0, "check": "apic.fatal-trigger"}
        errs += [f"crash.{k} {c.get(k)!r}, expected {v!r}" for k, v in want.items()
                 if c.get(k) != v]
        regs = c.get("registers", {})
        if regs.get("rax") != "0x5a5a1234" or regs.get("rbx") != "0xbadcafe":
            errs.append(f"crash.registers {regs}")
        if doc["verdict"] != "ERROR":
            errs.append(f"verdict {doc['verdict']}, expected ERROR")
        return errs

    def qemu_ap_crash():
        """The same #UD on an AP: recorded, the run goes on to a FAIL."""
        doc = qemu_doc(efi, "cpus = 1\nchecks = apic.fatal-trigger\n")
        errs = validate(doc, schema)
        c = doc["crash"] or {}
        if (c.get("vector"), c.get("check")) != (6, "apic.fatal-trigger"):
            errs.append(f"crash {c}")
        if doc["verdict"] != "FAIL" or [x["cpu"] for x in doc["cpus"]] != [1]:
            errs.append(f"verdict {doc['verdict']}, cpus {doc['cpus']}")
        return errs

    t.case(sim_models)
    t.case(sim_figures)
    t.case(sim_samples)
    t.case(refuses_bad)
    t.case(events_table)
    if os.path.exists(efi) and shutil.which("qemu-system-x86_64"):
        t.case(qemu_boot)
        t.case(qemu_crash)
        t.case(qemu_ap_crash)
    else:
        print("SKIP schema.qemu_*: no image or no QEMU")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
