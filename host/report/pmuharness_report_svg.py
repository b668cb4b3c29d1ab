"""Inline SVG plots for the HTML report: a strip plot of a figure's samples,
one row per CPU, with each row's median marked. Standard library only: no
script, no network, so the report stays one self-contained file."""
import html
from typing import List, Optional, Sequence, Tuple

SVG_NS = "http://www.w3.org/2000/svg"
# (row label, samples, median): one row of a plot
Strip = Tuple[str, Sequence[int], int]
WIDTH, LABEL_W, ROW_H, TOP, AXIS_H = 560, 110, 22, 8, 34
DOT = "#1f5fa8"
MEDIAN = "#111"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(lo: float, hi: float, n: int = 5) -> List[float]:
    """About n round tick values covering lo..hi (1, 2 or 5 x 10^k apart)."""
    span = hi - lo
    raw = span / max(n - 1, 1)
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = int(lo // step) * step
    ticks, t = [], first
    while t <= hi + step / 2:
        if t >= lo - step / 2:
            ticks.append(t)
        t += step
    return ticks


def fmt_num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def strip_plot(plot_id: str, title: str, unit: str, rows: List[Strip],
               width: int = WIDTH) -> Optional[str]:
    """An SVG strip plot, or None without a sample. Each dot a sample (a
    column of repeats at one value is spread vertically), a bar at the
    median, the axis in the figure's unit."""
    rows = [r for r in rows if r[1]]
    if not rows:
        return None
    lo: float = min(min(s) for _, s, _ in rows)
    hi: float = max(max(s) for _, s, _ in rows)
    if lo == hi:  # every sample equal: a range around it
        lo, hi = lo - 1, hi + 1
    ticks = nice_ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    label_w = min(max(LABEL_W, 7 * max(len(r[0]) for r in rows) + 12), width // 2)
    plot_w = width - label_w - 16
    height = TOP + ROW_H * len(rows) + AXIS_H

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    out = [f'<svg xmlns="{SVG_NS}" id="{esc(plot_id)}" class="plot" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img">',
           f"<title>{esc(title)} ({esc(unit)})</title>"]
    for i, (label, samples, med) in enumerate(rows):
        y = TOP + ROW_H * i + ROW_H / 2
        out.append(f'<text x="{label_w - 6}" y="{y + 4:.1f}" text-anchor="end" '
                   f'font-size="12">{esc(label)}</text>')
        out.append(f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')
        seen: dict = {}
        for v in samples:
            k = seen[v] = seen.get(v, -1) + 1  # stack repeats of one value
            dy = ((k % 7) - 3) * 2
            out.append(f'<circle cx="{x(v):.1f}" cy="{y + dy:.1f}" r="3" fill="{DOT}" '
                       f'fill-opacity="0.55"><title>{esc(v)} {esc(unit)}</title></circle>')
        out.append(f'<line x1="{x(med):.1f}" x2="{x(med):.1f}" y1="{y - 9:.1f}" '
                   f'y2="{y + 9:.1f}" stroke="{MEDIAN}" stroke-width="2">'
                   f"<title>median {esc(med)} {esc(unit)}</title></line>")
    axis_y = TOP + ROW_H * len(rows) + 4
    out.append(f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{axis_y}" y2="{axis_y}" '
               'stroke="#555"/>')
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{axis_y}" y2="{axis_y + 4}" '
                   f'stroke="#555"/><text x="{x(t):.1f}" y="{axis_y + 16}" font-size="11" '
                   f'text-anchor="middle">{esc(fmt_num(t))}</text>')
    out.append(f'<text x="{label_w + plot_w}" y="{axis_y + 30}" font-size="11" '
               f'text-anchor="end">{esc(unit)}</text></svg>')
    return "".join(out)
