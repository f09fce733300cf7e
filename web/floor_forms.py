"""Form input of the floor's pages: money typed in dollars, the showdown the dealer types in, a
table's setup.

Input only: these functions turn what a form posted into the values the services take (cents,
the showdown object of ``docs/hand-flow.md``, each field's cards split as the engine splits them:
:func:`poker.cards.card_texts`); every rule is checked by the services and the rules engine,
which refuse bad input with a message the page shows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

from poker.cards import card_texts
from tables.models import (
    MAX_SEATS,
    MIN_PLAYERS,
    CollectionSchedule,
    Game,
    GameKind,
    KillType,
    MisdealReason,
    Stakes,
)

_DOLLARS = re.compile(r"^\$?\s*([0-9]+)(?:\.([0-9]{1,2}))?$")
#: The most dollars a form takes (12 digits): far above any table's chips, well within the ledger's
#: 64-bit cents; a larger number is refused as too large, not as "not an amount".
MAX_DOLLARS = 10**12 - 1
#: A buy-in or rebuy of more than this many of the table's minimum buy-ins (at a table with no
#: maximum, or a maximum above it) is asked about before it is sold (``confirm=1``); the setting
#: ``FLOOR_CONFIRM_BUY_INS`` overrides it.
LARGE_AMOUNT_BUY_INS = 20

#: The clean sweeps and naturals a dealer may declare for a Chinese poker hand (the engine
#: verifies each from the 13 cards; RULINGS 3 and the named sets).
SWEEP_CHOICES = [
    ("", "no declaration"),
    ("dragon", "Dragon (A to K)"),
    ("six-pairs", "Six pairs"),
    ("three-straights", "Three straights"),
    ("three-flushes", "Three flushes"),
]


class PageInputError(ValueError):
    """Form input that can't be read (the message names the field; ``field`` is the input's name
    when known, so the page can mark it)."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def dollars_to_cents(text: str, what: str, field: str = "") -> int:
    """``"12"``, ``"12.5"``, ``"$12.50"`` -> cents. Refuses anything else (no negatives);
    ``field``: the input the text came from (carried by the error)."""
    match = _DOLLARS.match(text.strip().replace(",", ""))
    if match is None:
        raise PageInputError(f"{what}: {text!r} is not an amount in dollars (e.g. 25 or 12.50).", field=field)
    whole, part = match.groups()
    if len(whole.lstrip("0")) > len(str(MAX_DOLLARS)):
        raise PageInputError(
            f"{what}: {text} is more than ${MAX_DOLLARS:,}, the most a form takes.", field=field
        )
    return int(whole) * 100 + int((part or "0").ljust(2, "0"))


#: Taiwanese poker's board fields, first to third (``boards`` agreed before the deal: 1-3).
BOARD_FIELDS = ("board", "board_2", "board_3")


def showdown_from_post(
    *,
    game_kind: str,
    game_slug: str,
    seats: Sequence[int],
    has_board: bool,
    data: Mapping[str, Any],
    boards: int | None = None,
) -> dict[str, Any]:
    """The showdown object for ``submit_showdown`` from the terminal's form fields.

    Pot games: ``cards_<seat>``, ``put_in_<seat>`` (dollars), ``folded_<seat>``, and ``board``;
    lowball also ``after_draw_<seat>`` (dollars put in after the draw) and ``checked_seven_<seat>``
    (004 lowball rule 2), sent only when a seat is marked.
    Chinese poker: ``front_<seat>``, ``middle_<seat>``, ``back_<seat>``, or ``declare_<seat>``
    (a sweep, with all 13 cards in ``cards_<seat>``) or ``surrender_<seat>``; ``fouled_<seat>``:
    the house fouls the hand (004 rule 8), with whatever cards were entered.
    Taiwanese poker: ``top_<seat>``, ``middle_<seat>``, ``bottom_<seat>``, and the boards
    ``board``, ``board_2``, ``board_3``: with ``boards`` (the number agreed before the deal) exactly
    that many are sent (an empty one as empty, for the engine to refuse with its message);
    without it, ``board`` and any later board given.
    Raises PageInputError for an amount that isn't one.
    """

    def text(name: str) -> str:
        return str(data.get(name, "") or "")

    players: list[dict[str, Any]] = []
    if game_kind == GameKind.POT:
        for seat in seats:
            entry: dict[str, Any] = {
                "seat": seat,
                "put_in": dollars_to_cents(
                    text(f"put_in_{seat}") or "0", f"seat {seat}: put in", f"put_in_{seat}"
                ),
            }
            cards = card_texts(text(f"cards_{seat}"))
            if text(f"folded_{seat}"):
                entry["folded"] = True
            if cards or not entry.get("folded"):
                entry["cards"] = cards
            players.append(entry)
        if game_slug == "lowball" and any(text(f"checked_seven_{seat}") for seat in seats):
            for entry in players:
                seat = entry["seat"]
                after = text(f"after_draw_{seat}")
                if after or not entry.get("folded"):
                    where = f"seat {seat}: after the draw"
                    entry["put_in_after_draw"] = dollars_to_cents(after or "0", where, f"after_draw_{seat}")
                if text(f"checked_seven_{seat}"):
                    entry["checked_seven"] = True
        result: dict[str, Any] = {"players": players}
        if has_board:
            result["board"] = card_texts(text("board"))
        return result
    if game_slug == "chinese-poker":
        for seat in seats:
            declare = text(f"declare_{seat}")
            if text(f"fouled_{seat}"):
                fouled: dict[str, Any] = {"seat": seat, "fouled": True}
                for part in ("front", "middle", "back"):
                    if cards := card_texts(text(f"{part}_{seat}")):
                        fouled[part] = cards
                players.append(fouled)
            elif text(f"surrender_{seat}"):
                players.append({"seat": seat, "surrender": True, "cards": _thirteen(text, seat)})
            elif declare:
                players.append({"seat": seat, "declare": declare, "cards": _thirteen(text, seat)})
            else:
                players.append(
                    {
                        "seat": seat,
                        "front": card_texts(text(f"front_{seat}")),
                        "middle": card_texts(text(f"middle_{seat}")),
                        "back": card_texts(text(f"back_{seat}")),
                    }
                )
        return {"players": players}
    # Taiwanese poker
    for seat in seats:
        players.append(
            {
                "seat": seat,
                "top": card_texts(text(f"top_{seat}")),
                "middle": card_texts(text(f"middle_{seat}")),
                "bottom": card_texts(text(f"bottom_{seat}")),
            }
        )
    given = [card_texts(text(name)) for name in BOARD_FIELDS]
    count = boards if boards is not None else max(i + 1 for i, cards in enumerate(given) if cards or i == 0)
    if count > 1:  # more boards: every hand plays each (000)
        return {"boards": given[:count], "players": players}
    return {"board": given[0], "players": players}


