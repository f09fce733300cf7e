"""Comparing one hand: its stored input's digest, the input re-decided, the ledger lines made
again, and the stored lines against the settlement's entries (the four :class:`ReplayCheck`s,
see :mod:`handflow.audit`). :class:`Auditor` does it, keeping what each account is in a ledger
line between chunks; :class:`StoredReading` and :class:`Settlement` are what it compares, as
:mod:`handflow.audit.chunks` reads them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from django.db import connection

from handflow.audit.outcome import POT, Line, ReplayCheck, ReplayDifference
from handflow.audit.sql import id_array, quoted_table
from handflow.keys import digest_of
from ledger.models import Account, AccountKind
from ledger.settlement_check import compare_settlement, settlement_lines
from poker.errors import ShowdownError
from poker.postings import LedgerLine, Postings, settlement_postings
from poker.reading import Reading
from poker.showdown import decide


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
    """The entries the settlement of ``postings`` posts, in order
    (:func:`ledger.settlement_check.settlement_lines`), each as ``(player id or POT, cents)``."""
    return settlement_lines(postings, _audit_line)


def _audit_line(line: LedgerLine) -> Line:
    return (POT if line.player is None else line.player, line.amount)


class StoredReading(NamedTuple):
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


class Settlement(NamedTuple):
    """The hand's settlement transaction as the ledger holds it."""

    hand_id: int | None
    kind: str
    lines: list[Line]


class Auditor:
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
                f"SELECT id, kind, player_id FROM {quoted_table(Account)} WHERE id = ANY(%s::bigint[])",
                [id_array(missing)],
            )
            rows = cursor.fetchall()
        else:
            for low in range(0, len(missing), 1000):
                part = missing[low : low + 1000]
                placeholders = ", ".join(["%s"] * len(part))
                cursor.execute(
                    f"SELECT id, kind, player_id FROM {quoted_table(Account)} WHERE id IN ({placeholders})",
                    part,
                )
                rows += cursor.fetchall()
        for account_id, kind, player_id in rows:
            if kind == AccountKind.PLAYER_CHIPS and player_id is not None:
                self._accounts[account_id] = found[account_id] = player_id
            else:
                found[account_id] = POT if kind == AccountKind.HAND_POT else str(kind)
        return {account_id: self._accounts.get(account_id) or found[account_id] for account_id in ids}

    def recompute(
        self, reading: StoredReading, players: Mapping[int, int]
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
        self, reading: StoredReading, players: Mapping[int, int], settlement: Settlement | None
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
        self, reading: StoredReading, stored: Postings, settlement: Settlement | None, differ: Any
    ) -> None:
        """The reading's stored ledger lines (``stored``, its ``postings``) against the settlement's
        entries."""
        comparison = compare_settlement(stored, settlement, hand_id=reading.hand_id, line=_audit_line)
        if settlement is None:
            if comparison.missing:
                differ(
                    ReplayCheck.LEDGER,
                    f"{len(comparison.expected)} ledger lines are stored but no settlement was posted",
                )
            return
        if comparison.other_settlement:
            differ(
                ReplayCheck.LEDGER,
                f"settlement transaction {reading.settlement_id} is a {settlement.kind} of hand "
                f"{settlement.hand_id}, not a {comparison.kind} of this hand",
            )
        difference = comparison.difference
        if difference is None:
            return
        if difference.expected is not None and difference.found is not None:
            where = (
                f"entry {difference.line}: posted {_line_text(difference.found)}, "
                f"stored {_line_text(difference.expected)}"
            )
        else:
            where = f"{len(settlement.lines)} entries posted, {len(comparison.expected)} stored"
        differ(ReplayCheck.LEDGER, f"settlement transaction {reading.settlement_id} differs: {where}")


def _differ(reading: StoredReading, differences: list[ReplayDifference]) -> Any:
    def differ(check: ReplayCheck, detail: str) -> None:
        differences.append(
            ReplayDifference(reading.hand_id, reading.table_number, reading.hand_number, check.value, detail)
        )

    return differ


def _line_text(line: Line) -> str:
    account, cents = line
    who = "the pot" if account == POT else f"player {account}"
    return f"{cents:+d} cents to {who}"
