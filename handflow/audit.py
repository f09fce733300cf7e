"""The replay audit: every settled hand of a period re-decided from its stored input, and compared
with what was recorded and posted for it.

For each settled hand with a settled reading (:class:`tables.models.HandResult`) whose start
(``Hand.created_at``) falls in the period, four things are compared (:class:`ReplayCheck`):

* ``input_digest``: the sha256 of the stored ``engine_input`` (:func:`handflow.keys.digest_of`,
  the function the showdown used) against the stored ``digest``: an input changed after the
  reading no longer matches;
* ``engine_result``: :func:`poker.showdown.decide` on the stored input against the stored
  ``engine_result`` (``engine_refused``: the engine now refuses that input);
* ``postings``: :func:`poker.postings.settlement_postings` (the function that turned the reading
  into ledger lines at the showdown) on the re-decided reading against the stored ``postings``;
* ``ledger``: the stored ``postings`` against the entries of the hand's settlement transaction
  (``HandResult.settlement``), player by player, amount by amount, in posting order. The entries are
  :meth:`poker.postings.Postings.ledger_lines`, laid out as the ledger's ``award_pot`` and
  ``post_payments`` post them: pot games, each put-in as (player -x, pot +x), then each award and
  each return as (pot -x, player +x); Chinese and Taiwanese poker, each payment as (payer -x,
  payee +x); lines of zero are not posted, and a settlement that moves nothing has no transaction.

Any difference is a failed check naming the hand and where the values part.

:func:`replay_audit` reads the hands a chunk of ids at a time with plain SQL (readings, players,
settlement transactions and their entries, each table by its own index) and makes no model object
per row; on PostgreSQL the players and the entries come in arrays, a row per hand and per
transaction (a tenth of the rows to send and to read). With ``workers`` it splits the ids among
forked processes, each with its own connection (PostgreSQL): the parent closes its connections and
its connection pool before forking, so that no process talks on another's socket.
:func:`record_replay_check` stores an outcome as an :class:`ledger.models.IntegrityCheck` of scope
``replay`` (the nightly job ``handflow.tasks.replay_audit_nightly`` and ``manage.py replay_audit`` do).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import multiprocessing
import multiprocessing.util
import time
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db import connection, connections, models, transaction
from django.utils import timezone

from casino.core.version import software_version
from handflow.keys import digest_of
from ledger.models import (
    SETTLEMENT_KINDS,
    Account,
    AccountKind,
    CheckSource,
    Entry,
    IntegrityCheck,
    IntegrityScope,
    JournalTransaction,
)
from ledger.shifts import local_midnight
from poker.errors import ShowdownError
from poker.postings import Postings, first_line_difference, settlement_postings
from poker.reading import Reading
from poker.showdown import decide
from tables.models import (
    Hand,
    HandPlayer,
    HandResult,
    HandStatus,
    ReadingStatus,
    Seat,
    Table,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

CHUNK_HANDS = 4000
"""Hand ids read per chunk: three statements per chunk, a few megabytes of rows."""

MAX_DIFFERENCES = 1000
"""Differences kept (and stored) per audit; the count of all of them is kept too."""

POT = "pot"  # the hand's pot account, in a ledger line

Line = tuple[int | str, int]
"""An entry as the audit compares it: ``(player id or POT, cents)``."""


class ReplayCheck(models.TextChoices):
    """What a difference is about."""

    INPUT_DIGEST = "input_digest", "The stored input is not the input that was read (its digest differs)"
    ENGINE_REFUSED = "engine_refused", "The engine refuses the stored input"
    ENGINE_RESULT = "engine_result", "Re-deciding the stored input gives another result"
    POSTINGS = "postings", "The re-decided result gives other ledger lines than those stored"
    LEDGER = "ledger", "The settlement transaction's entries are not the stored ledger lines"


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayDifference:
    """One failed comparison of one hand (``check``: a :class:`ReplayCheck` value)."""

    hand_id: int
    table_number: int
    hand_number: int
    check: str
    detail: str

    @property
    def message(self) -> str:
        return f"Table {self.table_number} hand {self.hand_number} (id {self.hand_id}): {self.detail}"

    def as_problem(self) -> dict[str, Any]:
        """The difference as a stored problem (``IntegrityCheck.problems``), like the ledger's."""
        return {
            "code": f"replay_{self.check}",
            "message": self.message,
            "hand_id": self.hand_id,
            "table": self.table_number,
            "hand": self.hand_number,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """What an audit compared and every difference it found (at most ``MAX_DIFFERENCES`` kept;
    ``difference_count`` counts them all)."""

    date_from: dt.date
    date_to: dt.date
    started_at: dt.datetime
    finished_at: dt.datetime
    seconds: float
    hands: int
    transactions: int
    entries: int
    differences: tuple[ReplayDifference, ...]
    difference_count: int
    workers: int

    @property
    def ok(self) -> bool:
        return self.difference_count == 0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def period(self) -> str:
        first, last = self.date_from.isoformat(), self.date_to.isoformat()
        return first if first == last else f"{first} to {last}"

    def summary(self) -> str:
        """One line for people: the period, the hands and the speed, and what was found."""
        found = (
            "no difference"
            if self.ok
            else f"{self.difference_count} difference(s) in {len({d.hand_id for d in self.differences})}"
            f"{'+' if self.difference_count > len(self.differences) else ''} hand(s)"
        )
        return (
            f"Replay audit of {self.period}: {self.hands:,} settled hands re-decided, "
            f"{self.transactions:,} settlements and {self.entries:,} entries compared in "
            f"{self.seconds:.1f} s ({self.hands_per_second:,.0f} hands/s, {self.workers} process(es)): "
            f"{found}."
        )


# --- Comparing one hand -------------------------------------------------------------------------------


def _json_value(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value))


