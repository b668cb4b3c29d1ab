"""The outputs of pmuharness-report from runs already read (the v2 shape):
the pieces every output shares, a Markdown checklist, JUnit XML and TAP 13
(the HTML: pmuharness_report_html.py). Standard library only."""
import html
import json
import re
from typing import Any, Dict, List, Optional, Tuple

Run = Dict[str, Any]  # one results document, read into the v2 shape
Row = Dict[str, Any]  # one entry of a run's "events"

# Across runs the most severe verdict wins; a run that measured nothing
# (NO VERDICT) weighs more than one that had no PMU to measure.
SEVERITY = ("ERROR", "FAIL", "NO VERDICT", "NO PMU", "PASS")
# XML 1.0 admits no control character but tab, LF and CR, even escaped, no
# surrogate and neither U+FFFE nor U+FFFF (the reader refuses those too).
XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


# ---- runs as a table -----------------------------------------------------------

def columns(runs):
    """(run, cpu entry) per column, in file order, boot CPU first."""
    return [(run, c) for run in runs for c in run["cpus"]]


def check_rows(runs):
    """Every check id once, in the order the runs first give it."""
    order = {}
    for run in runs:
        for res in run["results"]:
            order.setdefault(res["id"], len(order))
    return list(order)


def result_of(run, cpu, check):
    for res in run["results"]:
        if res["cpu"] == cpu and res["id"] == check:
            return res
    return None


def overall(runs):
    return min((r["verdict"] for r in runs), key=SEVERITY.index)


# ---- text pieces -------------------------------------------------------------
def series_text(fig):
    """'skid 90/100/130 instructions': name, min/median/max and unit."""
    unit = f" {fig['unit']}" if fig.get("unit") else ""
    name = f"{fig['name']} " if fig.get("name") else ""
    return name + "/".join(nv(fig.get(k)) for k in ("min", "median", "max")) + unit


def figures_text(fig):
    """A figure in one line (its samples left out): name, min/median/max,
    unit, tolerance, counters, and a second series after a semicolon."""
    if not fig:
        return ""
    text = series_text(fig)
    if fig.get("tolerance"):
        text += f" (tolerance {fig['tolerance']})"
    if fig.get("counters"):
        text += " on " + ", ".join(str(c) for c in fig["counters"])
    for more in fig.get("series") or []:
        text += "; " + series_text(more)
    return text


def nv(v, fmt="{}"):
    return "-" if v is None else fmt.format(v)


def hypervisor_text(c):
    """The hypervisor as the log's cpu.hypervisor line gives it: name,
    version, signature and leaf (hypervisor_cpuid); the name alone from
    documents of older harnesses."""
    name, hv = c.get("hypervisor"), c.get("hypervisor_cpuid")
    if name is None or not hv:
        return nv(name)
    if hv.get("leaf") is None:
        return f"{name} (no leaf of 0x40000000-0x4000ff00 answers)"
    ver = f" {hv['version']}" if hv.get("version") else ""
    behind = ", behind a Hyper-V interface at 0x40000000" if hv.get("hyperv_interface") else ""
    return f'{name}{ver} (signature "{hv.get("signature") or ""}" at {hv["leaf"]:#x}{behind})'


def cpu_ident(c):
    """(key, value) rows that identify one CPU and its PMU."""
    pmu = c.get("pmu") or {}
    fms = "/".join(nv(c.get(k), "{:#x}") for k in ("family", "model", "stepping"))
    ctrs = ("-" if not pmu else
            f"{nv(pmu.get('gp_counters'))} x {nv(pmu.get('gp_width'))} bit general, "
            f"{nv(pmu.get('fixed_counters'))} x {nv(pmu.get('fixed_width'))} bit fixed")
    # a hybrid part's core type ("core" P-core, "atom" E-core)
    core = f", core type {c['core_type']}" if c.get("core_type") else ""
    return [("CPU", f"{c['cpu']} (APIC ID {nv(c.get('apic_id'))}, {nv(c.get('apic_mode'))}{core})"),
            ("Vendor", nv(c.get("vendor"))), ("Brand", nv(c.get("brand"))),
            ("Family/model/stepping", fms), ("Microcode", nv(c.get("microcode"), "{:#x}")),
            ("Hypervisor", hypervisor_text(c)),
            ("PMU", f"{nv(pmu.get('driver'))} version {nv(pmu.get('version'))}, "
                    f"{nv(pmu.get('status'))}: {nv(pmu.get('reason'))}" if pmu else "-"),
            ("Counters", ctrs),
            ("Verdict", f"{c['verdict']} ({c.get('passed', 0)} passed, {c.get('failed', 0)} "
                        f"failed, {c.get('skipped', 0)} skipped)")]


