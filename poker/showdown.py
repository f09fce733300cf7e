"""The showdown contract (``docs/showdown-json.md``): JSON object in, JSON object out.

``decide(hand)`` dispatches on ``hand["game"]`` through the :data:`GAMES` registry.  This
module implements the pot games (holdem, omaha, omaha-hi-lo, stud, stud-hi-lo, razz,
five-card-stud, five-card-draw, five-card-draw-hi-lo, lowball, option-alley):

    JSON mapping --parse_pot_request--> PotGameRequest (frozen, validated)
                 --decide_pot_game-->   PotGameResult (frozen)
                 --PotGameResult.to_json--> JSON mapping

Bad input raises :class:`ShowdownError` (a ``ValueError``) whose message names the seat and
the card.  ``decide_many`` handles JSON Lines: one result line per input line, a bad line
getting its own ``{"error": ...}`` line.

Lowball's two house rules (004 lowball rules 1 and 2) are optional input: ``"joker": false``
(dealer's choice deals lowball without the joker, :func:`game_admits_joker`) and the sevens
rule (a player marked ``checked_seven`` cannot win what was bet after the draw,
:func:`.pots.settle_void_after_draw`).  Neither costs the usual hand anything but a key lookup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Any, Final

from ._fast import maker
from .cards import CARD_BY_TEXT, JOKER, Card, parse_card_list
from .errors import ShowdownError
from .hands import (
    LOW_CARD_ORDER,
    Category,
    HighHand,
    LowHand,
    high_from_codes,
    holdem_highs,
    low8_from_codes,
    low_from_codes,
    omaha_board_low8,
    omaha_board_triples,
    omaha_high_codes,
    omaha_low8,
)
from .pots import PotError, Settlement, button_order, settle, settle_void_after_draw

__all__ = [
    "GAMES",
    "JOKER_GAMES",
    "POT_GAMES",
    "GameSpec",
    "Handler",
    "LowRule",
    "PlayerHand",
    "PlayerIn",
    "PotGameRequest",
    "PotGameResult",
    "SevensRule",
    "ShowdownError",
    "decide",
    "decide_line",
    "decide_many",
    "decide_pot_game",
    "decide_value",
    "game_admits_joker",
    "is_seven_or_better",
    "parse_pot_request",
    "pot_game_handler",
    "register_game",
]


class LowRule(StrEnum):
    NONE = "none"  # high only
    EIGHT = "8-or-better"  # hi/lo with the 8-or-better qualifier
    ANY = "any"  # a low without qualifier (razz, lowball, option alley): pairs can win


@dataclass(frozen=True, slots=True)
class GameSpec:
    """How a pot game reads its hands and gives odd chips.

    Attributes:
        hole: cards per live player (7 stud, 5 five-card games, 4 omaha, 2 holdem).
        board: community cards (5 in holdem and omaha games, else 0).
        high: the game has a high hand.
        low: the low rule.
        omaha: exactly 2 hole + 3 board cards.
        stud: odd chips by the highest (lowest) card by suit; otherwise by the button.
        joker: the game may be played with the joker ``JK`` (lowball), and is unless the
            hand says ``"joker": false`` (004 lowball rule 1: not in dealer's choice).
        sevens: the sevens rule applies (lowball, 004 lowball rule 2): players may be marked
            ``checked_seven``.
    """

    name: str
    hole: int
    board: int
    high: bool
    low: LowRule
    omaha: bool = False
    stud: bool = False
    joker: bool = False
    sevens: bool = False


POT_GAMES: Final[dict[str, GameSpec]] = {
    g.name: g
    for g in (
        GameSpec("holdem", 2, 5, True, LowRule.NONE),
        GameSpec("omaha", 4, 5, True, LowRule.NONE, omaha=True),
        GameSpec("omaha-hi-lo", 4, 5, True, LowRule.EIGHT, omaha=True),
        GameSpec("stud", 7, 0, True, LowRule.NONE, stud=True),
        GameSpec("stud-hi-lo", 7, 0, True, LowRule.EIGHT, stud=True),
        GameSpec("razz", 7, 0, False, LowRule.ANY, stud=True),
        GameSpec("five-card-stud", 5, 0, True, LowRule.NONE, stud=True),
        GameSpec("five-card-draw", 5, 0, True, LowRule.NONE),
        GameSpec("five-card-draw-hi-lo", 5, 0, True, LowRule.EIGHT),
        GameSpec("lowball", 5, 0, False, LowRule.ANY, joker=True, sevens=True),
        GameSpec("option-alley", 5, 0, True, LowRule.ANY, stud=True),
    )
}

#: The games that may be played with the joker ``JK`` (and are, unless ``"joker": false``).
JOKER_GAMES: Final[frozenset[str]] = frozenset(name for name, spec in POT_GAMES.items() if spec.joker)


# --------------------------------------------------------------------------------------
# Typed request and result
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerIn:
    seat: int
    cards: tuple[Card, ...]
    put_in: int
    folded: bool


@dataclass(frozen=True, slots=True)
class SevensRule:
    """004 lowball rule 2 ("must bet a seven or better or lose all action after the draw").

    Attributes:
        after_draw: seat -> chips put in after the draw (``0 <= after <= put_in``); every live
            seat is present, a folded seat only when the dealer gave it.
        checked: the live seats the dealer marked: they checked a seven or better after the
            draw, so they cannot win what was bet after it.
    """

    after_draw: Mapping[int, int]
    checked: frozenset[int]


@dataclass(frozen=True, slots=True)
class PotGameRequest:
    """A validated pot-game hand.

    Attributes:
        joker: the joker is in the deck for this hand (``None``: the game's default,
            ``game.joker``).
        sevens: the sevens rule's input when a player was marked ``checked_seven``, else
            ``None`` (the usual case: the pots are settled as they always were).
    """

    game: GameSpec
    button: int | None
    chip: int
    board: tuple[Card, ...]
    players: tuple[PlayerIn, ...]
    joker: bool | None = None
    sevens: SevensRule | None = None


@dataclass(frozen=True, slots=True)
class PlayerHand:
    """A live player's hands as read: ``low`` is ``None`` when it does not qualify (8-or-better)
    or the game has no low; ``high`` is ``None`` in low-only games."""

    seat: int
    high: HighHand | None
    low: LowHand | None


@dataclass(frozen=True, slots=True)
class PotGameResult:
    """The decided showdown.

    Attributes:
        game: the game's name.
        seats: the live seats whose hands were read, in input order (none when a single live
            player wins without a showdown).
        highs: seat -> high hand (empty in razz and lowball).
        lows: seat -> low hand, or ``None`` when it does not qualify (8-or-better); empty in
            high-only games.
        settlement: pots, awards, returned chips and nets.
    """

    game: str
    seats: tuple[int, ...]
    highs: Mapping[int, HighHand]
    lows: Mapping[int, LowHand | None]
    settlement: Settlement

    @property
    def hands(self) -> tuple[PlayerHand, ...]:
        """Each read seat's hands, in input order."""
        return tuple(PlayerHand(seat, self.highs.get(seat), self.lows.get(seat)) for seat in self.seats)

    def to_json(self) -> dict[str, Any]:
        """The contract's output object (``pots``, ``hands``, ``net``, plus ``returned``)."""
        hands: dict[str, Any] = {}
        key = _SEAT_KEYS.get
        highs, lows = self.highs, self.lows
        # (Card texts by list comprehension: inlined since Python 3.12, it is more than twice
        # as fast as list(map(attrgetter("text"), cards)) for five cards.)
        for seat in self.seats:
            high, low = highs.get(seat), lows.get(seat)
            hands[key(seat) or str(seat)] = {
                "high": high.name if high is not None else None,
                "high_cards": [c.text for c in high.cards] if high is not None else None,
                "low": low.name if low is not None else None,
                "low_cards": [c.text for c in low.cards] if low is not None else None,
            }
        s = self.settlement
        out: dict[str, Any] = {
            "pots": [
                {
                    "amount": p.amount,
                    "seats": list(p.seats),
                    "awards": [
                        {"seat": a.seat, "amount": a.amount, "share": a.share._value_} for a in p.awards
                    ],
                }
                for p in s.pots
            ],
            "hands": hands,
            "net": {key(seat) or str(seat): amount for seat, amount in s.net.items()},
            "returned": [{"seat": r.seat, "amount": r.amount} for r in s.returned],
        }
        if s.voided:  # the sevens rule gave after-draw chips back (lowball only)
            for pot, p in zip(out["pots"], s.pots, strict=True):
                if p.voided:
                    pot["voided"] = p.voided
            out["returned"] += [
                {"seat": r.seat, "amount": r.amount, "reason": VOID_AFTER_DRAW} for r in s.voided
            ]
        return out


#: The ``reason`` of a ``returned`` entry that gives back chips bet after the draw because a
#: player who checked a seven or better had the best hand (004 lowball rule 2).
VOID_AFTER_DRAW: Final = "after-draw action void (004 lowball rule 2)"

_SEAT: Final = attrgetter("seat")
_CARDS: Final = attrgetter("cards")
_SEAT_KEYS: Final[dict[int, str]] = {seat: str(seat) for seat in range(100)}  # JSON object keys
_make_player_in: Final = maker(PlayerIn)
_make_request: Final = maker(PotGameRequest)
_make_result: Final = maker(PotGameResult)


# --------------------------------------------------------------------------------------
# Parsing and validation
# --------------------------------------------------------------------------------------


def _money(value: object, what: str) -> int:
    if type(value) is not int:
        kind = type(value).__name__
        raise ShowdownError(f"{what} must be an integer number of cents, got {value!r} ({kind})")
    if value < 0:
        raise ShowdownError(f"{what} must not be negative, got {value}")
    return value


def _fmt(cards: Sequence[Card]) -> str:
    return " ".join(c.text for c in cards) or "none"


def _no_joker(spec: GameSpec, where: str) -> ShowdownError:
    if spec.joker:  # lowball dealt without the joker
        return ShowdownError(
            f"{where}: the joker JK is not in the deck for this hand"
            f' ({spec.name} played without the joker, "joker": false; 004 lowball rule 1)'
        )
    return ShowdownError(f"{where}: the joker JK plays only in lowball, not in {spec.name}")


def _card_conflict(
    spec: GameSpec, joker: bool, players: Sequence[PlayerIn], board: Sequence[Card]
) -> ShowdownError:
    """The first card problem found walking the hands in input order (joker, card twice)."""
    owner: dict[Card, str] = {}
    for p in players:
        where = f"seat {p.seat}"
        for card in p.cards:
            if card is JOKER and not joker:
                return _no_joker(spec, where)
            seen = owner.get(card)
            if seen == where:
                return ShowdownError(f"{where}: card {card} appears twice in the hand")
            if seen is not None:
                return ShowdownError(f"card {card} is held by {seen} and {where} (misdeal)")
            owner[card] = where
    on_board: set[Card] = set()
    for card in board:
        if card is JOKER:
            return _no_joker(spec, "board")
        if card in on_board:
            return ShowdownError(f"board: card {card} appears twice on the board")
        on_board.add(card)
        seen = owner.get(card)
        if seen is not None:
            return ShowdownError(f"card {card} is both on the board and in {seen}'s hand (misdeal)")
    raise AssertionError("no card conflict found")  # pragma: no cover


def _player_error(i: int, seat: object, put_in: object, folded: object, seats: set[int]) -> ShowdownError:
    """The message for a player object whose seat, put_in or folded is wrong."""
    if seat is None:
        return ShowdownError(f"players[{i}]: missing field 'seat'")
    if type(seat) is not int:
        return ShowdownError(f"players[{i}]: seat must be an integer, got {seat!r}")
    if seat in seats:
        return ShowdownError(f"seat {seat} appears twice")
    if put_in is None:
        return ShowdownError(f"seat {seat}: missing field 'put_in'")
    try:
        _money(put_in, f"seat {seat}: put_in")
    except ShowdownError as exc:
        return exc
    return ShowdownError(f"seat {seat}: folded must be true or false, got {folded!r}")


def _joker_flag(name: str, has_joker: bool, value: object) -> bool:
    """The hand's ``"joker"`` input: a boolean, and ``true`` only for a game with the joker."""
    if value is not True and value is not False:
        raise ShowdownError(f"joker must be true or false, got {value!r}")
    if value and not has_joker:
        games = ", ".join(sorted(JOKER_GAMES))
        raise ShowdownError(f'"joker": true, but {name} has no joker (only {games} is played with it)')
    return value


def game_admits_joker(game: str, joker: bool | None = None) -> bool:
    """Whether the joker ``JK`` is in the deck for a hand of ``game`` whose input has
    ``"joker": joker`` (``None``: no such key), e.g. for a card picker to offer it or not.

    True for lowball (:data:`JOKER_GAMES`) unless ``joker`` is ``False`` (004 lowball rule 1:
    lowball in dealer's choice is dealt without the joker); False for every other game.

    Raises:
        ShowdownError: where :func:`decide` refuses the hand for it: an unknown game, a ``joker``
            that is not a boolean, ``joker=True`` for a game without the joker.
    """
    spec = POT_GAMES.get(game) if isinstance(game, str) else None
    if spec is None:
        if not isinstance(game, str) or game not in GAMES:
            raise ShowdownError(f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}")
        return joker is not None and _joker_flag(game, False, joker)
    return spec.joker if joker is None else _joker_flag(spec.name, spec.joker, joker)


def _sevens_rule(
    spec: GameSpec, given: Sequence[tuple[PlayerIn, Mapping[str, Any]]], players: Sequence[PlayerIn]
) -> SevensRule | None:
    """Validate the sevens-rule fields of the players that have any (``given``, in input order).

    ``None`` when nobody is marked ``checked_seven`` (the after-draw amounts change nothing).
    """
    name = spec.name
    after: dict[int, int] = {}
    checked: list[int] = []
    for p, raw in given:
        where = f"seat {p.seat}"
        if "put_in_after_draw" in raw:
            if not spec.sevens:
                raise ShowdownError(
                    f"{where}: put_in_after_draw is only for lowball (004 lowball rule 2), not {name}"
                )
            amount = _money(raw["put_in_after_draw"], f"{where}: put_in_after_draw")
            if amount > p.put_in:
                raise ShowdownError(
                    f"{where}: put_in_after_draw {amount} is more than put_in {p.put_in}"
                    " (put_in is everything put in during the hand)"
                )
            after[p.seat] = amount
        mark = raw.get("checked_seven", False)
        if mark is not True and mark is not False:
            raise ShowdownError(f"{where}: checked_seven must be true or false, got {mark!r}")
        if not mark:
            continue
        if not spec.sevens:
            raise ShowdownError(
                f"{where}: checked_seven is only for lowball (004 lowball rule 2), not {name}"
            )
        if p.folded:
            raise ShowdownError(
                f"{where}: checked_seven marks a player in at the showdown, but the player folded"
            )
        if len(p.cards) != spec.hole:
            raise ShowdownError(
                f"{where}: checked_seven needs the player's {spec.hole} cards"
                f" (to check the seven or better), got {len(p.cards)}"
            )
        checked.append(p.seat)
    if not checked:
        return None
    for p in players:
        if not p.folded and p.seat not in after:
            raise ShowdownError(
                f"seat {p.seat}: missing field 'put_in_after_draw' (every live player needs it"
                f" when a player is marked checked_seven: seat {checked[0]})"
            )
    return SevensRule(after, frozenset(checked))


def parse_pot_request(hand: Mapping[str, Any]) -> PotGameRequest:
    """Validate a pot-game hand and build the typed request.

    Raises:
        ShowdownError: unknown game, missing field, non-integer or negative money, a seat twice,
            unknown card, wrong card count, the joker outside lowball or in a hand dealt without
            it (``"joker": false``), a card twice (in one hand, in two hands, or in a hand and on
            the board), a bad sevens-rule field (``put_in_after_draw``, ``checked_seven``), put-ins
            that would give a folded player's chips back or pay nobody (:func:`_put_in_problem`).
    """
    game_name = hand.get("game")
    spec = POT_GAMES.get(game_name) if isinstance(game_name, str) else None
    if spec is None:
        raise ShowdownError(f"unknown game {game_name!r}; pot games are: {', '.join(POT_GAMES)}")
    name = spec.name
    raw_joker = hand.get("joker")
    joker = spec.joker if raw_joker is None else _joker_flag(name, spec.joker, raw_joker)

    raw_players = hand.get("players")
    if raw_players is None:
        raise ShowdownError("missing field 'players'")
    if type(raw_players) is not list or not raw_players:
        raise ShowdownError("players must be a non-empty list of player objects")

    if "chip" not in hand:
        raise ShowdownError("missing field 'chip' (the smallest chip in play, in cents)")
    chip = _money(hand["chip"], "chip")
    if chip == 0:
        raise ShowdownError("chip must be a positive number of cents, got 0")

    button = hand.get("button")
    if button is None:
        if not spec.stud:
            raise ShowdownError(f"missing field 'button' ({name} gives odd chips from the button)")
    elif type(button) is not int:
        raise ShowdownError(f"button must be a seat number, got {button!r}")

    hole = spec.hole
    by_text = CARD_BY_TEXT
    players: list[PlayerIn] = []
    add = players.append
    incomplete: ShowdownError | None = None  # a live hand without its full cards
    all_cards: list[Card] = []
    sevens_given: list[tuple[PlayerIn, Mapping[str, Any]]] = []
    live = 0
    most_live = most_folded = 0  # the most a live player, a folded player put in
    paying = 0  # the players who put anything in
    for i, raw in enumerate(raw_players):
        if type(raw) is not dict and not isinstance(raw, Mapping):
            raise ShowdownError(f"players[{i}] must be an object, got {raw!r}")
        try:
            seat = raw["seat"]
            put_in = raw["put_in"]
        except KeyError:
            seat, put_in = raw.get("seat"), raw.get("put_in")
        folded = raw.get("folded", False)
        if (
            type(seat) is not int
            or type(put_in) is not int
            or put_in < 0
            or (folded is not False and folded is not True)
        ):
            raise _player_error(i, seat, put_in, folded, {p.seat for p in players})
        raw_cards = raw.get("cards")
        if type(raw_cards) is list:
            try:
                # parse_card_list's own first step, inlined on the hot path (a list comprehension
                # is faster than tuple(map(...)) for a few cards); anything else is parsed there.
                cards: tuple[Card, ...] = tuple([by_text[text] for text in raw_cards])
            except (KeyError, TypeError):
                cards = parse_card_list(raw_cards, f"seat {seat}")
        elif raw_cards is None:
            if not folded and incomplete is None:
                incomplete = ShowdownError(f"seat {seat}: missing field 'cards' ({name} needs {hole} cards)")
            cards = ()
        else:
            cards = parse_card_list(raw_cards, f"seat {seat}")
        if len(cards) != hole:
            if len(cards) > hole:
                raise ShowdownError(
                    f"seat {seat}: {name} needs {hole} cards, got {len(cards)} ({_fmt(cards)})"
                )
            if not folded and incomplete is None and raw_cards is not None:
                # an error unless this is the only live player (no showdown then)
                incomplete = ShowdownError(
                    f"seat {seat}: {name} needs {hole} cards, got {len(cards)} ({_fmt(cards)})"
                )
        all_cards += cards
        if not folded:
            live += 1
            if put_in > most_live:
                most_live = put_in
        elif put_in > most_folded:
            most_folded = put_in
        if put_in:
            paying += 1
        player = _make_player_in(seat, cards, put_in, folded)
        add(player)
        if "checked_seven" in raw or "put_in_after_draw" in raw:
            sevens_given.append((player, raw))
    if len(set(map(_SEAT, players))) != len(players):
        seen: set[int] = set()
        for p in players:
            if p.seat in seen:
                raise ShowdownError(f"seat {p.seat} appears twice")
            seen.add(p.seat)
    if live == 0:
        raise ShowdownError("every player folded; at least one player must be in at the showdown")
    if incomplete is not None and live > 1:
        raise incomplete

    raw_board = hand.get("board")
    board: tuple[Card, ...] = ()
    if spec.board:
        if raw_board is None:
            raise ShowdownError(f"missing field 'board' ({name} needs {spec.board} board cards)")
        board = parse_card_list(raw_board, "board")
        if len(board) != spec.board and (live > 1 or len(board) > spec.board):
            raise ShowdownError(f"board: {name} needs {spec.board} cards, got {len(board)} ({_fmt(board)})")
        all_cards.extend(board)
    elif raw_board is not None and raw_board != [] and raw_board != "":
        raise ShowdownError(f"board: {name} has no board cards (board is only for holdem and omaha games)")
    distinct = set(all_cards)
    if len(distinct) != len(all_cards) or (JOKER in distinct and (board or not joker)):
        raise _card_conflict(spec, joker, players, board)
    sevens = _sevens_rule(spec, sevens_given, players) if sevens_given else None
    if most_folded > most_live or paying == 1:
        raise _put_in_problem(players)
    return _make_request(spec, button, chip, board, tuple(players), joker, sevens)


def _put_in_problem(players: Sequence[PlayerIn]) -> ShowdownError:
    """The refusal of put-ins no real hand leaves, which would settle as a pot paid to nobody.

    A folded player's chips stay in the pot (Robert's Rules): they are never given back. Chips go
    back only when nobody called them, and only to the player who put in the most, the amount
    above the second most: a folded player who put in more than every player still in would get
    chips back (or leave chips no live player can win). And when a single player put chips in,
    all of them would go back as uncalled chips and the pot would pay nobody: the folded
    players' put-ins were left out.
    """
    most_live = max(p.put_in for p in players if not p.folded)
    for p in players:
        if p.folded and p.put_in > most_live:
            return ShowdownError(
                f"seat {p.seat} folded but put in more than any player still in: a folded player's"
                " chips stay in the pot and never go back to it (correct its put-in, or its fold)"
            )
    (alone,) = (p for p in players if p.put_in)
    return ShowdownError(
        f"no pot: only seat {alone.seat} put chips in, so they would all go back to it as uncalled"
        " chips and the pot would pay nobody; a folded player's chips stay in the pot: enter what"
        " each player put in"
    )


# --------------------------------------------------------------------------------------
# Deciding
# --------------------------------------------------------------------------------------


class _CardOrder(Mapping[int, int]):
    """Stud odd-chip priority, computed only for the seats that actually tie.

    High: the highest card by suit first (``-code``); low: the lowest card by suit first
    (ace low), over all of the player's cards.
    """

    __slots__ = ("_cards", "_low")

    def __init__(self, players: Sequence[PlayerIn], low: bool) -> None:
        self._cards = {p.seat: p.cards for p in players}
        self._low = low

    def __getitem__(self, seat: int) -> int:
        codes = [c.code for c in self._cards[seat]]
        if not codes:
            return 0
        return min(LOW_CARD_ORDER[c] for c in codes) if self._low else -max(codes)

    def __iter__(self) -> Iterator[int]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)


