"""How long a report built in a request may run (docs/reports.md, "Bounded work").

The web asks for a limit around the report it builds (``with time_limit(ms): build...``); the
background exports and the shift closes ask for none and run to the end. Inside a limit every
report snapshot (:func:`backoffice.reports.common.report_snapshot`):

* on PostgreSQL sets ``SET LOCAL statement_timeout`` to the limit in its transaction, so that no
  statement of the report runs longer (PostgreSQL cancels it: SQLSTATE 57014, ``query_canceled``);
* on every database refuses to start a statement once the limit has passed since the report began
  (:func:`deadline_guard`, a Django execute wrapper), so that a report of many statements is held
  to about the limit too, not to the limit times its statements.

Either way the report stops with :class:`ReportTimedOut` (503, ``report_timeout``), whose words
say what to do instead: a shorter period, or the export in the background. Nothing is written by a
report (its transaction is READ ONLY on PostgreSQL), so a stopped one changes nothing.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import OperationalError

from casino.core.errors import DomainError

QUERY_CANCELED = "57014"
"""PostgreSQL's SQLSTATE for a statement cancelled (by ``statement_timeout`` here)."""

clock = time.monotonic
"""The clock a deadline reads (a test may replace it)."""

_limit_ms: contextvars.ContextVar[int | None] = contextvars.ContextVar("report_time_limit_ms", default=None)


class ReportTimedOut(DomainError):
    """A report built in a request ran past its time limit and was stopped (503): it is too big
    to be built while you wait; ask for a shorter period or export it in the background."""

    code = "report_timeout"
    status = 503

    def __init__(self, limit_ms: int) -> None:
        seconds = limit_ms / 1000
        super().__init__(
            f"The report took longer than the {seconds:g} s a report built while you wait may take, "
            "and was stopped (nothing was changed). Ask for fewer dates or tables, or export it in the "
            "background (POST /api/ledger/exports/, or the report page's export form): the file is "
            "built by the worker and can be downloaded when ready."
        )
        self.limit_ms = limit_ms


@contextmanager
def time_limit(ms: int | None) -> Iterator[None]:
    """Reports built inside the block may run ``ms`` milliseconds each (``None`` or 0: no limit)."""
    token = _limit_ms.set(ms if ms and ms > 0 else None)
    try:
        yield
    finally:
        _limit_ms.reset(token)


def current_limit_ms() -> int | None:
    """The limit the block around the caller asked for, or ``None``."""
    return _limit_ms.get()


def deadline_guard(limit_ms: int) -> Callable[..., Any]:
    """A Django execute wrapper (``connection.execute_wrapper``) refusing, with
    :class:`ReportTimedOut`, any statement started ``limit_ms`` after it was made."""
    deadline = clock() + limit_ms / 1000

    def guard(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if clock() >= deadline:
            raise ReportTimedOut(limit_ms)
        return execute(sql, params, many, context)

    return guard


def was_cancelled(error: BaseException) -> bool:
    """Whether ``error`` is PostgreSQL cancelling a statement (``statement_timeout``)."""
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    return getattr(cause, "sqlstate", None) == QUERY_CANCELED


_enforced: contextvars.ContextVar[bool] = contextvars.ContextVar("report_time_limit_enforced", default=False)


@contextmanager
def enforced() -> Iterator[int | None]:
    """The limit asked for (yielded) for a report's block: a statement PostgreSQL cancelled in it
    becomes :class:`ReportTimedOut` (once the block's transaction is rolled back). Yields ``None``
    without a limit, or inside a block that already enforces one (a report built by another: the
    outer one's deadline holds). The caller runs the report's own statements in :func:`guarded`."""
    limit = current_limit_ms()
    if limit is None or _enforced.get():
        yield None
        return
    token = _enforced.set(True)
    try:
        yield limit
    except OperationalError as exc:
        if was_cancelled(exc):
            raise ReportTimedOut(limit) from exc
        raise
    finally:
        _enforced.reset(token)


@contextmanager
def guarded(connection: Any, limit: int | None) -> Iterator[None]:
    """The report's own statements: none started on ``connection`` once ``limit`` ms have passed
    (:func:`deadline_guard`). Only around them: the transaction's own statements (a savepoint's
    release or rollback) must run whatever the time."""
    if limit is None:
        yield
        return
    with connection.execute_wrapper(deadline_guard(limit)):
        yield
