"""Form input of the floor's pages: money typed in dollars, the showdown the dealer types in, a
table's setup.

Input only: these functions turn what a form posted into the values the services take (cents,
the showdown object of ``docs/hand-flow.md``, each field's cards split as the engine splits them:
:func:`poker.cards.card_texts`); every rule is checked by the services and the rules engine,
which refuse bad input with a message the page shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from django import forms

from poker.cards import card_texts
from poker.games import GAME_RULES, MAX_BOARDS, GameRules
from poker.sweeps import SweepKind
from tables.models import (
    MAX_SEATS,
    MIN_PLAYERS,
    CollectionSchedule,
    Game,
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

#: How the terminal names a clean sweep (the engine's names are the values posted).
_SWEEP_LABELS: Final = {
    SweepKind.DRAGON: "Dragon (A to K)",
    SweepKind.SIX_PAIRS: "Six pairs",
    SweepKind.THREE_STRAIGHTS: "Three straights",
    SweepKind.THREE_FLUSHES: "Three flushes",
}


def _sweep_choices(kinds: Iterable[SweepKind]) -> list[tuple[str, str]]:
    return [("", "no declaration")] + [
        (str(kind), _SWEEP_LABELS.get(kind) or str(kind).replace("-", " ").capitalize()) for kind in kinds
    ]


def sweep_choices(rules: GameRules) -> list[tuple[str, str]]:
    """The clean sweeps a dealer may declare in the game of ``rules`` (:attr:`GameRules.sweeps
    <poker.games.GameRules.sweeps>`: the engine verifies each from the 13 cards), after "no
    declaration"."""
    return _sweep_choices(rules.sweeps)


#: The clean sweeps a dealer may declare in any game that has them (Chinese poker, RULINGS 3 and
#: the named sets), after "no declaration".
SWEEP_CHOICES: Final = _sweep_choices(
    dict.fromkeys(kind for rules in GAME_RULES.values() for kind in rules.sweeps)
)


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


#: The board fields of boards agreed before the deal (Taiwanese poker), first to the last the
#: engine allows (:data:`poker.games.MAX_BOARDS`); a game with one board has the first.
BOARD_FIELDS: Final = ("board", *(f"board_{i}" for i in range(2, MAX_BOARDS + 1)))


def showdown_from_post(
    *,
    rules: GameRules,
    seats: Sequence[int],
    data: Mapping[str, Any],
    boards: int | None = None,
) -> dict[str, Any]:
    """The showdown object for ``submit_showdown`` from the terminal's form fields, for the game of
    ``rules`` (what it enters: :class:`poker.games.GameRules`).

    Pot games: ``cards_<seat>``, ``put_in_<seat>`` (dollars), ``folded_<seat>``, and ``board``;
    lowball also ``after_draw_<seat>`` (dollars put in after the draw) and ``checked_seven_<seat>``
    (004 lowball rule 2), sent only when a seat is marked.
    Chinese poker: ``front_<seat>``, ``middle_<seat>``, ``back_<seat>``, or ``declare_<seat>``
    (a sweep, with all 13 cards in ``cards_<seat>``) or ``surrender_<seat>``; ``fouled_<seat>``:
    the house fouls the hand (004 rule 8), with whatever cards were entered.
    Taiwanese poker: ``top_<seat>``, ``middle_<seat>``, ``bottom_<seat>``, and the boards
    ``board``, ``board_2``, ``board_3`` (:data:`BOARD_FIELDS`): with ``boards`` (the number agreed
    before the deal) exactly that many are sent (an empty one as empty, for the engine to refuse
    with its message); without it, ``board`` and any later board given.
    Raises PageInputError for an amount that isn't one.
    """

    def text(name: str) -> str:
        return str(data.get(name, "") or "")

    players: list[dict[str, Any]] = []
    if rules.is_pot_game:
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
        if rules.sevens and any(text(f"checked_seven_{seat}") for seat in seats):
            for entry in players:
                seat = entry["seat"]
                after = text(f"after_draw_{seat}")
                if after or not entry.get("folded"):
                    where = f"seat {seat}: after the draw"
                    entry["put_in_after_draw"] = dollars_to_cents(after or "0", where, f"after_draw_{seat}")
                if text(f"checked_seven_{seat}"):
                    entry["checked_seven"] = True
        result: dict[str, Any] = {"players": players}
        if rules.has_board:
            result["board"] = card_texts(text("board"))
        return result
    # The games whose players set hands (Chinese and Taiwanese poker): each seat's rows, or what
    # the game lets a seat do instead (house foul, surrender, a clean sweep declared).
    for seat in seats:
        declare = text(f"declare_{seat}")
        if rules.house_foul and text(f"fouled_{seat}"):
            fouled: dict[str, Any] = {"seat": seat, "fouled": True}
            for row in rules.rows:
                if cards := card_texts(text(f"{row.name}_{seat}")):
                    fouled[row.name] = cards
            players.append(fouled)
        elif rules.surrender and text(f"surrender_{seat}"):
            players.append({"seat": seat, "surrender": True, "cards": _whole_hand(text, seat, rules)})
        elif rules.declares_sweeps and declare:
            players.append({"seat": seat, "declare": declare, "cards": _whole_hand(text, seat, rules)})
        else:
            players.append(
                {"seat": seat} | {row.name: card_texts(text(f"{row.name}_{seat}")) for row in rules.rows}
            )
    if not rules.agrees_boards:
        return {"players": players}
    given = [card_texts(text(name)) for name in BOARD_FIELDS]
    count = boards if boards is not None else max(i + 1 for i, cards in enumerate(given) if cards or i == 0)
    if count > 1:  # more boards: every hand plays each (000)
        return {"boards": given[:count], "players": players}
    return {"board": given[0], "players": players}


def _whole_hand(text: Any, seat: int, rules: GameRules) -> list[str]:
    """A declared or surrendered hand's cards: ``cards_<seat>``, else the rows together."""
    cards = card_texts(text(f"cards_{seat}"))
    if cards:
        return cards
    return [c for row in rules.rows for c in card_texts(text(f"{row.name}_{seat}"))]


def entry_from_submitted(*, rules: GameRules, submitted: Mapping[str, Any]) -> dict[str, str]:
    """The terminal's form fields for a showdown object as :func:`showdown_from_post` made it (a
    reading on record) in the game of ``rules``: the entry as the dealer left it, to correct and
    read again. Amounts are dollars as typed (``12`` or ``12.50``), cards space-separated."""

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
        if rules.is_pot_game:
            fields[f"cards_{seat}"] = cards(player.get("cards"))
            if isinstance(player.get("put_in"), int):
                fields[f"put_in_{seat}"] = cents_to_dollars(player["put_in"])
            if isinstance(player.get("put_in_after_draw"), int):
                fields[f"after_draw_{seat}"] = cents_to_dollars(player["put_in_after_draw"])
            for flag, name in (("folded", "folded"), ("checked_seven", "checked_seven")):
                if player.get(flag) is True:
                    fields[f"{name}_{seat}"] = "on"
            continue
        for row in rules.rows:
            if row.name in player:
                fields[f"{row.name}_{seat}"] = cards(player.get(row.name))
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