def decide_pot_game(request: PotGameRequest) -> PotGameResult:
    """Read every live hand and settle the pots."""
    spec = request.game
    board = request.board
    live = [p for p in request.players if not p.folded]
    live_seats = list(map(_SEAT, live))
    read = len(live) > 1 or (len(live[0].cards) == spec.hole and len(board) == spec.board)
    highs: dict[int, HighHand] = {}
    lows: dict[int, LowHand | None] = {}
    high: dict[int, int] | None = {} if spec.high else None
    low: dict[int, int] | None = {} if spec.low is not LowRule.NONE else None
    if not read:  # one live player without a complete hand: every pot is uncontested
        high, low = {live[0].seat: 0}, None
    elif spec.omaha:
        # omaha and omaha-hi-lo (the only Omaha low is 8-or-better)
        assert high is not None
        board_codes = sorted([c.code for c in board])
        triples = omaha_board_triples(board_codes)
        board_low8, board_bits = omaha_board_low8(board_codes)
        lows_possible = low is not None and board_low8.bit_count() >= 3
        low_order_key = LOW_CARD_ORDER.__getitem__
        for p in live:
            seat = p.seat
            codes = sorted([c.code for c in p.cards])
            h = highs[seat] = omaha_high_codes(codes, board_codes, triples)
            high[seat] = h.strength
            if low is not None:
                lo = None
                if lows_possible:
                    codes.sort(key=low_order_key)
                    lo = omaha_low8(codes, board_low8, board_bits)
                    if lo is not None:
                        low[seat] = lo.strength
                lows[seat] = lo
    elif low is None and spec.hole == 2 and spec.board == 5:
        # hold'em: the hottest path (one board for every hand)
        assert high is not None
        highs, high = holdem_highs(live_seats, list(map(_CARDS, live)), board)
    elif low is None:
        # high only (stud, five-card stud and draw)
        assert high is not None
        board_codes = [c.code for c in board]
        for p in live:
            h = highs[p.seat] = high_from_codes([c.code for c in p.cards] + board_codes)
            high[p.seat] = h.strength
    else:
        eight = spec.low is LowRule.EIGHT
        joker = spec.joker if request.joker is None else request.joker
        for p in live:
            seat = p.seat
            codes = [c.code for c in p.cards]
            if high is not None:
                h = highs[seat] = high_from_codes(codes)
                high[seat] = h.strength
            lo = lows[seat] = low8_from_codes(codes) if eight else low_from_codes(codes, joker)
            if lo is not None:
                low[seat] = lo.strength
    high_order: Mapping[int, int]
    low_order: Mapping[int, int]
    if spec.stud:
        high_order = _CardOrder(live, low=False)
        low_order = _CardOrder(live, low=True)
    else:
        assert request.button is not None
        high_order = low_order = button_order(live_seats, request.button)
    try:
        if request.sevens is None:
            settlement = settle(
                request.players,
                chip=request.chip,
                high=high,
                low=low,
                high_order=high_order,
                low_order=low_order,
            )
        else:
            settlement = _settle_sevens(request, lows, low, low_order)
    except PotError as exc:
        raise ShowdownError(str(exc)) from None
    seats = tuple(live_seats) if read else ()
    return _make_result(spec.name, seats, highs, lows, settlement)


