"""The dealer terminal's words: a hand's reading as the dealer reads it aloud (who wins which pot
with what, each pair's points, each board's positions, the payments in settlement order), the
betting limits of a kill hand, and the note on the game picked.

Presenters only: they put what the serializer and the engine said into words, and read nothing
from the database. The readings come in the terminal serializer's shape
(:meth:`web.terminal.serializers.TerminalHandSerializer.from_hand`), as plain data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from poker.kill import kill_limits
from poker.showdown import POT_GAMES
from tables.models import Game, GameKind, Table, format_cents

# --- The parts of a reading --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadingLine:
    """A line of a pot (or a return of chips): the words and the amount (None: a remark)."""

    text: str
    amount: int | None


@dataclass(frozen=True)
class Payment:
    """A ledger line in settlement order; a player-to-player payment says what was ``due`` and
    whether the payer's chips ``capped`` it."""

    text: str
    amount: int
    due: int | None = None
    capped: bool = False


@dataclass(frozen=True)
class SeatNet:
    """A seat's chips change (``name``: the player's, where the screen says it)."""

    seat: int
    cents: int
    name: str = ""


@dataclass(frozen=True)
class Pot:
    """A pot of a pot game (main first, then side pots): who shares it, and its lines."""

    title: str
    amount: int
    seats: str
    lines: tuple[ReadingLine, ...]
    voided: int | None


@dataclass(frozen=True)
class SeatHand:
    """A seat's hand in a pot game, in words."""

    seat: int
    text: str


@dataclass(frozen=True)
class ChineseSeat:
    """A seat of a Chinese poker hand: its hand in words, its points and its net."""

    seat: int
    name: str
    text: str
    points: int
    net: int


@dataclass(frozen=True)
class ChinesePair:
    """Two seats of a Chinese poker hand compared segment by segment."""

    title: str
    kind: str
    detail: str
    verdict: str


@dataclass(frozen=True)
class TaiwanesePosition:
    """A board's position (top, middle, bottom) in Taiwanese poker: who wins it, for how much."""

    title: str
    verdict: str
    hand: str
    points: str
    paid: str
    capped: bool


@dataclass(frozen=True)
class TaiwaneseSeat:
    """A seat of a Taiwanese poker hand: its three hands on each board, and its net."""

    seat: int
    name: str
    text: str
    net: int


class ReadingHead(TypedDict):
    """What every reading panel shows, whatever the game."""

    revision: int
    status: str
    payments: tuple[Payment, ...]
    net: tuple[SeatNet, ...]


@dataclass(frozen=True, kw_only=True)
class ReadingView:
    """The reading panel: the revision and its status, the payments in settlement order and each
    seat's net; ``kind`` says which of the subclasses' parts the panel draws."""

    kind: ClassVar[str]
    revision: int
    status: str
    payments: tuple[Payment, ...]
    net: tuple[SeatNet, ...]


@dataclass(frozen=True, kw_only=True)
class PotReading(ReadingView):
    """A pot game's reading: the pots, the chips given back, each seat's hand."""

    kind: ClassVar[str] = "pot"
    pots: tuple[Pot, ...]
    returned: tuple[ReadingLine, ...]
    hands: tuple[SeatHand, ...]


@dataclass(frozen=True, kw_only=True)
class ChineseReading(ReadingView):
    """A Chinese poker reading: each seat, and each pair's points."""

    kind: ClassVar[str] = "chinese"
    seats: tuple[ChineseSeat, ...]
    pairs: tuple[ChinesePair, ...]


@dataclass(frozen=True, kw_only=True)
class TaiwaneseReading(ReadingView):
    """A Taiwanese poker reading: each board's positions, and each seat."""

    kind: ClassVar[str] = "taiwanese"
    positions: tuple[TaiwanesePosition, ...]
    seats: tuple[TaiwaneseSeat, ...]


# --- The reading, in words ------------------------------------------------------------------------------


def names(hand: Mapping[str, Any]) -> dict[int, str]:
    """Each seat's player name in ``hand`` (the terminal serializer's shape)."""
    return {p["seat_number"]: p["player_name"] for p in hand["players"]}


def who(seat: int | str, seat_names: Mapping[int, str]) -> str:
    """A seat as the reading names it: ``seat 3 (Ann)``."""
    number = int(seat)
    return f"seat {number} ({seat_names.get(number, '')})"


