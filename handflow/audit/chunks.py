"""Reading a chunk of hands and auditing it: the settled hands of a range of ids read with plain
SQL (readings, players, settlement transactions and their entries, each table by its own index),
no model object per row, and each hand compared (:mod:`handflow.audit.compare`).
:func:`audit_chunk` is what each of the audit's processes runs (module level: the pool sends it to
them by name); :func:`chunks_of` cuts the ids into its arguments."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

from django.db import connection, transaction

from handflow.audit.compare import Auditor, Settlement, StoredReading
from handflow.audit.outcome import MAX_DIFFERENCES, ReplayDifference
from handflow.audit.sql import id_array, quoted_table
from ledger.models import Entry, JournalTransaction
from tables.choices import HandStatus
from tables.models import Hand, HandPlayer, HandResult, ReadingStatus, Seat, Table


def _loads(value: Any) -> Any:
    """A JSON column's value from a plain cursor (text on SQLite and, with Django's loaders, on
    PostgreSQL; already decoded by other drivers)."""
    if isinstance(value, memoryview):
        value = value.tobytes()
    return json.loads(value) if isinstance(value, str | bytes | bytearray) else value


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
    hand, result, table = quoted_table(Hand), quoted_table(HandResult), quoted_table(Table)
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
        f"FROM {quoted_table(HandPlayer)} hp JOIN {quoted_table(Seat)} s ON s.id = hp.seat_id "
        "WHERE hp.hand_id >= %s AND hp.hand_id <= %s"
    )
    # The settlements by their ids (from the readings), each table read by its own index (a join
    # invites PostgreSQL to hash a whole table for a chunk); the accounts are looked up apart and
    # kept (a pot account per hand makes that table as long as the hands).
    in_ids = "= ANY(%s::bigint[])" if grouped else "IN ({ids})"
    transactions = f"SELECT id, hand_id, kind FROM {quoted_table(JournalTransaction)} WHERE id {in_ids}"
    if grouped:
        players = (
            # No order inside the arrays: both see the rows in one order, and a seat's player is all
            # the settlement needs (an ORDER BY there sorts every hand's rows again).
            "SELECT hp.hand_id, array_agg(s.number), array_agg(hp.player_id) "
            f"{players_from} GROUP BY hp.hand_id"
        )
        entries = (
            "SELECT transaction_id, array_agg(account_id ORDER BY line), array_agg(amount ORDER BY line) "
            f"FROM {quoted_table(Entry)} WHERE transaction_id {in_ids} GROUP BY transaction_id"
        )
    else:
        players = f"SELECT hp.hand_id, s.number, hp.player_id {players_from} ORDER BY hp.hand_id, hp.position"
        entries = (
            f"SELECT transaction_id, account_id, amount FROM {quoted_table(Entry)} "
            f"WHERE transaction_id {in_ids} ORDER BY transaction_id, line"
        )
    return _Statements(readings, players, transactions, entries, grouped)


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
class ChunkResult:
    hands: int
    transactions: int
    entries: int
    differences: list[ReplayDifference]
    difference_count: int


def audit_chunk(args: tuple[int, int, dt.datetime, dt.datetime, int]) -> ChunkResult:
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
        # Django's own form of a datetime for this database, as the ORM would send it: on SQLite the
        # column holds naive UTC text, and a raw aware datetime (the room's offset) compared as text
        # left out a day's hands after 16:00 in Los Angeles (its UTC date already the next one).
        since, until = (connection.ops.adapt_datetimefield_value(when) for when in (start, end))
        cursor.execute(
            sql.readings, [first, last, first, last, HandStatus.SETTLED, ReadingStatus.SETTLED, since, until]
        )
        readings = [
            StoredReading(
                row[0], row[1], row[2], row[3], _loads(row[4]), _loads(row[5]), _loads(row[6]), row[7]
            )
            for row in cursor.fetchall()
        ]
        if not readings:
            return ChunkResult(0, 0, 0, [], 0)
        cursor.execute(sql.players, [readings[0].hand_id, readings[-1].hand_id])
        players = {
            hand_id: dict(zip(seats, ids, strict=True))
            for hand_id, seats, ids in _grouped(cursor.fetchall(), sql.grouped)
        }
        settlement_ids = [reading.settlement_id for reading in readings if reading.settlement_id is not None]
        settlements: dict[int, Settlement] = {}
        entry_rows: list[tuple[int, list[int], list[int]]] = []
        if settlement_ids:
            params: list[Any] = [id_array(settlement_ids)] if sql.grouped else settlement_ids
            placeholders = ", ".join(["%s"] * len(settlement_ids))
            cursor.execute(sql.transactions.format(ids=placeholders), params)
            settlements = {
                txn_id: Settlement(hand_id, kind, []) for txn_id, hand_id, kind in cursor.fetchall()
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
    return ChunkResult(len(readings), len(settlements), entry_count, differences, count)


def _of(settlements: Mapping[int, Settlement], reading: StoredReading) -> Settlement | None:
    return settlements.get(reading.settlement_id) if reading.settlement_id is not None else None


_AUDITORS: dict[int, Auditor] = {}


def _auditor(run: int) -> Auditor:
    """The process's auditor for the audit ``run`` (its cache lives as long as the audit)."""
    found = _AUDITORS.get(run)
    if found is None:
        _AUDITORS.clear()
        found = _AUDITORS[run] = Auditor()
    return found


def chunks_of(
    first: int, last: int, size: int, start: dt.datetime, end: dt.datetime, run: int
) -> Iterator[tuple[int, int, dt.datetime, dt.datetime, int]]:
    for low in range(first, last + 1, size):
        yield (low, min(low + size - 1, last), start, end, run)
