"""The HTML checklist of pmuharness-report (runs already read, the v2
shape): the verdict and the failing checks first, the skid and PMI-latency
plots, a compact check x CPU matrix, the spread of the repeats, the events
and sampling tables, run-to-run changes, then identification and options.
One self-contained, well-formed XHTML file: inline style and SVG, no script.
Standard library only."""
import re
from typing import Any, Dict, List, Optional, Tuple

from pmuharness_report_diff import changes
from pmuharness_report_formats import (EVENT_COLUMNS, Run, col_name, columns, check_rows,
                                       cpu_ident, crash_text, dropped_text,
                                       event_cells, event_detail, event_groups, figures_text,
                                       series_text,
                                       h, overall, result_of, run_ident, sampling_rows,
                                       verdict_case)
from pmuharness_report_svg import strip_plot

Col = Tuple[Run, Dict[str, Any]]
COLOURS = {"PASS": "#1b7f3b", "FAIL": "#b3261e", "SKIP": "#7a7a7a", "ERROR": "#b3261e",
           "NO PMU": "#8a6d00", "NO VERDICT": "#8a6d00"}
# A matrix cell's background by verdict: light, so its text stays readable.
TINTS = {"PASS": "#d5efdb", "FAIL": "#f6c4bf", "SKIP": "#e4e4e4"}
FAIL_ROW = "#fce4e2"  # a row of the failing list
CSS = ("body{font-family:sans-serif;margin:0 1.5em 1.5em}h1{margin:.4em 0}"
       "table{border-collapse:collapse;margin:.5em 0}"
       "td,th{border:1px solid #bbb;padding:.2em .5em;vertical-align:top;text-align:left}"
       ".v{color:#fff;font-weight:bold;padding:0 .3em}small{color:#333}"
       "#banner{color:#fff;padding:.5em 1em;margin:0 -1.5em}#banner p{margin:.2em 0}"
       "#verdict{font-size:2em;font-weight:bold}"
       f"tr.failrow td,tr.failrow th{{background:{FAIL_ROW}}}"
       "#checks td{font-size:.85em;padding:.1em .4em;min-width:5em}"
       "#checks details summary{cursor:pointer}.plots{display:flex;flex-wrap:wrap;gap:1em}"
       "figure{margin:.3em 0}figcaption{font-weight:bold}")


def badge(verdict: str) -> str:
    return f'<span class="v" style="background:{COLOURS[verdict]}">{h(verdict)}</span>'


def kv_table(rows: List[Tuple[str, Any]], cls: str = "ident") -> str:
    return (f'<table class="{cls}">' + "".join(f"<tr><th>{h(k)}</th><td>{h(v)}</td></tr>"
                                              for k, v in rows) + "</table>")


def html_doc(runs: List[Run]) -> str:
    out = ['<!DOCTYPE html>', '<html xmlns="http://www.w3.org/1999/xhtml" lang="en">',
           '<head><meta charset="utf-8"/><title>pmuharness results</title>',
           f'<style>{CSS}</style></head><body>']
    out += banner(runs) + failing(runs) + key_plots(runs) + matrix(runs) + spread(runs)
    out += html_events(runs) + html_sampling(runs) + run_changes(runs) + identity(runs)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---- the verdict and what failed ---------------------------------------------------
def banner(runs: List[Run]) -> List[str]:
    """The overall verdict on its colour, and each run's verdict and reason."""
    v = overall(runs)
    lines = "".join(f"<p>{h(r['label'])}: <b>{h(r['verdict'])}</b>: {h(r['verdict_reason'])}"
                    "</p>" for r in runs)
    return [f'<div id="banner" style="background:{COLOURS[v]}"><h1>pmuharness results</h1>'
            f'<p id="verdict">{h(v)}</p>{lines}</div>']


def cpus_text(cpus: List[int]) -> str:
    return f"cpu{cpus[0]}" if len(cpus) == 1 else "cpus " + ", ".join(map(str, cpus))


def failures(run: Run) -> List[Tuple[str, str, str, List[int]]]:
    """(what, message, figures, CPUs) of every failure of a run, the same
    failure on several CPUs once: the run's own verdict where no check
    shows it, the crash, failing checks, failing events."""
    groups: Dict[Tuple[str, str], List[Tuple[int, str]]] = {}
    vc = verdict_case(run)
    if vc:
        groups[("run verdict " + run["verdict"], vc[1])] = []
    if run.get("crash"):
        groups[("harness.crash", crash_text(run["crash"]))] = []
    for r in run["results"]:
        if r["verdict"] == "FAIL":
            groups.setdefault((r["id"], r["detail"]), []).append(
                (r["cpu"], series_text(r["figures"]) if r["figures"] else ""))
    for e in run.get("events") or []:
        if e["result"] == "FAIL":
            groups.setdefault(("event." + e["event"], event_detail(e)), []).append((e["cpu"], ""))
    out = []
    for (what, msg), where in groups.items():
        figs = [f for _, f in where]
        fig = ("; ".join(f"cpu{c}: {f}" for c, f in where) if len(set(figs)) > 1
               else figs[0] if figs else "")
        out.append((what, msg, fig, [c for c, _ in where]))
    return out


