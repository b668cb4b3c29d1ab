#!/usr/bin/env python3
"""`make layers`: checks the shape of the shipped code and prints every
offender, one line each, then a total; exits 1 when there is any.

  (a) includes point down the layer order
        {boot, bios} -> pc -> {tests, x86} -> {pmu, apic, events}
          -> pmu/hw.h (the hardware seam) -> lib
      (boot/ the UEFI platform, bios/ the legacy BIOS one, pc/ the bare PC's
      hardware under bios/, x86/ the seam's target side every platform
      shares); within the middle layer apic and events may include pmu, pmu
      neither of them; tests and x86 never include each other, nor boot and
      bios; nothing shipped includes host/; <efi.h>, <efilib.h> and <efishell.h> only
      in boot/, and no other hosted header in freestanding code. host/ may
      include anything.
  (b) no include cycle between files (shipped or host/).
  (c) every .c/.S under the shipped folders is named by the Makefile's
      LAYERS_SRC, and every name there exists.
  (d) no shipped function longer than 80 lines (from its opening brace to
      its closing one), no shipped file longer than 600 lines.
  (e) no state every CPU shares: the target object of each source in the
      Makefile's LAYERS_STATE_SRC (what ships, but the platforms boot/,
      bios/, pc/ and x86/, of which x86/idt_x86.c and the x86-64 assembly
      are checked) defines no symbol in a writable section (.bss*, .data,
      .data.* but .data.rel.ro*, COMMON, or any other writable one) but
      pmh_percpu, where PMH_PERCPU (pmu/percpu.h) puts a CPU's own state,
      unless SHARED_OK below says why that one may be shared. `make layers`
      builds the objects first; a missing one is an offender.
  (f) every top-level folder is one of the shipped layers above or a known
      build-machine one (OTHER_TOP): a new folder gets a rank or a reason
      here first, so code in it cannot slip past rules (a) to (e).
  (g) every citation names a public source: no tracked text file (C,
      headers, assembly, Python, shell, Makefile, Markdown, READMEs; binary
      files and build/ skipped) cites the unpublished facts document
      ("facts" with a section sign, its file name, or the two words fact and
      sheet) or a path into the build machine's shared/ folder (specs/,
      DESIGN). docs/reference.md "Sources" lists what to cite instead.

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

SHIPPED = ("lib", "pmu", "apic", "events", "tests", "x86", "pc", "boot", "bios")
SEAM = "pmu/hw.h"
# Layer ranks: an include may only go to the same rank or a lower one.
# x86/ (the hardware seam's target side, over apic/, events/, pmu/ and lib/)
# sits beside tests/: neither includes the other. pc/ (the bare PC's
# hardware: console, keyboard, ACPI, AP start-up, FAT) includes tests/'s
# headers and is used by bios/. bios/ is a platform like boot/ (the legacy
# BIOS kernel); the two never include each other.
RANK = {"lib": 0, "seam": 1, "pmu": 2, "apic": 2, "events": 2, "tests": 3, "x86": 3, "pc": 4,
        "boot": 5, "bios": 5}
# Within the middle layer, who may include whom besides itself.
MIDDLE_OK = {("apic", "pmu"), ("events", "pmu")}
FREESTANDING = {"stdint.h", "stdbool.h", "stddef.h", "stdarg.h", "limits.h", "float.h",
                "stdalign.h", "stdnoreturn.h", "iso646.h"}
FIRMWARE = {"efi.h", "efilib.h", "efishell.h"}
FUNC_MAX, FILE_MAX = 80, 600
FUNC_SOFT, FILE_SOFT = 60, 500
# Rule (e): the one section writable state may be in, and the writable
# sections that hold only constants (written by the relocations alone).
PERCPU_SECTION = "pmh_percpu"
CONST_WRITABLE = {"pmh_checks": "const pointers to the check table (tests/suite.h PMH_CHECK)"}
# Rule (e): (source, symbol) -> why every CPU may share it.
SHARED_OK = {
    ("x86/idt_x86.c", "idt"): "the one IDT every CPU loads, built once before any other CPU "
    "runs; its gates change only under gate_lock",
    ("x86/idt_x86.c", "built"): "set once, under gate_lock, when idt is built",
    ("x86/idt_x86.c", "table_src"): "the boot CPU's firmware IDTR: written once, with idt, "
    "under gate_lock",
    ("x86/idt_x86.c", "gate_lock"): "the spin lock over idt's shared gates (atomic)",
    ("x86/idt_x86.c", "claims"): "per-gate holders of the PMI class, under gate_lock",
    ("x86/idt_x86.c", "user_holders"): "holders of the ring-3 gate, under gate_lock",
    ("x86/idt_x86.c", "user_vector"): "the ring-3 gate's vector, under gate_lock",
    ("x86/idt_x86.c", "user_saved"): "the gate the ring-3 gate replaced, under gate_lock",
    ("x86/user_x86.S", "cur"): "the context of the one excursion at CPL 3: x86/hw_user.c lets "
    "one CPU at a time there (excl_lock)",
    ("pmu/percpu.c", "stacks_lo"): "the registered stacks: written by the boot CPU before it "
    "starts the others and after all are back",
    ("pmu/percpu.c", "stacks_span"): "as stacks_lo",
    ("pmu/percpu.c", "boot_block"): "the boot CPU's block: set once by the platform before any "
    "other CPU starts (and cleared after all are back)",
}
# Rule (f): the top-level folders besides SHIPPED, and what each holds.
OTHER_TOP = {
    "host": "build-machine code: simulated CPUs, host tests, the report tool",
    "scripts": "build and test scripts",
    "linker": "the linker scripts",
    "lava": "LAVA job definitions",
    "docs": "the user guide, reference and developer guide",
    "build": "build output (not tracked)",
}
# Rule (g): the patterns are built from pieces so that this file does not
# match itself.
_SECTION = "\u00a7"
_SHARED = "sha" + "red/"
CITE_BAD = [
    (re.compile("facts " + _SECTION), "cites the unpublished facts document"),
    (re.compile("x86-pmu-" + "facts"), "cites the unpublished facts document"),
    (re.compile("fact " + "sheet", re.I), "cites the unpublished facts document"),
    (re.compile(r"(^|[^A-Za-z0-9_])(\.\./)?" + _SHARED + "(specs|DESIGN)"),
     "names a file in shared/, which is not in the repository"),
]
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


def state_sources(root):
    """The Makefile's BUILD and LAYERS_STATE_SRC, or None with the reason."""
    p = subprocess.run(["make", "-C", root, "-s", "--no-print-directory", "--eval",
                        "layers-print-state: ; @echo $(BUILD) $(LAYERS_STATE_SRC)",
                        "layers-print-state"], capture_output=True, text=True)
    words = p.stdout.split()
    if p.returncode or not words:
        return None, None, p.stderr.strip() or "make failed"
    return words[0], words[1:], None


