"""What the dealer chose and entered on the terminal: the next hand's choice, the showdown entry as
posted, the fees the screen showed, and which fields a refusal is about.

Reading input only: nothing here writes or draws the screen. A value that can't be read is said
(``NextHandChoice.problem``, a :class:`Refusal`), never an error page.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from django import forms
from django.http import QueryDict
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from poker.cards import card_texts
from poker.sweeps import parse_sweep_kind
from tables.choices import MisdealReason
from tables.models import Game
from tables.services import MAX_FIELD_CHARS
from web.common.pages import PageInputError, whole_number
from web.terminal.showdown_input import BOARD_FIELDS

#: Taiwanese poker is dealt with one board per field of the entry, at most.
MAX_BOARDS = len(BOARD_FIELDS)
#: The prefixes of the inputs that hold cards (besides the boards).
CARD_FIELD_PREFIXES = ("cards_", "front_", "middle_", "back_", "top_", "bottom_")
_CARD_IN_TEXT = re.compile(
    r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([shdc])(?![A-Za-z0-9])|(?<![A-Za-z])JK(?![A-Za-z])"
)
_SEAT_IN_TEXT = re.compile(r"\bseats? (\d+)", re.IGNORECASE)
_GLYPHS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


@dataclass(frozen=True)
class NextHandChoice:
    """The next hand as picked on the screen: dealer's choice game, seats sitting out, boards."""

    game: Game | None = None
    sit_out: tuple[int, ...] = ()
    boards: int | None = None
    problem: str = ""

    @classmethod
    def from_data(cls, data: QueryDict) -> NextHandChoice:
        """From the next-hand form (``game``: a slug, ``sit_out``: seat numbers, ``boards``: 1-3).
        A value that can't be read is dropped and said (``problem``), never an error page."""
        problems = []
        game = None
        slug = str(data.get("game") or "").strip()
        if slug:
            game = Game.objects.filter(slug=slug).first()
            if game is None:
                problems.append(f"There is no game {slug!r}; pick one of the list.")
        seats = [whole_number(v) for v in data.getlist("sit_out")]
        if None in seats:
            problems.append("A seat to sit out is a seat number.")
        raw_boards = data.get("boards")
        boards = whole_number(raw_boards) if raw_boards not in (None, "") else None
        if raw_boards not in (None, "") and (boards is None or not 1 <= boards <= MAX_BOARDS):
            problems.append(f"Taiwanese poker is dealt with 1 to {MAX_BOARDS} boards.")
            boards = None
        return cls(
            game=game,
            sit_out=tuple(sorted({s for s in seats if s is not None})),
            boards=boards,
            problem=" ".join(problems),
        )


@dataclass
class Refusal:
    """A refusal to show in the panel: the message, the HTTP status, the inputs to mark."""

    message: str
    status: int = 400
    bad: set[str] = field(default_factory=set)


def posted_entry(data: QueryDict) -> dict[str, str]:
    """The showdown form as posted (every field as typed, cut to :data:`MAX_FIELD_CHARS`, the
    longest any field of the screen holds and a draft keeps; the token left out). What was cut
    is refused by :func:`check_entry`, so nothing longer is ever read or drawn back."""
    return {
        name: str(value)[: MAX_FIELD_CHARS + 1]
        for name, value in data.items()
        if name != "csrfmiddlewaretoken"
    }


def check_entry(data: QueryDict | Mapping[str, str]) -> None:
    """Refuse (PageInputError naming the field) what the screen never sends: a field longer than
    :data:`MAX_FIELD_CHARS` characters, or a clean sweep declared that the rules don't know (the
    screen offers only those). Checked before the entry is read, so such input is a form error
    (400), never a write."""
    for name, value in data.items():
        text = str(value)
        if len(text) > MAX_FIELD_CHARS:
            raise PageInputError(
                f"{name.replace('_', ' ')}: longer than any entry ({MAX_FIELD_CHARS} characters at most).",
                field=name,
            )
        if name.startswith("declare_") and text and parse_sweep_kind(text) is None:
            seat = seat_of(name)
            raise PageInputError(
                f"Seat {seat}: {text[:30]!r} is not a clean sweep the rules know; pick one of the list.",
                field=name,
            )