def _same(now: Any, stored: Any) -> bool:
    """Whether ``now`` reads back from JSON as ``stored``. The engine and the settlement answer in
    JSON's own types, so a plain comparison (fast) settles it; the round trip is for the rest."""
    return bool(now == stored) or _json_value(now) == stored


def first_difference(now: Any, stored: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``pots[0].awards[1].amount: 3300, stored 3200``), or
    None when they are equal."""
    if isinstance(now, dict) and isinstance(stored, dict):
        for key in sorted(set(now) | set(stored), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in stored:
                return f"{where}: {_short(now[key])}, not stored"
            if key not in now:
                return f"{where}: missing, stored {_short(stored[key])}"
            found = first_difference(now[key], stored[key], where)
            if found is not None:
                return found
        return None
    if isinstance(now, list) and isinstance(stored, list):
        for index, (a, b) in enumerate(zip(now, stored, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        if len(now) != len(stored):
            return f"{path or 'value'}: {len(now)} items, stored {len(stored)}"
        return None
    if now != stored or type(now) is not type(stored):
        return f"{path or 'value'}: {_short(now)}, stored {_short(stored)}"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def ledger_lines(postings: Postings) -> list[Line]:
    """The entries the settlement of ``postings`` posts, in order (:meth:`Postings.ledger_lines`),
    each as ``(player id or POT, cents)``."""
    return [(POT if line.player is None else line.player, line.amount) for line in postings.ledger_lines()]


class _Reading(NamedTuple):
    """One settled hand's stored reading, as read by the chunk's first statement (a tuple: a
    million of them are made)."""

    hand_id: int
    table_number: int
    hand_number: int
    digest: str
    engine_input: Any
    engine_result: Any
    postings: Any
    settlement_id: int | None


class _Settlement(NamedTuple):
    """The hand's settlement transaction as the ledger holds it."""

    hand_id: int | None
    kind: str
    lines: list[Line]


