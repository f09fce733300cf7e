"""A hand as the dealer terminal and its API read it: :func:`hand_view` returns a
:class:`HandView`, the hand with its players dealt in, each one's chips at the table, the reading on
record with its ledger lines and the engine's reading typed, and whether a misdeal's fees went back.

A selector (it reads the floor's tables and the ledger, writes nothing), in the layer that owns a
hand's money: the screen, its presenters and the API serializer read the hand through it and never
query the ledger themselves. What a service just wrote and returned is passed in, so it isn't read
again; its statements are counted per tap (``tests/web/terminal/test_terminal_queries.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from handflow.deal import hand_kill_blind
from handflow.keys import fees_return_key
from ledger.models import JournalTransaction
from ledger.selectors import chips_subquery
from poker.errors import ShowdownError
from poker.postings import Postings
from poker.reading import Reading
from tables.choices import HandStatus
from tables.models import Hand, HandPlayer, HandResult

__all__ = ["HandView", "hand_view"]


# Not slotted: the typed reading and postings are cached on the instance, parsed once when first
# read (the API's answer never parses the reading; the screen's reading panel does).
@dataclass(frozen=True)
class HandView:
    """One hand, read once.

    Attributes:
        hand: the hand, its table, game, stakes, collection schedule and dealer loaded, and its
            button's and kill's seats when they are dealt in.
        players: the players dealt in by position, their seats and players loaded (empty when
            the view was asked without them: :func:`hand_view`'s ``seats``).
        chips: each player's chips at the table now, by player id (the players dealt in, or
            every player at the table as a service returned them).
        result: the reading on record (None before the showdown, or without one).
        fees_returned: a void hand's fees went back to the players (always False otherwise).
    """

    hand: Hand
    players: tuple[HandPlayer, ...]
    chips: Mapping[int, int]
    result: HandResult | None
    fees_returned: bool

    @property
    def status(self) -> HandStatus:
        return HandStatus(self.hand.status)

    @property
    def fees_cents(self) -> int:
        """The fees collected before the deal, from the players dealt in."""
        return sum(hp.fee_cents or 0 for hp in self.players)

    def chips_of(self, hp: HandPlayer) -> int:
        """``hp``'s chips at the table now (0 without an account)."""
        return self.chips.get(hp.player_id, 0)

    @cached_property
    def kill_blind_cents(self) -> int | None:
        """The kill blind the kill seat posted (None: not a kill hand)."""
        return hand_kill_blind(self.hand)

    @cached_property
    def postings(self) -> Postings | None:
        """The reading's ledger lines, typed (None without a reading). The engine's own answer
        stored as it came: one that can't be read back raises ShowdownError."""
        return Postings.from_json(self.result.postings) if self.result is not None else None

    @cached_property
    def reading(self) -> Reading | None:
        """The engine's reading, typed; None without one, or with one the engine can't read back
        (nothing is shown rather than a guess)."""
        if self.result is None:
            return None
        try:
            return Reading.from_json(self.result.engine_result)
        except ShowdownError:
            return None

    @property
    def seat_nets(self) -> tuple[tuple[int, int], ...]:
        """Each seat's chips change when settled, by ascending seat (none without a reading)."""
        postings = self.postings
        return postings.seat_nets if postings is not None else ()


def _players_and_chips(hand: Hand) -> tuple[Sequence[HandPlayer], dict[int, int]]:
    """The hand's players by position, and each one's chips at the table now, by player id.

    One statement: the chips come with the players, the balance of each one's chips account at
    the table (as :func:`ledger.selectors.table_chips` reads them, for the players dealt in), since
    the screen reads the hand on every tap and a second statement would be counted on each."""
    players = list(
        HandPlayer.objects.filter(hand=hand)
        .select_related("seat", "player")
        .annotate(chips_now=chips_subquery(table_id=hand.table_id))
        .order_by("position")
    )
    return players, {hp.player_id: hp.chips_now or 0 for hp in players}


def hand_view(
    hand: Hand,
    *,
    fresh: bool = False,
    result: HandResult | None = None,
    players: Sequence[HandPlayer] | None = None,
    chips: Mapping[int, int] | None = None,
    seats: bool = True,
) -> HandView:
    """The hand as it stands in the database now (one to four queries).

    ``fresh``: ``hand`` is the object the hand flow just locked and wrote, with its table, game,
    stakes and schedule loaded (a service's return value in the same transaction), so it isn't read
    again; otherwise it is. ``players`` and ``chips``: with ``fresh``, the players dealt in by
    position and each one's chips at the table by player id as the service returned them
    (``Dealt``, ``Proposed``, ``Settled``), else read. ``result``: the hand's :class:`HandResult`
    as the flow left it (else read when the hand has one). ``seats``: False for the hand's outcome
    only (a settled hand's reading, whether a void hand's fees went back), without its players and
    chips (the screen's last hand). Few joins per query: PostgreSQL plans a seven-table join in
    about 2 ms, more than the whole rest of the response; the button's and the kill's seats come
    from the players'."""
    if not fresh:
        hand = Hand.objects.select_related("table", "game", "stakes", "collection_schedule", "dealer").get(
            pk=hand.pk
        )
    if not seats:
        players, chips = (), {}
    elif not (fresh and players is not None and chips is not None):
        players, chips = _players_and_chips(hand)
    by_id = {hp.seat_id: hp.seat for hp in players}
    for name in ("button_seat", "kill_seat"):
        seat_id = getattr(hand, f"{name}_id")
        if seat_id is not None and seat_id in by_id:
            setattr(hand, name, by_id[seat_id])  # else read when used (a seat not dealt in)
    returned = (
        hand.status == HandStatus.VOID
        and JournalTransaction.objects.filter(idempotency_key=fees_return_key(hand)).exists()
    )
    # The outcome alone (``seats`` False) needs a reading only to say a settled hand's nets.
    wanted = hand.status not in HandStatus.before_showdown() and (seats or hand.status == HandStatus.SETTLED)
    if result is None and wanted:
        result = (
            HandResult.objects.filter(hand=hand)
            .select_related("submitted_by", "confirmed_by")
            .defer("submitted")
            .first()
        )
    return HandView(hand=hand, players=tuple(players), chips=chips, result=result, fees_returned=returned)