def is_seven_or_better(low: LowHand) -> bool:
    """A lowball hand of five unpaired ranks, seven or lower (7-6-5-4-3 down to 5-4-3-2-A)."""
    return low.category is Category.HIGH_CARD and low.ranks[0] <= 7


def _settle_sevens(
    request: PotGameRequest,
    lows: Mapping[int, LowHand | None],
    low: Mapping[int, int] | None,
    order: Mapping[int, int],
) -> Settlement:
    """Settle a lowball hand with players marked ``checked_seven`` (004 lowball rule 2)."""
    sevens = request.sevens
    assert sevens is not None
    assert low is not None, "the sevens rule is a lowball rule (a low-only game)"
    for p in request.players:
        if p.seat in sevens.checked:
            hand = lows.get(p.seat)
            assert hand is not None, "a marked player's hand is always read (its cards are complete)"
            if not is_seven_or_better(hand):
                raise ShowdownError(
                    f"seat {p.seat}: marked checked_seven, but {hand.name} is not a seven or better"
                    " (the mark is wrong: only a 7-x-x-x-x low or better must be bet)"
                )
    return settle_void_after_draw(
        request.players,
        chip=request.chip,
        strength=low,
        order=order,
        after_draw=sevens.after_draw,
        checked=sevens.checked,
    )


