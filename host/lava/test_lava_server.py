#!/usr/bin/python3
"""`make lava-server-test`: the job files of lava/ run by Debian's real LAVA
(lava-server 2023.01 with PostgreSQL, lava-scheduler, a lava-worker with
lava-dispatcher, QEMU under TCG), and what lava-server stored compared one
for one with the same run's results.

Everything runs on loopback in a private scratch folder: a PostgreSQL
cluster of its own (initdb and pg_ctl as the postgres user when run as root,
a free port on 127.0.0.1, its socket in the scratch folder); lava-server's
Django app pointed at it through the environment its settings read
(DATABASE_URL, SECRET_KEY, LAVA_JSON_SETTINGS for MEDIA_ROOT, the device and
device-type folders and the log file: lava_server/settings/prod.py), served
by gunicorn on 127.0.0.1; lava-scheduler; a lava-worker with --url
http://127.0.0.1:PORT/ and its own --worker-dir. The one system path used is
lava-dispatcher's download folder /var/lib/lava/dispatcher/tmp/JOB
(lava_common.constants, not configurable), which lava-run removes itself.

The device type qemu comes from lava-server's own templates
(/usr/share/lava-server/device-types/qemu.jinja2); the device qemu01
extends it. The images are served by a thread of http.server on 127.0.0.1.
The jobs lava/qemu-uefi.yaml and lava/qemu-bios.yaml are submitted as they
ship but for: the URLs (the loopback server), context no_kvm: true (no KVM
here: qemu.jinja2 then leaves out its "-cpu host -enable-kvm", and QEMU's
default CPU for TCG is used), and for the UEFI job the stick given as
"-drive format=raw,file=PATH" (extra_options) instead of a deployed
download, so that the stick the harness wrote its results JSON to is read
afterwards with mtools: the same run's results. The BIOS kernel
(-kernel, no disk) writes no results file; its source is LAVA's own job log
(REST .../logs/), the serial stream as the worker saw it: every check's
PASS/FAIL/SKIP line and its signals are in it.

Compared, per job: the stored cases of each test suite (the monitors
pmuharness and pmuharness-identity), in order, with the cases the results
say there must be (lava_check.from_json: ids as the monitor makes them,
results, measurements with units), the run's verdict as a case (the
emitter's verdict case, id `verdict`), and the stored cases with what the
monitor patterns make of the stored log (lava_check.from_monitor): nothing
dropped on the way into the database. lava/x86-pxe.yaml and
lava/x86-usb-mux.yaml cannot run here (no board): they are validated by
lava-run --validate against device dictionaries rendered by this
lava-server from the real templates (x86.jinja2; lava/x86-usb-mux.jinja2).

Packages missing or a service that cannot start: SKIP with the reason,
never a pass. Cleans up what it started (processes and their children,
the cluster, the scratch folder), also on failure.
Usage: test_lava_server.py [build/pmuharness.efi] (kernel and
build/pmuharness-lava-usb.img beside it)."""
from __future__ import annotations

import base64
import contextlib
import functools
import glob
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host", "qemu"))
sys.path.insert(0, HERE)
import lava_check as lc  # noqa: E402
import qemulib as q  # noqa: E402

# The helpers of lava_check.py and qemulib.py (untyped) with their types
Case = Tuple[str, str, Optional[str], Optional[str]]  # id, result, measurement, units
Rules = Tuple[Any, Callable[[List[str]], Dict[str, str]], Callable[[str], str]]
kernel_of: Callable[[str], str] = q.kernel_of
efi_arg: Callable[[], str] = q.efi_arg
esp_offset: Callable[[str], int] = q.esp_offset
listing: Callable[[str, int], List[str]] = q.listing
fat_get: Callable[[str, int, str], Optional[bytes]] = q.get
plain: Callable[[str], List[str]] = q.plain
lava_rules: Callable[[], Rules] = lc.lava_rules
from_monitor: Callable[[str, Rules], Tuple[Dict[str, List[Case]], List[str]]] = lc.from_monitor
from_json: Callable[[Dict[str, Any]], Dict[str, List[Case]]] = lc.from_json

