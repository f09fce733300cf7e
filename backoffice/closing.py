"""Closing shifts and storing integrity checks: the services behind the Celery jobs (and the pages).

* ``close_shift``: freeze a shift's collection report (all tables) with its checksums and the
  ledger's chain heads, signed (``ledger.anchors``), as a ``ShiftClose`` whose sealed record is the
  report's CSV export (a zip of one CSV per table, the anchor two of them), returned as
  :class:`Closed`; closing a shift twice returns the first close (``replayed``).
* ``close_ended_shifts``: close every shift that has ended and isn't closed yet, from the last
  close (or the first hand) on; the periodic job.
* ``run_integrity_check``: ``backoffice.books.verify_books()`` plus the database-guard check,
  stored as an ``IntegrityCheck`` with the chain heads it saw, signed (the nightly job);
  ``ledger.selectors.latest_integrity_failure()`` reads it.

Each signed anchor is also appended to ``LEDGER_ANCHOR_DIR`` when that is set
(``ledger.anchors.publish``), once its record is stored.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Min
from django.utils import timezone

from backoffice.books import verify_books
from backoffice.exports import anchor_sections, with_download_sha
from backoffice.reports.collection import CollectionReport, build_collection_report
from backoffice.reports.common import ReportFilters, content_sha256, to_jsonable
from backoffice.reports.integrity import check_database_guards, sign_heads
from casino.core.version import software_version
from ledger import anchors
from ledger.errors import RecordConflict
from ledger.hashing import sha256_hex
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope, JournalTransaction, ShiftClose
from ledger.shifts import SHIFT_STARTS, Shift
from tables.models import Hand

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MAX_CLOSES_PER_RUN = 200
"""``close_ended_shifts`` closes at most this many shifts a run (the next run goes on)."""


def _snapshot_report(
    shift: Shift, *, at: dt.datetime
) -> tuple[CollectionReport, bytes, int | None, dict[str, Any]]:
    """The shift's collection report (its ``meta.export_sha256`` the sealed zip's), the sealed zip
    (its CSV export with the signed anchor as two more tables), the last transaction id and the
    ledger's chain heads signed as an anchor at ``at``, read in one snapshot (REPEATABLE READ, READ
    ONLY on PostgreSQL when not nested in a caller's transaction)."""
    filters = ReportFilters.for_shift(shift)
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        anchor = anchors.sign(anchors.current_heads(), context=f"shift close {shift}", at=at)
        report, data = with_download_sha(
            build_collection_report(filters), extra_sections=anchor_sections(anchor)
        )
        last = JournalTransaction.objects.aggregate(last=Max("pk"))["last"]
    return report, data, last, anchor


@dataclasses.dataclass(frozen=True, slots=True)
class Closed:
    """What :func:`close_shift` returns: the shift's ``close``, and whether an earlier call had made
    it (``replayed``: this call stored nothing), so an API can answer 200 instead of 201."""

    close: ShiftClose
    replayed: bool


def close_shift(
    *, shift: Shift, by: User | AnonymousUser | None = None, now: dt.datetime | None = None
) -> Closed:
    """Close ``shift``: freeze its collection report (``report``, ``report_sha256`` over its data)
    and seal its CSV export, a zip of one CSV per table (``export_zip``, ``export_sha256`` the
    sha256 of its bytes), with the ledger's chain heads at the close, signed (``anchors``, also the
    zip's last two files). Idempotent: if the shift is closed already, the first close is returned
    with ``replayed=True`` (also under a race: the unique constraint decides). Raises
    ``RecordConflict`` (``shift_not_ended``) for a shift still running or to come. The anchor is
    published (``ledger.anchors.publish``) once the close is committed."""
    existing = ShiftClose.objects.filter(shift_date=shift.business_date, shift_code=shift.code.value).first()
    if existing is not None:
        return Closed(existing, replayed=True)
    _, end = shift.bounds()
    if end > (now or timezone.now()):
        raise RecordConflict(f"shift {shift} has not ended yet", code="shift_not_ended")
    closed_at = timezone.now()
    report, data, last, anchor = _snapshot_report(shift, at=closed_at)
    user = by if by is not None and by.is_authenticated else None
    try:
        with transaction.atomic():
            close = ShiftClose.objects.create(
                shift_date=shift.business_date,
                shift_code=shift.code.value,
                closed_by=user,
                report=to_jsonable(report),
                report_sha256=content_sha256(report),
                export_csv="",
                export_zip=data,
                export_sha256=sha256_hex(data),
                software_version=software_version(),
                last_transaction_id=last,
                closed_at=closed_at,
                anchors=anchor,
            )
    except IntegrityError:
        first = ShiftClose.objects.get(shift_date=shift.business_date, shift_code=shift.code.value)
        return Closed(first, replayed=True)
    transaction.on_commit(lambda: anchors.publish(anchor))
    return Closed(close, replayed=False)


