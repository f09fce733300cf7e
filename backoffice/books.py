"""The books: the ledger's own checks, the published anchors, and what no hash can check.

:func:`verify_books` is the one entry point (``manage.py verify_ledger``, the integrity report, the
nightly integrity check). In one snapshot it runs

* :func:`ledger.verification.verify_ledger`: chains (keyed), double entry, reversals, balances;
* :func:`ledger.anchors.compare`: every signed anchor the database holds (shift closes, stored
  integrity checks) plus any published copy given, against the ledger now;
* :func:`check_hands`: the floor's records of each hand against the ledger's postings of it, which
  the ledger can't do itself (it doesn't know the floor's tables, docs/layers.md):

  - a settled hand's reading: its ``digest`` is the sha256 of its stored ``engine_input``; its
    ``postings`` are exactly the entries of its settlement transaction (player by player, amounts,
    order), and that transaction's request digest covers the reading's input digest (so the
    chained row binds the showdown input it was read from);
  - a hand's fees: each dealt player's ``HandPlayer.fee_cents`` is what the collection schedule as
    in force at the hand's start charges that position for that many players
    (:func:`tables.selectors.rate_for`), and the hand's FEE transaction takes exactly those fees.

Problem codes (each names the hand): ``hand_input_digest_mismatch``, ``settlement_missing``,
``settlement_mismatch``, ``settlement_input_mismatch``, ``settlement_unlinked``,
``settlement_postings_malformed``, ``fee_no_rate``, ``fee_schedule_mismatch``, ``fee_missing``,
``fee_mismatch``.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db import connection, transaction
from django.db.models import Q

from casino.core.versions import CHRONOLOGICAL_ORDERING, version_in_force
from ledger.anchors import compare, stored_documents
from ledger.hashing import json_digest, posting_digest
from ledger.models import SETTLEMENT_KINDS, AccountKind, Entry, JournalTransaction, TransactionKind
from ledger.settlement_check import compare_settlement
from ledger.settlement_check import settlement_lines as lines_of
from ledger.verification import LedgerReport, Problem, ProblemList, verify_ledger
from poker.errors import ShowdownError
from poker.postings import LedgerLine, LineDifference, Postings, first_line_difference
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    Hand,
    HandPlayer,
    HandResult,
    ReadingStatus,
    Stakes,
    table_name,
)
from tables.selectors import rate_for

BATCH = 500
"""Hands read at a time (with their players, readings and postings)."""

Line = tuple[str, int | None, int]
"""One entry as the books compare it: (``player``/``pot``/``house``/other kind, player or hand id, cents)."""


@dataclasses.dataclass(slots=True)
class BooksReport:
    """The ledger's report and what the books add: ``hands`` checked against their postings,
    ``anchors`` (documents) and ``anchored_heads`` compared. ``problems`` is every problem: the
    ledger's first, then the hands', then the anchors'."""

    ledger: LedgerReport
    hands: int = 0
    anchors: int = 0
    anchored_heads: int = 0
    problems: list[Problem] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def heads(self) -> dict[str, tuple[int, str]]:
        """Each chain's last ``(sequence, hash)`` as the check read it (what an anchor signs)."""
        return self.ledger.heads

    def summary(self) -> str:
        verdict = "OK" if self.ok else f"FAILED: {len(self.problems)} problem(s)"
        ledger = self.ledger
        return (
            f"ledger {verdict}: {ledger.chains} chain(s), {ledger.transactions} transaction(s), "
            f"{ledger.entries} entries, {ledger.accounts} account(s), {self.hands} hand(s), "
            f"{self.anchors} anchor(s) with {self.anchored_heads} head(s) checked"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.ledger.as_dict(),
            "ok": self.ok,
            "hands": self.hands,
            "anchors": self.anchors,
            "anchored_heads": self.anchored_heads,
            "problems": [dataclasses.asdict(problem) for problem in self.problems],
        }


