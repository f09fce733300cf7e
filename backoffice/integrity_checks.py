"""The stored integrity checks: the full check, run by the worker, and the nightly check, which
costs what the day cost (docs/retention.md).

* :func:`run_full_check` verifies every row (``backoffice.books``'s checks) and the database's
  guards in one snapshot; the integrity page queues it (``backoffice.tasks.verify_ledger_full``)
  and never runs it inside a request.
* :func:`run_nightly_check` verifies the journal rows and the hands since the last
  :class:`ledger.models.VerificationCheckpoint` plus a rotating seventh of the older ones
  (``ledger.verification.rotation_slice``), so that every row is verified again within a week.

Both store an ``IntegrityCheck`` whose problems are the first ``MAX_PROBLEMS`` and one line counting
the rest, and a checkpoint per part: what was verified, and when. The page and the API read them
through ``backoffice.integrity_status``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction
from django.db.models import Max, Min
from django.utils import timezone

from backoffice.books import check_hands
from backoffice.reports.common import to_jsonable
from backoffice.reports.integrity import check_database_guards
from casino.core.alerts import alert
from casino.core.version import software_version
from ledger import anchors, verification
from ledger.anchors import compare, stored_documents
from ledger.models import (
    Account,
    CheckpointKind,
    CheckpointPart,
    CheckSource,
    IntegrityCheck,
    IntegrityScope,
    JournalTransaction,
    VerificationCheckpoint,
)
from ledger.verification import (
    ROTATION_PARTS,
    LedgerReport,
    Problem,
    ProblemList,
    rotation_slice,
    verify_ledger,
    verify_ledger_range,
)
from tables.models import Hand

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def _heads_json(heads: dict[str, tuple[int, str]]) -> dict[str, list[Any]]:
    return {chain: [sequence, head_hash] for chain, (sequence, head_hash) in sorted(heads.items())}


def _stored_problems(problems: list[Problem], total: int) -> list[dict[str, Any]]:
    """The problems as an ``IntegrityCheck`` stores them: the first ``MAX_PROBLEMS``, then one line
    counting the rest (``ledger_more``), so a damaged ledger makes a bounded row."""
    kept = [dataclasses.asdict(problem) for problem in problems[: verification.MAX_PROBLEMS]]
    if total > len(kept):
        kept.append(
            {
                "code": "ledger_more",
                "message": f"{total - len(kept)} more problem(s) not stored: run manage.py verify_ledger.",
                "more": total - len(kept),
            }
        )
    return kept


def problem_total(check: IntegrityCheck) -> int:
    """How many problems ``check`` found: those stored plus the count its ``ledger_more`` (or
    ``replay_more``) line gives."""
    total = 0
    for problem in check.problems:
        if isinstance(problem, dict) and problem.get("code") in ("ledger_more", "replay_more"):
            more = problem.get("more")
            total += more if isinstance(more, int) else 0
        else:
            total += 1
    return total


def _snapshot() -> None:
    """Start the transaction just opened (the outermost) as one read-only snapshot on PostgreSQL."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")


def _max_id(model: type[Any]) -> int:
    return int(model.objects.aggregate(top=Max("pk"))["top"] or 0)


def _min_id(model: type[Any]) -> int:
    return int(model.objects.aggregate(low=Min("pk"))["low"] or 1)


@dataclasses.dataclass(slots=True)
class _Found:
    """What a stored check found, part by part: problems (the first kept), their count, the rows."""

    problems: ProblemList = dataclasses.field(default_factory=ProblemList)
    transactions: int = 0
    entries: int = 0
    accounts: int = 0
    chains: int = 0
    heads: dict[str, tuple[int, str]] = dataclasses.field(default_factory=dict)
    checkpoints: list[VerificationCheckpoint] = dataclasses.field(default_factory=list)

    def add_ledger(self, report: LedgerReport) -> None:
        self.problems += report.problems
        self.problems.total += report.problem_count - len(report.problems)
        self.transactions += report.transactions
        self.entries += report.entries
        self.accounts += report.accounts
        self.chains = max(self.chains, report.chains)

    def add_hands(self, problems: list[Problem]) -> None:
        self.problems += problems
        self.problems.total += getattr(problems, "total", len(problems)) - len(problems)