def readelf(args, obj):
    p = subprocess.run(["readelf", "-W"] + args + [obj], capture_output=True, text=True)
    return p.stdout.split("\n") if p.returncode == 0 else None


def writable_symbols(obj):
    """(symbol, section) of each symbol obj defines in a writable section
    that may hold state ("COMMON" for a common one), or None when obj
    cannot be read."""
    sections, syms = readelf(["-S"], obj), readelf(["-s"], obj)
    if sections is None or syms is None:
        return None
    writable = {}
    for line in sections:
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(.*)$", line)
        if not m or m.group(2) == "NULL":
            continue
        rest = m.group(3).split()  # type, address, offset, size, entry size, [flags], ...
        flags = rest[5] if len(rest) == 9 else ""
        name = m.group(2)
        if "W" in flags and name != PERCPU_SECTION and name not in CONST_WRITABLE and \
                not name.startswith(".data.rel.ro"):
            writable[m.group(1)] = name
    out = []
    for line in syms:
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or f[3] in ("SECTION", "FILE", "FUNC"):
            continue
        if f[6] == "COM":
            out.append((f[7], "COMMON"))
        elif f[6] in writable:
            out.append((f[7], writable[f[6]]))
    return out


def shared_state(root, shared_ok):
    """Rule (e)'s offender lines."""
    build, srcs, err = state_sources(root)
    if srcs is None:
        return [f"cannot read LAYERS_STATE_SRC from the Makefile: {err}"]
    out, seen = [], set()
    for src in srcs:
        obj = os.path.join(root, build, "efi", os.path.splitext(src)[0] + ".o")
        found = writable_symbols(obj) if os.path.exists(obj) else None
        if found is None:
            out.append(f"{src}: no object {os.path.relpath(obj, root)} to read (make layers "
                       "builds it)")
            continue
        for sym, sec in found:
            name = sym.split(".")[0]  # a function-local static is name.N
            seen.add((src, name))
            if (src, name) not in shared_ok:
                out.append(f"{src}: {sym} in {sec}: state every CPU shares (define it "
                           "PMH_PERCPU, pmu/percpu.h, or say in layers.py SHARED_OK why "
                           "it may be shared)")
    for src, name in sorted(set(shared_ok) - seen):
        if src in srcs:
            out.append(f"{src}: SHARED_OK names {name}, which it no longer defines")
    return out


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