NAME = "lava-server"
PG_BIN = "/usr/lib/postgresql/{v}/bin"
DEVICE_TYPES = "/usr/share/lava-server/device-types"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
LOOP = "127.0.0.1"
JOB_LIMIT_S = 600  # a job under TCG takes about a minute; queued + run
START_LIMIT_S = 300  # a service's start (migrate: 10-20 s on two idle cores, 70 s busy)
USER, TOKEN = "pmuharness", "pmuharness-loopback-token-0123456789abcdef"
WORKER = "loopback-worker"


class Skip(Exception):
    """The stack cannot be started here: a SKIP, never a pass."""


def log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOP, 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(what: str, ok: Callable[[], bool], limit_s: float,
             alive: Optional[Callable[[], Optional[str]]] = None) -> float:
    """Polls ok() until it holds; raises naming what it waited for. alive()
    names a reason to stop early (a process that died)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if ok():
            return time.monotonic() - t0
        dead = alive() if alive else None
        if dead:
            raise RuntimeError(f"waiting for {what}: {dead}")
        time.sleep(0.5)
    raise RuntimeError(f"waited {limit_s:.0f} s for {what}: it never came")


def children_of(pids: Sequence[int]) -> List[int]:
    """Every live descendant of pids (lava-worker starts lava-run in a
    process group of its own, QEMU under it), found through /proc."""
    parent: Dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            parent[int(d)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
    found: List[int] = []
    todo = list(pids)
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p and c not in found]
        found += kids
        todo += kids
    return found


class Stack:
    """The processes, the cluster and the scratch folder of one run."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="pmh-lava-server-")
        os.chmod(self.dir, 0o755)
        self.procs: List[Tuple[str, subprocess.Popen[bytes]]] = []
        self.pg_data: Optional[str] = None
        self.pg_bin = ""
        self.pg_user: Optional[str] = None
        self.pg_port = free_port()
        self.port = free_port()
        self.env: Dict[str, str] = {}
        self.http: Optional[http.server.ThreadingHTTPServer] = None

    def path(self, *parts: str) -> str:
        return os.path.join(self.dir, *parts)

    # ---- PostgreSQL ----------------------------------------------------
    def as_pg(self, args: List[str]) -> List[str]:
        return ["runuser", "-u", self.pg_user, "--"] + args if self.pg_user else args

    def start_pg(self) -> None:
        versions = sorted(os.listdir("/usr/lib/postgresql")) if os.path.isdir(
            "/usr/lib/postgresql") else []
        if not versions:
            raise Skip("PostgreSQL server not installed (/usr/lib/postgresql/*/bin/initdb)")
        self.pg_bin = PG_BIN.format(v=versions[-1])
        # initdb refuses to run as root: the cluster belongs to postgres then
        if os.geteuid() == 0:
            self.pg_user = "postgres"
            if subprocess.run(["id", "postgres"], capture_output=True).returncode:
                raise Skip("running as root and no postgres user for initdb")
        data, sock = self.path("pg", "data"), self.path("pg")
        os.makedirs(sock)
        if self.pg_user:
            shutil.chown(sock, self.pg_user)
        p = subprocess.run(self.as_pg([f"{self.pg_bin}/initdb", "-D", data, "-A", "trust",
                                       "-U", "lavaserver", "--no-sync", "-E", "UTF8"]),
                           capture_output=True, text=True)
        if p.returncode:
            raise Skip(f"initdb failed: {p.stderr.strip()[-300:]}")
        self.pg_data = data
        p = subprocess.run(self.as_pg([f"{self.pg_bin}/pg_ctl", "-D", data, "-w", "-t", "60",
                                       "-l", self.path("pg", "postgresql.log"), "-o",
                                       f"-h {LOOP} -p {self.pg_port} -k {sock} -F",
                                       "start"]), capture_output=True, text=True)
        if p.returncode:
            raise Skip(f"pg_ctl start failed: {p.stdout.strip()[-300:]}")
        subprocess.run(self.as_pg([f"{self.pg_bin}/createdb", "-h", LOOP, "-p",
                                   str(self.pg_port), "-U", "lavaserver", "lavaserver"]),
                       check=True, capture_output=True)

    def stop_pg(self) -> None:
        if self.pg_data:
            subprocess.run(self.as_pg([f"{self.pg_bin}/pg_ctl", "-D", self.pg_data, "-m",
                                       "fast", "-w", "-t", "30", "stop"]),
                           capture_output=True, timeout=60)
            self.pg_data = None

    def pg_log(self) -> str:
        try:
            with open(self.path("pg", "postgresql.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    # ---- lava-server -----------------------------------------------------
    def server_env(self) -> Dict[str, str]:
        for d in ("media", "devices", "device-types", "health-checks", "dispatcher.d",
                  "worker", "log"):
            os.makedirs(self.path(d), exist_ok=True)
        # LAVA_JSON_SETTINGS is applied last (prod.py): its DATABASES wins over
        # a system /etc/lava-server/settings.d/*.yaml that names one
        db = {"ENGINE": "django.db.backends.postgresql", "NAME": "lavaserver",
              "USER": "lavaserver", "PASSWORD": "", "HOST": LOOP, "PORT": str(self.pg_port)}
        settings = {"DATABASES": {"default": db}, "MEDIA_ROOT": self.path("media"),
                    "DJANGO_LOGFILE": self.path("log", "django.log"),
                    "DEVICES_PATH": self.path("devices"),
                    "DEVICE_TYPES_PATHS": [self.path("device-types"), DEVICE_TYPES],
                    "HEALTH_CHECKS_PATH": self.path("health-checks"),
                    "DISPATCHER_CONFIG_PATH": self.path("dispatcher.d")}
        return dict(os.environ,
                    DATABASE_URL=f"postgres://lavaserver@{LOOP}:{self.pg_port}/lavaserver",
                    SECRET_KEY="pmuharness-loopback-only",
                    ALLOWED_HOSTS=LOOP,
                    LAVA_JSON_SETTINGS=base64.b64encode(json.dumps(settings).encode()).decode(),
                    PYTHONDONTWRITEBYTECODE="1")

    def manage(self, *args: str, limit_s: int = 120) -> str:
        p = subprocess.run(["lava-server", "manage", *args], env=self.env,
                           capture_output=True, text=True, timeout=limit_s)
        if p.returncode:
            raise RuntimeError(f"lava-server manage {' '.join(args)}: "
                               f"{(p.stderr or p.stdout).strip()[-500:]}")
        return p.stdout

    def spawn(self, name: str, args: List[str]) -> subprocess.Popen[bytes]:
        out = open(self.path("log", f"{name}.out"), "wb")
        p = subprocess.Popen(args, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.dir)
        out.close()
        self.procs.append((name, p))
        return p

    def dead(self) -> Optional[str]:
        for name, p in self.procs:
            if p.poll() is not None:
                return f"{name} exited with {p.returncode} (see {self.tail(name)})"
        return None

    def tail(self, name: str) -> str:
        try:
            with open(self.path("log", f"{name}.out"), errors="replace") as f:
                return " / ".join(f.read().strip().splitlines()[-5:])
        except OSError:
            return "no log"

    def start_server(self) -> None:
        for tool in ("lava-server", "lava-worker", "lava-run", "qemu-system-x86_64",
                     "qemu-system-i386", "mcopy"):
            if not shutil.which(tool):
                raise Skip(f"{tool} not installed")
        dl = "/var/lib/lava/dispatcher/tmp"
        if os.geteuid() != 0 and not os.access(dl if os.path.isdir(dl) else "/var/lib", os.W_OK):
            raise Skip(f"lava-run runs as root (its download folder {dl} is not writable here)")
        for mod in ("gunicorn", "lava_server", "lava_dispatcher"):
            if subprocess.run([sys.executable, "-c", f"import {mod}"],
                              capture_output=True).returncode:
                raise Skip(f"python3 module {mod} not importable")
        self.env = self.server_env()
        t0 = time.monotonic()
        try:
            self.manage("migrate", "--noinput", limit_s=START_LIMIT_S)
        except RuntimeError as e:
            raise Skip(f"lava-server cannot set up its database: {e}")
        log(f"lava-server manage migrate: {time.monotonic() - t0:.1f} s")
        self.manage("users", "add", USER, "--superuser", "--staff", "--passwd", TOKEN)
        self.manage("tokens", "add", "--user", USER, "--secret", TOKEN)
        self.spawn("gunicorn", [sys.executable, "-m", "gunicorn", "lava_server.wsgi",
                                "--bind", f"{LOOP}:{self.port}", "--workers", "2",
                                "--timeout", "120", "--log-level", "info"])
        wait_for(f"lava-server (gunicorn) answering on {self.url()}api/v0.2/",
                 lambda: self.answers("api/v0.2/"), START_LIMIT_S, self.dead)
        self.spawn("lava-scheduler", ["lava-server", "manage", "lava-scheduler", "--level",
                                      "DEBUG", "--log-file", self.path("log", "scheduler.log")])

    def url(self) -> str:
        return f"http://{LOOP}:{self.port}/"

    def answers(self, rel: str) -> bool:
        try:
            with urllib.request.urlopen(self.url() + rel, timeout=5) as r:
                return bool(r.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def api(self, rel: str, data: Optional[Dict[str, Any]] = None) -> Any:
        req = urllib.request.Request(
            self.url() + "api/v0.2/" + rel,
            data=json.dumps(data).encode() if data is not None else None,
            headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                body = r.read().decode()
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{req.full_url}: HTTP {e.code} {e.read().decode()[:500]}")
        ctype = r.headers.get("Content-Type", "")
        return json.loads(body) if "json" in ctype else body

    def add_worker_and_device(self, device_dict: str) -> None:
        self.manage("workers", "add", WORKER)
        token = self.manage("shell", "-c", "from lava_scheduler_app.models import Worker; "
                            f"print(Worker.objects.get(hostname='{WORKER}').token)").strip()
        self.manage("device-types", "add", "qemu")
        with open(self.path("devices", "qemu01.jinja2"), "w") as f:
            f.write(device_dict)
        self.manage("devices", "add", "--device-type", "qemu", "--worker", WORKER, "qemu01")
        self.spawn("lava-worker", ["lava-worker", "--url", self.url(), "--name", WORKER,
                                   "--token", token, "--worker-dir", self.path("worker"),
                                   "--level", "DEBUG", "--log-file",
                                   self.path("log", "worker.log")])
        wait_for(f"lava-worker {WORKER} online",
                 lambda: bool(self.api(f"workers/{WORKER}/").get("state") == "Online"),
                 START_LIMIT_S, self.dead)

    # ---- the images ------------------------------------------------------
    def serve(self, folder: str) -> str:
        handler = functools.partial(Quiet, directory=folder)
        self.http = http.server.ThreadingHTTPServer((LOOP, 0), handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        return f"http://{LOOP}:{self.http.server_address[1]}/"

    # ---- the end -----------------------------------------------------------
    def stop(self) -> None:
        kids = children_of([p.pid for _, p in self.procs])
        for name, p in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)
        for pid in kids:  # lava-run and QEMU, in groups of their own
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.http:
            self.http.shutdown()
            self.http.server_close()
        self.stop_pg()
        if os.environ.get("PMH_KEEP_LAVA"):
            print(f"  kept {self.dir} (PMH_KEEP_LAVA)")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


# ---- the jobs ------------------------------------------------------------------
def loopback_job(path: str, base_url: str, stick: Optional[str]) -> Dict[str, Any]:
    """A job of lava/ as it ships but for the loopback: URLs on base_url,
    no_kvm (TCG), the extra options' -enable-kvm dropped, and the stick
    (UEFI) as a drive at a fixed path instead of a download."""
    with open(path) as f:
        job: Dict[str, Any] = yaml.safe_load(f)
    ctx = job["context"]
    ctx["no_kvm"] = True
    ctx["extra_options"] = list(ctx.get("extra_options", []))
    for action in job["actions"]:
        images = action.get("deploy", {}).get("images", {})
        for name in list(images):
            if name == "disk" and stick:
                del images[name]
                ctx["extra_options"].append(f"-drive format=raw,file={stick}")
                continue
            images[name]["url"] = base_url + os.path.basename(images[name]["url"])
    job["job_name"] += " (loopback test)"
    job["timeouts"]["job"] = {"minutes": 10}
    return job


def failing_job(bios: Dict[str, Any]) -> Dict[str, Any]:
    """The BIOS job with failures to store: the APIC checks, then
    apic.fatal-trigger's #UD, a crash that ends the run in ERROR (a failed
    harness.crash case and a failed verdict case)."""
    job: Dict[str, Any] = yaml.safe_load(yaml.safe_dump(bios))
    for action in job["actions"]:
        for image in action.get("deploy", {}).get("images", {}).values():
            image["image_arg"] = image["image_arg"].replace(
                'countdown=0"', 'countdown=0 checks=apic.*,apic.fatal-trigger"')
    job["job_name"] += ", a crash"
    return job


def submit(stack: Stack, job: Dict[str, Any]) -> int:
    r = stack.api("jobs/", {"definition": yaml.safe_dump(job, sort_keys=False)})
    ids: List[int] = r["job_ids"]
    return ids[0]


def wait_job(stack: Stack, job_id: int, name: str) -> Dict[str, Any]:
    last: Dict[str, Any] = {}

    def done() -> bool:
        last.update(stack.api(f"jobs/{job_id}/"))
        return bool(last["state"] == "Finished")

    def why() -> Optional[str]:
        return stack.dead()

    try:
        wait_for(f"job {job_id} ({name}) to finish", done, JOB_LIMIT_S, why)
    except RuntimeError as e:
        raise RuntimeError(f"{e}; last state {last.get('state')}, health "
                           f"{last.get('health')}; worker log: {stack.tail('lava-worker')}")
    return last


def stored_cases(stack: Stack, job_id: int) -> Dict[str, List[Dict[str, Any]]]:
    """The job's stored test cases by suite name, in the order stored."""
    suites = {s["id"]: s["name"] for s in page(stack, f"jobs/{job_id}/suites/")}
    out: Dict[str, List[Dict[str, Any]]] = {}
    for c in sorted(page(stack, f"jobs/{job_id}/tests/"), key=lambda c: int(c["id"])):
        out.setdefault(suites.get(c["suite"], str(c["suite"])), []).append(c)
    return out


def page(stack: Stack, rel: str) -> List[Dict[str, Any]]:
    items: List[Dict[str, Any]] = []
    nxt: Optional[str] = f"{rel}?limit=500&offset=0"
    while nxt:
        r = stack.api(nxt)
        items += r["results"]
        nxt = r["next"].split("/api/v0.2/", 1)[1] if r.get("next") else None
    return items


def job_log(stack: Stack, job_id: int) -> Tuple[str, List[Dict[str, Any]]]:
    """The serial stream as the worker logged it (the target lines joined),
    and the whole log."""
    text = stack.api(f"jobs/{job_id}/logs/")
    entries = yaml.safe_load(text) if isinstance(text, str) else text
    entries = [e for e in entries or [] if isinstance(e, dict)]
    serial = "".join(str(e["msg"]) + "\n" for e in entries if e.get("lvl") in ("target", "feedback"))
    return serial, entries


def as_case(c: Dict[str, Any]) -> Case:
    """A stored case as (name, result, measurement, unit): the measurement
    normalised (stored as a decimal, 10 places), None where none."""
    m = c.get("measurement")
    meas: Optional[str] = None
    if m not in (None, ""):
        try:
            meas = str(Decimal(str(m)).normalize())
            meas = str(int(Decimal(meas))) if Decimal(meas) == int(Decimal(meas)) else meas
        except InvalidOperation:
            meas = str(m)
    unit = c.get("unit") or None
    return (str(c["name"]), str(c["result"]), meas, unit)


def extra_id(c: Dict[str, Any]) -> Optional[str]:
    """extra.test_case_id of a stored case (the id before the monitor's
    rule): its metadata is YAML text."""
    meta: Any = c.get("metadata") or "{}"
    for _ in range(2):  # the REST API gives the YAML text, once quoted
        if isinstance(meta, str):
            meta = yaml.safe_load(meta)
    extra = meta.get("extra") if isinstance(meta, dict) else None
    if isinstance(extra, str) and os.path.isfile(extra):  # stored as a file: read it
        with open(extra) as f:
            extra = yaml.safe_load(f)
    return str(extra["test_case_id"]) if isinstance(extra, dict) and "test_case_id" in extra \
        else None


def compare(what: str, got: List[Case], want: List[Case]) -> List[str]:
    if got == want:
        return []
    extra = [c for c in got if c not in want]
    missing = [c for c in want if c not in got]
    if not extra and not missing and len(got) == len(want):
        return [f"{what}: the same {len(got)} cases in another order"]
    return [f"{what}: {len(got)} stored, {len(want)} expected; missing {len(missing)} "
            f"{missing[:4]}; extra {len(extra)} {extra[:4]}"]


ESC_LEFT = re.compile(r"\x1b|\[[0-9;]*[A-HJKSTfmhl]")


# ---- the test cases ---------------------------------------------------------------
class Run(q.Tally):
    """The cases, without qemulib's per-case limit: a job waits its turn
    on the one device (wait_job has its own bound)."""

    def __init__(self, efi: str) -> None:
        super().__init__(NAME, limit=None)
        self.efi = os.path.abspath(efi)
        self.build = os.path.dirname(self.efi)
        self.kernel = kernel_of(self.efi)
        self.stick_src = os.path.join(self.build, "pmuharness-lava-usb.img")
        self.rules = lava_rules()

    def check_job(self, stack: Stack, job_id: int, want_of: Callable[[str], Dict[str, Any]],
                  what: str) -> List[str]:
        info = wait_job(stack, job_id, what)
        errs: List[str] = []
        if info.get("health") != "Complete":
            errs.append(f"job {job_id}: health {info.get('health')}, not Complete "
                        f"(failure: {info.get('failure_comment')})")
        serial, _ = job_log(stack, job_id)
        stored = stored_cases(stack, job_id)
        want = want_of(serial)
        mon, merrs = from_monitor(serial, self.rules)
        errs += [f"job {job_id} log: {e}" for e in merrs]
        idrule = self.rules[2]
        for suite in lc.SETS:
            # every case, the verdict's too (its place is checked below)
            got = [as_case(c) for c in stored.get(suite, [])]
            # what the monitors make of the stored log: all of it stored
            errs += compare(f"job {job_id} suite {suite} vs its log", got, mon.get(suite, []))
            if want.get(suite) is not None:
                w = [(idrule(i), r, m, u) for i, r, m, u in want[suite]]
                errs += compare(f"job {job_id} suite {suite} vs the results", got, w)
            elif not got:
                errs.append(f"job {job_id}: suite {suite} stored no case")
            for c in stored.get(suite, []):
                orig = extra_id(c)
                if orig is None or idrule(orig) != c["name"]:
                    errs.append(f"job {job_id}: case {c['name']}: extra.test_case_id {orig}")
        if os.environ.get("PMH_KEEP_LAVA"):
            with open(stack.path(f"job-{job_id}-stored.json"), "w") as f:
                json.dump(stored, f, indent=1)
        counts = {s: len(v) for s, v in stored.items()}
        log(f"job {job_id} ({what}): {info.get('health')}, stored {counts}, expected "
            f"{ {s: (len(v) if v is not None else '?') for s, v in want.items() if s in lc.SETS} }")
        lava = {c["name"]: c["result"] for c in stored.get("lava", [])}
        if lava.get("job") != "pass":
            errs.append(f"job {job_id}: LAVA's own case job is {lava.get('job')}: {lava}")
        for name, driver in want.get("drivers", []):
            if (name, "pass", None, None) not in [as_case(c) for c in stored.get(lc.SETS[1], [])]:
                errs.append(f"job {job_id}: no stored case {name}, the log says pmu.driver: "
                            f"{driver}")
        # The run's verdict: the last case of the checks' set, id verdict.
        v = lc.verdict_case(str(want.get("verdict")))[1]
        # (a crash's case may follow it: tests/report_lava.c lava_end)
        checks = [as_case(c) for c in stored.get(lc.SETS[0], []) if c["name"] != "harness_crash"]
        if not checks or checks[-1][:2] != ("verdict", v):
            errs.append(f"job {job_id}: the verdict {want.get('verdict')} is not the set's last "
                        f"stored case (verdict, {v}); last: {checks[-1:]} (the emitter's "
                        "verdict case, before the set's STOP)")
        # LAVA's log drops the ESC byte itself; its CSI remnants stay
        esc = [l for l in serial.splitlines() if "LAVA_SIGNAL" in l and ESC_LEFT.search(l)]
        if esc:
            errs.append(f"job {job_id}: {len(esc)} log lines with a LAVA signal and screen "
                        f"escape codes, e.g. {esc[0][:120]!r}")
        return errs


# Devices that lava-run --validate checks the jobs against (offline: no job
# is scheduled on them), their dictionaries extending the real templates.
VALIDATE_DEVICES = {
    "qemu": ("qemu02", "{% extends 'qemu.jinja2' %}\n"),
    "x86": ("x86-01", "{% extends 'x86.jinja2' %}\n"
            "{% set connection_command = 'telnet 127.0.0.1 7001' %}\n"
            "{% set hard_reset_command = '/bin/true' %}\n"
            "{% set power_off_command = '/bin/true' %}\n"
            "{% set power_on_command = '/bin/true' %}\n"),
    "x86-usb-mux": ("usbmux-01", "{% extends 'x86-usb-mux.jinja2' %}\n"
                    "{% set connection_command = 'telnet 127.0.0.1 7002' %}\n"
                    "{% set hard_reset_command = '/bin/true' %}\n"
                    "{% set power_off_command = '/bin/true' %}\n"
                    "{% set power_on_command = '/bin/true' %}\n"
                    "{% set flasher_deploy_commands = ['usbsdmux /dev/sg1 host', "
                    "'dd if={IMAGE} of=/dev/disk/by-id/usb-mux bs=4M oflag=sync', "
                    "'usbsdmux /dev/sg1 dut'] %}\n"),
}


def validate_jobs(stack: Stack, base_url: str) -> List[str]:
    """Every job of lava/ as it ships (URLs on the loopback, which lava-run
    --validate asks for with HEAD), against a device of its type rendered by
    lava-server from the real templates with the job's context:
    lava-run --validate, as a worker would run it."""
    errs: List[str] = []
    shutil.copy(os.path.join(ROOT, "lava", "x86-usb-mux.jinja2"), stack.path("device-types"))
    for dtype, (host, text) in VALIDATE_DEVICES.items():
        if dtype != "qemu":
            stack.manage("device-types", "add", dtype)
        with open(stack.path("devices", f"{host}.jinja2"), "w") as f:
            f.write(text)
        stack.manage("devices", "add", "--device-type", dtype, "--worker", WORKER, "--offline",
                     host)
    for n, path in enumerate(sorted(glob.glob(os.path.join(ROOT, "lava", "*.yaml")))):
        name = os.path.relpath(path, ROOT)
        with open(path) as f:
            job: Dict[str, Any] = yaml.safe_load(f)
        for action in job["actions"]:
            dep = action.get("deploy", {})
            for img in list(dep.get("images", {}).values()) + [
                    v for v in dep.values() if isinstance(v, dict) and "url" in v]:
                img["url"] = base_url + os.path.basename(img["url"])
        host = VALIDATE_DEVICES[job["device_type"]][0]
        if job["device_type"] == "qemu" and not os.access("/dev/kvm", os.R_OK | os.W_OK):
            # lava-run refuses -enable-kvm without KVM: the job as a TCG worker runs it
            job["context"]["no_kvm"] = True
            name += " (no KVM here: no_kvm: true)"
        ctx = urllib.parse.quote(yaml.safe_dump(job.get("context", {})))
        device = stack.api(f"devices/{host}/dictionary/?render=true&context={ctx}")
        d = stack.path(f"validate-{n}")
        os.makedirs(d)
        with open(os.path.join(d, "device.yaml"), "w") as f:
            f.write(device)
        with open(os.path.join(d, "job.yaml"), "w") as f:
            yaml.safe_dump(job, f)
        p = subprocess.run(["lava-run", "--validate", "--job-id", str(1000 + n), "--output-dir",
                            os.path.join(d, "out"), "--device", os.path.join(d, "device.yaml"),
                            os.path.join(d, "job.yaml")], capture_output=True, text=True,
                           timeout=120, env=stack.env)
        if p.returncode:
            why = [ln for ln in p.stdout.splitlines() + p.stderr.splitlines()
                   if re.search(r"error|invalid|not |exception", ln, re.I)]
            errs.append(f"{name} on {job['device_type']} ({host}): lava-run --validate exit "
                        f"{p.returncode}: " + " / ".join(why[-4:] or p.stdout.splitlines()[-4:]))
        else:
            log(f"lava-run --validate {name} on {host} ({job['device_type']}): valid")
    return errs


def device_dict() -> str:
    return ("{% extends 'qemu.jinja2' %}\n"
            "{% set mac_addr = '52:54:00:12:34:59' %}\n"
            "{% set memory = 1024 %}\n")


def main() -> int:
    run = Run(efi_arg())
    for f in (run.efi, run.kernel, run.stick_src, OVMF_CODE):
        if not os.path.exists(f):
            print(f"FAIL {NAME}: {f} missing (make lava-server-test builds it)")
            print(f"{NAME}: 0 passed, 1 failed")
            return 1
    stack = Stack()
    try:
        t0 = time.monotonic()
        try:
            stack.start_pg()
            stack.start_server()
            stack.add_worker_and_device(device_dict())
        except (Skip, RuntimeError, OSError, subprocess.SubprocessError) as e:
            # a service that cannot start here: never a pass, and not the
            # harness's failure; the reason and the service's log tail
            print(f"SKIP {NAME}: LAVA cannot run here: {e}", flush=True)
            print(f"{NAME}: 0 passed, 0 failed, 1 skipped", flush=True)
            return 0
        log(f"stack up in {time.monotonic() - t0:.1f} s: PostgreSQL on {LOOP}:{stack.pg_port},"
            f" lava-server {stack.url()}, lava-scheduler, lava-worker {WORKER}")
        files = stack.path("files")
        os.makedirs(files)
        for f in (OVMF_CODE, run.kernel):
            shutil.copy(f, files)
        stick = stack.path("pmuharness-lava-usb.img")
        shutil.copy(run.stick_src, stick)
        base = stack.serve(files)
        uefi = loopback_job(os.path.join(ROOT, "lava", "qemu-uefi.yaml"), base, stick)
        bios = loopback_job(os.path.join(ROOT, "lava", "qemu-bios.yaml"), base, None)
        crash = failing_job(bios)
        ids: Dict[str, int] = {}

        def submitted() -> List[str]:
            ids.update(uefi=submit(stack, uefi), bios=submit(stack, bios),
                       crash=submit(stack, crash))
            log(f"submitted {ids} (REST API, POST /api/v0.2/jobs/)")
            return []

        run.case(submitted, name="submit")
        if len(ids) != 3:
            return run.done()

        def uefi_want(serial: str) -> Dict[str, Any]:
            off = esp_offset(stick)
            names = [p for p in listing(stick, off)
                     if re.search(r"pmuharness-.*\.json$", p, re.I)]
            if not names:
                raise RuntimeError(f"no results JSON on the stick: {listing(stick, off)}")
            data = fat_get(stick, off, names[-1])
            doc = json.loads(data or b"{}")
            want: Dict[str, Any] = from_json(doc)
            want["verdict"] = doc["verdict"]
            return want

        def bios_want(serial: str) -> Dict[str, Any]:
            lines = plain(serial)
            # no verdict line: the emitter's verdict case all the same
            checks, verdict = lc.line_cases(lines, "NO VERDICT")
            drivers = [l.split(": ", 1)[1] for l in lines if l.startswith("pmu.driver: ")]
            return {lc.SETS[0]: checks, lc.SETS[1]: None,
                    "verdict": verdict,
                    "drivers": [(run.rules[2](lc.NOT_ID.sub("_", f"pmu.driver.{d}")), d)
                                for d in drivers[:1]]}

        run.case(lambda: run.check_job(stack, ids["uefi"], uefi_want, "UEFI"), name="qemu_uefi")
        run.case(lambda: run.check_job(stack, ids["bios"], bios_want, "BIOS"), name="qemu_bios")
        run.case(lambda: run.check_job(stack, ids["crash"], bios_want, "BIOS, a crash"),
                 name="qemu_bios_crash")
        shutil.copy(stick, os.path.join(files, "pmuharness-lava-usb.img"))
        run.case(lambda: validate_jobs(stack, base), name="validate_jobs")
        pg = [l for l in stack.pg_log().splitlines() if "ERROR" in l]
        run.case(lambda: [f"PostgreSQL logged {len(pg)} errors, e.g. {pg[:2]}"] if pg else [],
                 name="postgresql_no_errors")
    finally:
        stack.stop()
    return run.done()


if __name__ == "__main__":
    sys.exit(main())
