"""What every report shares: its filters, its header (meta), the schedule rates, JSON conversion.

Reports are built from the ledger's rows and the floor's models with aggregate queries
(``values()``/``annotate()``); Python only walks the (small) grouped results, or the rows of one
page. Every builder returns plain frozen dataclasses; ``to_jsonable()`` turns them into JSON-native
values for the API, the frozen shift reports and the checksums.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection, transaction
from django.db.models import (
    BigIntegerField,
    Case,
    CharField,
    Expression,
    F,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import ExtractHour, TruncDate
from django.db.models.lookups import GreaterThanOrEqual, LessThan
from django.utils import timezone

from backoffice.reports import time_limit
from casino.core.errors import DomainError
from casino.core.version import software_version
from casino.core.versions import CHRONOLOGICAL_ORDERING, periods, version_in_force
from ledger.hashing import canonical_json, sha256_hex
from ledger.shifts import SHIFT_STARTS, Shift, ShiftCode, local_midnight, room_zone, shift_hours
from tables.models import CollectionRate, CollectionScheduleVersion, Stakes
from tables.selectors import applicable_rates

MAX_PERIOD_DAYS = 366 * 50
"""Longest period a filter accepts (a sanity bound, far beyond any card room's history)."""

MAX_OFFSET = 2**53
"""Largest ``offset`` or ``limit`` a paged report accepts (far past any row count, well within the
64-bit integer a database takes; the reports cap ``limit`` at their own page size)."""

MAX_TABLE_NUMBER = 32_767
"""Largest table number (the column is a small integer): a larger one names no table."""

MAX_THRESHOLD_BP = 1_000_000
"""Largest variance threshold a drop-variance filter takes, in basis points (10,000 times the drop)."""

MAX_WHOLE_NUMBER = 2**63 - 1
"""Largest number any filter takes (a 64-bit column)."""

#: ASCII digits only: ``int()`` also reads "٣" (Arabic-Indic three), "²" and "1_000", and a run
#: of twenty of them is a number no database column holds.
_ASCII_WHOLE = re.compile(r"[0-9]+")


class ReportFilterError(DomainError, ValueError):
    """A filter value that can't be used (400); ``errors`` maps each bad field to a message, and the
    API's body carries them: ``{"code", "detail", "errors"}``."""

    code = "invalid_filter"
    status = 400

    def __init__(self, errors: Mapping[str, str]) -> None:
        errors = dict(errors)
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "errors": self.errors}