def _thirteen(text: Any, seat: int) -> list[str]:
    """A declared or surrendered hand's cards: ``cards_<seat>``, else the three rows together."""
    cards = card_texts(text(f"cards_{seat}"))
    if cards:
        return cards
    return [c for row in ("front", "middle", "back") for c in card_texts(text(f"{row}_{seat}"))]


def entry_from_submitted(*, game_kind: str, game_slug: str, submitted: Mapping[str, Any]) -> dict[str, str]:
    """The terminal's form fields for a showdown object as :func:`showdown_from_post` made it (a
    reading on record): the entry as the dealer left it, to correct and read again. Amounts are
    dollars as typed (``12`` or ``12.50``), cards space-separated."""

    def cards(value: Any) -> str:
        return " ".join(str(c) for c in value) if isinstance(value, list) else ""

    fields: dict[str, str] = {}
    boards = submitted.get("boards")
    if isinstance(boards, list):
        for name, board in zip(BOARD_FIELDS, boards, strict=False):
            fields[name] = cards(board)
    elif "board" in submitted:
        fields["board"] = cards(submitted.get("board"))
    for player in submitted.get("players") or []:
        if not isinstance(player, Mapping) or not isinstance(player.get("seat"), int):
            continue
        seat = player["seat"]
        if game_kind == GameKind.POT:
            fields[f"cards_{seat}"] = cards(player.get("cards"))
            if isinstance(player.get("put_in"), int):
                fields[f"put_in_{seat}"] = cents_to_dollars(player["put_in"])
            if isinstance(player.get("put_in_after_draw"), int):
                fields[f"after_draw_{seat}"] = cents_to_dollars(player["put_in_after_draw"])
            for flag, name in (("folded", "folded"), ("checked_seven", "checked_seven")):
                if player.get(flag) is True:
                    fields[f"{name}_{seat}"] = "on"
            continue
        rows = ("front", "middle", "back") if game_slug == "chinese-poker" else ("top", "middle", "bottom")
        for row in rows:
            if row in player:
                fields[f"{row}_{seat}"] = cards(player.get(row))
        if "cards" in player:
            fields[f"cards_{seat}"] = cards(player.get("cards"))
        if isinstance(player.get("declare"), str):
            fields[f"declare_{seat}"] = player["declare"]
        for flag in ("surrender", "fouled"):
            if player.get(flag) is True:
                fields[f"{flag}_{seat}"] = "on"
    return fields


def large_amount_cents(*, minimum_cents: int, maximum_cents: int | None, buy_ins: int) -> int | None:
    """The amount above which a buy-in or rebuy is asked about first: ``buy_ins`` minimum buy-ins,
    or None at a table whose maximum is at or below that (the service refuses above the maximum,
    naming it)."""
    large = minimum_cents * buy_ins
    return None if maximum_cents is not None and maximum_cents <= large else large


def cents_to_dollars(cents: int) -> str:
    """Cents as the terminal's amount fields show them: ``12`` or ``12.50``."""
    return _dollars(cents)


