"""How many heavy requests (a report built now) run at once: per user and in all, across every
process of the server (docs/reports.md, "Bounded work"; docs/decisions.md, "Reports can't starve
the terminals").

A heavy request takes a slot of its user's (``settings.REPORTS_AT_ONCE_PER_USER``) and one of the
server's (``settings.REPORTS_AT_ONCE``) before it builds anything, and gives both back when it
answers (:func:`heavy_report`). A slot is a key in Django's default cache, which every process
shares (Redis in production, ``CACHE_URL``), taken with ``cache.add`` (Redis: ``SET NX``) as a
**lease**: it expires by itself :func:`lease_seconds` after it was taken, so a slot whose worker
was killed mid-report (no ``finally`` ran) is free again within a minute, and a slot is given back
only by the request holding it (its token). No slot free: :class:`SlotsFull`, 429 ``reports_running``
(your own reports fill yours) or 503 ``reports_busy`` (the server's are full), both with
``Retry-After`` (when the earliest running report must have ended, its time limit) and the API's
documented body ``{"code", "detail"}`` (``web.common.errors``); the pages answer the same words.

The bound in all is below the server's threads (deploy/gunicorn.conf.py sets it from WORKERS x
THREADS), so that however many reports are asked for, threads stay free for the dealer terminals,
and no report waits in a queue holding a thread: it is refused at once. Each report in a slot is
held to ``REPORT_STATEMENT_TIMEOUT_MS`` (``backoffice.reports.time_limit``), so a slot is never
held for long. The file cache (``CACHE_URL`` unset) has no atomic ``add`` across processes; a
slot is read back after it is written, which leaves a race of a few microseconds in which two
processes may both take one: at worst one report more than the bound, for a moment.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework import status
from rest_framework.exceptions import APIException

from backoffice.reports.time_limit import time_limit

PREFIX = "heavy-slot:reports"
logger = logging.getLogger(__name__)


class SlotsFull(APIException):
    """No slot free: ``status_code`` 429 (the user's own are full) or 503 (the server's), ``wait``
    the seconds to retry after (DRF's handler sends it as ``Retry-After``)."""

    def __init__(self, *, mine: bool, wait: int) -> None:
        if mine:
            at_once = settings.REPORTS_AT_ONCE_PER_USER
            detail = (
                f"You have {at_once} report{'s' if at_once != 1 else ''} being built already, as many as "
                f"one user may have at once; retry in {wait} s, when it has answered."
            )
            self.status_code = status.HTTP_429_TOO_MANY_REQUESTS
            code = "reports_running"
        else:
            detail = (
                f"The server is building {settings.REPORTS_AT_ONCE} reports, as many as it builds at once "
                f"(so that the dealer terminals are always answered); retry in {wait} s, or export the "
                "report in the background (POST /api/ledger/exports/)."
            )
            self.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
            code = "reports_busy"
        super().__init__(detail, code)
        self.wait = wait
        self.mine = mine


def lease_seconds() -> int:
    """How long a slot is held at most: twice the report's time limit (its last statement may
    start just before the limit and run up to it) and half a minute to answer."""
    return math.ceil(2 * settings.REPORT_STATEMENT_TIMEOUT_MS / 1000) + 30


def _user_ident(user: Any) -> str:
    """The account (its id and when it was made: an id a database hands out again never inherits
    another account's slots), or ``anonymous``."""
    if user is None or not user.is_authenticated:
        return "anonymous"
    joined = getattr(user, "date_joined", None)
    return f"{user.pk}.{joined.timestamp() if joined is not None else ''}"


class Slot:
    """Slots held by one request: the cache keys it took, with its token in them."""

    def __init__(self) -> None:
        self.token = uuid.uuid4().hex
        self.keys: list[str] = []

    def take_one(self, group: str, size: int) -> bool:
        """Take a free slot of ``group`` (``size`` of them): True if one was free."""
        ends = time.time() + settings.REPORT_STATEMENT_TIMEOUT_MS / 1000
        for index in range(size):
            key = f"{PREFIX}:{group}:{index}"
            # Read back: the file cache's add() isn't atomic across processes.
            if cache.add(key, (self.token, ends), timeout=lease_seconds()) and self._holds(key):
                self.keys.append(key)
                return True
        return False

    def _holds(self, key: str) -> bool:
        value = cache.get(key)
        return isinstance(value, tuple) and value[0] == self.token

    def release(self) -> None:
        """Give back every slot taken (only those still this request's: an expired lease another
        request took since is left alone)."""
        for key in self.keys:
            try:
                if self._holds(key):
                    cache.delete(key)
            except Exception:  # the cache gone: the lease expires by itself; the answer stands
                logger.warning("could not give back the report slot %s; its lease will expire", key)
        self.keys.clear()


def _wait(group: str, size: int) -> int:
    """Seconds until the earliest of ``group``'s running reports reaches its time limit (1 at least)."""
    now = time.time()
    ends = [
        value[1]
        for value in cache.get_many([f"{PREFIX}:{group}:{i}" for i in range(size)]).values()
        if isinstance(value, tuple)
    ]
    limit = math.ceil(settings.REPORT_STATEMENT_TIMEOUT_MS / 1000)
    return max(1, min(math.ceil(min(ends) - now) if ends else 1, limit))


def take(user: Any) -> Slot:
    """A slot of ``user``'s and one of the server's, or :class:`SlotsFull` (nothing held then)."""
    slot = Slot()
    mine = f"user:{_user_ident(user)}"
    per_user, in_all = settings.REPORTS_AT_ONCE_PER_USER, settings.REPORTS_AT_ONCE
    if not slot.take_one(mine, per_user):
        raise SlotsFull(mine=True, wait=_wait(mine, per_user))
    if not slot.take_one("all", in_all):
        slot.release()
        raise SlotsFull(mine=False, wait=_wait("all", in_all))
    return slot


@contextmanager
def heavy_report(user: Any) -> Iterator[None]:
    """The block builds a report for ``user``: in a slot (:func:`take`, given back however the
    block ends), under the report time limit (``REPORT_STATEMENT_TIMEOUT_MS``)."""
    slot = take(user)
    try:
        with time_limit(settings.REPORT_STATEMENT_TIMEOUT_MS):
            yield
    finally:
        slot.release()