def fees_posted(data: QueryDict) -> dict[int, int]:
    """The fees the screen showed, from its ``fee-<seat>`` fields (cents). A field that isn't a
    whole number is no fee the dealer saw: it is dropped, so the deal is refused as changed."""
    fees: dict[int, int] = {}
    for name, value in data.items():
        seat, cents = whole_number(name.removeprefix("fee-")), whole_number(value)
        if name.startswith("fee-") and seat is not None and cents is not None:
            fees[seat] = cents
    return fees


def bad_fields(message: str, entry: Mapping[str, str], named: str = "") -> set[str]:
    """The inputs a refusal is about, to mark on the screen: the field the error names, else each
    field holding a card the message names, else the named seats' card fields (or put-ins, when
    the message is about an amount), else the boards when the message is about a board."""
    if named and named in entry:
        return {named}
    cards = {
        (m.group(1).replace("10", "T") + m.group(2)) if m.group(1) else "JK"
        for m in _CARD_IN_TEXT.finditer(message)
    }
    if cards:
        hits = {
            name
            for name, value in entry.items()
            if is_card_field(name) and any(c.upper() in cards_upper(value) for c in cards)
        }
        if hits:
            return hits
    seats = {int(s) for s in _SEAT_IN_TEXT.findall(message)}
    money = any(word in message for word in ("put in", "put-in", "kill blind", "after the draw", "$"))
    marked: set[str] = set()
    for name in entry:
        seat = seat_of(name)
        if seat is None or seat not in seats:
            continue
        amount = name.startswith(("put_in_", "after_draw_"))
        if (money and amount) or (not money and is_card_field(name)):
            marked.add(name)
    if not marked and "board" in message.lower():
        marked = {name for name in entry if name in BOARD_FIELDS}
    return marked


def cards_upper(value: str) -> set[str]:
    """The cards of a field, upper-cased for comparison (``10c`` as ``TC``)."""
    return {c.upper().replace("10", "T") for c in card_texts(value)}


def is_card_field(name: str) -> bool:
    """``name`` is an input that holds cards: a board, or a seat's cards or row."""
    return name in BOARD_FIELDS or name.startswith(CARD_FIELD_PREFIXES)


def seat_of(name: str) -> int | None:
    """The seat a per-seat input is for (``put_in_3``: 3), or None for a field of the hand."""
    head, _, tail = name.rpartition("_")
    return whole_number(tail) if head else None


@dataclass(frozen=True)
class CardField:
    """One card input of the showdown entry; ``order`` is the tap order (board first)."""

    name: str
    label: str
    count: int
    value: str
    bad: bool
    order: int
    where: str


@functools.cache
def card_grid(*, joker: bool) -> SafeString:
    """The 52 keys of the card grid (a suit a row, ace first), and the joker where it is in the
    deck: the same markup on every screen, so it is made once (the screen is drawn on every tap)."""
    keys: list[tuple[str, str, str, str]] = [
        ("red" if suit in "hd" else "black", rank + suit, rank + suit, rank + _GLYPHS[suit])
        for suit in "shdc"
        for rank in "AKQJT98765432"
    ]
    if joker:
        keys.append(("black joker", "JK", "JK", "Joker"))
    return format_html_join(
        "", '<button type="button" class="pick {}" data-card="{}" aria-label="{}">{}</button>', keys
    )


class MisdealForm(forms.Form):
    """A misdeal: one of 004's reasons (:class:`tables.choices.MisdealReason`), and the dealer's
    words (needed for ``other``; the service checks that, and the length)."""

    reason_code = forms.ChoiceField(choices=MisdealReason.choices, label="Misdeal")
    reason = forms.CharField(max_length=500, required=False, label="What happened")