@dataclasses.dataclass(frozen=True, slots=True)
class ReportFilters:
    """A report's period and scope: business dates ``date_from``..``date_to`` (inclusive, on the
    room's clock), optionally one ``shift`` of each of those dates, optionally some tables (by
    number; empty means every table). Any period back to the first hand is allowed."""

    date_from: dt.date
    date_to: dt.date
    shift: ShiftCode | None = None
    tables: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        if self.date_to < self.date_from:
            errors["date_to"] = "must be on or after date_from"
        elif (self.date_to - self.date_from).days > MAX_PERIOD_DAYS:
            errors["date_to"] = f"the period is longer than {MAX_PERIOD_DAYS} days"
        if self.shift is not None:
            object.__setattr__(self, "shift", ShiftCode(self.shift))
        object.__setattr__(self, "tables", tuple(sorted(set(self.tables))))
        if any(number < 1 for number in self.tables):
            errors["table"] = "table numbers are positive"
        if errors:
            raise ReportFilterError(errors)

    @classmethod
    def for_shift(cls, shift: Shift, *, tables: Sequence[int] = ()) -> ReportFilters:
        return cls(
            date_from=shift.business_date, date_to=shift.business_date, shift=shift.code, tables=tuple(tables)
        )

    @classmethod
    def today(cls) -> ReportFilters:
        day = timezone.localtime(timezone.now(), room_zone()).date()
        return cls(date_from=day, date_to=day)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], *, default_days: int = 1) -> ReportFilters:
        """Read ``date_from``, ``date_to`` (ISO dates), ``shift`` (grave/day/swing or a full
        ``YYYY-MM-DD/code`` key) and ``table`` (one number, repeated, or comma-separated) from query
        parameters. Missing dates: the last ``default_days`` business dates up to today.
        Raises ``ReportFilterError`` naming each bad field."""
        errors: dict[str, str] = {}
        today = timezone.localtime(timezone.now(), room_zone()).date()

        def date_param(name: str) -> dt.date | None:
            raw = _first(params, name)
            if raw in (None, ""):
                return None
            try:
                if not str(raw).isascii():  # fromisoformat reads other scripts' digits too
                    raise ValueError(raw)
                return dt.date.fromisoformat(str(raw).strip())
            except ValueError:
                errors[name] = f"{raw!r} is not a date (YYYY-MM-DD)"
                return None

        date_from, date_to = date_param("date_from"), date_param("date_to")
        shift: ShiftCode | None = None
        raw_shift = (_first(params, "shift") or "").strip().lower()
        if raw_shift:
            if "/" in raw_shift:
                try:
                    key = Shift.parse(raw_shift)
                except ValueError as exc:
                    errors["shift"] = str(exc)
                else:
                    date_from = date_to = key.business_date
                    shift = key.code
            else:
                try:
                    shift = ShiftCode(raw_shift)
                except ValueError:
                    errors["shift"] = f"{raw_shift!r} is not a shift ({', '.join(ShiftCode.values)})"
        tables: list[int] = []
        for raw in _all(params, "table"):
            for part in str(raw).replace(" ", ",").split(","):
                if not part:
                    continue
                try:
                    tables.append(parse_whole(part, "table", minimum=1, maximum=MAX_TABLE_NUMBER))
                except ReportFilterError:
                    errors["table"] = f"{_shown(part)} is not a table number"
        if errors:
            raise ReportFilterError(errors)
        if date_to is None:
            date_to = date_from if date_from is not None else today
        if date_from is None:
            date_from = date_to - dt.timedelta(days=max(default_days, 1) - 1)
        return cls(date_from=date_from, date_to=date_to, shift=shift, tables=tuple(tables))

    # --- The period as times ----------------------------------------------------------------------

    @property
    def start(self) -> dt.datetime:
        """Aware start of the period: midnight of ``date_from`` on the room's clock."""
        return local_midnight(self.date_from)

    @property
    def end(self) -> dt.datetime:
        """Aware end (exclusive): midnight after ``date_to``."""
        return local_midnight(self.date_to + dt.timedelta(days=1))

    @property
    def single_shift(self) -> Shift | None:
        """The one shift the filters cover, if they cover exactly one."""
        if self.shift is not None and self.date_from == self.date_to:
            return Shift(business_date=self.date_from, code=self.shift)
        return None

    def shifts(self) -> list[Shift]:
        """Every shift the filters cover, in order."""
        codes = [self.shift] if self.shift else [code for _, code in SHIFT_STARTS]
        days = (self.date_to - self.date_from).days + 1
        return [
            Shift(business_date=self.date_from + dt.timedelta(days=offset), code=code)
            for offset in range(days)
            for code in codes
        ]

    # --- Applying the filters to querysets --------------------------------------------------------

    def on_time(
        self, queryset: QuerySet[Any], field: str, *, table_field: str | None = None
    ) -> QuerySet[Any]:
        """Keep the rows whose ``field`` (an aware datetime) falls in the period (and the shift's
        hours), and, with ``table_field``, at the chosen tables."""
        queryset = queryset.filter(**{f"{field}__gte": self.start, f"{field}__lt": self.end})
        if self.shift is not None:
            first, end = shift_hours(self.shift)
            hour = ExtractHour(field, tzinfo=room_zone())
            queryset = queryset.filter(GreaterThanOrEqual(hour, first), LessThan(hour, end))
        if table_field is not None and self.tables:
            queryset = queryset.filter(**{f"{table_field}__number__in": self.tables})
        return queryset

    def on_shift_key(
        self, queryset: QuerySet[Any], *, date_field: str, code_field: str, table_field: str | None = None
    ) -> QuerySet[Any]:
        """Keep the rows booked under one of the period's shift keys (house accounts, drop counts)."""
        queryset = queryset.filter(
            **{f"{date_field}__gte": self.date_from, f"{date_field}__lte": self.date_to}
        )
        if self.shift is not None:
            queryset = queryset.filter(**{code_field: self.shift.value})
        if table_field is not None and self.tables:
            queryset = queryset.filter(**{f"{table_field}__number__in": self.tables})
        return queryset

    def as_dict(self) -> dict[str, Any]:
        return {
            "date_from": self.date_from.isoformat(),
            "date_to": self.date_to.isoformat(),
            "shift": self.shift.value if self.shift else None,
            "tables": list(self.tables),
        }

    def as_params(self) -> dict[str, str]:
        """Query parameters that ``from_params`` reads back to these filters."""
        params = {"date_from": self.date_from.isoformat(), "date_to": self.date_to.isoformat()}
        if self.shift:
            params["shift"] = self.shift.value
        if self.tables:
            params["table"] = ",".join(str(n) for n in self.tables)
        return params

    def describe(self) -> str:
        """``2030-01-02 to 2030-01-03, day shift, tables 1, 4`` for report headers."""
        period = (
            self.date_from.isoformat()
            if self.date_from == self.date_to
            else f"{self.date_from.isoformat()} to {self.date_to.isoformat()}"
        )
        parts = [period, f"{self.shift.value} shift" if self.shift else "all shifts"]
        parts.append("tables " + ", ".join(map(str, self.tables)) if self.tables else "all tables")
        return ", ".join(parts)