def run_ident(run):
    """(key, value) rows that identify one run: board, firmware, harness, options."""
    sysid = run.get("system") or {}
    board = sysid.get("board") or {}
    fw = run.get("firmware") or {}
    h = run["harness"]
    opts = run.get("options")
    return [("File", run["path"]), ("Schema", run["schema"]),
            ("System", " ".join(str(sysid.get(k) or "") for k in
                                ("manufacturer", "product", "version")).strip() or "-"),
            ("Board", " ".join(str(board.get(k) or "") for k in
                               ("manufacturer", "product", "version")).strip() or "-"),
            ("Firmware", f"{nv(fw.get('vendor'))} {nv(fw.get('revision'))}" if fw else "-"),
            ("Harness", f"{h['version']} ({nv(h.get('commit'))})"),
            ("Started", nv(run.get("started"))),
            ("Elapsed", nv(run.get("elapsed_us"), "{} us")),
            ("Options", json.dumps(opts, sort_keys=True) if opts else "-"),
            ("Verdict", f"{run['verdict']}: {run['verdict_reason']}")]


def crash_text(crash):
    regs = crash.get("registers") or {}
    return (f"vector {crash.get('vector')}, error code {crash.get('error_code')}, "
            f"RIP {crash.get('rip')}, during {crash.get('check')}; "
            + " ".join(f"{k}={v}" for k, v in sorted(regs.items())))


def col_name(run, c):
    return f"{run['label']} cpu{c['cpu']}"


# ---- event.semantics: the events tables ----------------------------------------
# One table per run, CPU and catalogue, its coverage line above it, the
# failing events first; the columns of docs/user-guide.md "Report tool".
EVENT_COLUMNS = ("Event", "Encoding", "Counter", "Workload", "Rule", "Expected", "Measured",
                 "Result", "Note")


def expected_text(exp: Dict[str, Optional[int]]) -> str:
    lo, hi = exp.get("min"), exp.get("max")
    if lo is None and hi is None:
        return "any"
    if hi is None:
        return f">= {lo}"
    if lo is None:
        return f"<= {hi}"
    return str(lo) if lo == hi else f"{lo}..{hi}"


def coverage_text(cov: Optional[Dict[str, Any]], rows: List[Row]) -> str:
    """'amd-k8: 41 of 87 events validated, 30 not validatable; 40 pass, 1 fail'."""
    if cov is None:  # rows without a coverage record: their counts only
        n = {v: sum(r["result"] == v for r in rows) for v in ("PASS", "FAIL", "SKIP")}
        return (f"{rows[0]['table']}: no coverage record; {n['PASS']} pass, {n['FAIL']} fail"
                + (f", {n['SKIP']} skip" if n["SKIP"] else ""))
    return (f"{cov['table']}: {cov['validated']} of {cov['events']} events validated, "
            f"{cov['not_validatable']} not validatable; {cov['passed']} pass, "
            f"{cov['failed']} fail" + (f", {cov['skipped']} skip" if cov["skipped"] else ""))


def event_cells(r: Row) -> List[str]:
    """A row's cells in EVENT_COLUMNS' order (the rule with its source)."""
    work = " ".join(x for x in (r["workload"], r.get("footprint") or "") if x)
    rule = r["rule"] + (f" ({r['source']})" if r.get("source") else "")
    work += f" x {r['iterations']}" if r["iterations"] else ""
    return [r["event"], r["encoding"], r["counter"], work, rule,
            expected_text(r["expected"]), nv(r.get("measured")), r["result"], r.get("note") or ""]