def _checkpoint(
    kind: CheckpointKind,
    part: CheckpointPart,
    span: tuple[int, int],
    *,
    rows: int,
    problems: int,
    seconds: float,
    heads: dict[str, tuple[int, str]] | None = None,
) -> VerificationCheckpoint:
    """An unsaved checkpoint (saved with the check, after the read-only snapshot)."""
    return VerificationCheckpoint(
        kind=kind,
        part=part,
        first_id=span[0],
        last_id=span[1],
        rows=rows,
        problems=problems,
        ok=problems == 0,
        seconds=round(seconds, 3),
        heads=_heads_json(heads) if heads is not None else {},
    )


def _store(
    found: _Found, *, started: dt.datetime, source: CheckSource | str, by: User | AnonymousUser | None
) -> IntegrityCheck:
    """Store the check (capped problems), its checkpoints, and publish the heads it saw, signed."""
    guards = check_database_guards()
    anchor = sign_heads_of(found.heads, context="integrity check", at=started)
    with transaction.atomic():
        for checkpoint in found.checkpoints:
            checkpoint.save()
        check = IntegrityCheck.objects.create(
            started_at=started,
            finished_at=timezone.now(),
            source=CheckSource(source),
            scope=IntegrityScope.LEDGER,
            triggered_by=by if by is not None and by.is_authenticated else None,
            ok=found.problems.total == 0 and guards.ok,
            transactions=found.transactions,
            entries=found.entries,
            accounts=found.accounts,
            chains=found.chains,
            problems=_stored_problems(found.problems, found.problems.total),
            guards=to_jsonable(guards),
            anchors=anchor,
            software_version=software_version(),
        )
        transaction.on_commit(lambda: anchors.publish(anchor))
    if not check.ok:
        alert_failed_check(check)
    return check


def alert_failed_check(check: IntegrityCheck) -> None:
    """Tell the room's watchers (``casino.core.alerts``) that the stored ``check`` failed: how many
    problems, the first few, or that the database's guards failed when the rows had none. Called once
    the check is stored; never raises."""
    total = problem_total(check)
    found = (
        f"{total} problem(s) in the rows"
        if total
        else "the database's guards failed (the rows had no problem)"
    )
    messages = [
        str(problem.get("message", "")) for problem in check.problems[:10] if isinstance(problem, dict)
    ]
    detail = "\n".join(
        [
            f"Integrity check #{check.pk} ({check.source}, started {check.started_at.isoformat()}) "
            f"failed: {found}.",
            *(f"- {message}" for message in messages),
            "See the integrity page, or run manage.py verify_ledger.",
        ]
    )
    alert(subject=f"Integrity check #{check.pk} failed", detail=detail, source="integrity check")


def sign_heads_of(heads: dict[str, tuple[int, str]], *, context: str, at: dt.datetime) -> dict[str, Any]:
    """``heads`` (chain -> ``(sequence, hash)``) as a signed anchor document."""
    return anchors.sign(
        (anchors.Head(chain, sequence, head_hash) for chain, (sequence, head_hash) in heads.items()),
        context=context,
        at=at,
    )


def run_full_check(
    *, source: CheckSource | str = CheckSource.MANUAL, by: User | AnonymousUser | None = None
) -> IntegrityCheck:
    """Verify every row (the ledger, the hands, the stored anchors: ``backoffice.books``'s checks) and
    the database's guards, in one snapshot, and store it as an ``IntegrityCheck`` (the first
    ``MAX_PROBLEMS`` problems and a line counting the rest) with ``full`` checkpoints. For the
    worker (``backoffice.tasks.verify_ledger_full``), never a request: it reads everything."""
    started = timezone.now()
    found = _Found()
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            _snapshot()
        top_txn, top_hand = _max_id(JournalTransaction), _max_id(Hand)
        t0 = time.perf_counter()
        ledger = verify_ledger()
        found.add_ledger(ledger)
        found.heads = ledger.heads
        found.checkpoints.append(
            _checkpoint(
                CheckpointKind.LEDGER,
                CheckpointPart.FULL,
                (1, top_txn),
                rows=ledger.transactions,
                problems=ledger.problem_count,
                seconds=time.perf_counter() - t0,
                heads=ledger.heads,
            )
        )
        t0 = time.perf_counter()
        hands, hand_problems = check_hands()
        found.add_hands(hand_problems)
        found.checkpoints.append(
            _checkpoint(
                CheckpointKind.HANDS,
                CheckpointPart.FULL,
                (1, top_hand),
                rows=hands,
                problems=getattr(hand_problems, "total", len(hand_problems)),
                seconds=time.perf_counter() - t0,
            )
        )
        found.add_hands(compare(stored_documents()).problems)
    return _store(found, started=started, source=source, by=by)