def verify_books(
    *,
    published: Sequence[tuple[str, Mapping[str, Any]]] = (),
    public_keys: Mapping[str, Ed25519PublicKey] | None = None,
) -> BooksReport:
    """Verify the ledger, the anchors (the stored ones and ``published``, labelled copies kept
    outside the database, with ``public_keys`` or the settings' trusted keys) and the hands, in one
    snapshot (REPEATABLE READ, READ ONLY on PostgreSQL when not nested in a caller's transaction).
    Never raises for bad books: every finding is a problem in the report."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        ledger = verify_ledger()
        hands, hand_problems = check_hands()
        anchors = compare([*stored_documents(), *published], public_keys=public_keys)
    return BooksReport(
        ledger=ledger,
        hands=hands,
        anchors=anchors.documents,
        anchored_heads=anchors.heads,
        problems=[*ledger.problems, *hand_problems, *anchors.problems],
    )


# --- The hands ------------------------------------------------------------------------------------


class _Rates:
    """The rate of a hand, by :func:`tables.selectors.rate_for`, asked once per schedule version,
    stakes and number of players (hands under the same version get the same rate)."""

    def __init__(self) -> None:
        self._versions: dict[int, list[CollectionScheduleVersion]] = {}
        self._schedules: dict[int, CollectionSchedule] = {}
        self._stakes: dict[int, Stakes] = {}
        self._rates: dict[tuple[int, int, int, int], CollectionRate | None] = {}

    def rate(self, hand: Mapping[str, Any], players: int) -> CollectionRate | None:
        schedule_id, stakes_id = hand["collection_schedule_id"], hand["stakes_id"]
        if schedule_id not in self._versions:
            self._versions[schedule_id] = list(
                CollectionScheduleVersion.objects.filter(schedule_id=schedule_id).order_by(
                    *CHRONOLOGICAL_ORDERING
                )
            )
            self._schedules[schedule_id] = CollectionSchedule.objects.get(pk=schedule_id)
        if stakes_id not in self._stakes:
            self._stakes[stakes_id] = Stakes.objects.get(pk=stakes_id)
        version = version_in_force(self._versions[schedule_id], hand["created_at"])
        if version is None:
            return None
        key = (schedule_id, version.pk, stakes_id, players)
        if key not in self._rates:
            self._rates[key] = rate_for(
                schedule=self._schedules[schedule_id],
                stakes=self._stakes[stakes_id],
                players=players,
                at=hand["created_at"],
            )
        return self._rates[key]


def check_hands(
    *, batch: int = BATCH, first_id: int = 1, last_id: int | None = None
) -> tuple[int, list[Problem]]:
    """``(hands checked, problems)``: every hand with recorded fees (dealt by the hand flow) and
    every settled reading, against the ledger (see the module docstring); with ``first_id`` and
    ``last_id``, the hands of those ids only (the nightly check). Reads ``batch`` hands at a time,
    so memory stays flat however long the history; the problems are a ``ProblemList`` (the first
    ones kept, all counted)."""
    problems: list[Problem] = ProblemList()
    checked = 0
    rates = _Rates()
    after = first_id - 1
    upto = Q(pk__lte=last_id) if last_id is not None else Q()
    while True:
        hands = list(
            Hand.objects.filter(upto, pk__gt=after)
            .order_by("pk")
            .values(
                "pk",
                "number",
                "table_id",
                "table__number",
                "collection_schedule_id",
                "stakes_id",
                "created_at",
            )[:batch]
        )
        if not hands:
            return checked, problems
        after = hands[-1]["pk"]
        ids = [hand["pk"] for hand in hands]
        players: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
        for hand_id, player_id, fee in (
            HandPlayer.objects.filter(hand_id__in=ids)
            .order_by("hand_id", "position")
            .values_list("hand_id", "player_id", "fee_cents")
        ):
            players[hand_id].append((player_id, fee))
        readings = {
            reading["hand_id"]: reading
            for reading in HandResult.objects.filter(hand_id__in=ids, status=ReadingStatus.SETTLED).values(
                "hand_id", "digest", "engine_input", "postings", "settlement_id"
            )
        }
        postings = _postings_of(ids)
        for hand in hands:
            hand_id = hand["pk"]
            # The table by its number, as the room names it (its database id is no table's name).
            where = f"hand {hand_id} ({table_name(hand['table__number']).lower()} hand #{hand['number']})"
            dealt = players.get(hand_id, [])
            fees_recorded = bool(dealt) and all(fee is not None for _, fee in dealt)
            if fees_recorded:
                problems += _check_fees(hand, where, dealt, postings.get(hand_id, []), rates)
            if hand_id in readings:
                problems += _check_settlement(hand, where, readings[hand_id], postings.get(hand_id, []))
            checked += fees_recorded or hand_id in readings


@dataclasses.dataclass(slots=True)
class _Posting:
    pk: int
    hand_id: int
    kind: str
    table_id: int | None
    memo: str
    request_digest: str
    key_id: str
    lines: list[Line] = dataclasses.field(default_factory=list)
    raw: list[tuple[int, int]] = dataclasses.field(default_factory=list)  # (account id, cents)
    foreign_accounts: int = 0  # entries on an account of another table


def _postings_of(hand_ids: Sequence[int]) -> dict[int, list[_Posting]]:
    """The FEE and settlement transactions of ``hand_ids`` with their entries in line order."""
    by_pk: dict[int, _Posting] = {}
    by_hand: dict[int, list[_Posting]] = defaultdict(list)
    for row in (
        JournalTransaction.objects.filter(
            hand_id__in=hand_ids,
            kind__in=[TransactionKind.FEE, *SETTLEMENT_KINDS.values()],
        )
        .order_by("pk")
        .values("pk", "hand_id", "kind", "table_id", "memo", "request_digest", "key_id")
    ):
        posting = _Posting(
            pk=row["pk"],
            hand_id=row["hand_id"],
            kind=row["kind"],
            table_id=row["table_id"],
            memo=row["memo"],
            request_digest=row["request_digest"],
            key_id=row["key_id"],
        )
        by_pk[posting.pk] = posting
        by_hand[row["hand_id"]].append(posting)
    for txn_id, account_id, kind, player_id, pot_hand_id, table_id, amount in (
        Entry.objects.filter(transaction_id__in=list(by_pk))
        .order_by("transaction_id", "line")
        .values_list(
            "transaction_id",
            "account_id",
            "account__kind",
            "account__player_id",
            "account__hand_id",
            "account__table_id",
            "amount",
        )
    ):
        posting = by_pk[txn_id]
        posting.raw.append((account_id, amount))
        posting.lines.append(_line(kind, player_id, pot_hand_id, amount))
        if table_id != posting.table_id:
            posting.foreign_accounts += 1
    return by_hand


def _line(kind: str, player_id: int | None, hand_id: int | None, amount: int) -> Line:
    if kind == AccountKind.PLAYER_CHIPS:
        return ("player", player_id, amount)
    if kind == AccountKind.HAND_POT:
        return ("pot", hand_id, amount)
    if kind == AccountKind.HOUSE_COLLECTION:
        return ("house", None, amount)
    return (str(kind), player_id, amount)


def where_lines_part(expected: Sequence[Line], found: Sequence[Line]) -> str:
    """Where the ledger's entries part from the expected ones
    (:func:`poker.postings.first_line_difference`), in the books' words."""
    return line_difference_text(first_line_difference(expected, found))


