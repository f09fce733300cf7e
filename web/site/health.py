"""``GET /healthz``: is this server process able to serve? For load balancers, systemd and monitoring.

It fails only for what the terminals need: ``503`` with ``{"status": "failing", "checks": {...}}``
when the database or the migrations check fails (the terminals can't deal a hand without them).
Otherwise ``200``: ``{"status": "ok", ...}`` when every check passes, ``{"status": "degraded", ...}``
when a check the terminals don't need failed (the broker: the report jobs, the nightly checks and
their alerts wait for it, the tables don't), named in ``checks``. The checks:

* ``database``: a ``SELECT 1`` on the default database (through the pool when there is one);
* ``migrations``: no migration of this code is unapplied on that database (a new release started
  before ``migrate`` ran). Once true it stays true for the life of the process (its code can't
  change), so the migration graph is read only until then;
* ``broker`` (not needed by the terminals): when ``CELERY_BROKER_URL`` is set, a connection to it is
  opened and closed (one try, :data:`BROKER_TIMEOUT` seconds at most); ``"not configured"`` without
  one (tasks run in-process).

No login, no session, no CSRF token, no template: the page reads nothing of the room and says
nothing about it, and it costs one or two statements. A failure's details (which may name hosts)
go to the log with the request id; the answer names the check and the kind of error only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from kombu.connection import Connection

logger = logging.getLogger(__name__)

OK = "ok"
NOT_CONFIGURED = "not configured"
BROKER_TIMEOUT = 2.0
"""Seconds to wait for the broker's connection before the check fails."""

TERMINALS_NEED = frozenset({"database", "migrations"})
"""The checks whose failure makes the answer 503; the others only make it ``degraded``."""

_migrations_applied = False  # set once every migration was seen applied (per process)


def check_database() -> str:
    """``"ok"`` when the default database answers a ``SELECT 1``."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return OK


def check_migrations() -> str:
    """``"ok"`` when no migration of this code is unapplied, else how many are."""
    global _migrations_applied
    if _migrations_applied:
        return OK
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if unapplied:
        names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in unapplied[:20])
        logger.error("health: %d migrations unapplied: %s", len(unapplied), names)
        return f"failed: {len(unapplied)} unapplied"
    _migrations_applied = True
    return OK


def check_broker() -> str:
    """``"ok"`` when a connection to ``CELERY_BROKER_URL`` opens; ``"not configured"`` without one."""
    url = settings.CELERY_BROKER_URL
    if not url:
        return NOT_CONFIGURED
    # kombu's Connection is not annotated; its URL is the one Celery's worker and beat use.
    with Connection(url, connect_timeout=BROKER_TIMEOUT) as broker:  # type: ignore[no-untyped-call]
        broker.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT)
    return OK


def run_checks() -> dict[str, str]:
    """Each check's answer: ``"ok"``, ``"not configured"``, ``"not checked"`` (the database it
    needs failed) or ``"failed: ..."``."""
    checks = {"database": _run("database", check_database)}
    checks["migrations"] = _run("migrations", check_migrations) if checks["database"] == OK else "not checked"
    checks["broker"] = _run("broker", check_broker)
    return checks


def _run(name: str, check: Callable[[], str]) -> str:
    try:
        answer = check()
    except Exception as exc:  # any failure is the answer, never a 500
        logger.exception("health: the %s check failed", name)
        return f"failed: {type(exc).__name__}"
    return answer


@login_not_required
@require_safe
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """503 when a check the terminals need (:data:`TERMINALS_NEED`) isn't ``ok``; else 200, ``ok`` or
    ``degraded`` (another check failed); always JSON, never cached."""
    checks = run_checks()
    passing = {name: answer in (OK, NOT_CONFIGURED) for name, answer in checks.items()}
    if not all(passing[name] for name in TERMINALS_NEED):
        return JsonResponse({"status": "failing", "checks": checks}, status=503)
    return JsonResponse(
        {"status": "ok" if all(passing.values()) else "degraded", "checks": checks}, status=200
    )