def run_nightly_check(
    *, day: dt.date | None = None, source: CheckSource | str = CheckSource.NIGHTLY
) -> IntegrityCheck:
    """The nightly check, which costs what the day cost: in one snapshot, the journal rows and the
    hands since the last checkpoint (the first night, or after none: all of them), plus the ``day``'s
    seventh of the older ones (``rotation_slice``) with a seventh of the accounts re-added in full,
    and the anchors stored lately plus a seventh of the older ones; stored as an ``IntegrityCheck``
    with a checkpoint per part. ``manage.py verify_ledger`` (and ``run_full_check``) still checks all."""
    started = timezone.now()
    day = day or timezone.localdate(started)
    found = _Found()
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            _snapshot()
        _nightly_ledger(found, day)
        _nightly_hands(found, day)
        documents = stored_documents()
        recent = len(documents) - ROTATION_PARTS * 2  # the last few: a week's closes and checks
        part = day.toordinal() % ROTATION_PARTS
        chosen = [doc for i, doc in enumerate(documents) if i >= recent or i % ROTATION_PARTS == part]
        found.add_hands(compare(chosen).problems)
    return _store(found, started=started, source=source, by=None)


def _latest(kind: CheckpointKind) -> VerificationCheckpoint | None:
    return (
        VerificationCheckpoint.objects.filter(kind=kind, part__in=[CheckpointPart.SINCE, CheckpointPart.FULL])
        .order_by("-pk")  # the newest: append-only, so the last written
        .first()
    )


def _nightly_ledger(found: _Found, day: dt.date) -> None:
    previous, top = _latest(CheckpointKind.LEDGER), _max_id(JournalTransaction)
    t0 = time.perf_counter()
    if previous is None:
        report, part, span = verify_ledger(), CheckpointPart.FULL, (1, top)
    else:
        span = (previous.last_id + 1, max(top, previous.last_id))
        report = verify_ledger_range(first_id=span[0], last_id=span[1], heads=previous.heads)
        part = CheckpointPart.SINCE
    found.add_ledger(report)
    found.heads = report.heads
    found.checkpoints.append(
        _checkpoint(
            CheckpointKind.LEDGER,
            part,
            span,
            rows=report.transactions,
            problems=report.problem_count,
            seconds=time.perf_counter() - t0,
            heads=report.heads,
        )
    )
    older = rotation_slice(previous.last_id, day, first_id=_min_id(JournalTransaction)) if previous else None
    if older is None:
        return
    t0 = time.perf_counter()
    accounts = rotation_slice(_max_id(Account), day, first_id=_min_id(Account)) or (1, 0)
    rotation = verify_ledger_range(first_id=older[0], last_id=older[1], accounts=accounts)
    found.add_ledger(rotation)
    found.checkpoints.append(
        _checkpoint(
            CheckpointKind.LEDGER,
            CheckpointPart.ROTATION,
            older,
            rows=rotation.transactions,
            problems=rotation.problem_count,
            seconds=time.perf_counter() - t0,
        )
    )


def _nightly_hands(found: _Found, day: dt.date) -> None:
    previous, top = _latest(CheckpointKind.HANDS), _max_id(Hand)
    first = previous.last_id + 1 if previous is not None else 1
    parts = [(CheckpointPart.SINCE if previous else CheckpointPart.FULL, (first, max(top, first - 1)))]
    older = rotation_slice(previous.last_id, day, first_id=_min_id(Hand)) if previous is not None else None
    if older is not None:
        parts.append((CheckpointPart.ROTATION, older))
    for part, span in parts:
        t0 = time.perf_counter()
        hands, problems = check_hands(first_id=span[0], last_id=span[1])
        found.add_hands(problems)
        found.checkpoints.append(
            _checkpoint(
                CheckpointKind.HANDS,
                part,
                span,
                rows=hands,
                problems=getattr(problems, "total", len(problems)),
                seconds=time.perf_counter() - t0,
            )
        )