def parse_whole(raw: object, name: str, *, minimum: int = 0, maximum: int = MAX_WHOLE_NUMBER) -> int:
    """``raw`` (a query parameter) as a whole number from ``minimum`` to ``maximum``: the one
    reading of a number in a report's filters or paging, for the pages and the API alike.

    ASCII digits only (surrounding spaces allowed); anything else, or a number out of range,
    raises :class:`ReportFilterError` naming ``name`` (a 400: the API's documented body, the
    page's filter form with the error)."""
    text = str(raw).strip()
    if not _ASCII_WHOLE.fullmatch(text):
        raise ReportFilterError({name: f"{_shown(text)} is not a whole number (digits 0-9)"})
    # Compared as text first: a 5,000-digit number is refused without making it an int.
    if len(text.lstrip("0")) > len(str(maximum)) or not minimum <= int(text) <= maximum:
        raise ReportFilterError({name: f"must be from {minimum:,} to {maximum:,}"})
    return int(text)


def paging_param(params: Mapping[str, Any], name: str, default: int) -> int:
    """``offset`` or ``limit`` of a paged report from ``params`` (missing or empty: ``default``),
    0 to :data:`MAX_OFFSET`; see :func:`parse_whole`."""
    raw = _first(params, name)
    if raw is None or not raw.strip():
        return default
    return parse_whole(raw, name, maximum=MAX_OFFSET)


def _shown(text: str) -> str:
    """A refused value as a message shows it: quoted, at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _first(params: Mapping[str, Any], name: str) -> str | None:
    values = _all(params, name)
    return str(values[0]) if values else None


def _all(params: Mapping[str, Any], name: str) -> list[Any]:
    getlist = getattr(params, "getlist", None)
    if getlist is not None:
        return list(getlist(name))
    value = params.get(name)
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def local_date(field: str) -> TruncDate:
    """SQL: the business date of ``field`` on the room's clock."""
    return TruncDate(field, tzinfo=room_zone())


def shift_code_of(field: str) -> Case:
    """SQL: the shift code (``grave``/``day``/``swing``) of ``field`` on the room's clock."""
    hour = ExtractHour(field, tzinfo=room_zone())
    whens = []
    for code in ShiftCode:
        first, end = shift_hours(code)
        whens.append(When(GreaterThanOrEqual(hour, first) & LessThan(hour, end), then=Value(code.value)))
    return Case(*whens, default=Value(""), output_field=CharField())