def payments(hand: Mapping[str, Any]) -> tuple[Payment, ...]:
    """The reading's ledger lines in settlement order, for reading aloud."""
    reading = hand.get("reading") or {}
    postings = reading.get("postings") or {}
    seat_names = names(hand)
    rows: list[Payment] = []
    if postings.get("kind") == "pot":
        for line in postings.get("put_ins", []):
            rows.append(
                Payment(f"Seat {line['seat']} ({seat_names.get(line['seat'])}) puts in", line["amount"])
            )
        for line in postings.get("awards", []):
            pot = "main pot" if line["pot"] == 0 else f"side pot {line['pot']}"
            share = "" if line["share"] == "whole" else f" ({line['share']} half)"
            rows.append(
                Payment(
                    f"{pot}{share} to seat {line['seat']} ({seat_names.get(line['seat'])})", line["amount"]
                )
            )
        for line in postings.get("returned", []):
            why = f"{line['reason']}: " if "reason" in line else "uncalled chips "
            rows.append(Payment(f"{why}back to seat {line['seat']}", line["amount"]))
    else:
        for line in postings.get("payments", []):
            rows.append(
                Payment(
                    text=f"seat {line['from_seat']} ({seat_names.get(line['from_seat'])}) pays seat "
                    f"{line['to_seat']} ({seat_names.get(line['to_seat'])})"
                    + (f" — {line['reason']}" if line.get("reason") else ""),
                    amount=line["amount"],
                    due=line["due"],
                    capped=line["amount"] != line["due"],
                )
            )
    return tuple(rows)


def hand_words(read: Mapping[str, Any]) -> str:
    """A seat's hand as the engine read it: the high hand and the low, each with its cards."""
    parts = []
    if read.get("high"):
        parts.append(f"{read['high']} ({' '.join(read['high_cards'])})")
    if read.get("low"):
        parts.append(f"low {read['low']} ({' '.join(read['low_cards'])})")
    return "; ".join(parts)


def pot_reading(hand: Mapping[str, Any], game: Game, head: ReadingHead) -> PotReading:
    """Pot games: each pot (main first, then side pots), who wins which share with what hand, the
    odd chips, the chips given back; and each seat's hand."""
    result = (hand.get("reading") or {}).get("reading") or {}
    seat_names = names(hand)
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
                words = hand_words(hands.get(str(award["seat"])) or {})
                if share == "low" and (hands.get(str(award["seat"])) or {}).get("low"):
                    read = hands[str(award["seat"])]
                    words = f"low {read['low']} ({' '.join(read['low_cards'])})"
                elif share == "high" and (hands.get(str(award["seat"])) or {}).get("high"):
                    read = hands[str(award["seat"])]
                    words = f"{read['high']} ({' '.join(read['high_cards'])})"
                tie = " (tie)" if len(awards) > 1 else ""
                lines.append(
                    ReadingLine(
                        f"{what}{tie} to {who(award['seat'], seat_names)}"
                        + (f": {words}" if words else ": everyone else folded, no showdown"),
                        award["amount"],
                    )
                )
            amounts = [a["amount"] for a in awards]
            if len(awards) > 1 and len(set(amounts)) > 1:
                low = min(amounts)
                odd = [a["seat"] for a in awards if a["amount"] > low]
                lines.append(
                    ReadingLine(
                        f"odd chip to {', '.join(who(s, seat_names) for s in odd)}: {odd_order}", None
                    )
                )
        if "high" in shares and "low" in shares:
            high = sum(a["amount"] for a in shares["high"])
            low = sum(a["amount"] for a in shares["low"])
            if high > low:
                lines.append(ReadingLine("the high half takes the odd chip", None))
        elif (
            "high" in shares
            and "low" not in shares
            and any((hands.get(str(s)) or {}).get("low") is None for s in pot["seats"])
            and game.slug.endswith("hi-lo")
        ):
            lines.append(ReadingLine("no qualifying low: the high hand takes the whole pot", None))
        pots.append(
            Pot(
                title="Main pot" if i == 0 else f"Side pot {i}",
                amount=pot["amount"],
                seats=", ".join(str(s) for s in pot["seats"]),
                lines=tuple(lines),
                voided=pot.get("voided"),
            )
        )
    returned = tuple(
        ReadingLine(
            f"{r['reason']}: back to {who(r['seat'], seat_names)}"
            if r.get("reason")
            else f"uncalled chips back to {who(r['seat'], seat_names)}",
            r["amount"],
        )
        for r in result.get("returned", [])
        if r["amount"]
    )
    seats = tuple(SeatHand(int(seat), hand_words(read) or "no hand") for seat, read in hands.items())
    return PotReading(**head, pots=tuple(pots), returned=returned, hands=seats)


_SEGMENT_POINTS = ("front", "middle", "back", "bonus", "overall", "scoop", "sweep", "surrender")