def failing(runs: List[Run]) -> List[str]:
    rows = [(run, *f) for run in runs for f in failures(run)]
    if not rows:
        return ['<h2 id="failing">Failing checks</h2><p>None: no check failed.</p>']
    out = [f'<h2 id="failing">Failing checks ({len(rows)})</h2><table id="failures"><thead>'
           "<tr><th>Check</th><th>Where</th><th>Message</th><th>Figures</th></tr></thead><tbody>"]
    for run, what, msg, fig, cpus in rows:
        where = run["label"] + (f" {cpus_text(cpus)}" if cpus else "")
        out.append(f'<tr class="failrow"><th>{badge("FAIL")} {h(what)}</th><td>{h(where)}</td>'
                   f"<td>{h(msg)}</td><td>{h(fig)}</td></tr>")
    out.append("</tbody></table>")
    return out


# ---- plots --------------------------------------------------------------------------
def samples_of(fig: Optional[Dict[str, Any]], name: Optional[str]) -> Optional[Dict[str, Any]]:
    """The figure, or its series, named name (None: the figure itself) with samples."""
    if not fig:
        return None
    for f in [fig] + list(fig.get("series") or []):
        if (name is None or f.get("name") == name) and f.get("samples"):
            return f
    return None


def plot_rows(runs: List[Run], check: str, name: Optional[str]) -> Tuple[List, str]:
    """The strips of one check's figure (or named series), one per run and
    CPU, and its unit."""
    rows, unit = [], ""
    for run, c in columns(runs):
        res = result_of(run, c["cpu"], check)
        f = samples_of(res["figures"], name) if res else None
        if f:
            label = f"cpu{c['cpu']}" if len(runs) == 1 else col_name(run, c)
            rows.append((label, f["samples"], f["median"]))
            unit = f.get("unit") or ""
    return rows, unit


def figure(plot_id: str, caption: str, rows: List, unit: str) -> List[str]:
    svg = strip_plot(plot_id, caption, unit, rows)
    return [f"<figure><figcaption>{h(caption)} ({h(unit)})</figcaption>{svg}</figure>"] \
        if svg else []


def key_plots(runs: List[Run]) -> List[str]:
    """Skid in instructions and PMI latency in cycles, a row per CPU."""
    out: List[str] = []
    for plot_id, caption, name in (("plot-skid", "Skid", "skid"),
                                   ("plot-pmi-latency", "PMI latency", "PMI latency")):
        rows, unit = plot_rows(runs, "skid", name)
        out += figure(plot_id, caption + " per CPU", rows, unit)
    return (['<h2 id="key-figures">Skid and PMI latency</h2><div class="plots">'] + out
            + ["</div>"]) if out else []


def spread(runs: List[Run]) -> List[str]:
    """Every other figure with samples: the spread of its repeats."""
    out: List[str] = []
    for check in check_rows(runs):
        if check == "skid":
            continue
        rows, unit = plot_rows(runs, check, None)
        out += figure("plot-" + re.sub(r"[^A-Za-z0-9_-]", "-", check), check, rows, unit)
    return (['<h2 id="spread">Spread of the repeats</h2><div class="plots">'] + out
            + ["</div>"]) if out else []


# ---- the check x CPU matrix --------------------------------------------------------------
def cell_body(res: Dict[str, Any]) -> str:
    """A verdict, and on demand its figures and reason."""
    fig = res["figures"] or {}
    summary = (f"{fig.get('median')} {fig.get('unit') or ''}" if fig else
               "why" if res["verdict"] != "PASS" else "detail")
    more = "; ".join(x for x in (figures_text(res["figures"]), res["detail"]) if x)
    return (f"<b>{h(res['verdict'])}</b>" + (f"<details><summary>{h(summary)}</summary>"
                                              f"<small>{h(more)}</small></details>" if more else ""))


