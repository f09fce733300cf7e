"""What the integrity page (``/reports/integrity/``) and the API (``/api/ledger/reports/integrity/``)
show, read from what the checks stored and never by verifying inside the request (a ledger's
verification reads every row: minutes and hundreds of megabytes on a year of play).

* :func:`build_status` answers at once: the latest stored check of the books with its result, every
  problem counted and the first ``SHOWN_PROBLEMS`` listed; the replay audit's latest, the same way;
  what each part of the nightly and full checks verified, and when (the checkpoints); and, asked
  with ``after``, whether the full check asked for after stored check ``after`` is stored yet.
* :func:`queue_full_check` queues the full check (``backoffice.tasks.verify_ledger_full``, which runs
  ``integrity_checks.run_full_check``) once the caller's transaction commits and returns the mark to
  poll with. While one asked for is still pending (queued or running, for at most
  ``PENDING_SECONDS``), asking again queues nothing more and answers the same mark: a full check
  costs the worker what reading every row costs, and the answer would be the same.

The pending mark is kept in Django's default cache, which every process of the server shares
(``CACHES`` in ``casino/settings.py``); lost, the worst case is one more check queued, which is safe
(a full check only reads, and stores one more result).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from backoffice import tasks
from backoffice.integrity_checks import problem_total
from backoffice.reports import integrity
from casino.core.version import software_version
from ledger.models import (
    CheckpointKind,
    CheckpointPart,
    CheckSource,
    IntegrityCheck,
    IntegrityScope,
    VerificationCheckpoint,
)
from ledger.verification import ROTATION_PARTS

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User
    from django.db.models import QuerySet

PENDING_KEY = "backoffice:integrity:full-check-pending"
PENDING_SECONDS = 30 * 60
"""How long a queued full check counts as pending: asked again within it (and not yet stored), the
same check is polled for; past it (a lost job), asking queues another."""

_MORE_CODES = frozenset({"ledger_more", "replay_more"})
"""A stored check's last line counting the problems it did not store (``integrity_checks``)."""


@dataclasses.dataclass(frozen=True, slots=True)
class StoredCheck:
    """One stored check as it is shown: its result, every problem counted (``problem_count``) and
    the first of them (``problems``, at most the cap the answer names)."""

    check_id: int
    scope: str
    source: str
    source_label: str
    triggered_by: str | None
    started_at: dt.datetime
    finished_at: dt.datetime
    ok: bool
    transactions: int
    entries: int
    accounts: int
    chains: int
    problem_count: int
    problems: list[dict[str, Any]]
    guards: dict[str, Any]
    """The database's guards as the check found them (``reports.integrity.GuardReport``)."""
    anchors: dict[str, Any]
    """The chain heads the check read, signed (``ledger.anchors``)."""
    software_version: str


@dataclasses.dataclass(frozen=True, slots=True)
class CheckpointLine:
    """One line of "what was verified, and when": a part (new rows, a rotating seventh of history,
    all rows) of one kind of rows, its ids, and the result."""

    kind: str
    part: str
    first_id: int
    last_id: int
    rows: int
    at: dt.datetime
    ok: bool
    problems: int
    kind_code: str
    part_code: str


@dataclasses.dataclass(frozen=True, slots=True)
class RequestedCheck:
    """The full check asked for after stored check ``after``: stored (``done``, ``check``) or still
    queued or running."""

    after: int
    done: bool
    check: StoredCheck | None


@dataclasses.dataclass(frozen=True, slots=True)
class IntegrityStatus:
    """What the stored checks say now. Nothing in it was verified to answer: ``last_check`` is the
    latest stored check of the books, ``checkpoints`` what each part verified and when."""

    generated_at: dt.datetime
    software_version: str
    shown_problems: int
    """The most problems a check lists here (``problem_count`` counts them all)."""
    last_check: StoredCheck | None
    replay_check: StoredCheck | None
    checkpoints: list[CheckpointLine]
    requested: RequestedCheck | None
    """Asked with ``after``: the full check asked for after that stored check."""


@dataclasses.dataclass(frozen=True, slots=True)
class QueuedCheck:
    """A full check asked for: poll with ``after``. ``queued`` is False when one asked for earlier
    was still pending, and that one is polled for."""

    after: int
    queued: bool


def _shown(shown: int | None) -> int:
    # Read when asked (not bound at import), so that the cap has one home: reports.integrity.
    return integrity.SHOWN_PROBLEMS if shown is None else shown


