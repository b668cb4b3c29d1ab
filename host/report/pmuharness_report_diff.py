"""What changed from one pmuharness run to another (runs already read, the
v2 shape): the text of --diff and the rows of the HTML's run-to-run view.
Standard library only."""
from typing import Any, Dict, List, Tuple

from pmuharness_report_formats import figures_text, nv

Run = Dict[str, Any]
# (kind, what, in A, in B): kind "cpu", "removed", "added", "verdict",
# "figures" or "run"
Change = Tuple[str, str, str, str]


def cpu_name(c: Dict[str, Any]) -> str:
    fam, model = (nv(c.get(k), "{:#x}") for k in ("family", "model"))
    return f"{nv(c.get('vendor'))} family {fam} model {model} ({nv(c.get('brand'))})"


def changes(a: Run, b: Run) -> List[Change]:
    """The CPUs that are other processors in B (vendor, family or model:
    then no figure compares), then each check whose verdict or figures
    differ or that one run lacks, then the run verdict."""
    ib_cpu = {c["cpu"]: c for c in b["cpus"]}
    out: List[Change] = [
        ("cpu", f"cpu{c['cpu']}", cpu_name(c), cpu_name(ib_cpu[c["cpu"]]))
        for c in a["cpus"] if c["cpu"] in ib_cpu and
        any(c.get(k) != ib_cpu[c["cpu"]].get(k) for k in ("vendor", "family", "model"))]

    def index(run: Run) -> Dict[Tuple[int, str], Dict[str, Any]]:
        return {(r["cpu"], r["id"]): r for r in run["results"]}
    ia, ib = index(a), index(b)
    for key in list(ia) + [k for k in ib if k not in ia]:
        ra, rb = ia.get(key), ib.get(key)
        name = f"cpu{key[0]} {key[1]}"
        if rb is None:
            out.append(("removed", name, ra["verdict"] if ra else "", ""))
        elif ra is None:
            out.append(("added", name, "", rb["verdict"]))
        elif ra["verdict"] != rb["verdict"]:
            out.append(("verdict", name, ra["verdict"], f"{rb['verdict']} ({rb['detail']})"))
        elif figures_text(ra["figures"]) != figures_text(rb["figures"]):  # not samples
            out.append(("figures", name, figures_text(ra["figures"]) or "none",
                        figures_text(rb["figures"]) or "none"))
    if a["verdict"] != b["verdict"]:
        out.append(("run", "run verdict", a["verdict"], b["verdict"]))
    return out


def diff(a: Run, b: Run) -> List[str]:
    """--diff's lines: one per change."""
    lines = []
    for kind, what, va, vb in changes(a, b):
        if kind == "cpu":
            lines.append(f"different CPUs: {what} is {va} in A but {vb} in B: the runs "
                         "measured different processors")
        elif kind == "removed":
            lines.append(f"removed {what}: was {va}")
        elif kind == "added":
            lines.append(f"added {what}: {vb}")
        elif kind == "run":
            lines.append(f"run verdict: {va} -> {vb}")
        else:
            lines.append(f"{kind} {what}: {va} -> {vb}")
    return lines