def line_difference_text(difference: LineDifference[Line] | None) -> str:
    """A line difference in the books' words: ``line 2: expected +400 to pot 42, the ledger has
    +7 to pot 42``."""

    def text(line: Line | None) -> str:
        if line is None:
            return "nothing"
        tag, owner, amount = line
        return f"{amount:+d} to {tag}{'' if owner is None else f' {owner}'}"

    if difference is None:
        return "no difference"
    want, got = text(difference.expected), text(difference.found)
    return f"line {difference.line}: expected {want}, the ledger has {got}"


def _check_fees(
    hand: Mapping[str, Any],
    where: str,
    dealt: Sequence[tuple[int, int | None]],
    postings: Iterable[_Posting],
    rates: _Rates,
) -> list[Problem]:
    problems: list[Problem] = []
    hand_id = hand["pk"]
    fees = [int(fee or 0) for _, fee in dealt]
    rate = rates.rate(hand, len(dealt))
    if rate is None:
        problems.append(
            Problem(
                "fee_no_rate",
                f"{where}: its schedule as in force at its start has no rate for {len(dealt)} players",
                hand_id=hand_id,
            )
        )
    elif (due := rate.fees_by_position(len(dealt))) != fees:
        problems.append(
            Problem(
                "fee_schedule_mismatch",
                f"{where}: recorded fees by position {fees}, the schedule version {rate.version_id} "
                f"charges {due}",
                hand_id=hand_id,
            )
        )
    fee_postings = [p for p in postings if p.kind == TransactionKind.FEE]
    expected: list[Line] = [
        ("player", player_id, -fee) for (player_id, _), fee in zip(dealt, fees, strict=True) if fee
    ]
    if not expected:
        if fee_postings:
            problems.append(
                Problem(
                    "fee_mismatch",
                    f"{where}: no fee recorded, but the ledger has fee transaction(s) "
                    f"{[p.pk for p in fee_postings]}",
                    fee_postings[0].pk,
                    hand_id=hand_id,
                )
            )
        return problems
    expected.append(("house", None, sum(fees)))
    if not fee_postings:
        problems.append(
            Problem("fee_missing", f"{where}: fees {fees} recorded, but no fee transaction", hand_id=hand_id)
        )
    elif len(fee_postings) > 1 or fee_postings[0].lines != expected or fee_postings[0].foreign_accounts:
        posting = fee_postings[0]
        detail = (
            f"{len(fee_postings)} fee transactions"
            if len(fee_postings) > 1
            else "an account of another table"
            if posting.foreign_accounts and posting.lines == expected
            else where_lines_part(expected, posting.lines)
        )
        problems.append(
            Problem(
                "fee_mismatch",
                f"{where}: fee transaction {posting.pk} does not take the recorded fees ({detail})",
                posting.pk,
                hand_id=hand_id,
            )
        )
    return problems