def latest_check(scope: IntegrityScope) -> IntegrityCheck | None:
    """The latest stored check of ``scope`` (the books; the replay audit)."""
    return (
        IntegrityCheck.objects.filter(scope=scope)
        .select_related("triggered_by")
        .order_by("-started_at", "-pk")
        .first()
    )


def stored_check(check: IntegrityCheck, *, shown: int | None = None) -> StoredCheck:
    """``check`` as shown: every problem counted, the first ``shown`` (default ``SHOWN_PROBLEMS``)
    listed, without the line that counts those not stored."""
    listed = [
        problem
        for problem in check.problems
        if isinstance(problem, dict) and problem.get("code") not in _MORE_CODES
    ][: _shown(shown)]
    return StoredCheck(
        check_id=check.pk,
        scope=check.scope,
        source=check.source,
        source_label=CheckSource(check.source).label,
        triggered_by=check.triggered_by.get_username() if check.triggered_by else None,
        started_at=check.started_at,
        finished_at=check.finished_at,
        ok=check.ok,
        transactions=check.transactions,
        entries=check.entries,
        accounts=check.accounts,
        chains=check.chains,
        problem_count=problem_total(check),
        problems=listed,
        guards=check.guards if isinstance(check.guards, dict) else {},
        anchors=check.anchors if isinstance(check.anchors, dict) else {},
        software_version=check.software_version,
    )


def checkpoint_lines(*, per_kind: int = ROTATION_PARTS + 2) -> list[CheckpointLine]:
    """The latest checkpoints of each kind (at most ``per_kind``: a week of rotation, the last
    since and the last full), newest first: what was verified, and when each part last was."""
    lines: list[CheckpointLine] = []
    for kind in CheckpointKind:
        for row in VerificationCheckpoint.objects.filter(kind=kind).order_by("-at", "-pk")[:per_kind]:
            part = CheckpointPart(row.part)
            lines.append(
                CheckpointLine(
                    kind=kind.label,
                    part=part.label,
                    first_id=row.first_id,
                    last_id=row.last_id,
                    rows=row.rows,
                    at=row.at,
                    ok=row.ok,
                    problems=row.problems,
                    kind_code=kind.value,
                    part_code=part.value,
                )
            )
    return lines


def _asked_for_after(after: int) -> QuerySet[IntegrityCheck]:
    return IntegrityCheck.objects.filter(scope=IntegrityScope.LEDGER, source=CheckSource.MANUAL, pk__gt=after)


def requested_check(after: int, *, shown: int | None = None) -> RequestedCheck:
    """The first full check asked for by a user and stored after stored check ``after``, if any."""
    done = _asked_for_after(after).select_related("triggered_by").order_by("pk").first()
    return RequestedCheck(
        after=after, done=done is not None, check=stored_check(done, shown=shown) if done else None
    )


def build_status(*, after: int | None = None, shown: int | None = None) -> IntegrityStatus:
    """The stored checks now (see the module docstring): a few indexed reads, whatever the size of
    the ledger; ``requested`` only when ``after`` is given."""
    ledger = latest_check(IntegrityScope.LEDGER)
    replay = latest_check(IntegrityScope.REPLAY)
    return IntegrityStatus(
        generated_at=timezone.now(),
        software_version=software_version(),
        shown_problems=_shown(shown),
        last_check=stored_check(ledger, shown=shown) if ledger else None,
        replay_check=stored_check(replay, shown=shown) if replay else None,
        checkpoints=checkpoint_lines(),
        requested=requested_check(after, shown=shown) if after is not None else None,
    )


def _last_ledger_check_id() -> int:
    last = IntegrityCheck.objects.filter(scope=IntegrityScope.LEDGER).order_by("-pk").values("pk").first()
    return int(last["pk"]) if last else 0


def queue_full_check(*, by: User | AnonymousUser | None) -> QueuedCheck:
    """Queue the full check for the worker, on commit (``tasks.enqueue_integrity_check``), unless
    one asked for is still pending; either way, the mark to poll :func:`build_status` with."""
    pending = cache.get(PENDING_KEY)
    if isinstance(pending, int) and not _asked_for_after(pending).exists():
        return QueuedCheck(after=pending, queued=False)
    after = _last_ledger_check_id()
    # Marked pending when the job is sent (on commit), not before: a rolled-back request queues
    # nothing and so must leave no mark that would hold the next request back.
    transaction.on_commit(lambda: cache.set(PENDING_KEY, after, PENDING_SECONDS))
    tasks.enqueue_integrity_check(by=by)
    return QueuedCheck(after=after, queued=True)
