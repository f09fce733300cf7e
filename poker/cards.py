"""Playing cards: parsing, canonical text and fast integer codes.

Card text (RULINGS section 1): rank ``2``-``9``, ``T`` (``10`` accepted on input), ``J``,
``Q``, ``K``, ``A``; suit ``s h d c``; the lowball joker is ``JK``.  Input is
case-insensitive; output is canonical (``As``, ``Td``, ``JK``).

Every card carries an integer ``code``.  For the 52 standard cards the code is
``(rank - 2) * 4 + suit_order`` with clubs 0, diamonds 1, hearts 2, spades 3, which is exactly
the card id used by ``phevaluator`` (so the code can be passed to its C evaluators as is), and
which sorts cards by rank and then by the tie-break suit order (spades > hearts > diamonds >
clubs).  The joker's code is 52.

Cards are interned: there are exactly 53 card objects and ``Card(rank, suit)`` and
:func:`parse_card` return them, so equality is identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, NoReturn

from .errors import ShowdownError

__all__ = [
    "CARDS_BY_CODE",
    "CARD_BY_TEXT",
    "FULL_DECK",
    "JOKER",
    "JOKER_CODE",
    "RANK_CHARS",
    "SUIT_CHARS",
    "Card",
    "CardError",
    "card_key",
    "card_texts",
    "format_cards",
    "parse_card",
    "parse_card_list",
    "parse_cards",
]

#: Rank characters from deuce (rank 2) to ace (rank 14).
RANK_CHARS: Final = "23456789TJQKA"
#: Suit characters in tie-break order, lowest first: clubs < diamonds < hearts < spades.
SUIT_CHARS: Final = "cdhs"
_SUIT_ORDER: Final[dict[str, int]] = {s: i for i, s in enumerate(SUIT_CHARS)}

JOKER_CODE: Final = 52


class CardError(ValueError):
    """Unknown card text or an impossible card; the message names the bad text."""


class Card:
    """One immutable, hashable playing card (or the lowball joker).

    There are exactly 53 card objects: ``Card(14, "s")`` returns the same object as
    ``parse_card("As")``, so equality is identity and cards hash fast.

    Attributes:
        rank: 2..14 (jack 11, queen 12, king 13, ace 14); 0 for the joker.
        suit: ``'s'``, ``'h'``, ``'d'`` or ``'c'``; ``''`` for the joker.
        code: ``(rank - 2) * 4 + suit_order`` for standard cards (phevaluator's card id,
            0..51), 52 for the joker.
        text: canonical text: ``"As"``, ``"Td"``, ``"JK"`` (a slot: as fast to read as the others).
    """

    __slots__ = ("code", "rank", "suit", "text")

    rank: int
    suit: str
    code: int
    text: str

    def __new__(cls, rank: int, suit: str) -> Card:
        card = _INTERNED.get((rank, suit))
        if card is None:
            raise CardError(f"no such card: rank {rank!r}, suit {suit!r}")
        return card

    @classmethod
    def _make(cls, rank: int, suit: str) -> Card:
        if rank == 0 and suit == "":
            code, text = JOKER_CODE, "JK"
        else:
            code, text = (rank - 2) * 4 + _SUIT_ORDER[suit], RANK_CHARS[rank - 2] + suit
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "code", code)
        object.__setattr__(card, "text", text)
        _INTERNED[rank, suit] = card
        return card

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Card is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Card is immutable (cannot delete {name!r})")

    def __reduce__(self) -> tuple[object, tuple[int, str]]:
        return (Card, (self.rank, self.suit))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    @property
    def is_joker(self) -> bool:
        return self.code == JOKER_CODE

    @property
    def suit_order(self) -> int:
        """Tie-break order of the suit: clubs 0 < diamonds 1 < hearts 2 < spades 3; joker -1."""
        return -1 if self.code == JOKER_CODE else self.code & 3

    @property
    def low_rank(self) -> int:
        """Rank with the ace counted low (ace 1, deuce 2 ... king 13); joker 0."""
        return 1 if self.rank == 14 else self.rank


_INTERNED: dict[tuple[int, str], Card] = {}


def card_key(card: Card) -> tuple[int, int]:
    """Sort key ``(rank, suit_order)``: the higher key is the higher card by suit.

    Suit order (spades > hearts > diamonds > clubs) only breaks ties between single cards
    (odd chips), never decides a pot.
    """
    return (card.rank, card.suit_order)


#: The 52 standard cards, indexed by code (2c, 2d, 2h, 2s, 3c ... As).
FULL_DECK: Final[tuple[Card, ...]] = tuple(
    Card._make(rank, suit) for rank in range(2, 15) for suit in SUIT_CHARS
)
#: The lowball joker (the "bug").
JOKER: Final = Card._make(0, "")
#: All 53 cards indexed by ``code`` (the joker last).
CARDS_BY_CODE: Final[tuple[Card, ...]] = (*FULL_DECK, JOKER)


def _spellings() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for card in FULL_DECK:
        rank_texts = [RANK_CHARS[card.rank - 2]]
        if card.rank == 10:
            rank_texts.append("10")
        for rank_text in rank_texts:
            for r in {rank_text, rank_text.lower()}:
                for s in (card.suit, card.suit.upper()):
                    table[r + s] = card
    for text in ("JK", "Jk", "jK", "jk"):
        table[text] = JOKER
    return table


_BY_TEXT: Final[dict[str, Card]] = _spellings()
#: Every accepted spelling (``"As"``, ``"as"``, ``"10s"``, ``"JK"`` ...) -> card; no whitespace.
CARD_BY_TEXT: Final[Mapping[str, Card]] = _BY_TEXT


def parse_card(text: str) -> Card:
    """Parse one card, case-insensitively: ``"As"``, ``"td"``, ``"10h"``, ``"JK"``.

    Raises:
        CardError: the text is not a card; the message quotes it.
    """
    card = _BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        if isinstance(text, str):
            card = _BY_TEXT.get(text.strip())
        if card is None:
            raise CardError(f"unknown card {text!r}")
    return card


def card_texts(text: str) -> list[str]:
    """The card texts typed into one string, separated by spaces and/or commas: ``"As Kd, 10h"``
    -> ``["As", "Kd", "10h"]`` (nothing is checked here)."""
    return text.replace(",", " ").split()


def parse_cards(value: str | Sequence[str]) -> tuple[Card, ...]:
    """Parse several cards from ``"As Kd, 10h"`` or ``["As", "Kd", "10h"]``.

    A string may separate cards with spaces and/or commas.  Duplicates are not checked here.

    Raises:
        CardError: an element is not a card (the message quotes it).
    """
    if isinstance(value, str):
        return tuple(parse_card(part) for part in card_texts(value))
    if not isinstance(value, Sequence):
        raise CardError(f"cards must be a string or a list of strings, not {value!r}")
    return tuple(parse_card(item) for item in value)


_CARD_ITEM: Final = _BY_TEXT.__getitem__


def parse_card_list(value: object, where: str, *, joker_refused_in: str = "") -> tuple[Card, ...]:
    """The cards of one hand, row or board in a showdown: a list of card texts, or one string of
    them (:func:`card_texts`). ``where`` names it in the messages (``"seat 3"``, ``"board"``).

    ``joker_refused_in`` names a game the joker does not play in (``"Chinese poker"``): the joker
    is then refused here; otherwise it is accepted and the caller decides (lowball takes it).
    Duplicates are not checked here.

    Raises:
        ShowdownError: ``"<where>: unknown card 'Xx'"`` (the first bad text, in order), ``"<where>:
            the joker JK does not play in <game>"``, or ``"<where>: cards must be a list of card
            texts, got ..."``.
    """
    if type(value) is not list:
        if not isinstance(value, str):
            raise ShowdownError(f"{where}: cards must be a list of card texts, got {value!r}")
        value = card_texts(value)
    try:  # the usual case: every text is a card as spelled
        cards = tuple(map(_CARD_ITEM, value))
    except (KeyError, TypeError):
        pass
    else:
        if not joker_refused_in or JOKER not in cards:
            return cards
    out: list[Card] = []
    for text in value:
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            try:
                card = parse_card(text)
            except CardError:
                raise ShowdownError(f"{where}: unknown card {text!r}") from None
        if card is JOKER and joker_refused_in:
            raise ShowdownError(f"{where}: the joker JK does not play in {joker_refused_in}")
        out.append(card)
    return tuple(out)


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Canonical texts of ``cards``, in the given order."""
    return [card.text for card in cards]