def pot_game_handler(hand: Mapping[str, Any]) -> dict[str, Any]:
    """The registry handler for every pot game: parse, decide, to JSON."""
    return decide_pot_game(parse_pot_request(hand)).to_json()


# --------------------------------------------------------------------------------------
# Game registry and entry points
# --------------------------------------------------------------------------------------

Handler = Callable[[Mapping[str, Any]], dict[str, Any]]

#: Game name -> handler taking the input JSON object and returning the output JSON object.
#: Handlers raise ShowdownError (poker.errors) for bad input.
GAMES: dict[str, Handler] = dict.fromkeys(POT_GAMES, pot_game_handler)


def register_game(name: str, handler: Handler) -> None:
    """Add (or replace) the handler for ``name``."""
    GAMES[name] = handler


def decide(hand: Mapping[str, Any]) -> dict[str, Any]:
    """Decide one showdown (see docs/showdown-json.md).

    Raises:
        ShowdownError: bad input; the message names the seat and the card.
    """
    if type(hand) is not dict and not isinstance(hand, Mapping):
        raise ShowdownError(f"a hand must be a JSON object, got {type(hand).__name__}")
    game = hand.get("game")
    if game is None:
        raise ShowdownError("missing field 'game'")
    handler = GAMES.get(game) if isinstance(game, str) else None
    if handler is None:
        raise ShowdownError(f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}")
    return handler(hand)