def tracked_files(root):
    """The repository's tracked files (git ls-files), or, outside a git
    work tree (the self-test's fixtures), every file but .git and build/."""
    p = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True)
    top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if p.returncode == 0 and top.returncode == 0 and \
            os.path.realpath(top.stdout.strip()) == os.path.realpath(root):
        return sorted(f for f in p.stdout.decode(errors="replace").split("\0") if f)
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git" and
                   not (d == root and x == "build")]
        out += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(out)


def citations(root):
    """Rule (g)'s offender lines: "path:line: why"."""
    out = []
    for f in tracked_files(root):
        if f.startswith("build/"):
            continue
        try:
            with open(os.path.join(root, f), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if b"\0" in data:
            continue  # a binary file
        for n, line in enumerate(data.decode(errors="replace").split("\n"), 1):
            for pat, why in CITE_BAD:
                if pat.search(line):
                    out.append(f"{f}:{n}: {why}: {line.strip()[:80]}")
                    break
    return out


def check(root, soft=False, shared_ok=None, state=True):
    """Returns the offender lines, by rule letter (rule (e) only with
    state)."""
    found = {"a": [], "b": [], "c": [], "d": [], "e": [], "f": [], "g": [], "soft": []}
    for top in sorted(os.listdir(root)):
        if (os.path.isdir(os.path.join(root, top)) and not top.startswith(".")
                and top not in SHIPPED and top not in OTHER_TOP):
            found["f"].append(f"{top}/: a top-level folder the layer rules do not know (give it "
                              "a rank in RANK and SHIPPED, or a line in OTHER_TOP)")
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
    found["g"] = citations(root)
    if state:
        found["e"] = shared_state(root, SHARED_OK if shared_ok is None else shared_ok)
    return found


TITLES = {"a": "include points up or across the layers", "b": "include cycle",
          "c": "sources and the Makefile disagree", "d": "function or file too long",
          "e": "state shared by every CPU", "f": "unknown top-level folder",
          "g": "citation of a document not in the repository"}
RULES = "abcdefg"


def report(found):
    total = 0
    for k in RULES:
        for line in found[k]:
            print(f"layers ({k}) {TITLES[k]}: {line}")
        total += len(found[k])
    for line in found["soft"]:
        print(f"layers (soft): {line}")
    counts = ", ".join(f"({k}) {len(found[k])}" for k in RULES)
    print(f"layers: {total} problems: {counts}" if total else "layers: ok")
    return 1 if total else 0


# ---- self-test ---------------------------------------------------------------
BASE_TREE = {
    # LAYERS_SRC last: a case appends to it
    "Makefile": "BUILD := build\nLAYERS_STATE_SRC := lib/str.c pmu/pmu.c tests/suite.c apic/idt.c\n"
    "LAYERS_SRC := lib/str.c pmu/pmu.c tests/suite.c apic/idt.c boot/main.c\n",
    "lib/str.h": "#include <stddef.h>\n",
    "lib/str.c": '#include "str.h"\n',
    "pmu/hw.h": "#include <stdint.h>\n",
    "pmu/pmu.h": '#include "hw.h"\n',
    "pmu/pmu.c": '#include "pmu.h"\n#include "../lib/str.h"\n',
    "tests/suite.h": '#include "../pmu/pmu.h"\n',
    "tests/suite.c": '#include "suite.h"\n',
    "boot/main.c": '#include <efi.h>\n#include "../tests/suite.h"\n',
    "host/unit/t.c": '#include <stdio.h>\n#include "../../boot/main.c"\n',
    "apic/idt.c": "static int table[4];\nint *idt_table(void);\nint *idt_table(void) { return table; }\n",
}
FIXTURE_OK = {("apic/idt.c", "table"): "the fixture's shared table"}
# Rule (e)'s cases build the objects (as the target does: -fpic puts
# constant pointer tables in .data.rel.ro; -fcommon makes COMMON symbols).
FIXTURE_CC = ["cc", "-c", "-O2", "-fpic", "-fdata-sections", "-fcommon", "-w"]
STATIC_FN = "int f(void);\nint f(void) { return n++; }\n"
# Each case: files changed over the base tree, and the rule that must fire.
CASES = [
    ("clean tree", {}, None),
    ("upward include", {"pmu/pmu.c": '#include "pmu.h"\n#include "../tests/suite.h"\n'}, "a"),
    ("lib includes the seam", {"lib/str.c": '#include "str.h"\n#include "../pmu/hw.h"\n'}, "a"),
    ("pmu includes apic", {"apic/apic.h": "", "pmu/pmu.c": '#include "../apic/apic.h"\n'}, "a"),
    ("efi.h outside boot", {"tests/suite.c": "#include <efi.h>\n"}, "a"),
    ("efi.h in x86", {"x86/hw.h": "#include <efi.h>\n"}, "a"),
    ("x86 includes tests", {"x86/hw.h": '#include "../tests/suite.h"\n'}, "a"),
    ("tests includes x86", {"x86/hw.h": "", "tests/suite.c": '#include "suite.h"\n'
                            '#include "../x86/hw.h"\n'}, "a"),
    ("pc includes bios", {"bios/bios.h": "", "pc/pc.h": '#include "../bios/bios.h"\n'}, "a"),
    ("bios over pc and x86, pc over tests",
     {"x86/hw.h": '#include "../pmu/hw.h"\n', "pc/pc.h": '#include "../tests/suite.h"\n',
      "bios/bios.h": '#include "../pc/pc.h"\n#include "../x86/hw.h"\n'}, None),
    ("hosted header", {"lib/str.c": "#include <stdio.h>\n"}, "a"),
    ("include cycle", {"lib/str.h": '#include "fmt.h"\n', "lib/fmt.h": '#include "str.h"\n'}, "b"),
    ("unnamed source", {"pmu/extra.c": ""}, "c"),
    ("missing source", {"Makefile": BASE_TREE["Makefile"].rstrip() + " pmu/gone.c\n"}, "c"),
    ("long function", {"tests/suite.c": "void f(void)\n{\n" + "\tx();\n" * 80 + "}\n"}, "d"),
    ("long file", {"boot/main.c": "\n" * 601}, "d"),
    ("unknown top-level folder", {"uefi2/main.c": "#include <efi.h>\n"}, "f"),
    ("known build-machine folder", {"scripts/x.py": ""}, None),
    ("fact-sheet citation", {"pmu/pmu.c": '#include "pmu.h"\n/* facts ' + _SECTION + '2 */\n'}, "g"),
    ("shared/ path in a doc", {"README.md": "See ../" + _SHARED + "DESIGN.md.\n"}, "g"),
    ("public citation", {"pmu/pmu.c": '#include "pmu.h"\n/* SDM Vol. 3B 20.2.2; Linux '
                         'arch/x86/events/core.c; a shared/ folder of ours */\n'}, None),
    # (e): objects built
    ("clean objects", {}, None, True),
    ("shared static", {"pmu/pmu.c": '#include "pmu.h"\nstatic int n;\n' + STATIC_FN}, "e", True),
    ("function-local static",
     {"lib/str.c": '#include "str.h"\nint g(void);\nint g(void) { static int k; return k++; }\n'},
     "e", True),
    ("initialised global", {"tests/suite.c": '#include "suite.h"\nint on = 1;\n'}, "e", True),
    ("common symbol", {"tests/suite.c": '#include "suite.h"\nint tentative;\n'}, "e", True),
    ("per-CPU static", {"pmu/pmu.c": '#include "pmu.h"\n'
                        'static int n __attribute__((section("pmh_percpu")));\n' + STATIC_FN},
     None, True),
    ("constant tables", {"pmu/pmu.c": 'static const char *const names[] = {"a", "b"};\n'
                         "static const int sizes[] = {1, 2};\nconst char *name(int i);\n"
                         "const char *name(int i) { return sizes[i] ? names[i] : 0; }\n"},
     None, True),
    ("allowlisted symbol gone", {"apic/idt.c": ""}, "e", True),
    ("object not built", {"pmu/pmu.c": "#error not built\n"}, "e", True),
]


def build_fixture(root):
    """The fixture's rule (e) objects; one that does not compile is left
    out (rule (e) names it)."""
    build, srcs, _ = state_sources(root)
    for src in srcs or ():
        obj = os.path.join(root, build, "efi", os.path.splitext(src)[0] + ".o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run(FIXTURE_CC + [os.path.join(root, src), "-o", obj], capture_output=True)


def self_test(verbose):
    bad = 0
    for title, changes, rule, *objects in CASES:
        with tempfile.TemporaryDirectory(prefix="pmh-layers-") as root:
            for path, text in {**BASE_TREE, **changes}.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            if objects:
                build_fixture(root)
            found = check(root, shared_ok=FIXTURE_OK, state=bool(objects))
            fired = {k for k in RULES if found[k]}
            if verbose and found["e"]:
                print("  " + "\n  ".join(found["e"]))
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
