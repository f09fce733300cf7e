"""The dealer terminal: one screen per table (``/tables/<number>/``), updated in place.

The screen is one server-rendered body (``templates/tables/_terminal.html``, made of the seats,
next-hand, showdown and reading panels) that every action swaps in place: the page's forms carry
``hx-post``/``hx-get`` (htmx, ``static/htmx.min.js``) and each view answers an htmx request with
that body alone (header ``X-Terminal-Panel``), so no page is loaded between the deal and the
confirmation. Without htmx the same forms post plainly: a success redirects back to the page, a
refusal draws the page again with the entry as posted.

Input and output only: every write is one service of ``handflow.services`` (start the hand,
declare a sweep, submit the showdown, confirm, misdeal) or ``tables.services`` (clock a dealer in
or out); a refusal (a ``DomainError``, or a field this page can't read) is shown in the panel with
its status (400, 403, 409) and nothing changed. What the dealer entered is always drawn back as
posted, the bad field marked, so one card can be corrected and the hand read again. Confirming is
idempotent in the service: two terminals, or a double tap, settle the hand once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.views import View

from casino.core.errors import DomainError
from handflow import services as hand_flow
from ledger.models import JournalTransaction
from poker.cards import card_texts
from poker.kill import kill_limits
from poker.showdown import POT_GAMES
from tables import services as floor
from tables.errors import FeesChanged
from tables.models import (
    ButtonState,
    Game,
    GameKind,
    Hand,
    HandPlayer,
    HandResult,
    HandStatus,
    KillType,
    MisdealReason,
    Table,
    format_cents,
)
from web.floor_forms import (
    BOARD_FIELDS,
    SWEEP_CHOICES,
    MisdealForm,
    PageInputError,
    cents_to_dollars,
    entry_from_submitted,
    showdown_from_post,
)
from web.pages import whole_number
from web.terminal_serializers import TerminalHandSerializer

#: The response header that marks the terminal's body: the page script swaps a refusal (4xx) in
#: only when it carries it (anything else, such as a login page, reloads the page instead).
PANEL_HEADER = "X-Terminal-Panel"
BODY_TEMPLATE = "tables/_terminal.html"
PAGE_TEMPLATE = "tables/terminal.html"
MAX_BOARDS = len(BOARD_FIELDS)
_CARD_IN_TEXT = re.compile(
    r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([shdc])(?![A-Za-z0-9])|(?<![A-Za-z])JK(?![A-Za-z])"
)
_SEAT_IN_TEXT = re.compile(r"\bseats? (\d+)", re.IGNORECASE)


def _table(number: int) -> Table:
    table = (
        Table.objects.select_related("game", "stakes", "collection_schedule").filter(number=number).first()
    )
    if table is None:
        raise Http404(f"There is no table {number}.")
    return table


def _hand(pk: int) -> Hand:
    hand = Hand.objects.select_related("table", "game").filter(pk=pk).first()
    if hand is None:
        raise Http404(f"There is no hand {pk}.")
    return hand


def _terminal_url(table_number: int) -> str:
    return reverse("tables:terminal", args=[table_number])


def is_htmx(request: HttpRequest) -> bool:
    """The request comes from the page script (htmx), which swaps the body it gets back in place."""
    return request.headers.get("HX-Request") == "true"


# --- What the dealer chose for the next hand, and what they entered for this one ----------------------


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


def _entry_of(data: QueryDict) -> dict[str, str]:
    """The showdown form as posted (every field as typed; the token left out)."""
    return {name: str(value) for name, value in data.items() if name != "csrfmiddlewaretoken"}


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
            if _is_card_field(name) and any(c.upper() in cards_upper(value) for c in cards)
        }
        if hits:
            return hits
    seats = {int(s) for s in _SEAT_IN_TEXT.findall(message)}
    money = any(word in message for word in ("put in", "put-in", "kill blind", "after the draw", "$"))
    marked: set[str] = set()
    for name in entry:
        seat = _seat_of(name)
        if seat is None or seat not in seats:
            continue
        amount = name.startswith(("put_in_", "after_draw_"))
        if (money and amount) or (not money and _is_card_field(name)):
            marked.add(name)
    if not marked and "board" in message.lower():
        marked = {name for name in entry if name in BOARD_FIELDS}
    return marked


def cards_upper(value: str) -> set[str]:
    """The cards of a field, upper-cased for comparison (``10c`` as ``TC``)."""
    return {c.upper().replace("10", "T") for c in card_texts(value)}


_CARD_FIELD_PREFIXES = ("cards_", "front_", "middle_", "back_", "top_", "bottom_")


def _is_card_field(name: str) -> bool:
    return name in BOARD_FIELDS or name.startswith(_CARD_FIELD_PREFIXES)


def _seat_of(name: str) -> int | None:
    head, _, tail = name.rpartition("_")
    return whole_number(tail) if head else None


# --- The screen's parts ---------------------------------------------------------------------------------


def _limits(table: Table, pct: int) -> str:
    """The betting limits of a hand at ``pct`` percent (100: no kill; a kill hand raises them, as
    the engine's ``kill_limits`` says)."""
    small, big = table.stakes.small_bet_cents, table.stakes.big_bet_cents
    if not small or not big:
        return ""
    kind = table.stakes.kill if pct != 100 else "none"
    small, big = kill_limits(small, big, kind, table.chip_unit_cents)
    return f"{format_cents(small)}-{format_cents(big)}"


def _pad_amounts(table: Table) -> list[dict[str, Any]]:
    """The put-in pad's keys: at a limit table the small and big bet, then whole chips of the table
    (1, 5, 25, 100 of them); each adds its amount to the put-in being entered."""
    chip = table.chip_unit_cents
    stakes = table.stakes
    bets = [
        (cents, f"{format_cents(cents)} {what}")
        for cents, what in ((stakes.small_bet_cents, "small bet"), (stakes.big_bet_cents, "big bet"))
        if cents
    ]
    chips = [(n * chip, format_cents(n * chip)) for n in (1, 5, 25, 100) if n * chip not in dict(bets)]
    return [{"cents": cents, "label": label} for cents, label in bets + chips]


def _dealers_choice_games() -> list[Game]:
    return list(Game.objects.filter(kind=GameKind.POT, is_dealers_choice=False, is_active=True))


def _game_note(table: Table, game: Game | None) -> str:
    """What the dealer should know of the game picked (004 lowball rule 1: the joker)."""
    played = game if table.game.is_dealers_choice else table.game
    if played is None or not (spec := POT_GAMES.get(played.slug)) or not spec.joker:
        return ""
    if table.game.is_dealers_choice:
        return f"{played.name} at dealer's choice is dealt without the joker (004 lowball rule 1)."
    return f"{played.name} is dealt with the joker (004 lowball rule 1)."


def _seats_before_deal(
    table: Table, chips: Sequence[Any], buttons: ButtonState | None, plan: Any, choice: NextHandChoice
) -> list[dict[str, Any]]:
    """Every seat of the table for the next hand: who sits there, chips, the button (the next
    hand's, as the fees are taken from it), the fee, whether dealt in and why not."""
    by_seat = {row.seat: row for row in chips if row.seat is not None}
    dealt = {d.seat: d for d in plan.dealt} if plan is not None else {}
    left_out = {o.seat: o for o in plan.left_out} if plan is not None else {}
    if plan is not None:
        button = plan.button
    else:
        button = buttons.button_seat.number if buttons is not None and buttons.button_seat else None
    kill = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    sitting_round = (
        buttons.sitting_out_seat.number if buttons is not None and buttons.sitting_out_seat else None
    )
    rows = []
    for number in range(1, table.seat_count + 1):
        row = by_seat.get(number)
        out = left_out.get(number)
        rows.append(
            {
                "seat": number,
                "player_name": row.player_name if row else "",
                "chips_cents": row.chips_cents if row else None,
                "is_button": number == button,
                "is_kill": number == kill,
                "fee_cents": dealt[number].fee_cents if number in dealt else None,
                "position": dealt[number].position if number in dealt else None,
                "left_out": out.detail if out else "",
                "rotates_out": bool(out and out.reason == "rotates_out")
                or (plan is None and number == sitting_round),
                "sits_out": number in choice.sit_out,
            }
        )
    return rows


@dataclass
class CardField:
    """One card input of the showdown entry; ``order`` is the tap order (board first)."""

    name: str
    label: str
    count: int
    value: str
    bad: bool
    order: int
    where: str


def _showdown_entry(
    *,
    table: Table,
    hand: Mapping[str, Any],
    game: Game,
    values: Mapping[str, str],
    bad: set[str],
) -> dict[str, Any]:
    """The showdown panel: the board(s) and each seat's fields with what was entered, the put-in
    each seat starts from (what the flow knows: the kill seat's kill blind; nothing else is known
    before the dealer says it), the sweeps on record, and the keys of the card grid."""
    spec = POT_GAMES.get(game.slug)
    order = 0
    boards: list[CardField] = []

    def card_field(name: str, label: str, count: int, where: str) -> CardField:
        nonlocal order
        order += 1
        return CardField(name, label, count, values.get(name, ""), name in bad, order, where)

    if spec is not None and spec.board:
        boards.append(card_field("board", "Board", spec.board, "the board"))
    elif game.slug == "taiwanese-poker":
        for i in range(hand.get("boards") or 1):
            label = "Board" if i == 0 else f"Board {i + 1}"
            boards.append(card_field(BOARD_FIELDS[i], label, 5, label.lower()))
    kill_seat, kill_blind = hand.get("kill_seat"), hand.get("kill_blind_cents")
    seats = []
    for p in hand["players"]:
        seat = p["seat_number"]
        where = f"seat {seat}"
        declared = p.get("sweep_declared") or ""
        declare = values.get(f"declare_{seat}", declared)
        fields: list[CardField] = []
        if spec is not None:
            fields.append(card_field(f"cards_{seat}", "Cards", spec.hole, where))
        elif game.slug == "chinese-poker":
            if declare:
                fields.append(card_field(f"cards_{seat}", "13 cards", 13, where))
            else:
                for row, count in (("front", 3), ("middle", 5), ("back", 5)):
                    fields.append(card_field(f"{row}_{seat}", row.title(), count, where))
        else:
            for row, count in (("top", 1), ("middle", 2), ("bottom", 4)):
                fields.append(card_field(f"{row}_{seat}", row.title(), count, where))
        base = min(kill_blind if seat == kill_seat and kill_blind else 0, p["chips_cents"])
        put_in = values.get(f"put_in_{seat}")
        seats.append(
            {
                "seat": seat,
                "player_name": p["player_name"],
                "chips_cents": p["chips_cents"],
                "is_button": p["is_button"],
                "is_kill": seat == kill_seat,
                "base_cents": base,
                "fields": fields,
                "put_in": put_in if put_in is not None else (cents_to_dollars(base) if base else ""),
                "put_in_bad": f"put_in_{seat}" in bad,
                "after_draw": values.get(f"after_draw_{seat}", ""),
                "after_draw_bad": f"after_draw_{seat}" in bad,
                "folded": bool(values.get(f"folded_{seat}")),
                "checked_seven": bool(values.get(f"checked_seven_{seat}")),
                "declare": declare,
                "declared": declared,
                "declared_at": p.get("sweep_declared_at"),
                "surrender": bool(values.get(f"surrender_{seat}")),
                "fouled": bool(values.get(f"fouled_{seat}")),
            }
        )
    return {
        "is_pot": game.kind == GameKind.POT,
        "boards": boards,
        "seats": seats,
        "called": values.get("called", ""),
        "active": values.get("active", ""),
        "pad_target": values.get("pad", ""),
        "grid": card_grid(joker=bool(hand.get("joker"))),
        "joker": bool(hand.get("joker")),
        "lowball": game.slug == "lowball",
        "chinese": game.slug == "chinese-poker",
        "pad": _pad_amounts(table) if game.kind == GameKind.POT else [],
        "chip_cents": table.chip_unit_cents,
    }


_GLYPHS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


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


# --- The reading, in words ------------------------------------------------------------------------------


def _names(hand: Mapping[str, Any]) -> dict[int, str]:
    return {p["seat_number"]: p["player_name"] for p in hand["players"]}


def _who(seat: int | str, names: Mapping[int, str]) -> str:
    number = int(seat)
    return f"seat {number} ({names.get(number, '')})"


def _payments(hand: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reading's ledger lines in settlement order, for reading aloud."""
    reading = hand.get("reading") or {}
    postings = reading.get("postings") or {}
    names = _names(hand)
    rows: list[dict[str, Any]] = []
    if postings.get("kind") == "pot":
        for line in postings.get("put_ins", []):
            rows.append(
                {"text": f"Seat {line['seat']} ({names.get(line['seat'])}) puts in", "amount": line["amount"]}
            )
        for line in postings.get("awards", []):
            pot = "main pot" if line["pot"] == 0 else f"side pot {line['pot']}"
            share = "" if line["share"] == "whole" else f" ({line['share']} half)"
            rows.append(
                {
                    "text": f"{pot}{share} to seat {line['seat']} ({names.get(line['seat'])})",
                    "amount": line["amount"],
                }
            )
        for line in postings.get("returned", []):
            why = f"{line['reason']}: " if "reason" in line else "uncalled chips "
            rows.append({"text": f"{why}back to seat {line['seat']}", "amount": line["amount"]})
    else:
        for line in postings.get("payments", []):
            rows.append(
                {
                    "text": f"seat {line['from_seat']} ({names.get(line['from_seat'])}) pays seat "
                    f"{line['to_seat']} ({names.get(line['to_seat'])})"
                    + (f" — {line['reason']}" if line.get("reason") else ""),
                    "amount": line["amount"],
                    "due": line["due"],
                    "capped": line["amount"] != line["due"],
                }
            )
    return rows


def _hand_words(read: Mapping[str, Any]) -> str:
    parts = []
    if read.get("high"):
        parts.append(f"{read['high']} ({' '.join(read['high_cards'])})")
    if read.get("low"):
        parts.append(f"low {read['low']} ({' '.join(read['low_cards'])})")
    return "; ".join(parts)


def _pot_reading(hand: Mapping[str, Any], game: Game) -> dict[str, Any]:
    """Pot games: each pot (main first, then side pots), who wins which share with what hand, the
    odd chips, the chips given back; and each seat's hand."""
    result = (hand.get("reading") or {}).get("reading") or {}
    names = _names(hand)
    hands = result.get("hands") or {}
    odd_order = "by suit (stud)" if game.is_stud_game else "first clockwise from the button"
    pots = []
    for i, pot in enumerate(result.get("pots", [])):
        lines = []
        shares: dict[str, list[dict[str, Any]]] = {}
        for award in pot["awards"]:
            shares.setdefault(award["share"], []).append(award)
        for share, awards in shares.items():
            what = {"whole": "the pot", "high": "high half", "low": "low half"}.get(share, share)
            for award in awards:
                words = _hand_words(hands.get(str(award["seat"])) or {})
                if share == "low" and (hands.get(str(award["seat"])) or {}).get("low"):
                    read = hands[str(award["seat"])]
                    words = f"low {read['low']} ({' '.join(read['low_cards'])})"
                elif share == "high" and (hands.get(str(award["seat"])) or {}).get("high"):
                    read = hands[str(award["seat"])]
                    words = f"{read['high']} ({' '.join(read['high_cards'])})"
                tie = " (tie)" if len(awards) > 1 else ""
                lines.append(
                    {
                        "text": f"{what}{tie} to {_who(award['seat'], names)}"
                        + (f": {words}" if words else ": everyone else folded, no showdown"),
                        "amount": award["amount"],
                    }
                )
            amounts = [a["amount"] for a in awards]
            if len(awards) > 1 and len(set(amounts)) > 1:
                low = min(amounts)
                odd = [a["seat"] for a in awards if a["amount"] > low]
                lines.append(
                    {
                        "text": f"odd chip to {', '.join(_who(s, names) for s in odd)}: {odd_order}",
                        "amount": None,
                    }
                )
        if "high" in shares and "low" in shares:
            high = sum(a["amount"] for a in shares["high"])
            low = sum(a["amount"] for a in shares["low"])
            if high > low:
                lines.append({"text": "the high half takes the odd chip", "amount": None})
        elif (
            "high" in shares
            and "low" not in shares
            and any((hands.get(str(s)) or {}).get("low") is None for s in pot["seats"])
            and game.slug.endswith("hi-lo")
        ):
            lines.append({"text": "no qualifying low: the high hand takes the whole pot", "amount": None})
        pots.append(
            {
                "title": "Main pot" if i == 0 else f"Side pot {i}",
                "amount": pot["amount"],
                "seats": ", ".join(str(s) for s in pot["seats"]),
                "lines": lines,
                "voided": pot.get("voided"),
            }
        )
    returned = [
        {
            "text": f"{r['reason']}: back to {_who(r['seat'], names)}"
            if r.get("reason")
            else f"uncalled chips back to {_who(r['seat'], names)}",
            "amount": r["amount"],
        }
        for r in result.get("returned", [])
        if r["amount"]
    ]
    seats = [{"seat": int(seat), "text": _hand_words(read) or "no hand"} for seat, read in hands.items()]
    return {"kind": "pot", "pots": pots, "returned": returned, "hands": seats}


_SEGMENT_POINTS = ("front", "middle", "back", "bonus", "overall", "scoop", "sweep", "surrender")


def _chinese_reading(hand: Mapping[str, Any]) -> dict[str, Any]:
    """Chinese poker: each seat's hand (set, sweep, surrendered, fouled and why: a false sweep
    declaration says what the 13 cards lack), and each pair's points segment by segment."""
    result = (hand.get("reading") or {}).get("reading") or {}
    names = _names(hand)
    seats = []
    for seat, data in (result.get("players") or {}).items():
        status = data.get("status") or ("fouled" if data.get("fouled") else "set")
        if status == "surrendered":
            text = "surrendered"
        elif status == "fouled" or data.get("fouled"):
            text = f"fouled: {data.get('foul') or 'fouled'}"
            if data.get("declared"):
                text = f"false declaration ({data['declared']}): {data.get('foul') or 'not held'}"
        elif status == "sweep" or data.get("sweep"):
            declared = data.get("declared") or data.get("sweep")
            text = f"clean sweep: {data.get('sweep')} (declared {declared}, verified)"
        else:
            segments = data.get("segments") or {}
            text = " / ".join(f"{k} {v}" for k, v in segments.items() if v)
        seats.append(
            {
                "seat": int(seat),
                "name": names.get(int(seat), ""),
                "text": text,
                "points": data.get("points", 0),
                "net": data.get("net", 0),
            }
        )
    pairs = []
    for m in result.get("matchups", []):
        a, b = m["seats"]
        parts = [
            f"{name} {'+' if value > 0 else ''}{value}"
            for name, value in (m.get("points") or {}).items()
            if value and name in _SEGMENT_POINTS
        ]
        total = m.get("total", 0)
        if total > 0:
            verdict = f"{_who(a, names)} wins {total} point{'s' if total != 1 else ''}"
        elif total < 0:
            verdict = f"{_who(b, names)} wins {-total} point{'s' if total != -1 else ''}"
        else:
            verdict = "push"
        pairs.append(
            {
                "title": f"{_who(a, names)} v {_who(b, names)}",
                "kind": m.get("kind", "pair"),
                "detail": ", ".join(parts) or "every segment even",
                "verdict": verdict,
            }
        )
    return {"kind": "chinese", "seats": seats, "pairs": pairs}


def _taiwanese_reading(hand: Mapping[str, Any]) -> dict[str, Any]:
    """Taiwanese poker: each board and position (top, middle, bottom), who wins it with what and
    for how many points, who pays; and each seat's three hands on each board."""
    result = (hand.get("reading") or {}).get("reading") or {}
    names = _names(hand)
    positions = []
    for p in result.get("positions", []):
        winners = p.get("winners") or []
        paid = [
            f"{_who(x['seat'], names)} {format_cents(x['amount'])}"
            for x in p.get("paid", [])
            if x.get("amount")
        ]
        capped = [x for x in p.get("paid", []) if x.get("amount") != x.get("due")]
        if len(winners) > 1:
            verdict = f"tie: {', '.join(_who(s, names) for s in winners)}"
        elif winners:
            verdict = f"{_who(winners[0], names)} wins"
        else:
            verdict = "nobody wins"
        bonus = f" + {p['bonus']} bonus" if p.get("bonus") else ""
        positions.append(
            {
                "title": f"board {p['board']} {p['position']}",
                "verdict": verdict,
                "hand": p.get("hand") or "",
                "points": f"{p.get('points', 0)} point(s) ({p.get('base', 0)}{bonus})",
                "paid": ", ".join(paid) or "nobody pays",
                "capped": bool(capped),
            }
        )
    seats = []
    for seat, data in (result.get("players") or {}).items():
        boards = data.get("boards") or []
        text = "; ".join(
            f"board {i}: "
            + " / ".join(f"{row} {(b.get(row) or {}).get('name', '')}" for row in ("top", "middle", "bottom"))
            for i, b in enumerate(boards, 1)
        )
        seats.append(
            {"seat": int(seat), "name": names.get(int(seat), ""), "text": text, "net": data.get("net", 0)}
        )
    return {"kind": "taiwanese", "positions": positions, "seats": seats}


def reading_view(hand: Mapping[str, Any], game: Game) -> dict[str, Any] | None:
    """The reading panel for ``hand`` (the terminal serializer's shape), or None without one."""
    reading = hand.get("reading")
    if not reading:
        return None
    if game.kind == GameKind.POT:
        view = _pot_reading(hand, game)
    elif game.slug == "chinese-poker":
        view = _chinese_reading(hand)
    else:
        view = _taiwanese_reading(hand)
    names = _names(hand)
    net = reading.get("net") or {}
    view |= {
        "revision": reading["revision"],
        "status": reading["status"],
        "payments": _payments(hand),
        "net": [
            {"seat": int(seat), "name": names.get(int(seat), ""), "cents": cents}
            for seat, cents in sorted(net.items(), key=lambda item: int(item[0]))
        ],
    }
    return view


# --- The whole body ---------------------------------------------------------------------------------------


def _latest_hand(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table).select_related("game").order_by("-number").first()


def _submitted_entry(hand: Hand) -> dict[str, str]:
    """The entry of the reading on record (after a reload), as the form's fields; none before the
    showdown (``HandStatus.before_showdown``)."""
    if hand.status in HandStatus.before_showdown():
        return {}
    submitted = HandResult.objects.filter(hand=hand).values_list("submitted", flat=True).first()
    if not isinstance(submitted, Mapping):
        return {}
    return entry_from_submitted(game_kind=hand.game.kind, game_slug=hand.game.slug, submitted=submitted)


def terminal_context(
    request: HttpRequest,
    table: Table,
    *,
    choice: NextHandChoice | None = None,
    entry: Mapping[str, str] | None = None,
    refusal: Refusal | None = None,
    notices: Iterable[tuple[str, str]] = (),
    hand: Hand | None = None,
    reading: HandResult | None = None,
) -> dict[str, Any]:
    """Everything the screen shows: the table, who is clocked in, the seats with their chips, the
    button (one place: the hand's, or the next hand's as its fees are taken from it), the kill, and
    either the next hand (game, boards, sit-outs, fees, the deal; the hand just finished) or the
    hand in progress (the showdown entry, as ``entry`` when given, else as the reading on record
    left it; the reading).

    ``hand`` (and its ``reading``): the hand a service just wrote and returned, with its players and
    chips (``dealt_players``, ``chips_after``), so they aren't read again; otherwise the table's
    latest hand is read. Between hands the seats come from the fee preview, which reads every
    seated player's chips anyway."""
    choice = choice or NextHandChoice()
    user = request.user
    can_run = user.has_perm("tables.run_hand")
    runs_any = floor.may_run_any_table(user)
    current = hand if hand is not None else _latest_hand(table)
    in_progress = current is not None and current.status in HandStatus.in_progress()
    # Nobody clocks in or out during a hand (the services refuse it): the hand's dealer is on duty.
    down = None if in_progress else floor.dealer_on_duty(table)
    on_duty_is_me = down is not None and down.dealer_id == user.pk
    notes = list(notices)
    if choice.problem:
        notes.append(("error", choice.problem))
    context: dict[str, Any] = {
        "table": table,
        "in_progress": in_progress,
        "down": down,
        "on_duty_is_me": on_duty_is_me,
        "can_run": can_run,
        "runs_any": runs_any,
        "may_deal": can_run and (runs_any or on_duty_is_me),
        "can_manage": user.has_perm("tables.manage_floor"),
        "refusal": refusal,
        "misdeal_reasons": MisdealReason.choices,
        "sweeps": SWEEP_CHOICES,
        "is_chinese": table.game.slug == "chinese-poker",
        "notices": notes,
    }
    if runs_any and not in_progress:
        context["dealers"] = list(
            get_user_model()
            .objects.filter(is_active=True)
            .filter(Q(groups__permissions__codename="run_hand") | Q(user_permissions__codename="run_hand"))
            .distinct()
            .order_by("username")
        )
    if in_progress and current is not None:
        fresh = hand is not None and hand.dealt_players is not None and hand.chips_after is not None
        if current.dealer_id is not None and current.dealer_id == user.pk:
            current.dealer = user  # the hand's dealer is most often the one tapping: not read again
        view = TerminalHandSerializer.from_hand(current, fresh=fresh, reading=reading)
        game = current.game
        values = dict(entry) if entry is not None else _submitted_entry(current)
        return context | {
            "hand": view,
            "game": game,
            "entry": _showdown_entry(
                table=table, hand=view, game=game, values=values, bad=refusal.bad if refusal else set()
            ),
            "reading": reading_view(view, game),
            "kill": _hand_kill(table, view),
        }
    plan, plan_error = None, ""
    if table.is_open:
        try:
            plan = hand_flow.preview_fees(
                table=table, game=choice.game, sit_out_seat_numbers=choice.sit_out, hand_in_progress=False
            )
        except DomainError as exc:
            plan_error = exc.message
    else:
        plan_error = f"Table {table.number} is closed."
    # The plan knows the button, the kill hand and who sits out the round; the buttons' row is read
    # for what it doesn't know: a kill button held by a seat not dealt in, or no plan at all.
    buttons = (
        ButtonState.objects.select_related("button_seat", "kill_seat", "sitting_out_seat")
        .filter(table=table)
        .first()
        if plan is None or table.stakes.kill != KillType.NONE
        else None
    )
    # Every seated player is in the plan, dealt in or left out (with their chips); without a plan
    # (too few players, the table closed) the chips are read on their own.
    chips = _plan_chips(plan) if plan is not None else hand_flow.table_chips(table=table)
    return context | {
        "plan": plan,
        "plan_error": plan_error,
        "choice": choice,
        "seats": _seats_before_deal(table, chips, buttons, plan, choice),
        "games": _dealers_choice_games() if table.game.is_dealers_choice else [],
        "game_note": _game_note(table, choice.game),
        "taiwanese": table.game.slug == "taiwanese-poker",
        "board_choices": range(1, MAX_BOARDS + 1),
        "kill": _next_kill(table, buttons, plan),
        "last": _last_hand(current, reading) if current is not None else None,
    }


@dataclass(frozen=True)
class _SeatChips:
    seat: int | None
    player_name: str
    chips_cents: int


def _plan_chips(plan: Any) -> list[_SeatChips]:
    return [_SeatChips(d.seat, d.player_name, d.chips_cents) for d in (*plan.dealt, *plan.left_out)]


def _hand_kill(table: Table, hand: Mapping[str, Any]) -> dict[str, Any] | None:
    if not hand.get("kill_seat"):
        return None
    pct = hand["kill_multiplier_pct"]
    return {
        "seat": hand["kill_seat"],
        "is_kill_hand": True,
        "blind_cents": hand.get("kill_blind_cents"),
        "pct": pct,
        "limits": _limits(table, pct),
    }


def _next_kill(table: Table, buttons: ButtonState | None, plan: Any) -> dict[str, Any] | None:
    """Who holds the kill button, and whether the next hand is a kill hand (its blind, the raised
    limits): the plan says so when the kill seat is dealt in."""
    holder = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    if holder is None:
        return None
    is_kill = plan is not None and plan.kill_seat is not None
    pct = plan.kill_multiplier_pct if is_kill else 100
    return {
        "seat": holder,
        "is_kill_hand": is_kill,
        "blind_cents": plan.kill_blind_cents if is_kill else None,
        "pct": pct,
        "limits": _limits(table, pct) if is_kill else "",
    }


def _last_hand(hand: Hand, reading: HandResult | None) -> dict[str, Any] | None:
    """The hand just finished, as the screen sums it up: each seat's chips change, or the misdeal
    (and whether its fees went back). ``reading``: the settled reading when the caller has it."""
    if hand.status not in (HandStatus.SETTLED, HandStatus.VOID):
        return None
    net: Mapping[str, int] = {}
    if hand.status == HandStatus.SETTLED:
        postings = (
            reading.postings
            if reading is not None
            else HandResult.objects.filter(hand=hand).values_list("postings", flat=True).first()
        )
        net = (postings or {}).get("net", {})
    return {
        "number": hand.number,
        "status": hand.status,
        "void_reason": hand.void_reason,
        "fees_returned": hand.status == HandStatus.VOID
        and JournalTransaction.objects.filter(idempotency_key=hand_flow.fees_return_key(hand)).exists(),
        "net": [
            {"seat": int(seat), "cents": cents}
            for seat, cents in sorted(net.items(), key=lambda item: int(item[0]))
            if cents
        ],
        "game": hand.game.name,
    }


def respond(
    request: HttpRequest,
    table: Table,
    *,
    status: int = 200,
    **context: Any,
) -> HttpResponse:
    """The screen: the body alone to htmx (marked with PANEL_HEADER), else the whole page."""
    data = terminal_context(request, table, **context)
    template = BODY_TEMPLATE if is_htmx(request) else PAGE_TEMPLATE
    response = render(request, template, data, status=status)
    response[PANEL_HEADER] = "1"
    return response


def _refusal(exc: Exception, entry: Mapping[str, str] | None = None) -> Refusal:
    """A service's refusal (its message and status) or this page's (400), with the bad fields."""
    if isinstance(exc, DomainError):
        message, status, named = exc.message, exc.status, exc.field or ""
    else:
        message, status, named = str(exc), 400, getattr(exc, "field", "")
    return Refusal(message=message, status=status, bad=bad_fields(message, entry or {}, named))


def _after_write(
    request: HttpRequest, table: Table, notice: str, *, level: str = "success", **context: Any
) -> HttpResponse:
    """A write went through: htmx gets the new screen with ``notice``; a plain post is redirected."""
    if is_htmx(request):
        return respond(request, table, notices=[(level, notice)], **context)
    getattr(messages, level)(request, notice)
    return HttpResponseRedirect(_terminal_url(table.number))


def _after_refusal(
    request: HttpRequest, table: Table, refusal: Refusal, *, redirect: bool = False, **context: Any
) -> HttpResponse:
    """A write was refused (nothing changed): the screen again with the refusal and, for the
    showdown, the entry as posted. A plain post either draws the page (the entry kept) or, with
    ``redirect``, goes back to the page with the message."""
    if redirect and not is_htmx(request):
        messages.error(request, refusal.message)
        return HttpResponseRedirect(_terminal_url(table.number))
    return respond(request, table, status=refusal.status, refusal=refusal, **context)


# --- Views ------------------------------------------------------------------------------------------------


class TerminalView(PermissionRequiredMixin, View):
    """``/tables/<number>/``: the table's screen. To htmx (the next-hand panel's changes: game,
    boards, a seat sitting out) the body alone, with the fees for that choice."""

    permission_required = "tables.view_table"

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        return respond(request, _table(number), choice=NextHandChoice.from_data(request.GET))


class RunHandMixin(PermissionRequiredMixin):
    permission_required = "tables.run_hand"


def _fees_as_shown(data: QueryDict) -> dict[int, int]:
    """The fees the screen showed, from its ``fee-<seat>`` fields (cents). A field that isn't a
    whole number is no fee the dealer saw: it is dropped, so the deal is refused as changed."""
    fees: dict[int, int] = {}
    for name, value in data.items():
        seat, cents = whole_number(name.removeprefix("fee-")), whole_number(value)
        if name.startswith("fee-") and seat is not None and cents is not None:
            fees[seat] = cents
    return fees


class StartHandView(RunHandMixin, View):
    """GET (pages without the script): the fees of the next hand, to confirm. POST: deal, taking
    exactly the fees shown (``fee-<seat>``), with the game, boards and sit-outs picked."""

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        choice = NextHandChoice.from_data(request.GET)
        try:
            plan = hand_flow.preview_fees(table=table, game=choice.game, sit_out_seat_numbers=choice.sit_out)
        except DomainError as exc:
            messages.error(request, exc.message)
            return HttpResponseRedirect(_terminal_url(number))
        return render(request, "tables/start_hand.html", {"table": table, "plan": plan, "choice": choice})

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        choice = NextHandChoice.from_data(request.POST)
        if choice.problem:
            return _after_refusal(request, table, Refusal(choice.problem), choice=choice, redirect=True)
        try:
            hand = hand_flow.start_hand(
                table=table,
                by=request.user,
                game=choice.game,
                sit_out_seat_numbers=choice.sit_out,
                expected_fees=_fees_as_shown(request.POST),
                boards=choice.boards,
            )
        except FeesChanged as exc:
            # The new fees are shown to confirm again (the screen reads them afresh).
            if not is_htmx(request):
                messages.error(request, exc.message)
                return HttpResponseRedirect(reverse("tables:start-hand", args=[number]))
            return _after_refusal(request, table, _refusal(exc), choice=choice)
        except DomainError as exc:
            return _after_refusal(request, table, _refusal(exc), choice=choice, redirect=True)
        fees = sum(p.fee_cents or 0 for p in hand.dealt_players or [])
        return _after_write(
            request, table, f"Hand {hand.number} dealt; fees {format_cents(fees)} collected.", hand=hand
        )


def _seats_of(hand: Hand) -> list[int]:
    return list(hand.players.order_by("position").values_list("seat__number", flat=True))


class ShowdownView(RunHandMixin, View):
    """POST the whole entry (cards, put-ins, folds, declarations): the engine's reading is kept for
    confirmation and drawn beside the entry, which stays as posted (to correct and read again)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = _entry_of(request.POST)
        spec = POT_GAMES.get(hand.game.slug)
        try:
            submitted = showdown_from_post(
                game_kind=hand.game.kind,
                game_slug=hand.game.slug,
                seats=_seats_of(hand),
                has_board=bool(spec and spec.board),
                data=request.POST,
                boards=hand.boards if hand.game.slug == "taiwanese-poker" else None,
            )
            result = hand_flow.submit_showdown(hand=hand, submitted=submitted, by=request.user)
        except (PageInputError, DomainError) as exc:
            return _after_refusal(request, hand.table, _refusal(exc, entry), entry=entry)
        if not is_htmx(request):
            return HttpResponseRedirect(_terminal_url(hand.table.number))
        return respond(
            request,
            result.hand.table,
            entry=entry,
            notices=[("info", f"Hand {hand.number}: reading r{result.revision}; check it, then confirm.")],
            hand=result.hand,
            reading=result,
        )


class DeclareSweepView(RunHandMixin, View):
    """POST ``sweep_seat`` and its ``declare_<seat>``: a Chinese poker player declared a clean
    sweep (recorded now, before the showdown); the entry comes back with that seat's 13 cards in
    one field, the rest as posted."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = _entry_of(request.POST)
        seat = whole_number(request.POST.get("sweep_seat"))
        sweep = str(request.POST.get(f"declare_{seat}", "")) if seat is not None else ""
        if seat is None or not sweep:
            return _after_refusal(
                request, hand.table, Refusal("Pick the seat and the clean sweep declared."), entry=entry
            )
        try:
            hp: HandPlayer = hand_flow.declare_sweep(
                hand=hand, seat_number=seat, sweep=sweep, by=request.user
            )
        except DomainError as exc:
            entry.pop(f"declare_{seat}", None)
            return _after_refusal(request, hand.table, _refusal(exc, entry), entry=entry)
        # The declared hand is entered as its 13 cards: what the three rows held so far, in order.
        rows = [entry.pop(f"{row}_{seat}", "") for row in ("front", "middle", "back")]
        entry[f"cards_{seat}"] = " ".join([entry.get(f"cards_{seat}", ""), *rows]).strip()
        entry[f"declare_{seat}"] = hp.sweep_declared
        return _after_write(
            request,
            hp.hand.table,  # the table the service locked, with its game, stakes and schedule
            f"Seat {seat} declared {hp.sweep_declared}; enter the 13 cards.",
            entry=entry,
        )


class ConfirmView(RunHandMixin, View):
    """POST: post the reading (revision as shown) and settle; the screen shows the new chips and
    the next hand. Idempotent in the service (a double tap or a second terminal posts nothing)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        try:
            result = hand_flow.confirm_settlement(
                hand=hand, by=request.user, revision=whole_number(request.POST.get("revision"))
            )
        except DomainError as exc:
            return _after_refusal(request, hand.table, _refusal(exc), redirect=True)
        if getattr(result, "was_replayed", False):
            notice, level = f"Hand {hand.number} was already settled; nothing was posted again.", "info"
        else:
            notice, level = f"Hand {hand.number} settled.", "success"
        return _after_write(request, result.hand.table, notice, level=level, hand=result.hand, reading=result)


class MisdealView(RunHandMixin, View):
    """POST ``reason_code`` (004's misdeals) and ``reason`` (needed for "other"): the hand is void,
    its fees go back (unless the table keeps them)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = _entry_of(request.POST)
        form = MisdealForm(request.POST)
        if not form.is_valid():
            return _after_refusal(
                request,
                hand.table,
                Refusal("A misdeal needs its reason: pick one."),
                entry=entry,
                redirect=True,
            )
        try:
            voided = hand_flow.misdeal(
                hand=hand,
                reason_code=form.cleaned_data["reason_code"],
                reason=form.cleaned_data["reason"],
                by=request.user,
            )
        except DomainError as exc:
            return _after_refusal(request, hand.table, _refusal(exc), entry=entry, redirect=True)
        if voided.was_replayed:
            return _after_write(
                request, voided.table, f"Hand {hand.number} was already void.", level="info", hand=voided
            )
        return _after_write(
            request, voided.table, f"Hand {hand.number} is void (misdeal): {voided.void_reason}.", hand=voided
        )


class ClockView(RunHandMixin, View):
    """POST ``action``: ``in`` (the dealer clocks themself in), ``assign`` (the floor clocks in
    ``dealer``, a user id) or ``out``."""

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        action = request.POST.get("action")
        try:
            if action == "out":
                down = floor.clock_out(table=table, by=request.user)
                notice = f"{down.dealer.get_username()} clocked out." if down else "Nobody was clocked in."
            elif action in ("in", "assign"):
                dealer: Any = request.user
                if action == "assign":
                    dealer_id = whole_number(request.POST.get("dealer"))
                    dealer = (
                        get_user_model().objects.filter(pk=dealer_id, is_active=True).first()
                        if dealer_id is not None
                        else None
                    )
                    if dealer is None:
                        return _after_refusal(
                            request, table, Refusal("Pick the dealer to clock in."), redirect=True
                        )
                down = floor.clock_in(table=table, dealer=dealer, by=request.user)
                notice = f"{down.dealer.get_username()} is clocked in at table {table.number}."
            else:
                return _after_refusal(request, table, Refusal("Clock in or out?"), redirect=True)
        except DomainError as exc:
            return _after_refusal(request, table, _refusal(exc), redirect=True)
        return _after_write(request, table, notice)
