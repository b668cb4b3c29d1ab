"""The HTML report's cases for test_report.py: its structure parsed as XML,
and the page as headless Chromium lays it out and paints it (a screenshot
decoded with zlib, element boxes from --dump-dom). Each case takes a
temporary folder and returns its errors; Skip (from test_report) where
chromium is missing."""
import html.parser
import os
import shutil
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "testdata", "v2-alderlake-samples.json")  # 4 CPUs, 1 FAIL
XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"
SCREEN_W, SCREEN_H = 1280, 900
BANNER_FAIL = (0xb3, 0x26, 0x1e)  # COLOURS["FAIL"]
FAIL_ROW = (0xfc, 0xe4, 0xe2)  # a row of the failing list
# Writes each element's box into the DOM for --dump-dom (only in the test's copy).
BOXES = ("<script>for (const e of document.querySelectorAll('[id], tr.failrow')) {"
         "const r = e.getBoundingClientRect(); e.setAttribute('data-top', Math.round(r.top));"
         "e.setAttribute('data-bottom', Math.round(r.bottom));}</script>")


def decode_png(data: bytes) -> Tuple[int, int, List[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, hgt, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not lace, f"PNG type {depth}/{ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(hgt):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 0xff
        rows.append(bytes(line) if bpp == 3 else bytes(
            x for i in range(0, stride, 4) for x in line[i:i + 3]))
        prev = line
    return w, hgt, rows


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def first_row_with(rows: List[bytes], rgb: Tuple[int, int, int], run: int = 20) -> int:
    """The first pixel row with run pixels of colour rgb side by side (-1: none)."""
    needle = bytes(rgb) * run
    for y, r in enumerate(rows):
        k = r.find(needle)
        while k >= 0 and k % 3:  # a match must start on a pixel
            k = r.find(needle, k + 1)
        if k >= 0:
            return y
    return -1


class Boxes(html.parser.HTMLParser):
    """id (or "failrow") -> (top, bottom) from the data attributes BOXES wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: Dict[str, Tuple[int, int]] = {}

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        key = a.get("id") or ("failrow" if "failrow" in (a.get("class") or "") else None)
        if key and "data-top" in a and key not in self.boxes:
            self.boxes[key] = (int(a["data-top"]), int(a["data-bottom"]))


def chromium(args: List[str], url: str) -> subprocess.CompletedProcess:
    """Headless Chromium on url with a fresh profile and nothing online."""
    profile = tempfile.mkdtemp(prefix="pmh-chromium-")
    try:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}",
             f"--window-size={SCREEN_W},{SCREEN_H}"] + args + [url],
            capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def html_structure(tmp: str, render) -> List[str]:  # type: ignore[no-untyped-def]
    """The failing list names the failure once for its four CPUs; the
    matrix folds a row every CPU skipped for one reason into one cell; the
    skid and PMI-latency plots have a strip per CPU, in their units."""
    root = ET.parse(render(tmp, [SAMPLES], ("html",))["html"]).getroot()
    errs = []
    rows = [tr for tr in root.iter(XHTML + "tr") if tr.get("class") == "failrow"]
    text = ["".join(tr.itertext()) for tr in rows]
    if len(rows) != 1 or "count.enable" not in text[0] or "cpus 0, 1, 2, 3" not in text[0]:
        errs.append(f"failing rows {text}")
    checks = next(t for t in root.iter(XHTML + "table") if t.get("id") == "checks")
    body = checks.find(XHTML + "tbody")
    assert body is not None, "the matrix has no tbody"
    for tr in body:
        if "".join(tr[0].itertext()) == "knc.global-ctrl":
            tds = tr.findall(XHTML + "td")
            if len(tds) != 1 or tds[0].get("colspan") != "4" or "SKIP" not in "".join(
                    tds[0].itertext()):
                errs.append(f"knc.global-ctrl: {len(tds)} cells, not one SKIP for all 4 CPUs")
    svgs = {s.get("id"): s for s in root.iter(SVG + "svg")}
    for pid, unit in (("plot-skid", "instructions"), ("plot-pmi-latency", "cycles")):
        s = svgs.get(pid)
        labels = [t.text for t in s.iter(SVG + "text")] if s is not None else []
        if s is None or [x for x in labels if x and x.startswith("cpu")] != [
                "cpu0", "cpu1", "cpu2", "cpu3"] or unit not in labels:
            errs.append(f"{pid}: labels {labels}")
        elif len(list(s.iter(SVG + "circle"))) != 44:  # 11 samples x 4 CPUs
            errs.append(f"{pid}: {len(list(s.iter(SVG + 'circle')))} samples drawn, not 44")
    if "plot-count-instructions" not in svgs:
        errs.append("no spread plot of count.instructions")
    return errs


def chromium_screen(tmp: str, render, skip) -> List[str]:  # type: ignore[no-untyped-def]
    """In a 1280x900 window the FAIL banner's colour is at the top, a
    failing row's colour and the skid plot within the first screen, and the
    boxes Chromium lays out agree (data attributes through --dump-dom)."""
    if not os.path.exists(CHROMIUM):
        raise skip(f"{CHROMIUM} is not installed")
    page = render(tmp, [SAMPLES], ("html",))["html"]
    png = os.path.join(tmp, "screen.png")
    p = chromium([f"--screenshot={png}"], "file://" + page)
    if not os.path.exists(png):
        return [f"chromium status {p.returncode}: no screenshot: {p.stderr[-300:]}"]
    keep = os.environ.get("PMH_REPORT_SCREENSHOT")  # a copy for a person to look at
    if keep:
        shutil.copy(png, keep)
    w, hgt, rows = decode_png(open(png, "rb").read())
    errs = [] if (w, hgt) == (SCREEN_W, SCREEN_H) else [f"screenshot {w}x{hgt}"]
    top = first_row_with(rows, BANNER_FAIL)
    if not 0 <= top < 40:
        errs.append(f"FAIL banner colour first at row {top}, not at the top")
    row = first_row_with(rows, FAIL_ROW)
    if not 0 <= row < SCREEN_H:
        errs.append("no failing row's colour in the first screen")
    boxed = os.path.join(tmp, "boxed.html")
    with open(page, encoding="utf-8") as f, open(boxed, "w", encoding="utf-8") as g:
        g.write(f.read().replace("</body>", BOXES + "</body>"))
    p = chromium(["--dump-dom"], "file://" + boxed)
    b = Boxes()
    b.feed(p.stdout)
    want = {"verdict": 200, "failrow": SCREEN_H, "plot-skid": SCREEN_H}
    for key, limit in want.items():
        box = b.boxes.get(key)
        if box is None or not 0 <= box[0] or box[1] > limit:
            errs.append(f"{key}: box {box}, not within the first {limit} px")
    if "checks" in b.boxes and "plot-skid" in b.boxes and \
            b.boxes["checks"][0] < b.boxes["plot-skid"][0]:
        errs.append("the matrix comes before the skid plot")
    return errs