def event_groups(runs: List[Run]) -> List[Tuple[Run, int, str, str, List[Row]]]:
    """(run, cpu, catalogue, coverage line, rows with the FAILs first) per
    table: in file order, the CPUs as "cpus" lists them, the catalogues in
    the order their coverage (or first row) comes."""
    out = []
    for run in runs:
        for c in run["cpus"]:
            cov = [x for x in run.get("events_coverage") or [] if x["cpu"] == c["cpu"]]
            rows = [r for r in run.get("events") or [] if r["cpu"] == c["cpu"]]
            tables = list(dict.fromkeys([x["table"] for x in cov] + [r["table"] for r in rows]))
            for t in tables:
                mine = [r for r in rows if r["table"] == t]
                mine.sort(key=lambda r: r["result"] != "FAIL")  # stable: FAILs first
                rec = next((x for x in cov if x["table"] == t), None)
                if rec is None and not mine:
                    continue
                out.append((run, c["cpu"], t, coverage_text(rec, mine), mine))
    return out


def dropped_text(run: Run) -> str:
    n = run.get("events_dropped") or 0
    return (f"{run['label']}: {n} event rows did not fit the harness's table and are not in "
            "the results file (they are in the log)") if n else ""


def failing_events(run: Run, cpu: int) -> List[Row]:
    return [r for r in run.get("events") or [] if r["cpu"] == cpu and r["result"] == "FAIL"]


def verdict_case(run: Run) -> Optional[Tuple[str, str]]:
    """The run's verdict as a case of its own where no check, event or crash
    case shows it: ("failure" or "error", message); None where one does. A
    CI must never read a run that measured nothing (NO PMU, NO VERDICT), or
    one that lost results (ERROR), as green."""
    v = run["verdict"]
    msg = f"{v}: {run['verdict_reason']}"
    if v in ("NO PMU", "NO VERDICT"):
        return "failure", msg
    if v == "ERROR" and not run.get("crash"):
        return "error", msg
    shown = any(r["verdict"] == "FAIL" for r in run["results"]) or any(
        r["result"] == "FAIL" for r in run.get("events") or [])
    if v == "FAIL" and not shown:
        return "failure", msg
    return None


def event_detail(r: Row) -> str:
    """A failing event in one line, for JUnit and TAP."""
    return (f"{r['table']} {r['event']} ({r['encoding']}) on {r['counter']}: {r['rule']}, "
            f"expected {expected_text(r['expected'])}, measured {nv(r.get('measured'))}"
            + (f": {r['note']}" if r.get("note") else ""))


# ---- Markdown ----------------------------------------------------------------
def md_cell(text):
    """One table cell: no raw HTML (a renderer would run it), no pipe, no line break."""
    text = html.escape(XML_BAD.sub("?", str(text)), quote=False)
    return re.sub(r"([\\|`*_\[\]])", r"\\\1", text).replace("\n", " ")


def markdown(runs):
    out = ["# pmuharness results", "", f"**Verdict: {overall(runs)}**", ""]
    for run in runs:
        out += [f"## {md_cell(run['label'])}", "", "| | |", "|---|---|"]
        out += [f"| {k} | {md_cell(v)} |" for k, v in run_ident(run)]
        if run.get("crash"):
            out.append(f"| Crash | {md_cell(crash_text(run['crash']))} |")
        for c in run["cpus"]:
            out += ["", f"### {md_cell(run['label'])} cpu{c['cpu']}", "", "| | |", "|---|---|"]
            out += [f"| {k} | {md_cell(v)} |" for k, v in cpu_ident(c)]
        out.append("")
    cols = columns(runs)
    out += ["## Checks", "", "| Check | " + " | ".join(md_cell(col_name(r, c)) for r, c in cols)
            + " |", "|---" * (len(cols) + 1) + "|"]
    for check in check_rows(runs):
        cells = []
        for run, c in cols:
            res = result_of(run, c["cpu"], check)
            cells.append("" if res is None else "; ".join(
                x for x in (res["verdict"], figures_text(res["figures"]), res["detail"]) if x))
        out.append(f"| {md_cell(check)} | " + " | ".join(md_cell(x) for x in cells) + " |")
    return "\n".join(out + md_events(runs) + md_sampling(runs)) + "\n"


