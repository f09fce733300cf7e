"""The audit: :func:`replay_audit` over a period (its hands cut into chunks, audited in this
process or in forked ones) and :func:`record_replay_check`, which stores its outcome."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.db import connection, models
from django.utils import timezone

from casino.core.alerts import alert
from casino.core.version import software_version
from handflow.audit.chunks import ChunkResult, audit_chunk, chunks_of
from handflow.audit.outcome import CHUNK_HANDS, MAX_DIFFERENCES, ReplayDifference, ReplayOutcome
from handflow.audit.workers import close_connections, start_worker
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from ledger.shifts import local_midnight
from tables.choices import HandStatus
from tables.models import Hand, ReadingStatus

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def replay_audit(
    *,
    date_from: dt.date,
    date_to: dt.date,
    workers: int = 1,
    chunk_hands: int = CHUNK_HANDS,
    hand_ids: tuple[int, int] | None = None,
) -> ReplayOutcome:
    """Re-decide every settled hand started on the business dates ``date_from``..``date_to``
    (inclusive, on the room's clock) and compare (see :mod:`handflow.audit`). Reads only.
    ``hand_ids`` ``(first, last)`` keeps to the hands of those ids too (the nightly job's rotating
    part of history).

    ``workers`` > 1 splits the hand ids among that many processes (forked; PostgreSQL only, and not
    inside a transaction: each process reads with its own connection). Raises ``ValueError`` for a
    period that ends before it starts or a worker count below 1.
    """
    if date_to < date_from:
        raise ValueError("date_to must be on or after date_from")
    if workers < 1 or chunk_hands < 1:
        raise ValueError("workers and chunk_hands must be at least 1")
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        workers = 1
    started, t0 = timezone.now(), time.perf_counter()
    start, end = local_midnight(date_from), local_midnight(date_to + dt.timedelta(days=1))
    settled = Hand.objects.filter(
        created_at__gte=start,
        created_at__lt=end,
        status=HandStatus.SETTLED,
        result__status=ReadingStatus.SETTLED,
    )
    if hand_ids is not None:
        settled = settled.filter(pk__gte=hand_ids[0], pk__lte=hand_ids[1])
    bounds = settled.aggregate(first=models.Min("pk"), last=models.Max("pk"))
    run = time.perf_counter_ns()  # this audit: the accounts cache is its own
    results: Iterable[ChunkResult] = []
    if bounds["first"] is not None:
        chunks = chunks_of(bounds["first"], bounds["last"], chunk_hands, start, end, run)
        if workers == 1:
            results = [audit_chunk(chunk) for chunk in chunks]
        else:
            close_connections()  # nothing open goes with the fork: each process opens its own
            with multiprocessing.get_context("fork").Pool(workers, initializer=start_worker) as pool:
                results = list(pool.imap_unordered(audit_chunk, chunks))
                pool.close()
                pool.join()  # the processes end on their own (not killed), closing their connections
    hands = transactions = entries = count = 0
    differences: list[ReplayDifference] = []
    for result in results:
        hands += result.hands
        transactions += result.transactions
        entries += result.entries
        count += result.difference_count
        differences += result.differences
    differences.sort(key=lambda d: d.hand_id)
    return ReplayOutcome(
        date_from=date_from,
        date_to=date_to,
        started_at=started,
        finished_at=timezone.now(),
        seconds=time.perf_counter() - t0,
        hands=hands,
        transactions=transactions,
        entries=entries,
        differences=tuple(differences[:MAX_DIFFERENCES]),
        difference_count=count,
        workers=workers,
    )


def record_replay_check(
    *,
    outcome: ReplayOutcome,
    source: CheckSource | str = CheckSource.NIGHTLY,
    by: User | AnonymousUser | None = None,
) -> IntegrityCheck:
    """Store ``outcome`` as an :class:`IntegrityCheck` of scope ``replay``: ``ok`` False on any
    difference, each one a problem naming its hand (``replay_<check>``, with ``hand_id``, ``table``
    and ``hand``); ``transactions`` and ``entries`` count what was compared with the ledger. A
    check that failed is then alerted (``casino.core.alerts``), which never raises."""
    check = IntegrityCheck.objects.create(
        started_at=outcome.started_at,
        finished_at=outcome.finished_at,
        source=CheckSource(source),
        scope=IntegrityScope.REPLAY,
        triggered_by=by if by is not None and by.is_authenticated else None,
        ok=outcome.ok,
        transactions=outcome.transactions,
        entries=outcome.entries,
        problems=[difference.as_problem() for difference in outcome.differences]
        + (
            [
                {
                    "code": "replay_more",
                    "message": f"{outcome.difference_count - len(outcome.differences)} more difference(s) "
                    "not stored: run manage.py replay_audit for the period.",
                }
            ]
            if outcome.difference_count > len(outcome.differences)
            else []
        ),
        software_version=software_version(),
    )
    if not check.ok:
        _alert_failed(check, outcome)
    return check


def _alert_failed(check: IntegrityCheck, outcome: ReplayOutcome) -> None:
    lines = [
        f"Replay audit #{check.pk} ({check.source}, started {check.started_at.isoformat()}) failed: "
        f"{outcome.difference_count} difference(s) between the hands' replay and what was recorded.",
        *(f"- {problem.get('message', '')}" for problem in check.problems[:10] if isinstance(problem, dict)),
        "See the integrity page, or run manage.py replay_audit for the period.",
    ]
    alert(subject=f"Replay audit #{check.pk} failed", detail="\n".join(lines), source="replay audit")
