"""Gunicorn's configuration for the card room: `make serve-prod`, deploy/casino-web.service and the
benchmarks all run ``gunicorn -c deploy/gunicorn.conf.py`` (docs/deployment.md).

Everything comes from the environment, with defaults sized for a small server of 2 cores. A bad
value stops gunicorn at start with the variable's name.

    HOST, PORT           where to listen (127.0.0.1:8000: a reverse proxy in front terminates TLS)
    WORKER_CLASS         gthread (default) or sync (docs/decisions.md, "Gunicorn: gthread workers")
    WORKERS              processes (default: the CPUs for gthread, 2 on 2 cores; 2 x CPUs + 1 for
                         sync; WEB_CONCURRENCY is read too)
    THREADS              threads per process (default 4 for gthread; 1 for sync)
    DATABASE_POOL_MAX    connections each process's pool holds at most (default: THREADS, one per
                         request a process can serve at once; 0: no pool, e.g. behind PgBouncer)
    REPORTS_AT_ONCE      reports built at once in all (default: a quarter of WORKERS x THREADS,
                         fewer than THREADS, at least 1: the terminals always find a thread)
    TIMEOUT              a worker silent this many seconds is killed and replaced (30)
    GRACEFUL_TIMEOUT     seconds a worker gets to finish its requests on a restart (30)
    KEEPALIVE            seconds an idle keep-alive connection is held, gthread only (5)
    MAX_REQUESTS         a worker is replaced after this many requests, with up to
                         MAX_REQUESTS_JITTER more (0: never; a guard against slow memory growth)
    PRELOAD              1: import the app once in the master before forking (less memory; a code
                         change then needs a restart, not a reload) (0)
    ACCESS_LOG           where access lines go: "-" (standard output, the default), a file, or "off"
    LOG_LEVEL            gunicorn's own log level (info); Django's is settings.LOGGING's
    FORWARDED_ALLOW_IPS  proxies whose X-Forwarded-* headers gunicorn believes (127.0.0.1,::1)
    GUNICORN_CONTROL_SOCKET  a path for gunicorn's control socket (none by default: several
                         servers on one machine would share the default path)

The access line carries the request's id (the response's X-Request-ID, casino/request_id.py), the
same id the app's log records of that request carry.
"""

from __future__ import annotations

import os
from pathlib import Path

_WORKER_CLASSES = ("sync", "gthread")


def _int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise SystemExit(f"{name}={value} must be at least {minimum}")
    return value


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Where the project is: the app is imported from there, whatever the current directory.
chdir = str(Path(__file__).resolve().parent.parent)
wsgi_app = "casino.wsgi:application"

bind = [f"{os.environ.get('HOST', '127.0.0.1')}:{_int('PORT', 8000, 1)}"]

worker_class = os.environ.get("WORKER_CLASS", "gthread").strip() or "gthread"
if worker_class not in _WORKER_CLASSES:
    raise SystemExit(f"WORKER_CLASS={worker_class!r} is not one of {', '.join(_WORKER_CLASSES)}")
threads = 1 if worker_class == "sync" else _int("THREADS", 4, 1)
if worker_class == "sync" and _int("THREADS", 1, 1) != 1:
    raise SystemExit("THREADS > 1 needs WORKER_CLASS=gthread (a sync worker serves one request at a time)")
_default_workers = 2 * _cpus() + 1 if worker_class == "sync" else _cpus()
workers = _int("WORKERS", _int("WEB_CONCURRENCY", _default_workers, 1), 1)

# Each process pools its own connections (settings.py, DATABASE_POOL_MAX): as many as it serves
# requests at once. PostgreSQL then sees at most WORKERS x THREADS connections from this server.
# Set here, not in the shared environment file, so that Celery and manage.py, which fork processes
# of their own, stay unpooled.
os.environ.setdefault("DATABASE_POOL_MAX", str(threads))


def reports_at_once(workers: int, threads: int, cpus: int) -> int:
    """The reports built at once in all (settings.REPORTS_AT_ONCE, web/common/slots.py) for a server
    of ``workers`` x ``threads`` on ``cpus`` CPUs: a quarter of its request threads, at least 1,
    fewer than one process's threads (gthread: a terminal's keep-alive connection stays with its
    process, which then always has a thread free) or than the processes (sync: each serves one
    request), and fewer than the CPUs: a report's query keeps a CPU busy until it ends (each runs on
    one, report_snapshot turns PostgreSQL's parallel workers off), and the terminals need one free
    (the big room with auditors: docs/decisions.md, "Reports can't starve the terminals")."""
    quarter = max(1, workers * threads // 4)
    below = threads - 1 if threads > 1 else workers - 1
    return max(1, min(quarter, below, cpus - 1))


# Heavy requests (a report built now) take a slot; never all of the threads (docs/decisions.md,
# "Reports can't starve the terminals"). 2 x 4 gthread: 2 on 3 CPUs or more, 1 on 2; 5 sync workers: 1.
os.environ.setdefault("REPORTS_AT_ONCE", str(reports_at_once(workers, threads, _cpus())))

timeout = _int("TIMEOUT", 30, 1)
graceful_timeout = _int("GRACEFUL_TIMEOUT", 30, 1)
keepalive = _int("KEEPALIVE", 5, 0)
max_requests = _int("MAX_REQUESTS", 0)
max_requests_jitter = _int("MAX_REQUESTS_JITTER", 0)
preload_app = os.environ.get("PRELOAD", "0").strip().lower() in {"1", "true", "yes", "on"}
# The workers' heartbeat files in memory: a disk-backed /tmp can stall them under load.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

_access = os.environ.get("ACCESS_LOG", "-").strip()
accesslog = None if _access.lower() in {"off", "none", ""} else _access
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s'
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").strip().lower() or "info"

_control = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
control_socket_disable = not _control
if _control:
    control_socket = _control