class _Auditor:
    """Compares hands; keeps what each account is in a ledger line between chunks."""

    def __init__(self) -> None:
        self._accounts: dict[int, int | str] = {}

    def accounts(self, cursor: Any, ids: set[int]) -> dict[int, int | str]:
        """What each account is in a ledger line: a player's chips (the player's id), a hand's pot
        (``"pot"``), or another kind (its name: no settlement posts there). Players' accounts are
        kept between chunks; pot accounts are one per hand and are not."""
        missing = [account_id for account_id in ids if account_id not in self._accounts]
        found: dict[int, int | str] = {}
        rows: list[tuple[int, str, int | None]] = []
        if connection.vendor == "postgresql" and missing:
            cursor.execute(
                f"SELECT id, kind, player_id FROM {_table(Account)} WHERE id = ANY(%s::bigint[])",
                [id_array(missing)],
            )
            rows = cursor.fetchall()
        else:
            for low in range(0, len(missing), 1000):
                part = missing[low : low + 1000]
                placeholders = ", ".join(["%s"] * len(part))
                cursor.execute(
                    f"SELECT id, kind, player_id FROM {_table(Account)} WHERE id IN ({placeholders})", part
                )
                rows += cursor.fetchall()
        for account_id, kind, player_id in rows:
            if kind == AccountKind.PLAYER_CHIPS and player_id is not None:
                self._accounts[account_id] = found[account_id] = player_id
            else:
                found[account_id] = POT if kind == AccountKind.HAND_POT else str(kind)
        return {account_id: self._accounts.get(account_id) or found[account_id] for account_id in ids}

    def recompute(
        self, reading: _Reading, players: Mapping[int, int]
    ) -> tuple[Any, Postings | None, list[ReplayDifference]]:
        """The stored input's digest checked, the input re-decided and its ledger lines made again
        (``players``: seat -> player id of the players dealt in): ``(result, postings,
        differences)`` (result or postings None when they can't be made)."""
        differences: list[ReplayDifference] = []
        differ = _differ(reading, differences)
        engine_input = reading.engine_input
        digest = digest_of(engine_input)
        if digest != reading.digest:
            differ(
                ReplayCheck.INPUT_DIGEST,
                f"the stored input's sha256 is {digest[:16]}..., the reading recorded "
                f"{reading.digest[:16]}...: the input was changed after the hand was read",
            )
        try:
            result = decide(engine_input)
        except ShowdownError as exc:
            differ(ReplayCheck.ENGINE_REFUSED, f"the engine refuses the stored input: {exc}")
            return None, None, differences
        try:
            postings = settlement_postings(
                Reading.from_json(result), engine_input=engine_input, player_of=players
            )
        except ShowdownError as exc:
            differ(ReplayCheck.POSTINGS, f"the re-decided result gives no ledger lines ({exc})")
            return result, None, differences
        return result, postings, differences

    def check(
        self, reading: _Reading, players: Mapping[int, int], settlement: _Settlement | None
    ) -> list[ReplayDifference]:
        """Every comparison of one hand, with its stored result and ledger lines at hand."""
        result, postings, differences = self.recompute(reading, players)
        differ = _differ(reading, differences)
        if result is not None and not _same(result, reading.engine_result):
            where = first_difference(_json_value(result), reading.engine_result) or "a value's type"
            differ(ReplayCheck.ENGINE_RESULT, f"re-decided, the result differs at {where}")
        stored: Postings | None = None
        if postings is not None:
            made = postings.to_json()
            if _same(made, reading.postings):
                stored = postings  # the stored lines are these: no need to read them back
            else:
                where = first_difference(_json_value(made), reading.postings) or "a value's type"
                differ(ReplayCheck.POSTINGS, f"the ledger lines of the re-decided result differ at {where}")
        if stored is None:
            try:
                stored = Postings.from_json(reading.postings)
            except ShowdownError as exc:
                differ(ReplayCheck.LEDGER, f"the stored ledger lines can't be read ({exc})")
                return differences
        self.check_ledger(reading, stored, settlement, differ)
        return differences

    def check_ledger(
        self, reading: _Reading, stored: Postings, settlement: _Settlement | None, differ: Any
    ) -> None:
        """The reading's stored ledger lines (``stored``, its ``postings``) against the settlement's
        entries."""
        expected = ledger_lines(stored)
        if settlement is None:
            if expected:
                differ(
                    ReplayCheck.LEDGER,
                    f"{len(expected)} ledger lines are stored but no settlement was posted",
                )
            return
        kind = SETTLEMENT_KINDS[stored.kind]
        if settlement.hand_id != reading.hand_id or settlement.kind != kind:
            differ(
                ReplayCheck.LEDGER,
                f"settlement transaction {reading.settlement_id} is a {settlement.kind} of hand "
                f"{settlement.hand_id}, not a {kind} of this hand",
            )
        if settlement.lines == expected:
            return
        difference = first_line_difference(expected, settlement.lines)
        if difference is None:
            return
        if difference.expected is not None and difference.found is not None:
            where = (
                f"entry {difference.line}: posted {_line_text(difference.found)}, "
                f"stored {_line_text(difference.expected)}"
            )
        else:
            where = f"{len(settlement.lines)} entries posted, {len(expected)} stored"
        differ(ReplayCheck.LEDGER, f"settlement transaction {reading.settlement_id} differs: {where}")


