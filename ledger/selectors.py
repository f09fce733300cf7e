"""The ledger's read side: balances, read from the accounts' cached ``balance`` (kept equal to the
sum of their entries by the posting service; ``verify_ledger`` proves it). Reading never creates
an account: an account that doesn't exist yet has a balance of zero.

These are plain reads; to act on a balance (e.g. "cash out everything"), use a service, which reads
it again under the account's lock.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.db.models import OuterRef, Subquery, Sum

from ledger.models import Account, AccountKind, IntegrityCheck, IntegrityScope
from ledger.shifts import Shift

if TYPE_CHECKING:
    from tables.models import Hand, Player, Table


def player_chips(*, table: Table, player: Player) -> int:
    """Cents of chips ``player`` has at ``table`` (0 if they never had any)."""
    return _balance(kind=AccountKind.PLAYER_CHIPS, table_id=table.pk, player_id=player.pk)


def table_chips(*, table: Table) -> dict[int, int]:
    """``{player_id: cents}`` of every player with an account at ``table`` (zero balances included)."""
    return dict(
        Account.objects.filter(kind=AccountKind.PLAYER_CHIPS, table_id=table.pk)
        .order_by("player_id")
        .values_list("player_id", "balance")
    )


def chips_subquery(*, table_id: int | OuterRef, player_id: int | OuterRef | None = None) -> Subquery:
    """A player's chips at a table as an expression to annotate rows with, for a read that must
    stay one statement (the terminal's screen reads its hand on every tap): the same balance
    :func:`table_chips` reads, None where the player has no account there yet.

    ``table_id`` and ``player_id`` are values or expressions (``OuterRef("player_id")``, the
    default, names the annotated row's player)."""
    return Subquery(
        Account.objects.filter(
            kind=AccountKind.PLAYER_CHIPS,
            table_id=table_id,
            player_id=OuterRef("player_id") if player_id is None else player_id,
        ).values("balance")[:1]
    )


def players_chips(*, player_ids: Iterable[int]) -> list[tuple[int, int, int, int]]:
    """``(table_number, table_id, player_id, cents)`` of every non-zero chips account of the
    players ``player_ids`` (the records of one person, say), by table number (one query)."""
    return [
        (number, table_id, player_id, int(balance))
        for number, table_id, player_id, balance in Account.objects.filter(
            kind=AccountKind.PLAYER_CHIPS, player_id__in=list(player_ids), table__isnull=False
        )
        .exclude(balance=0)
        .order_by("table__number", "player_id")
        .values_list("table__number", "table_id", "player_id", "balance")
    ]


def house_collected(*, table: Table, shift: Shift) -> int:
    """Cents the house has collected at ``table`` during ``shift`` (net of fees returned)."""
    return tables_collected(table_ids=[table.pk], shift=shift).get(table.pk, 0)


def tables_collected(*, table_ids: Iterable[int], shift: Shift) -> dict[int, int]:
    """``{table_id: cents}`` the house collected at each of ``table_ids`` during ``shift`` (net of
    fees returned; a table without an account for the shift is absent), in one query."""
    return dict(
        Account.objects.filter(
            kind=AccountKind.HOUSE_COLLECTION,
            table_id__in=list(table_ids),
            shift_date=shift.business_date,
            shift_code=shift.code.value,
        ).values_list("table_id", "balance")
    )


def shift_collected(*, shift: Shift) -> int:
    """Cents the house collected over all tables during ``shift``."""
    total = Account.objects.filter(
        kind=AccountKind.HOUSE_COLLECTION, shift_date=shift.business_date, shift_code=shift.code.value
    ).aggregate(total=Sum("balance"))["total"]
    return int(total or 0)


def cage_position(*, table: Table | None = None) -> int:
    """The cage's balance with ``table`` (or with the whole room): negative while the cage has sold
    more chips than it bought back."""
    accounts = Account.objects.filter(kind=AccountKind.CAGE)
    if table is not None:
        accounts = accounts.filter(table_id=table.pk)
    return int(accounts.aggregate(total=Sum("balance"))["total"] or 0)


def hand_pot(*, hand: Hand) -> int:
    """Cents in ``hand``'s pot account: zero whenever no posting is in flight."""
    return _balance(kind=AccountKind.HAND_POT, hand_id=hand.pk)


def _balance(**identity: object) -> int:
    balance = Account.objects.filter(**identity).values_list("balance", flat=True).first()
    return int(balance or 0)


def latest_integrity_failure() -> IntegrityCheck | None:
    """The latest stored check of each scope (``IntegrityScope``: the books, the replay audit) that
    failed, the most recent of them first; None when the latest of every scope passed (or none ran).

    For the floor overview: a non-None result means the most recent nightly (or manual) run of a
    check found a problem (see ``IntegrityCheck.problems`` and ``.guards``); a passing books check
    doesn't hide a failed replay audit, nor the other way round. One indexed query per scope."""
    failures = [
        latest
        for scope in IntegrityScope.values
        if (latest := IntegrityCheck.objects.filter(scope=scope).order_by("-started_at", "-pk").first())
        is not None
        and not latest.ok
    ]
    return max(failures, key=lambda check: (check.started_at, check.pk), default=None)