@contextmanager
def report_snapshot() -> Iterator[None]:
    """Run a report's queries in one snapshot. On PostgreSQL: one transaction, REPEATABLE READ and
    READ ONLY when it is the outermost one (so the figures of every query agree with each other
    while postings go on), and JIT compilation off for it (``SET LOCAL jit = off``: compiling these
    sub-second aggregates took longer than running them; see docs/reports.md). On SQLite nothing is
    opened (a transaction there would hold every posting back while the report runs).

    Inside a :func:`backoffice.reports.time_limit.time_limit` block (a report built in a request)
    the report is held to the limit: ``SET LOCAL statement_timeout`` on PostgreSQL, no statement
    started past it on any database, and :class:`~backoffice.reports.time_limit.ReportTimedOut`
    (503) when it is reached."""
    with time_limit.enforced() as limit:
        if connection.vendor != "postgresql":
            with time_limit.guarded(connection, limit):
                yield
            return
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            previous = None
            with connection.cursor() as cursor:
                if outermost:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                cursor.execute("SET LOCAL jit = off")
                if limit is not None:
                    if not outermost:  # the settings outlive this block's savepoint: put back after
                        cursor.execute(
                            "SELECT current_setting('statement_timeout'),"
                            " current_setting('max_parallel_workers_per_gather')"
                        )
                        previous = cursor.fetchone()
                    cursor.execute("SELECT set_config('statement_timeout', %s, true)", [f"{limit}ms"])
                    # One CPU a report built in a request: PostgreSQL's parallel workers would take
                    # the CPU the terminals need (docs/decisions.md, "Reports can't starve ...").
                    cursor.execute("SELECT set_config('max_parallel_workers_per_gather', '0', true)")
            with time_limit.guarded(connection, limit):
                yield
            if previous is not None:
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, true),"
                        " set_config('max_parallel_workers_per_gather', %s, true)",
                        list(previous),
                    )


def in_report_snapshot[**P, R](build: Callable[P, R]) -> Callable[P, R]:
    """Decorator: run a report builder inside ``report_snapshot()``."""

    @functools.wraps(build)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with report_snapshot():
            return build(*args, **kwargs)

    return wrapper


# --- The report header -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ReportMeta:
    """What every report shows at its head: its filters, when it was made, the software's version,
    and the sha256 of its CSV export (set once the export is built; see ``backoffice.exports``)."""

    kind: str
    title: str
    filters: dict[str, Any]
    filters_text: str
    generated_at: dt.datetime
    software_version: str
    export_sha256: str = ""


def make_meta(kind: str, title: str, filters: ReportFilters | None, **extra: Any) -> ReportMeta:
    described = filters.describe() if filters is not None else ""
    values = filters.as_dict() if filters is not None else {}
    values.update(extra)
    if extra:
        described = ", ".join([described, *(f"{key} {value}" for key, value in extra.items())]).strip(", ")
    return ReportMeta(
        kind=kind,
        title=title,
        filters=values,
        filters_text=described,
        generated_at=timezone.now(),
        software_version=software_version(),
    )


# --- Collection rates, looked up in memory -------------------------------------------------------