def _differ(reading: _Reading, differences: list[ReplayDifference]) -> Any:
    def differ(check: ReplayCheck, detail: str) -> None:
        differences.append(
            ReplayDifference(reading.hand_id, reading.table_number, reading.hand_number, check.value, detail)
        )

    return differ


def _line_text(line: Line) -> str:
    account, cents = line
    who = "the pot" if account == POT else f"player {account}"
    return f"{cents:+d} cents to {who}"


# --- Reading a chunk of hands ---------------------------------------------------------------------------


def _loads(value: Any) -> Any:
    """A JSON column's value from a plain cursor (text on SQLite and, with Django's loaders, on
    PostgreSQL; already decoded by other drivers)."""
    if isinstance(value, memoryview):
        value = value.tobytes()
    return json.loads(value) if isinstance(value, str | bytes | bytearray) else value


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@dataclasses.dataclass(frozen=True, slots=True)
class _Statements:
    """The chunk's statements. On PostgreSQL the players and the entries come a row per hand and
    per transaction, in arrays (``array_agg`` in their order): a tenth of the rows to send and to
    read; elsewhere a row each."""

    readings: str
    players: str
    transactions: str
    entries: str
    grouped: bool


def _statements() -> _Statements:
    hand, result, table = _table(Hand), _table(HandResult), _table(Table)
    grouped = connection.vendor == "postgresql"
    readings = (
        "SELECT h.id, t.number, h.number, r.digest, r.engine_input, r.engine_result, r.postings, "
        f"r.settlement_id FROM {hand} h JOIN {result} r ON r.hand_id = h.id "
        f"JOIN {table} t ON t.id = h.table_id "
        # The range on both ids: each index is then read from the chunk's first hand, not its own start.
        "WHERE h.id >= %s AND h.id <= %s AND r.hand_id >= %s AND r.hand_id <= %s "
        "AND h.status = %s AND r.status = %s "
        "AND h.created_at >= %s AND h.created_at < %s ORDER BY h.id"
    )
    players_from = (
        f"FROM {_table(HandPlayer)} hp JOIN {_table(Seat)} s ON s.id = hp.seat_id "
        "WHERE hp.hand_id >= %s AND hp.hand_id <= %s"
    )
    # The settlements by their ids (from the readings), each table read by its own index (a join
    # invites PostgreSQL to hash a whole table for a chunk); the accounts are looked up apart and
    # kept (a pot account per hand makes that table as long as the hands).
    in_ids = "= ANY(%s::bigint[])" if grouped else "IN ({ids})"
    transactions = f"SELECT id, hand_id, kind FROM {_table(JournalTransaction)} WHERE id {in_ids}"
    if grouped:
        players = (
            # No order inside the arrays: both see the rows in one order, and a seat's player is all
            # the settlement needs (an ORDER BY there sorts every hand's rows again).
            "SELECT hp.hand_id, array_agg(s.number), array_agg(hp.player_id) "
            f"{players_from} GROUP BY hp.hand_id"
        )
        entries = (
            "SELECT transaction_id, array_agg(account_id ORDER BY line), array_agg(amount ORDER BY line) "
            f"FROM {_table(Entry)} WHERE transaction_id {in_ids} GROUP BY transaction_id"
        )
    else:
        players = f"SELECT hp.hand_id, s.number, hp.player_id {players_from} ORDER BY hp.hand_id, hp.position"
        entries = (
            f"SELECT transaction_id, account_id, amount FROM {_table(Entry)} WHERE transaction_id {in_ids} "
            "ORDER BY transaction_id, line"
        )
    return _Statements(readings, players, transactions, entries, grouped)