def ended_unclosed_shifts(*, now: dt.datetime | None = None, limit: int = MAX_CLOSES_PER_RUN) -> list[Shift]:
    """Shifts that have ended and are not closed, oldest first, from the shift after the latest
    close (or the first hand's shift) to the last ended shift; at most ``limit``."""
    now = now or timezone.now()
    latest = ShiftClose.objects.order_by("-shift_date", "-pk").values_list("shift_date", flat=True).first()
    if latest is not None:
        start_day = latest
    else:
        first_hand = Hand.objects.aggregate(first=Min("created_at"))["first"]
        if first_hand is None:
            return []
        start_day = Shift.at(first_hand).business_date
    shifts: list[Shift] = []
    day = start_day
    today = Shift.at(now).business_date
    while day <= today and len(shifts) < limit:
        for _, code in SHIFT_STARTS:
            shift = Shift(business_date=day, code=code)
            if shift.bounds()[1] <= now:
                shifts.append(shift)
        day += dt.timedelta(days=1)
    closed = set(ShiftClose.objects.filter(shift_date__gte=start_day).values_list("shift_date", "shift_code"))
    return [s for s in shifts if (s.business_date, s.code.value) not in closed][:limit]


def close_ended_shifts(
    *, now: dt.datetime | None = None, limit: int = MAX_CLOSES_PER_RUN
) -> list[ShiftClose]:
    """Close every ended, unclosed shift (``ended_unclosed_shifts``); returns the closes made or found."""
    return [close_shift(shift=shift, now=now).close for shift in ended_unclosed_shifts(now=now, limit=limit)]


def run_integrity_check(
    *, source: CheckSource | str = CheckSource.NIGHTLY, by: User | AnonymousUser | None = None
) -> IntegrityCheck:
    """Verify the books (``verify_books``: the ledger, the anchors stored so far, the hands) and the
    database's guards now and store the result (``ok`` False on any problem, missing trigger or edit
    the database let through), with the chain heads it saw, signed (``anchors``)."""
    started = timezone.now()
    books = verify_books()
    guards = check_database_guards()
    anchor = sign_heads(books, context="integrity check", at=started)
    check = IntegrityCheck.objects.create(
        started_at=started,
        finished_at=timezone.now(),
        source=CheckSource(source),
        scope=IntegrityScope.LEDGER,
        triggered_by=by if by is not None and by.is_authenticated else None,
        ok=books.ok and guards.ok,
        transactions=books.ledger.transactions,
        entries=books.ledger.entries,
        accounts=books.ledger.accounts,
        chains=books.ledger.chains,
        problems=[dataclasses.asdict(problem) for problem in books.problems],
        guards=to_jsonable(guards),
        anchors=anchor,
        software_version=software_version(),
    )
    transaction.on_commit(lambda: anchors.publish(anchor))
    return check


def frozen_matches_live(close: ShiftClose) -> bool:
    """Whether the shift's collection report built now has the same data digest as the frozen one
    (False: the ledger or the floor changed for that shift after it was closed)."""
    live = build_collection_report(ReportFilters.for_shift(close.shift))
    return content_sha256(live) == close.report_sha256