class RateBook:
    """Every collection schedule version and its rates, loaded once, so that the fee of many hands
    is priced without a query per hand. Same rule as ``tables.selectors.rate_for`` and
    ``CollectionSchedule.version_at``, from the same place (:mod:`casino.core.versions`): the
    version in force at the hand's start (latest ``effective_from <= created_at``), then the first
    of its rates (in id order) that covers the hand's stakes and number of players."""

    def __init__(self, schedule_ids: Iterable[int] | None = None) -> None:
        versions = CollectionScheduleVersion.objects.order_by("schedule_id", *CHRONOLOGICAL_ORDERING, "pk")
        if schedule_ids is not None:
            versions = versions.filter(schedule_id__in=list(schedule_ids))
        self._by_schedule: dict[int, list[CollectionScheduleVersion]] = {}
        self._versions: dict[int, CollectionScheduleVersion] = {}
        for version in versions.prefetch_related("rates"):
            self._by_schedule.setdefault(version.schedule_id, []).append(version)
            self._versions[version.pk] = version
        self._stakes: dict[int, Stakes] = {}
        self._rates: dict[tuple[int, int, int], CollectionRate | None] = {}

    def version_at(self, schedule_id: int, at: dt.datetime) -> CollectionScheduleVersion | None:
        return version_in_force(self._by_schedule.get(schedule_id, []), at)

    def version_case(
        self, field: str = "created_at", schedule_field: str = "collection_schedule_id"
    ) -> Expression:
        """SQL: the id of the version in force at ``field`` for the row's schedule (NULL: none yet)."""
        whens = []
        for schedule_id, versions in self._by_schedule.items():
            for version, start, end in periods(versions):
                condition = Q(**{schedule_field: schedule_id, f"{field}__gte": start})
                if end is not None:
                    condition &= Q(**{f"{field}__lt": end})
                whens.append(When(condition, then=Value(version.pk)))
        if not whens:
            return Value(None, output_field=BigIntegerField())
        return Case(*whens, default=Value(None), output_field=BigIntegerField())

    def load_stakes(self, stakes_ids: Iterable[int]) -> None:
        missing = set(stakes_ids) - set(self._stakes)
        if missing:
            self._stakes.update(Stakes.objects.in_bulk(missing))

    def rate(self, version_id: int | None, stakes_id: int, players: int) -> CollectionRate | None:
        """The rate of version ``version_id`` for a hand of ``players`` at stakes ``stakes_id``."""
        if version_id is None:
            return None
        key = (version_id, stakes_id, players)
        if key not in self._rates:
            self.load_stakes([stakes_id])
            version = self._versions.get(version_id)
            found = None
            if version is not None and stakes_id in self._stakes:
                for rate in applicable_rates(version.rates.all(), self._stakes[stakes_id]):
                    if rate.covers_players(players):
                        found = rate
                        break
            self._rates[key] = found
        return self._rates[key]

    def fees_due(self, version_id: int | None, stakes_id: int, players: int) -> list[int] | None:
        """What each position owed (index 0 is the button), or None when no rate applied."""
        rate = self.rate(version_id, stakes_id, players)
        return None if rate is None else rate.fees_by_position(players)

    def rate_label(self, version_id: int | None, stakes_id: int, players: int) -> str:
        rate = self.rate(version_id, stakes_id, players)
        return "" if rate is None else rate.fee_label


# --- JSON ------------------------------------------------------------------------------------------


def to_jsonable(value: Any) -> Any:
    """Dataclasses, dates, times and enums as JSON-native values (times in UTC ISO-8601)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: to_jsonable(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(item) for item in value]
    return value


def content_sha256(report: Any) -> str:
    """sha256 of a report's data: every field but its ``meta`` (so the same figures under the same
    filters give the same digest whenever and by whichever version they are made), plus the
    filters. A report may leave out more (annotations that change after the fact, such as whether a
    shift has been closed since) by naming them in ``digest_excludes`` (``{field: {subfield}}``)."""
    data = to_jsonable(report)
    meta = data.pop("meta", {}) or {}
    data["filters"] = meta.get("filters")
    for field, subfields in getattr(type(report), "digest_excludes", {}).items():
        items = data.get(field)
        for item in items if isinstance(items, list) else [items]:
            if isinstance(item, dict):
                for name in subfields:
                    item.pop(name, None)
    return sha256_hex(canonical_json(data))


def local_time(moment: dt.datetime | None) -> dt.datetime | None:
    """``moment`` on the room's clock (for display)."""
    return None if moment is None else timezone.localtime(moment, room_zone())


def fmt_local(moment: dt.datetime | None) -> str:
    """``2030-01-02 14:05:09`` on the room's clock (CSV, PDF)."""
    local = local_time(moment)
    return "" if local is None else local.strftime("%Y-%m-%d %H:%M:%S")


__all__ = [
    "F",
    "RateBook",
    "ReportFilterError",
    "ReportFilters",
    "ReportMeta",
    "content_sha256",
    "fmt_local",
    "local_date",
    "local_time",
    "make_meta",
    "shift_code_of",
    "to_jsonable",
]