def id_array(ids: Iterable[int]) -> str:
    """Ids as one PostgreSQL array literal (``{1,2,3}``): a list would be sent an element at a time."""
    return "{" + ",".join(map(str, ids)) + "}"


def _grouped(rows: Iterable[tuple[Any, ...]], grouped: bool) -> Iterator[tuple[int, list[Any], list[Any]]]:
    """``(key, firsts, seconds)`` per key: the arrays of a grouped statement, or its rows gathered
    (rows in key order)."""
    if grouped:
        yield from rows
        return
    key: int | None = None
    firsts: list[Any] = []
    seconds: list[Any] = []
    for row_key, first, second in rows:
        if row_key != key:
            if key is not None:
                yield key, firsts, seconds
            key, firsts, seconds = row_key, [], []
        firsts.append(first)
        seconds.append(second)
    if key is not None:
        yield key, firsts, seconds


@dataclasses.dataclass(frozen=True, slots=True)
class _ChunkResult:
    hands: int
    transactions: int
    entries: int
    differences: list[ReplayDifference]
    difference_count: int


def _audit_chunk(args: tuple[int, int, dt.datetime, dt.datetime, int]) -> _ChunkResult:
    """Compare the settled hands with ids ``first..last`` started in ``[start, end)`` (``run``: the
    audit the chunk is part of)."""
    first, last, start, end, run = args
    auditor = _auditor(run)
    sql = _statements()
    # One snapshot per chunk, read only; on PostgreSQL without parallel workers or JIT compilation
    # (each statement reads a few thousand rows by index: both cost more than they save, and the
    # audit's own processes are using the cores).
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            cursor.execute("SET LOCAL jit = off")
            cursor.execute("SET LOCAL work_mem = '64MB'")
        cursor.execute(
            sql.readings, [first, last, first, last, HandStatus.SETTLED, ReadingStatus.SETTLED, start, end]
        )
        readings = [
            _Reading(row[0], row[1], row[2], row[3], _loads(row[4]), _loads(row[5]), _loads(row[6]), row[7])
            for row in cursor.fetchall()
        ]
        if not readings:
            return _ChunkResult(0, 0, 0, [], 0)
        cursor.execute(sql.players, [readings[0].hand_id, readings[-1].hand_id])
        players = {
            hand_id: dict(zip(seats, ids, strict=True))
            for hand_id, seats, ids in _grouped(cursor.fetchall(), sql.grouped)
        }
        settlement_ids = [reading.settlement_id for reading in readings if reading.settlement_id is not None]
        settlements: dict[int, _Settlement] = {}
        entry_rows: list[tuple[int, list[int], list[int]]] = []
        if settlement_ids:
            params: list[Any] = [id_array(settlement_ids)] if sql.grouped else settlement_ids
            placeholders = ", ".join(["%s"] * len(settlement_ids))
            cursor.execute(sql.transactions.format(ids=placeholders), params)
            settlements = {
                txn_id: _Settlement(hand_id, kind, []) for txn_id, hand_id, kind in cursor.fetchall()
            }
            cursor.execute(sql.entries.format(ids=placeholders), params)
            entry_rows = list(_grouped(cursor.fetchall(), sql.grouped))
        accounts = auditor.accounts(cursor, set(chain.from_iterable(ids for _, ids, _ in entry_rows)))
    entry_count = 0
    for txn_id, account_ids, amounts in entry_rows:
        settlements[txn_id].lines.extend(zip(map(accounts.__getitem__, account_ids), amounts, strict=True))
        entry_count += len(amounts)
    differences: list[ReplayDifference] = []
    count = 0
    for reading in readings:
        found = auditor.check(reading, players.get(reading.hand_id, {}), _of(settlements, reading))
        count += len(found)
        differences += found[: max(MAX_DIFFERENCES - len(differences), 0)]
    return _ChunkResult(len(readings), len(settlements), entry_count, differences, count)