def decide_line(line: str) -> tuple[str, bool]:
    """Decide one JSON text; returns ``(output JSON text, ok)`` where a bad input gives
    ``('{"error": "..."}', False)``."""
    try:
        hand = json.loads(line)
    except ValueError as exc:
        return json.dumps({"error": f"not valid JSON: {exc}"}), False
    return decide_value(hand)


def decide_value(hand: object) -> tuple[str, bool]:
    """Decide an already parsed JSON value; ``(output JSON text, ok)`` as for :func:`decide_line`."""
    try:
        return json.dumps(decide(hand)), True  # type: ignore[arg-type]  # decide() checks the type
    except ShowdownError as exc:
        return json.dumps({"error": str(exc)}), False


def decide_many(lines: Iterable[str]) -> Iterator[str]:
    """JSON Lines: one output line (without newline) per non-blank input line, in order; a bad
    line gets its own ``{"error": ...}`` line and the others are still decided."""
    for line in lines:
        if line.strip():
            yield decide_line(line)[0]


# ======================================================================================
# Other games register here.  Chinese and Taiwanese poker: add ONE import and TWO entries
# below this line, e.g.
#     from .chinese import decide_chinese, decide_taiwanese
#     GAMES["chinese-poker"] = decide_chinese
#     GAMES["taiwanese-poker"] = decide_taiwanese
# (import ShowdownError from poker.errors to avoid a circular import).
# ======================================================================================
from . import chinese, taiwanese  # noqa: E402  (registered after the pot games)

GAMES[chinese.GAME] = chinese.decide_chinese
GAMES[taiwanese.GAME] = taiwanese.decide_taiwanese