def matrix(runs: List[Run]) -> List[str]:
    cols = columns(runs)
    out = ['<h2>Checks</h2><table id="checks"><thead><tr><th>Check</th>'
           + "".join(f"<th>{h(col_name(r, c))}</th>" for r, c in cols) + "</tr></thead><tbody>"]
    for check in check_rows(runs):
        res = [result_of(run, c["cpu"], check) for run, c in cols]
        same = {(r["verdict"], r["detail"], figures_text(r["figures"])) if r else None
                for r in res}
        if len(cols) > 1 and len(same) == 1 and res[0] is not None:  # fold: once for all
            r = res[0]
            cells = (f'<td colspan="{len(cols)}" style="background:{TINTS[r["verdict"]]}" '
                     f'title="{h(r["detail"])}">{cell_body(r)} <small>(every CPU)</small></td>')
        else:
            cells = "".join("<td></td>" if r is None else
                            f'<td style="background:{TINTS[r["verdict"]]}" '
                            f'title="{h(r["detail"])}">{cell_body(r)}</td>' for r in res)
        out.append(f"<tr><th>{h(check)}</th>{cells}</tr>")
    out.append("</tbody></table>")
    return out


# ---- events, sampling, changes, identity ---------------------------------------------------
def html_events(runs: List[Run]) -> List[str]:
    groups, dropped = event_groups(runs), [t for t in map(dropped_text, runs) if t]
    if not groups and not dropped:
        return []
    out = ['<h2>Events</h2>'] + [f'<p class="dropped"><b>{h(t)}</b></p>' for t in dropped]
    for run, cpu, table, cov, rows in groups:
        out.append(f"<h3>{h(run['label'])} cpu{cpu} {h(table)}</h3>"
                   f'<p class="coverage">{h(cov)}</p>')
        if not rows:
            continue
        out.append('<table class="events"><thead><tr>'
                   + "".join(f"<th>{h(c)}</th>" for c in EVENT_COLUMNS) + "</tr></thead><tbody>")
        for r in rows:
            cells = [f"<td>{h(x)}</td>" for x in event_cells(r)]
            cells[7] = f"<td>{badge(r['result'])}</td>"
            style = f' style="background:{FAIL_ROW}"' if r["result"] == "FAIL" else ""
            out.append(f"<tr{style}>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
    return out


def html_sampling(runs: List[Run]) -> List[str]:
    out: List[str] = []
    for run in runs:
        rows = sampling_rows(run)
        if rows:
            out.append(f"<h2>Sampling: {h(run['label'])}</h2>"
                       '<table class="sampling"><thead><tr><th>Feature</th><th>The CPU</th>'
                       "<th>Checks</th></tr></thead><tbody>"
                       + "".join(f"<tr><th>{h(a)}</th><td>{h(b)}</td><td>{h(c)}</td></tr>"
                                 for a, b, c in rows) + "</tbody></table>")
    return out


def run_changes(runs: List[Run]) -> List[str]:
    """Each later run against the first: what --diff lists, as a table."""
    out: List[str] = []
    for b in runs[1:]:
        rows = changes(runs[0], b)
        out.append(f"<h3>{h(runs[0]['label'])} to {h(b['label'])}</h3>")
        if not rows:
            out.append("<p>No change.</p>")
            continue
        out.append('<table class="diff"><thead><tr><th>Change</th><th>What</th><th>Before</th>'
                   "<th>After</th></tr></thead><tbody>" + "".join(
                       f"<tr><th>{h(k)}</th><td>{h(w)}</td><td>{h(a)}</td><td>{h(v)}</td></tr>"
                       for k, w, a, v in rows) + "</tbody></table>")
    return (['<h2 id="changes">Run to run</h2>'] + out) if out else []


def identity(runs: List[Run]) -> List[str]:
    """Per run its identification and options as labelled tables, and its
    CPUs side by side (a column each)."""
    out = ['<h2 id="identification">Identification and options</h2>']
    for run in runs:
        rows = [(k, v) for k, v in run_ident(run) if k != "Options"]
        rows += [("Crash", crash_text(run["crash"]))] if run.get("crash") else []
        out.append(f"<h3>{h(run['label'])} {badge(run['verdict'])}</h3>" + kv_table(rows))
        opts = run.get("options")
        if isinstance(opts, dict) and opts:
            out.append("<h4>Options</h4>" + kv_table(
                [(k, ", ".join(map(str, v)) if isinstance(v, list) else v)
                 for k, v in sorted(opts.items())], "options"))
        idents = [cpu_ident(c) for c in run["cpus"]]
        if not idents:
            continue
        out.append('<h4>CPUs</h4><table class="cpus"><tbody>' + "".join(
            f"<tr><th>{h(k)}</th>" + "".join(f"<td>{h(ci[i][1])}</td>" for ci in idents)
            + "</tr>" for i, (k, _) in enumerate(idents[0])) + "</tbody></table>")
    return out