def _of(settlements: Mapping[int, _Settlement], reading: _Reading) -> _Settlement | None:
    return settlements.get(reading.settlement_id) if reading.settlement_id is not None else None


_AUDITORS: dict[int, _Auditor] = {}


def _auditor(run: int) -> _Auditor:
    """The process's auditor for the audit ``run`` (its cache lives as long as the audit)."""
    found = _AUDITORS.get(run)
    if found is None:
        _AUDITORS.clear()
        found = _AUDITORS[run] = _Auditor()
    return found


def _close_connections() -> None:
    """Close this process's database connections, and its connection pool (PostgreSQL with
    ``DATABASE_POOL_MAX``: psycopg's pool keeps connections open after ``close()`` takes one back).

    Called before forking the audit's processes: a forked process inherits every open socket, and
    two processes talking on one connection interleave their messages (a pooled connection handed
    to every process at once). With nothing open, each process opens its own; this one opens a new
    connection (a new pool) when it next needs one."""
    for alias in connections:
        handle = connections[alias]
        handle.close()
        close_pool = getattr(handle, "close_pool", None)  # the PostgreSQL backend's (Django >= 5.1)
        if close_pool is not None:
            close_pool()


def _start_worker() -> None:
    """A forked audit process's start: drop any connection that came with the fork (there should
    be none: :func:`_close_connections` ran before it) without closing it, since closing sends the
    server a goodbye on the parent's socket and ends the parent's session; and close the process's
    own connections, and pool, when it ends."""
    for handle in connections.all(initialized_only=True):
        handle.connection = None
    multiprocessing.util.Finalize(None, _close_connections, exitpriority=10)


def _chunks(
    first: int, last: int, size: int, start: dt.datetime, end: dt.datetime, run: int
) -> Iterator[tuple[int, int, dt.datetime, dt.datetime, int]]:
    for low in range(first, last + 1, size):
        yield (low, min(low + size - 1, last), start, end, run)


# --- The audit -------------------------------------------------------------------------------------------


def replay_audit(
    *,
    date_from: dt.date,
    date_to: dt.date,
    workers: int = 1,
    chunk_hands: int = CHUNK_HANDS,
    hand_ids: tuple[int, int] | None = None,
) -> ReplayOutcome:
    """Re-decide every settled hand started on the business dates ``date_from``..``date_to``
    (inclusive, on the room's clock) and compare (see the module's docstring). Reads only.
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
    results: Iterable[_ChunkResult] = []
    if bounds["first"] is not None:
        chunks = _chunks(bounds["first"], bounds["last"], chunk_hands, start, end, run)
        if workers == 1:
            results = [_audit_chunk(chunk) for chunk in chunks]
        else:
            _close_connections()  # nothing open goes with the fork: each process opens its own
            with multiprocessing.get_context("fork").Pool(workers, initializer=_start_worker) as pool:
                results = list(pool.imap_unordered(_audit_chunk, chunks))
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
    and ``hand``); ``transactions`` and ``entries`` count what was compared with the ledger."""
    return IntegrityCheck.objects.create(
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