def chinese_reading(hand: Mapping[str, Any], head: ReadingHead) -> ChineseReading:
    """Chinese poker: each seat's hand (set, sweep, surrendered, fouled and why: a false sweep
    declaration says what the 13 cards lack), and each pair's points segment by segment."""
    result = (hand.get("reading") or {}).get("reading") or {}
    seat_names = names(hand)
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
            ChineseSeat(
                seat=int(seat),
                name=seat_names.get(int(seat), ""),
                text=text,
                points=data.get("points", 0),
                net=data.get("net", 0),
            )
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
            verdict = f"{who(a, seat_names)} wins {total} point{'s' if total != 1 else ''}"
        elif total < 0:
            verdict = f"{who(b, seat_names)} wins {-total} point{'s' if total != -1 else ''}"
        else:
            verdict = "push"
        pairs.append(
            ChinesePair(
                title=f"{who(a, seat_names)} v {who(b, seat_names)}",
                kind=m.get("kind", "pair"),
                detail=", ".join(parts) or "every segment even",
                verdict=verdict,
            )
        )
    return ChineseReading(**head, seats=tuple(seats), pairs=tuple(pairs))


def taiwanese_reading(hand: Mapping[str, Any], head: ReadingHead) -> TaiwaneseReading:
    """Taiwanese poker: each board and position (top, middle, bottom), who wins it with what and
    for how many points, who pays; and each seat's three hands on each board."""
    result = (hand.get("reading") or {}).get("reading") or {}
    seat_names = names(hand)
    positions = []
    for p in result.get("positions", []):
        winners = p.get("winners") or []
        paid = [
            f"{who(x['seat'], seat_names)} {format_cents(x['amount'])}"
            for x in p.get("paid", [])
            if x.get("amount")
        ]
        capped = [x for x in p.get("paid", []) if x.get("amount") != x.get("due")]
        if len(winners) > 1:
            verdict = f"tie: {', '.join(who(s, seat_names) for s in winners)}"
        elif winners:
            verdict = f"{who(winners[0], seat_names)} wins"
        else:
            verdict = "nobody wins"
        bonus = f" + {p['bonus']} bonus" if p.get("bonus") else ""
        positions.append(
            TaiwanesePosition(
                title=f"board {p['board']} {p['position']}",
                verdict=verdict,
                hand=p.get("hand") or "",
                points=f"{p.get('points', 0)} point(s) ({p.get('base', 0)}{bonus})",
                paid=", ".join(paid) or "nobody pays",
                capped=bool(capped),
            )
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
            TaiwaneseSeat(
                seat=int(seat), name=seat_names.get(int(seat), ""), text=text, net=data.get("net", 0)
            )
        )
    return TaiwaneseReading(**head, positions=tuple(positions), seats=tuple(seats))


def reading_view(hand: Mapping[str, Any], game: Game) -> ReadingView | None:
    """The reading panel for ``hand`` (the terminal serializer's shape), or None without one."""
    reading = hand.get("reading")
    if not reading:
        return None
    seat_names = names(hand)
    net = reading.get("net") or {}
    head = ReadingHead(
        revision=reading["revision"],
        status=reading["status"],
        payments=payments(hand),
        net=tuple(
            SeatNet(seat=int(seat), cents=cents, name=seat_names.get(int(seat), ""))
            for seat, cents in sorted(net.items(), key=lambda item: int(item[0]))
        ),
    )
    if game.kind == GameKind.POT:
        return pot_reading(hand, game, head)
    if game.slug == "chinese-poker":
        return chinese_reading(hand, head)
    return taiwanese_reading(hand, head)


# --- The kill and the game, in words -------------------------------------------------------------------


def limits_text(table: Table, pct: int) -> str:
    """The betting limits of a hand at ``pct`` percent (100: no kill; a kill hand raises them, as
    the engine's ``kill_limits`` says), as the kill banner says them: ``$4-$8``; blank at a table
    without a small and a big bet."""
    small, big = table.stakes.small_bet_cents, table.stakes.big_bet_cents
    if not small or not big:
        return ""
    kind = table.stakes.kill if pct != 100 else "none"
    small, big = kill_limits(small, big, kind, table.chip_unit_cents)
    return f"{format_cents(small)}-{format_cents(big)}"


def game_note(table: Table, game: Game | None) -> str:
    """What the dealer should know of the game picked (004 lowball rule 1: the joker)."""
    played = game if table.game.is_dealers_choice else table.game
    if played is None or not (spec := POT_GAMES.get(played.slug)) or not spec.joker:
        return ""
    if table.game.is_dealers_choice:
        return f"{played.name} at dealer's choice is dealt without the joker (004 lowball rule 1)."
    return f"{played.name} is dealt with the joker (004 lowball rule 1)."
