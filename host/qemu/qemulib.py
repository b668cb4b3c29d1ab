"""Helpers shared by the QEMU tests: booting through scripts/qemu-boot.sh,
reading our own serial lines, building and reading USB-stick images with
mtools, and a small pass/fail tally that prints the closing line."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BOOT = os.path.join(ROOT, "scripts", "qemu-boot.sh")
BIOS_BOOT = os.path.join(ROOT, "scripts", "bios-boot.sh")
USB_IMAGE = os.path.join(ROOT, "scripts", "usb-image.sh")
SIGN = os.path.join(ROOT, "scripts", "sign.sh")
LIMIT_S = 60

# Under TCG there is no PMU: the harness's verdict is NO PMU, debug-exit value 3,
# and QEMU exits with (3 << 1) | 1.
NO_PMU_EXIT = 7
# qemu-boot.sh's status when QEMU itself failed to start (its own exit status
# then is 1, the PASS value).
START_FAILED = 66
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
VERDICT = re.compile(r"^(PASS|FAIL|SKIP) \S")
ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def plain(data):
    """Our own COM1 lines: the firmware's console mirror carries escape codes."""
    text = data.decode("ascii", "replace") if isinstance(data, bytes) else data
    # A lone CR separates too: a fragment of the mirror (with its escape
    # codes) can end in CR just before one of our lines.
    return [l for l in re.split(r"\r\n|\r|\n", text) if "\x1b" not in l]


class StartFailed(RuntimeError):
    """QEMU did not start: never a verdict, whatever the test expected."""


def boot_raw(args, timeout=LIMIT_S, script=BOOT):
    """boot() without the start-up check: (rc, seconds, lines, raw, stderr).
    QEMU's own arguments, after a "--" in args, stay last."""
    d = tempfile.mkdtemp(prefix="pmh-q-")
    serial = os.path.join(d, "serial.log")
    t0 = time.monotonic()
    cut = args.index("--") if "--" in args else len(args)
    p = subprocess.run([script] + args[:cut] + ["--serial", serial, "--timeout", str(timeout)]
                       + args[cut:],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=dict(ENV, TMPDIR=d))
    secs = time.monotonic() - t0
    raw = open(serial, "rb").read() if os.path.exists(serial) else b""
    shutil.rmtree(d, ignore_errors=True)
    err = p.stderr.decode("ascii", "replace")
    return p.returncode, secs, plain(raw), raw, err


def boot(args, timeout=LIMIT_S, script=BOOT):
    """Boots with qemu-boot.sh (or script=BIOS_BOOT) and COM1 in a file; returns
    (rc, seconds, lines, raw). Raises StartFailed, with QEMU's message, when
    QEMU did not start."""
    rc, secs, lines, raw, err = boot_raw(args, timeout, script)
    if rc == START_FAILED:
        raise StartFailed("QEMU failed to start: " + " / ".join(err.strip().splitlines()))
    return rc, secs, lines, raw


