"""The ledger's accounts: a player's chips at a table, the cage's and the house's account of a
table, a hand's pot; each created on first use, race-safe, with one INSERT that does nothing when
the row exists (the kernel's :func:`casino.core.db.insert_unless_conflict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError

from casino.core.db import insert_unless_conflict
from ledger.errors import InvalidPosting
from ledger.models import Account, AccountKind
from ledger.shifts import Shift

if TYPE_CHECKING:
    from tables.models import Hand, Player, Table


def _account(*, likely_new: bool = False, **identity: Any) -> Account:
    # Race-safe: each identity has a unique (partial) index; a concurrent creator of the same
    # account makes the INSERT wait for its commit and do nothing, and the account is read again.
    # ``likely_new`` (a hand's pot: made by the one settlement that uses it): INSERT first.
    account: Account | None
    if likely_new:
        account = Account(**identity)
        if insert_unless_conflict(account):
            return account
    account = Account.objects.filter(**identity).first()
    if account is None:
        account = Account(**identity)
        if not insert_unless_conflict(account):
            account = Account.objects.filter(**identity).first()
            if account is None:  # SQLite's INSERT OR IGNORE also skips a CHECK failure
                raise IntegrityError(f"no ledger account can be created for {identity}")
    return account


def player_account(*, table: Table, player: Player) -> Account:
    """The account of ``player``'s chips at ``table`` (created on first use)."""
    return _account(kind=AccountKind.PLAYER_CHIPS, table_id=table.pk, player_id=player.pk)


def player_accounts(*, table: Table, players: Sequence[Player]) -> dict[int, Account]:
    """The chip accounts of ``players`` at ``table`` by player id: the existing ones in one query,
    the missing ones created (as :func:`player_account` does)."""
    wanted = {p.pk for p in players}
    found = {
        a.player_id: a
        for a in Account.objects.filter(
            kind=AccountKind.PLAYER_CHIPS, table_id=table.pk, player_id__in=wanted
        )
        if a.player_id is not None  # always, by the filter: this tells mypy
    }
    for player in players:
        if player.pk not in found:
            found[player.pk] = player_account(table=table, player=player)
    return found


def cage_account(*, table: Table) -> Account:
    """The cage's account with ``table``: chips the cage sold to (negative balance) or bought back
    from that table. The room's cage position is the sum over tables; one row per table keeps
    buy-ins at different tables from queueing on a single cage row."""
    return _account(kind=AccountKind.CAGE, table_id=table.pk)


def house_account(*, table: Table, shift: Shift) -> Account:
    """The house's collection account of ``table`` for ``shift``."""
    if not isinstance(shift, Shift):
        raise InvalidPosting(f"shift must be a ledger.shifts.Shift, not {type(shift).__name__}")
    return _account(
        kind=AccountKind.HOUSE_COLLECTION,
        table_id=table.pk,
        shift_date=shift.business_date,
        shift_code=shift.code.value,
    )


def pot_account(*, hand: Hand) -> Account:
    """The clearing account of ``hand``'s pot (at the hand's table)."""
    return _account(kind=AccountKind.HAND_POT, table_id=hand_table_id(hand), hand_id=hand.pk, likely_new=True)


def hand_table_id(hand: Hand) -> int:
    table_id = getattr(hand, "table_id", None)
    if table_id is None:
        raise InvalidPosting(f"hand {hand.pk} has no table")
    return int(table_id)
