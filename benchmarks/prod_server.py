"""The benchmarks' server: the production command itself, on a free loopback port.

``make serve-prod`` collects the static files and runs ``gunicorn -c deploy/gunicorn.conf.py``;
:func:`start` does the same two things (the command is :data:`SERVE_COMMAND`, which
``tests/benchmarks/test_prod_server.py`` checks against the Makefile), with the benchmark's
environment (``DEBUG=0``, its scratch database) and ``WORKER_CLASS`` / ``WORKERS`` / ``THREADS`` /
``DATABASE_POOL_MAX`` passed to the configuration as a deployment would pass them. It waits for
``/healthz`` to answer 200, so a server that can't reach its database or has unapplied migrations
fails the benchmark before it begins.

:class:`Server` reads the master's and its workers' memory and CPU from ``/proc``: the resident
set of each (summed: shared pages count once per process, so the sum is an upper bound), and their
CPU seconds, a replaced worker's included (the master's ``cutime`` holds its reaped children's).
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "deploy/gunicorn.conf.py"
SERVE_COMMAND = ("gunicorn", "-c", CONFIG)
"""What ``make serve-prod`` runs after ``collectstatic`` (the venv's ``gunicorn``)."""


def free_port() -> int:
    """A TCP port nothing on the loopback listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _stat_fields(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` after the command name (field 3 onwards); ``[]`` for a gone pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if len(fields) > 1 and fields[1] == str(pid):
                found.append(int(entry.name))
    return found


def rss_bytes(pid: int) -> int:
    """The resident set of ``pid`` in bytes (0 for a gone pid)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int, *, reaped_children: bool = False) -> float:
    """User + system CPU seconds of ``pid`` so far (0 for a gone pid); with ``reaped_children``,
    its waited-for children's too."""
    fields = _stat_fields(pid)
    if not fields:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    if reaped_children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    """A running ``gunicorn -c deploy/gunicorn.conf.py``."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    config: dict[str, str]
    """The configuration's resolved settings (``--print-config``): worker_class, workers, threads..."""

    def describe(self) -> str:
        """E.g. ``2 gthread workers x 4 threads``."""
        threads = (
            f" x {self.config['threads']} threads" if self.config.get("worker_class") == "gthread" else ""
        )
        return f"{self.config.get('workers')} {self.config.get('worker_class')} workers{threads}"

    @property
    def master(self) -> int:
        return self.process.pid

    def pids(self) -> list[int]:
        """The master and its workers now."""
        return [self.master, *children(self.master)]

    def workers(self) -> list[int]:
        return children(self.master)

    def rss_bytes(self) -> int:
        """The resident sets of the master and every worker, summed."""
        return sum(rss_bytes(pid) for pid in self.pids())

    def cpu_seconds(self) -> float:
        """CPU seconds of the master and its workers so far, replaced workers' included."""
        return cpu_seconds(self.master, reaped_children=True) + sum(
            cpu_seconds(pid) for pid in self.workers()
        )

    def stop(self) -> None:
        """Stop gracefully (SIGTERM: the workers finish their requests), then wait."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def collect_static(env: Mapping[str, str]) -> None:
    """``manage.py collectstatic --noinput``, as ``make serve-prod`` runs it first: with ``DEBUG=0``
    the pages name their static files through the manifest it writes."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=dict(env),
        check=True,
    )


def healthz(port: int, timeout: float = 5.0) -> tuple[int, bytes]:
    """``GET /healthz`` on the loopback: (status, body)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": "127.0.0.1"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def start(
    env: Mapping[str, str],
    *,
    log: Path,
    worker_class: str | None = None,
    workers: int | None = None,
    threads: int | None = None,
    pool_max: int | None = None,
    collectstatic: bool = True,
    wait: float = 90.0,
) -> Server:
    """Collect the static files (unless told not to), start the production server with ``env`` on a
    free loopback port and wait until ``/healthz`` answers 200. The keyword arguments are the
    configuration's variables (None: its defaults); its output goes to ``log``."""
    env = dict(env)
    if collectstatic:
        collect_static(env)
    port = free_port()
    env.update(HOST="127.0.0.1", PORT=str(port))
    for name, value in (
        ("WORKER_CLASS", worker_class),
        ("WORKERS", workers),
        ("THREADS", threads),
        ("DATABASE_POOL_MAX", pool_max),
    ):
        if value is not None:
            env[name] = str(value)
    gunicorn = str(Path(sys.executable).with_name(SERVE_COMMAND[0]))
    printed = subprocess.run(
        [gunicorn, *SERVE_COMMAND[1:], "--print-config"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if printed.returncode != 0:
        raise RuntimeError(f"the configuration does not load:\n{printed.stdout}{printed.stderr}")
    config = {}
    for line in printed.stdout.splitlines():
        name, sep, value = line.partition(" = ")
        if sep:
            config[name.strip()] = value.strip()
    output = log.open("wb")
    process = subprocess.Popen(
        [gunicorn, *SERVE_COMMAND[1:]], cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
    )
    output.close()
    server = Server(process, port, log, config)
    deadline = time.monotonic() + wait
    status, body = 0, b""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            status, body = healthz(port)
        except OSError:
            status = 0
        if status == 200:
            return server
        time.sleep(0.25)
    server.stop()
    raise RuntimeError(
        f"/healthz did not answer 200 in {wait:.0f} s ({status} {body[:300]!r}):\n{log.read_text()[-3000:]}"
    )


class Connection(http.client.HTTPConnection):
    """A terminal's connection to the server: ``TCP_NODELAY`` on every socket it opens (a sync
    worker closes the connection after each answer, so each request opens one), and a request that
    meets a keep-alive connection the server closed while it was idle is sent once more on a new
    one, as a browser does (counted in :attr:`resent`)."""

    resent = 0

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def exchange(
        self, method: str, path: str, body: str | bytes | None, headers: Mapping[str, str]
    ) -> http.client.HTTPResponse:
        """Send the request and return its response (not yet read)."""
        reused = self.sock is not None
        try:
            self.request(method, path, body=body, headers=dict(headers))
            return self.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.close()
            if not reused:
                raise
        self.resent += 1
        self.request(method, path, body=body, headers=dict(headers))
        return self.getresponse()