# ---- the sampling section (tests/report_sampling.c) ---------------------------
def sampling_rows(run: Run) -> List[Tuple[str, str, str]]:
    """(feature, what the CPU has or why not, its checks and verdicts) of one run's
    "sampling" object; none where the run has none (no sampling check ran, an older
    harness)."""
    smp = run.get("sampling")
    if not smp:
        return []
    have = {
        "lbr": lambda f: f"{f['kind']}, {f['depth']} deep, format {f['format']}",
        "pebs": lambda f: f"format {f['format']}" + (", adaptive" if f["adaptive"] else ""),
        "bts": lambda f: "present",
        "ibs": lambda f: f"features 0x{f['features']:x}",
    }
    rows = []
    for name in ("lbr", "pebs", "bts", "ibs"):
        f = smp[name]
        what = f"absent: {f['why_absent']}" if f["why_absent"] else have[name](f)
        checks = ", ".join(f"{k} {v}" for k, v in sorted(f["checks"].items()))
        rows.append((name.upper(), what, checks or "not run"))
    return rows


def md_sampling(runs: List[Run]) -> List[str]:
    out: List[str] = []
    for run in runs:
        rows = sampling_rows(run)
        if not rows:
            continue
        out += ["", f"## Sampling: {md_cell(run['label'])}", "",
                "| feature | the CPU | checks |", "|---|---|---|"]
        out += [f"| {a} | {md_cell(b)} | {md_cell(c)} |" for a, b, c in rows]
    return out


def md_events(runs: List[Run]) -> List[str]:
    groups, dropped = event_groups(runs), [t for t in map(dropped_text, runs) if t]
    if not groups and not dropped:
        return []
    out = ["", "## Events"]
    out += [x for t in dropped for x in ("", f"**{md_cell(t)}**")]
    for run, cpu, table, cov, rows in groups:
        out += ["", f"### {md_cell(run['label'])} cpu{cpu} {md_cell(table)}", "", md_cell(cov)]
        if rows:
            out += ["", "| " + " | ".join(EVENT_COLUMNS) + " |", "|---" * len(EVENT_COLUMNS) + "|"]
            out += ["| " + " | ".join(md_cell(x) for x in event_cells(r)) + " |" for r in rows]
    return out


# ---- XML text (the HTML and JUnit) ---------------------------------------------
def h(text):
    """Text for XML (the HTML and JUnit): escaped, without the characters XML forbids."""
    return html.escape(XML_BAD.sub("?", str(text)), quote=True)


# ---- JUnit XML ---------------------------------------------------------------
def junit(runs):
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    total = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
    suites = []
    for run, c in columns(runs):
        mine = [res for res in run["results"] if res["cpu"] == c["cpu"]]
        evs = failing_events(run, c["cpu"])  # a failed testcase each, never green
        crashed = bool(run.get("crash")) and c is run["cpus"][0]
        # the run's own verdict case goes with the boot CPU's suite
        vc = verdict_case(run) if c is run["cpus"][0] else None
        n = {"tests": len(mine) + len(evs) + crashed + bool(vc),
             "failures": sum(r["verdict"] == "FAIL" for r in mine) + len(evs)
             + (vc is not None and vc[0] == "failure"),
             "skipped": sum(r["verdict"] == "SKIP" for r in mine),
             "errors": int(crashed) + (vc is not None and vc[0] == "error")}
        for k in total:
            total[k] += n[k]
        cls = h(f"pmuharness.{run['label']}.cpu{c['cpu']}")
        # JUnit's timestamp is ISO 8601 without a zone; the firmware clock is UTC.
        when = f' timestamp="{h(run["started"].rstrip("Z"))}"' if run.get("started") else ""
        s = [f'  <testsuite name="{h(col_name(run, c))}" tests="{n["tests"]}" '
             f'failures="{n["failures"]}" errors="{n["errors"]}" skipped="{n["skipped"]}"{when}>',
             '    <properties>'] + [
            f'      <property name="{h(k)}" value="{h(v)}"/>'
            for k, v in run_ident(run) + cpu_ident(c)] + ['    </properties>']
        for res in mine:
            body = "\n".join(f"{k}: {v}" for k, v in (("detail", res["detail"]),
                                                    ("figures", figures_text(res["figures"])))
                             if v)
            s.append(f'    <testcase classname="{cls}" name="{h(res["id"])}">')
            if res["verdict"] == "FAIL":
                s.append(f'      <failure message="{h(res["detail"])}">{h(body)}</failure>')
            elif res["verdict"] == "SKIP":
                s.append(f'      <skipped message="{h(res["detail"])}"/>')
            s.append(f"      <system-out>{h(body)}</system-out>")
            s.append("    </testcase>")
        for r in evs:
            msg = event_detail(r)
            s += [f'    <testcase classname="{cls}" name="{h("event." + r["event"])}">',
                  f'      <failure message="{h(msg)}">{h(msg)}</failure>', "    </testcase>"]
        if crashed:
            msg = crash_text(run["crash"])
            s += [f'    <testcase classname="{cls}" name="harness.crash">',
                  f'      <error message="{h(msg)}">{h(msg)}</error>', "    </testcase>"]
        if vc:
            s += [f'    <testcase classname="{cls}" name="verdict">',
                  f'      <{vc[0]} message="{h(vc[1])}">{h(vc[1])}</{vc[0]}>', "    </testcase>"]
        suites += s + ["  </testsuite>"]
    out.append(f'<testsuites name="pmuharness" tests="{total["tests"]}" '
               f'failures="{total["failures"]}" errors="{total["errors"]}" '
               f'skipped="{total["skipped"]}">')
    return "\n".join(out + suites + ["</testsuites>"]) + "\n"