def settlement_lines(postings: Postings, hand_id: int) -> list[Line]:
    """The entries a reading's postings make, laid out as the books read the ledger's (the pot as
    hand ``hand_id``'s pot account): :func:`ledger.settlement_check.settlement_lines`."""
    return lines_of(postings, partial(_book_line, hand_id))


def _book_line(hand_id: int, line: LedgerLine) -> Line:
    return ("pot", hand_id, line.amount) if line.player is None else ("player", line.player, line.amount)


def _check_settlement(
    hand: Mapping[str, Any], where: str, reading: Mapping[str, Any], postings: Iterable[_Posting]
) -> list[Problem]:
    problems: list[Problem] = []
    hand_id = hand["pk"]
    if json_digest(reading["engine_input"]) != reading["digest"]:
        problems.append(
            Problem(
                "hand_input_digest_mismatch",
                f"{where}: the stored engine input does not have the reading's digest (altered?)",
                hand_id=hand_id,
            )
        )
    settlements = [p for p in postings if p.kind in SETTLEMENT_KINDS.values()]
    linked = next((p for p in settlements if p.pk == reading["settlement_id"]), None)
    for other in settlements:
        if other is not linked:
            problems.append(
                Problem(
                    "settlement_unlinked",
                    f"{where}: settlement transaction {other.pk} is not the one its reading records",
                    other.pk,
                    hand_id=hand_id,
                )
            )
    try:
        stored = Postings.from_json(reading["postings"])
    except ShowdownError as exc:
        problems.append(
            Problem(
                "settlement_postings_malformed",
                f"{where}: the reading's stored postings can't be read ({exc})",
                hand_id=hand_id,
            )
        )
        return problems
    comparison = compare_settlement(stored, linked, hand_id=hand_id, line=partial(_book_line, hand_id))
    if not comparison.expected and reading["settlement_id"] is None:
        return problems  # nothing moved, nothing posted
    if linked is None:
        problems.append(
            Problem(
                "settlement_missing",
                f"{where}: the reading moves chips but its settlement transaction "
                f"{reading['settlement_id']} is not a settlement of this hand in the ledger",
                reading["settlement_id"],
                hand_id=hand_id,
            )
        )
        return problems
    if not comparison.matches or linked.foreign_accounts:
        difference = comparison.difference
        detail = (
            f"a {linked.kind} transaction for {comparison.kind} postings"
            if comparison.other_settlement
            else line_difference_text(difference)
            if difference is not None
            else "an account of another table"
        )
        problems.append(
            Problem(
                "settlement_mismatch",
                f"{where}: settlement transaction {linked.pk} does not post the reading's postings "
                f"({detail})",
                linked.pk,
                hand_id=hand_id,
            )
        )
    digest = {
        "kind": linked.kind,
        "table_id": linked.table_id,
        "hand_id": hand_id,
        "reverses_id": None,
        "memo": linked.memo,
        "lines": linked.raw,
        "request": None,
    }
    bound = posting_digest(**digest, input_digest=reading["digest"]) == linked.request_digest
    # Rows posted before settlements carried the input digest are unkeyed (format 1); a keyed row
    # must cover it.
    legacy = not linked.key_id and posting_digest(**digest) == linked.request_digest
    if not (bound or legacy):
        problems.append(
            Problem(
                "settlement_input_mismatch",
                f"{where}: settlement transaction {linked.pk} was not posted for this reading's engine "
                "input (the input or its digest was changed after the settlement)",
                linked.pk,
                hand_id=hand_id,
            )
        )
    return problems