class Console:
    """A boot with COM1 on a socket, for tests that press keys."""

    def __init__(self, args, timeout=LIMIT_S):
        self.dir = tempfile.mkdtemp(prefix="pmh-q-")
        path = os.path.join(self.dir, "com1.sock")
        self.proc = subprocess.Popen([BOOT] + args + ["--serial", "unix:" + path,
                                                      "--timeout", str(timeout)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=dict(ENV, TMPDIR=self.dir), start_new_session=True)
        self.sock = None
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                self.sock = s
                break
            except OSError:
                s.close()
                time.sleep(0.05)
        if not self.sock:
            started = self.proc.poll() != START_FAILED
            self.close()
            raise (RuntimeError("QEMU did not open its serial socket") if started
                   else StartFailed("QEMU failed to start (qemu-boot.sh status 66)"))
        self.raw = b""
        self.base = 0

    def lines(self):
        """Complete plain lines since the last mark()."""
        text = self.raw.decode("ascii", "replace").split("\n")[self.base:-1]
        return plain("\n".join(text))

    def expect(self, pattern, timeout):
        """Reads until a complete plain line matches; returns the match or None."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            for l in self.lines():
                m = rx.search(l)
                if m:
                    return m
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(min(left, 0.5))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return None
            if not chunk:
                return None
            self.raw += chunk

    def mark(self):
        """The next expect() and lines() see only lines completed after this."""
        self.base = self.raw.count(b"\n")

    def send(self, data):
        self.sock.sendall(data)

    def close(self):
        if self.sock:
            self.sock.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def build_image(efi, out, cfg=None):
    """scripts/usb-image.sh; returns the byte offset of the ESP."""
    args = [USB_IMAGE, efi, out] + (["--cfg", cfg] if cfg else [])
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return esp_offset(out)


def esp_offset(img):
    out = subprocess.run(["sgdisk", "-i", "1", img], check=True, capture_output=True,
                         text=True).stdout
    return int(re.search(r"First sector: (\d+)", out).group(1)) * 512


def put(img, off, data, dest):
    """Writes bytes to ::dest on the FAT at img@@off (replacing it)."""
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        subprocess.run(["mcopy", "-o", "-i", f"{img}@@{off}", f.name, "::" + dest], check=True,
                       env=ENV)


def get(img, off, src):
    """Reads ::src from the FAT at img@@off; None when it is not there."""
    src = src if src.startswith("::") else "::" + src
    p = subprocess.run(["mcopy", "-n", "-i", f"{img}@@{off}", src, "-"],
                       capture_output=True, env=ENV)
    return p.stdout if p.returncode == 0 else None


def listing(img, off):
    """Every path on the FAT, recursively."""
    p = subprocess.run(["mdir", "-/", "-b", "-i", f"{img}@@{off}", "::/"], capture_output=True,
                       text=True, env=ENV, check=True)
    return sorted(l.strip() for l in p.stdout.splitlines() if l.strip())


def efi_arg():
    """The EFI image a test was given (argv[1]), or the build's."""
    return sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "pmuharness.efi")


def kernel_of(efi):
    """The BIOS kernel built beside the EFI image."""
    return os.path.join(os.path.dirname(efi), "pmuharness-i686.elf")


def kernel_or_fail(name):
    """The BIOS kernel of the test's EFI image, or None after the FAIL line
    that says it is missing."""
    kernel = kernel_of(efi_arg())
    if not os.path.exists(kernel):
        print(f"FAIL {name}: {kernel} missing (make i686)")
        return None
    return kernel


def kernel_cases(name, cases):
    """A BIOS-kernel test's main: each case given the EFI image (the kernel
    is beside it), or one failure where the kernel is missing."""
    efi = efi_arg()
    t = Tally(name)
    if not kernel_or_fail(name):
        t.failed += 1
        return t.done()
    for case in cases:
        t.case(case, efi)
    return t.done()


def closing(lines):
    c = [CLOSING.match(l) for l in lines if CLOSING.match(l)]
    return tuple(int(x) for x in c[0].groups()) if len(c) == 1 else None


def counted(lines):
    v = [VERDICT.match(l) for l in lines]
    v = [m.group(1) for m in v if m]
    return tuple(v.count(x) for x in ("PASS", "FAIL", "SKIP"))


class Skip(Exception):
    """Raised by a case that cannot run here: counted and said, never a pass."""


class Tally:
    """Cases run in turn, each a PASS, FAIL or SKIP line, then the summary
    line; a case past limit seconds (None: no limit) fails."""

    def __init__(self, name, limit=LIMIT_S):
        self.name = name
        self.limit = limit
        self.passed = self.failed = self.skipped = 0

    def case(self, fn, *args, name=None):
        cname = name or fn.__name__
        t0 = time.monotonic()
        try:
            errs = fn(*args)
        except Skip as e:
            self.skipped += 1
            print(f"SKIP {self.name}.{cname}: {e}", flush=True)
            return
        except Exception as e:  # a broken case is a failed case, with the reason
            errs = [f"{type(e).__name__}: {e}"]
            if os.environ.get("PMH_DEBUG"):
                traceback.print_exc()
        secs = time.monotonic() - t0
        if self.limit is not None and secs > self.limit:
            errs = list(errs) + [f"took {secs:.1f} s, limit {self.limit} s"]
        if errs:
            self.failed += 1
            print(f"FAIL {self.name}.{cname} ({secs:.1f} s): " + "\n    ".join(errs), flush=True)
        else:
            self.passed += 1
            print(f"PASS {self.name}.{cname} ({secs:.1f} s)", flush=True)

    def done(self):
        skipped = f", {self.skipped} skipped" if self.skipped else ""
        print(f"{self.name}: {self.passed} passed, {self.failed} failed{skipped}", flush=True)
        return 0 if self.failed == 0 else 1
