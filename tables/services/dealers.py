"""Dealers: clocking in and out at a table (a down, :class:`tables.models.DealerShift`), who may
run a table's hands (:func:`check_runs_hands`, the one place of that rule) and who may move its
chips (:func:`check_moves_chips`: the same, plus the cage)."""

from __future__ import annotations

import dataclasses
import datetime

from django.contrib.auth.models import User as AuthUser
from django.db.models import Q
from django.utils import timezone

from casino.core.db import service
from tables.errors import (
    NotADealer,
    NotYourTable,
    TableClosed,
)
from tables.models import (
    DealerShift,
    Table,
)
from tables.services.common import User, acting_user
from tables.services.locks import lock_table, refuse_if_hand_in_progress


def may_run_any_table(user: User) -> bool:
    """The floor (``tables.manage_floor``; superusers) runs any table's hands without clocking in."""
    return user is not None and user.is_authenticated and user.has_perm("tables.manage_floor")


def dealer_on_duty(table: Table) -> DealerShift | None:
    """The open down at ``table`` (the dealer clocked in there), or None."""
    return (
        DealerShift.objects.select_related("dealer")
        .filter(table=table, clocked_out_at__isnull=True)
        .order_by()
        .first()
    )


def check_runs_hands(table: Table, by: User) -> DealerShift | None:
    """Who may run ``table``'s hands: the dealer clocked in there, or the floor. Returns the table's
    open down (None when nobody is clocked in and the floor runs the hand). Raises NotYourTable
    (403) for anyone else, saying who is clocked in.

    The one place this rule lives: every hand service of the money flow calls it under the table
    lock (deal, showdown, sweep declaration, confirmation, misdeal). ``by=None`` is the system (a
    data load, a job), never a request: the web always passes the request's user."""
    return _dealer_here_or(table, by, anywhere=may_run_any_table(by), who="(or the floor) runs its hands")


def check_moves_chips(table: Table, by: User) -> DealerShift | None:
    """Who may sell chips at ``table`` or cash a player out there (buy-in, rebuy, cash-out): the
    dealer clocked in there, the floor, or the cage. Returns the table's open down (None when
    nobody is clocked in). Raises NotYourTable (403) for anyone else, saying who is clocked in.

    The cage holds the cash and is no table's dealer: it is told by ``tables.cash_out_chips`` (the
    cage's and the floor's permission, :mod:`tables.roles`; a dealer sells chips only at the table
    they deal and cashes nobody out). What each role may do at all (sell, cash out) is its
    permissions', checked by the views; this is only *where*. The money flow calls it under the
    table lock (:mod:`handflow.chips`). ``by=None`` is the system, as in :func:`check_runs_hands`."""
    cage = by is not None and by.is_authenticated and by.has_perm("tables.cash_out_chips")
    return _dealer_here_or(
        table, by, anywhere=cage or may_run_any_table(by), who="(or the floor, or the cage) moves its chips"
    )


def _dealer_here_or(table: Table, by: User, *, anywhere: bool, who: str) -> DealerShift | None:
    """The table's open down when ``by`` is the system, acts ``anywhere``, or is the dealer clocked
    in at ``table``; else NotYourTable: "Only the dealer clocked in at table N ``who``"."""
    shift = dealer_on_duty(table)
    if by is None or anywhere:
        return shift
    if shift is not None and shift.dealer_id == by.pk:
        return shift
    on_duty = f"{shift.dealer.get_username()} is clocked in there" if shift else "nobody is clocked in there"
    raise NotYourTable(
        f"Only the dealer clocked in at table {table.number} {who}; {on_duty}. Clock in at the table first."
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ClockedIn:
    """What :func:`clock_in` returns: the dealer's open ``shift`` at the table, and whether they were
    clocked in there already (``replayed``: nothing changed), so an API can answer 200, not 201."""

    shift: DealerShift
    replayed: bool


@service
def clock_in(*, table: Table, dealer: AuthUser, by: User) -> ClockedIn:
    """Clock ``dealer`` in at ``table``: a dealer clocks themself in; the floor may clock in (assign)
    any dealer. The table's open down (another dealer's) and the dealer's open down at another
    table end now. Clocking in where one already is clocked in returns that down (``replayed``).

    Raises NotYourTable (a dealer clocking in someone else), NotADealer (a user who can't run
    hands), TableClosed, HandInProgress (a down ends between hands, not during one).
    """
    user = acting_user(by)
    if user is None:
        raise NotYourTable("Log in to clock in.")
    if dealer.pk != user.pk and not may_run_any_table(user):
        raise NotYourTable("A dealer clocks only themself in; the floor assigns other dealers.")
    if not dealer.is_active or not dealer.has_perm("tables.run_hand"):
        raise NotADealer(f"{dealer.get_username()} can't run hands, so can't be clocked in.", field="dealer")
    table = lock_table(table)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed; open it before clocking a dealer in.")
    shifts = list(
        DealerShift.objects.select_for_update()
        .filter(Q(table=table) | Q(dealer=dealer), clocked_out_at__isnull=True)
        .order_by("pk")
    )
    for shift in shifts:
        if shift.table_id == table.pk and shift.dealer_id == dealer.pk:
            return ClockedIn(shift, replayed=True)
    now = timezone.now()
    for shift in shifts:
        # A down ends between hands, not during one (the hand records who dealt it).
        refuse_if_hand_in_progress(shift.table, "change the dealer at")
        _end_shift(shift, by=by, now=now)
    shift = DealerShift.objects.create(table=table, dealer=dealer, clocked_in_at=now, clocked_in_by=user)
    return ClockedIn(shift, replayed=False)


@service
def clock_out(*, table: Table, by: User) -> DealerShift | None:
    """End the down at ``table`` (the dealer themself, or the floor). Returns the ended down, or
    None when nobody was clocked in. Raises NotYourTable, HandInProgress."""
    table = lock_table(table)
    shift = DealerShift.objects.select_for_update().filter(table=table, clocked_out_at__isnull=True).first()
    if shift is None:
        return None
    if (by is None or shift.dealer_id != by.pk) and not may_run_any_table(by):
        raise NotYourTable(f"Only the dealer clocked in at table {table.number} (or the floor) clocks out.")
    refuse_if_hand_in_progress(table, "clock the dealer out at")
    _end_shift(shift, by=by, now=timezone.now())
    return shift


def _end_shift(shift: DealerShift, *, by: User, now: datetime.datetime) -> None:
    shift.clocked_out_at, shift.clocked_out_by = max(now, shift.clocked_in_at), acting_user(by)
    shift.save(update_fields=["clocked_out_at", "clocked_out_by"])
