#!/usr/bin/env python3
"""`make layers`: checks the shape of the shipped code and prints every
offender, one line each, then a total; exits 1 when there is any.

  (a) includes point down the layer order
        boot -> tests -> {pmu, apic, events} -> pmu/hw.h (the hardware seam) -> lib
      within the middle layer apic and events may include pmu, pmu neither
      of them; nothing shipped includes host/; <efi.h>, <efilib.h> and <efishell.h> only
      in boot/, and no other hosted header in freestanding code. host/ may
      include anything.
  (b) no include cycle between files (shipped or host/).
  (c) every .c/.S under the shipped folders is named by the Makefile's
      LAYERS_SRC, and every name there exists.
  (d) no shipped function longer than 80 lines (from its opening brace to
      its closing one), no shipped file longer than 600 lines.

Usage: layers.py [--root DIR] [--soft] | --self-test [-v]
  --soft       also lists what is past the house targets (functions over 60
               lines, files over 500), without failing on them
  --self-test  runs the checks on small fixture trees, one per rule; -v
               prints every case, not only the failed ones"""
import os
import re
import subprocess
import sys
import tempfile

SHIPPED = ("lib", "pmu", "apic", "events", "tests", "boot", "bios")
SEAM = "pmu/hw.h"
# Layer ranks: an include may only go to the same rank or a lower one.
# bios/ is a platform like boot/ (the legacy BIOS kernel); the two never
# include each other.
RANK = {"lib": 0, "seam": 1, "pmu": 2, "apic": 2, "events": 2, "tests": 3, "boot": 4,
        "bios": 4}
# Within the middle layer, who may include whom besides itself.
MIDDLE_OK = {("apic", "pmu"), ("events", "pmu")}
FREESTANDING = {"stdint.h", "stdbool.h", "stddef.h", "stdarg.h", "limits.h", "float.h",
                "stdalign.h", "stdnoreturn.h", "iso646.h"}
FIRMWARE = {"efi.h", "efilib.h", "efishell.h"}
FUNC_MAX, FILE_MAX = 80, 600
FUNC_SOFT, FILE_SOFT = 60, 500
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def group(path):
    """The layer group of a repository-relative path, or None (not C code
    of ours: scripts, linker, ...)."""
    if path == SEAM:
        return "seam"
    top = path.split("/", 1)[0]
    if top in RANK:
        return top
    return "host" if top == "host" else None