# ---- TAP 13 ------------------------------------------------------------------
def y(v):
    """A YAML scalar: JSON's quoted string is valid YAML."""
    return json.dumps(v if isinstance(v, (int, type(None))) else str(v))


def tap_text(text):
    """A test line is one line of printable text."""
    return XML_BAD.sub("?", str(text)).replace("\r", " ").replace("\n", " ")


def tap(runs):
    points = []
    for run, c in columns(runs):
        for res in (r for r in run["results"] if r["cpu"] == c["cpu"]):
            points.append((run, c, res))
    evs = [(run, c, r) for run, c in columns(runs) for r in failing_events(run, c["cpu"])]
    verdicts = [(run, verdict_case(run)) for run in runs]
    plan = (len(points) + len(evs) + sum(bool(r.get("crash")) for r in runs)
            + sum(vc is not None for _, vc in verdicts))
    out = ["TAP version 13", f"1..{plan}"]
    n = 0
    for run, c, res in points:
        n += 1
        name = tap_text(f"{col_name(run, c)} {res['id']}").replace("#", "\\#")
        ok = "not ok" if res["verdict"] == "FAIL" else "ok"
        skip = f" # SKIP {tap_text(res['detail'])}" if res["verdict"] == "SKIP" else ""
        out.append(f"{ok} {n} - {name}{skip}")
        fig = res["figures"] or {}
        diag = [("verdict", res["verdict"]), ("detail", res["detail"])] + [
            (k, fig.get(k)) for k in ("min", "median", "max", "unit", "tolerance") if fig]
        if fig.get("counters"):
            diag.append(("counters", ", ".join(map(str, fig["counters"]))))
        out += ["  ---"] + [f"  {k}: {y(v)}" for k, v in diag] + ["  ..."]
    for run, c, r in evs:  # a failing event is a failed point of its own
        n += 1
        name = tap_text(f"{col_name(run, c)} event.{r['event']}").replace("#", "\\#")
        diag = [("table", r["table"]), ("encoding", r["encoding"]), ("counter", r["counter"]),
                ("rule", r["rule"]), ("expected", expected_text(r["expected"])),
                ("measured", r.get("measured")), ("note", r.get("note") or ""),
                ("source", r.get("source") or "")]
        out += [f"not ok {n} - {name}", "  ---"] + [f"  {k}: {y(v)}" for k, v in diag] + ["  ..."]
    for run in runs:
        if run.get("crash"):
            n += 1
            name = tap_text(f"{run['label']} harness.crash").replace("#", "\\#")
            out += [f"not ok {n} - {name}", "  ---",
                    f"  message: {y(crash_text(run['crash']))}", "  ..."]
    for run, vc in verdicts:  # a run that measured nothing is not green
        if vc:
            n += 1
            name = tap_text(f"{run['label']} verdict").replace("#", "\\#")
            out += [f"not ok {n} - {name}", "  ---", f"  verdict: {y(run['verdict'])}",
                    f"  reason: {y(run['verdict_reason'])}", "  ..."]
    return "\n".join(out) + "\n"