class MisdealForm(forms.Form):
    """A misdeal: one of 004's reasons (:class:`tables.choices.MisdealReason`), and the dealer's
    words (needed for ``other``; the service checks that, and the length)."""

    reason_code = forms.ChoiceField(choices=MisdealReason.choices, label="Misdeal")
    reason = forms.CharField(max_length=500, required=False, label="What happened")


class ScheduleRevisionForm(forms.Form):
    """A new version of a schedule: each rate's fee(s), when it takes effect, and why.

    Saved in two steps (``web.floor_views.ScheduleView``): the page first shows the preview of
    the change (:func:`tables.services.preview_revision`); saving needs ``confirm_warnings`` when
    a fee is far outside the schedule's sense (:func:`tables.validators.fee_warnings`). The page
    draws that checkbox itself, never ticked, next to the warnings it confirms.
    """

    effective_from = forms.DateTimeField(
        required=False,
        label="Effective from (room time; empty: now)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    reason = forms.CharField(max_length=200, label="Reason for the change")
    confirm_warnings = forms.BooleanField(required=False, label="Save these fees as they are")

    def __init__(self, *args: Any, rates: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rates = list(rates)
        for i, rate in enumerate(self.rates):
            self.fields[f"fee_{i}"] = forms.CharField(
                max_length=20,
                label=f"{rate.limits_label}, {rate.players_min}-{rate.players_max} players: fee ($)",
                initial=_dollars(rate.fee_cents),
            )
            if rate.others_fee_cents is not None:
                self.fields[f"others_fee_{i}"] = forms.CharField(
                    max_length=20, label="others' fee ($)", initial=_dollars(rate.others_fee_cents)
                )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in [n for n in self.fields if n.startswith(("fee_", "others_fee_"))]:
            value = cleaned.get(name)
            if value is None:
                continue
            try:
                cleaned[name] = dollars_to_cents(value, str(self.fields[name].label or name))
            except PageInputError as exc:
                self.add_error(name, str(exc))
        return cleaned

    def rate_dicts(self, fields: Sequence[str]) -> list[dict[str, Any]]:
        """The complete new set of rates: each old rate with its fee(s) changed."""
        rows = []
        for i, rate in enumerate(self.rates):
            row = {name: getattr(rate, name) for name in fields}
            row["fee_cents"] = self.cleaned_data[f"fee_{i}"]
            if rate.others_fee_cents is not None:
                row["others_fee_cents"] = self.cleaned_data[f"others_fee_{i}"]
            rows.append(row)
        return rows


def _dollars(cents: int) -> str:
    whole, part = divmod(cents, 100)
    return f"{whole}" if part == 0 else f"{whole}.{part:02d}"


class TableSetupForm(forms.Form):
    """A table as the floor sets it up: its game (a choice game: the games the button picks from),
    stakes and kill, collection schedule, seats, chip. The services check that they fit
    (:func:`tables.services.create_table`, :func:`~tables.services.configure_table`)."""

    game = forms.ModelChoiceField(queryset=Game.objects.filter(is_active=True), to_field_name="slug")
    stakes = forms.ModelChoiceField(queryset=Stakes.objects.filter(is_active=True), to_field_name="code")
    kill = forms.ChoiceField(choices=KillType.choices, label="Kill")
    collection_schedule = forms.ModelChoiceField(
        queryset=CollectionSchedule.objects.all(), to_field_name="code", label="Collection schedule"
    )
    seat_count = forms.IntegerField(
        min_value=MIN_PLAYERS, max_value=MAX_SEATS, required=False, label="Seats (empty: the game's)"
    )
    chip = forms.CharField(max_length=12, initial="1", label="Smallest chip ($)")
    keep_fees_on_misdeal = forms.BooleanField(required=False, label="Keep the fees of a misdeal")
    reason = forms.CharField(max_length=500, required=False, label="Reason (kept in the change log)")

    def __init__(self, *args: Any, number_field: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if number_field:
            self.fields = {
                "number": forms.IntegerField(min_value=1, max_value=32767, label="Table number")
            } | dict(self.fields)

    def clean_chip(self) -> int:
        return dollars_to_cents(self.cleaned_data["chip"], "The chip", "chip")

    def service_kwargs(self) -> dict[str, Any]:
        """What the services take from the form (``chip`` in cents)."""
        data = self.cleaned_data
        kwargs = {
            "game": data["game"],
            "stakes": data["stakes"],
            "kill": data["kill"],
            "collection_schedule": data["collection_schedule"],
            "chip_unit_cents": data["chip"],
            "keep_fees_on_misdeal": data["keep_fees_on_misdeal"],
            "reason": data["reason"],
        }
        if data.get("seat_count") is not None:
            kwargs["seat_count"] = data["seat_count"]
        if "number" in data:
            kwargs["number"] = data["number"]
        return kwargs