def sources(root):
    """Every .c/.h/.S under the shipped folders and host/, relative paths."""
    out = []
    for top in SHIPPED + ("host",):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h", ".S")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def includes(root, path):
    """(line number, kind, name, resolved relative path or None) per include."""
    out = []
    with open(os.path.join(root, path), errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            target = None
            if kind == '"':
                cand = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if os.path.exists(os.path.join(root, cand)):
                    target = cand
            out.append((n, kind, name, target))
    return out


def include_problem(src, kind, name, dst):
    """Why an include breaks rule (a), or None."""
    g = group(src)
    if g == "host" or g is None:
        return None
    if kind == "<":
        if name in FIRMWARE:
            return None if g == "boot" else f"<{name}> outside boot/"
        if name not in FREESTANDING:
            return f"<{name}> is not a freestanding header"
        return None
    h = group(dst) if dst else None
    if h is None:
        return None
    if h == "host":
        return f"shipped code includes host/ ({dst})"
    if RANK[h] > RANK[g]:
        return f"{g} may not include {h} ({dst}): it points up"
    if RANK[h] == RANK[g] and h != g and (g, h) not in MIDDLE_OK:
        return f"{g} may not include {h} ({dst})"
    return None


def cycles(graph):
    """Include cycles as lists of files (each cycle once), by Tarjan's
    strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def named_sources(root):
    """The Makefile's LAYERS_SRC, or None with the reason."""
    p = subprocess.run(["make", "-C", root, "-s", "--no-print-directory",
                        "--eval", "layers-print-src: ; @echo $(LAYERS_SRC)", "layers-print-src"],
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip() or "make failed"
    return p.stdout.split(), None


def functions(path_abs):
    """(name, first line, length) of each function definition: the body
    from a line that is only "{" to the next line that is only "}" (the
    house style puts both at column 0)."""
    with open(path_abs, errors="replace") as f:
        lines = f.read().split("\n")
    out, start = [], None
    for i, line in enumerate(lines):
        if line == "{" and start is None:
            start = i
        elif line == "}" and start is not None:
            name = "?"
            for back in range(start - 1, max(start - 6, -1), -1):
                m = re.search(r"([A-Za-z_]\w*)\s*\(", lines[back])
                if m:
                    name = m.group(1)
                    break
            out.append((name, start + 1, i - start + 1))
            start = None
    return out


def check(root, soft=False):
    """Returns the offender lines, by rule letter."""
    found = {"a": [], "b": [], "c": [], "d": [], "soft": []}
    files = sources(root)
    graph = {}
    for src in files:
        for n, kind, name, dst in includes(root, src):
            why = include_problem(src, kind, name, dst)
            if why:
                close = '"' if kind == '"' else ">"
                found["a"].append(f"{src}:{n}: #include {kind}{name}{close}: {why}")
            if dst:
                graph.setdefault(src, set()).add(dst)
    for cyc in cycles(graph):
        found["b"].append("include cycle: " + " -> ".join(cyc + [cyc[0]]))
    named, err = named_sources(root)
    if named is None:
        found["c"].append(f"cannot read LAYERS_SRC from the Makefile: {err}")
    else:
        on_disk = {f for f in files if group(f) not in ("host", None) and f.endswith((".c", ".S"))}
        for f in sorted(on_disk - set(named)):
            found["c"].append(f"{f}: shipped source the Makefile does not name (LAYERS_SRC)")
        for f in sorted(set(named) - set(files)):
            found["c"].append(f"{f}: named in LAYERS_SRC but missing")
    for f in files:
        if group(f) in ("host", None):
            continue
        path = os.path.join(root, f)
        with open(path, errors="replace") as fh:
            n = fh.read().count("\n")
        if n > FILE_MAX:
            found["d"].append(f"{f}: {n} lines (limit {FILE_MAX})")
        elif soft and n > FILE_SOFT:
            found["soft"].append(f"{f}: {n} lines (target {FILE_SOFT})")
        if f.endswith((".c", ".h")):
            for name, line, length in functions(path):
                if length > FUNC_MAX:
                    found["d"].append(f"{f}:{line}: {name}() {length} lines (limit {FUNC_MAX})")
                elif soft and length > FUNC_SOFT:
                    found["soft"].append(f"{f}:{line}: {name}() {length} lines (target {FUNC_SOFT})")
    return found


TITLES = {"a": "include points up or across the layers", "b": "include cycle",
          "c": "sources and the Makefile disagree", "d": "function or file too long"}


def report(found):
    total = 0
    for k in "abcd":
        for line in found[k]:
            print(f"layers ({k}) {TITLES[k]}: {line}")
        total += len(found[k])
    for line in found["soft"]:
        print(f"layers (soft): {line}")
    counts = ", ".join(f"({k}) {len(found[k])}" for k in "abcd")
    print(f"layers: {total} problems: {counts}" if total else "layers: ok")
    return 1 if total else 0


# ---- self-test ---------------------------------------------------------------
BASE_TREE = {
    "Makefile": "LAYERS_SRC := lib/str.c pmu/pmu.c tests/suite.c boot/main.c\n",
    "lib/str.h": "#include <stddef.h>\n",
    "lib/str.c": '#include "str.h"\n',
    "pmu/hw.h": "#include <stdint.h>\n",
    "pmu/pmu.h": '#include "hw.h"\n',
    "pmu/pmu.c": '#include "pmu.h"\n#include "../lib/str.h"\n',
    "tests/suite.h": '#include "../pmu/pmu.h"\n',
    "tests/suite.c": '#include "suite.h"\n',
    "boot/main.c": '#include <efi.h>\n#include "../tests/suite.h"\n',
    "host/unit/t.c": '#include <stdio.h>\n#include "../../boot/main.c"\n',
}
# Each case: files changed over the base tree, and the rule that must fire.
CASES = [
    ("clean tree", {}, None),
    ("upward include", {"pmu/pmu.c": '#include "pmu.h"\n#include "../tests/suite.h"\n'}, "a"),
    ("lib includes the seam", {"lib/str.c": '#include "str.h"\n#include "../pmu/hw.h"\n'}, "a"),
    ("pmu includes apic", {"apic/apic.h": "", "pmu/pmu.c": '#include "../apic/apic.h"\n'}, "a"),
    ("efi.h outside boot", {"tests/suite.c": "#include <efi.h>\n"}, "a"),
    ("hosted header", {"lib/str.c": "#include <stdio.h>\n"}, "a"),
    ("include cycle", {"lib/str.h": '#include "fmt.h"\n', "lib/fmt.h": '#include "str.h"\n'}, "b"),
    ("unnamed source", {"pmu/extra.c": ""}, "c"),
    ("missing source", {"Makefile": BASE_TREE["Makefile"].rstrip() + " pmu/gone.c\n"}, "c"),
    ("long function", {"tests/suite.c": "void f(void)\n{\n" + "\tx();\n" * 80 + "}\n"}, "d"),
    ("long file", {"boot/main.c": "\n" * 601}, "d"),
]


def self_test(verbose):
    bad = 0
    for title, changes, rule in CASES:
        with tempfile.TemporaryDirectory(prefix="pmh-layers-") as root:
            for path, text in {**BASE_TREE, **changes}.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            found = check(root)
            fired = {k for k in "abcd" if found[k]}
            ok = fired == ({rule} if rule else set())
            bad += not ok
            if not ok or verbose:
                print(f"{'PASS' if ok else 'FAIL'} layers.self-test[{title}]: rules fired "
                      f"{sorted(fired) or 'none'}, expected {rule or 'none'}")
    print(f"layers-self-test: {len(CASES) - bad} passed, {bad} failed")
    return 1 if bad else 0


def main(argv):
    if "--self-test" in argv:
        return self_test("-v" in argv)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    return report(check(os.path.abspath(root), soft="--soft" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
