"""No pot paid to nobody (issue #32): a folded player's chips stay in the pot and never go back to
it; chips go back only when nobody called them, to the single largest put-in's seat, the amount
above the second largest; the pot paid is every put-in less those. Put-ins no real hand leaves
(a folded seat above every live one, one player alone putting chips in) are refused, saying what
to correct, never settled as a pot that pays nobody.

The terminal's side (the keys that made such entries, and the server refusing them):
tests/web/browser/test_terminal_pot_in_chromium.py, tests/web/terminal/test_terminal_no_pot_to_nobody.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.cards import FULL_DECK
from poker.errors import ShowdownError
from poker.showdown import POT_GAMES, decide

DECK = [c.text for c in FULL_DECK]
FOLDED_ABOVE = "folded but put in more than any player still in"
NO_POT = "no pot: only seat"


def test_the_issues_holdem_hand_won_without_a_showdown() -> None:
    """Seat 3's $20 alone, the folded seats' put-ins emptied: refused (before: $20 back to seat 3 as
    uncalled chips, a pot of nothing). With the folded seats' $20 each, seat 3 wins $60."""
    emptied = {
        "game": "holdem", "chip": 100, "button": 6, "board": [],
        "players": [{"seat": 1, "put_in": 0, "folded": True}, {"seat": 3, "put_in": 2000},
                    {"seat": 6, "put_in": 0, "folded": True}],
    }  # fmt: skip
    with pytest.raises(ShowdownError, match=r"^no pot: only seat 3 put chips in, so they would all go back"):
        decide(emptied)
    kept = emptied | {
        "players": [{"seat": 1, "put_in": 2000, "folded": True}, {"seat": 3, "put_in": 2000},
                    {"seat": 6, "put_in": 2000, "folded": True}],
    }  # fmt: skip
    result = decide(kept)
    (pot,) = result["pots"]
    assert pot == {"amount": 6000, "seats": [3], "awards": [{"seat": 3, "amount": 6000, "share": "whole"}]}
    assert result["returned"] == []
    assert result["net"] == {"1": -2000, "3": 4000, "6": -2000}


def test_the_issues_lowball_hand_a_folded_seat_above_every_live_one() -> None:
    """Seat 2 folded with $20, the live seats $16: refused (before: $4 back to the folded seat)."""
    hand = {
        "game": "lowball", "chip": 100, "button": 3,
        "players": [{"seat": 1, "cards": ["7c", "5d", "4h", "3s", "2c"], "put_in": 1600},
                    {"seat": 2, "put_in": 2000, "folded": True},
                    {"seat": 3, "cards": ["8c", "6d", "4s", "3h", "2d"], "put_in": 1600}],
    }  # fmt: skip
    refused = rf"^seat 2 {FOLDED_ABOVE}: a folded player's chips stay in the pot and never go back to it"
    with pytest.raises(ShowdownError, match=refused):
        decide(hand)
    hand["players"][1]["put_in"] = 400
    result = decide(hand)
    assert result["returned"] == []
    assert result["net"] == {"1": 2000, "2": -400, "3": -1600}


def test_two_folded_seats_above_every_live_one_are_refused_by_the_same_rule() -> None:
    hand = {
        "game": "holdem", "chip": 100, "button": 1, "board": [],
        "players": [{"seat": 1, "put_in": 400}, {"seat": 2, "put_in": 2000, "folded": True},
                    {"seat": 3, "put_in": 2000, "folded": True}],
    }  # fmt: skip
    with pytest.raises(ShowdownError, match=rf"^seat 2 {FOLDED_ABOVE}"):
        decide(hand)


def test_uncalled_chips_of_the_last_aggressor_still_go_back() -> None:
    """Blinds in, a bet nobody called: the bet goes back, the blinds are the winner's pot."""
    hand = {
        "game": "holdem", "chip": 100, "button": 3, "board": [],
        "players": [{"seat": 1, "put_in": 200, "folded": True}, {"seat": 2, "put_in": 400, "folded": True},
                    {"seat": 3, "put_in": 1200}],
    }  # fmt: skip
    result = decide(hand)
    assert result["pots"][0]["amount"] == 1000  # 2 + 4 + the 4 of seat 3's that the big blind matched
    assert result["returned"] == [{"seat": 3, "amount": 800}]
    assert result["net"] == {"1": -200, "2": -400, "3": 600}


# ----------------------------------------------------------------------------------------
# The property, over random entries of every pot game
# ----------------------------------------------------------------------------------------


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    """A pot game's showdown entry: 1 to 8 seats, random put-ins (often equal, some zero, now and
    then below a chip), random folds with at least one live seat, every live hand's cards (none
    when one live seat wins without a showdown), a folded hand's now and then."""
    name = draw(st.sampled_from(sorted(POT_GAMES)))
    spec = POT_GAMES[name]
    chip = draw(st.sampled_from([1, 25, 100]))
    most = min(8, (len(DECK) - spec.board) // spec.hole)
    seats = draw(st.lists(st.integers(1, 10), min_size=1, max_size=most, unique=True))
    levels = draw(st.lists(st.integers(0, 40), min_size=1, max_size=4))
    put_ins = []
    for _ in seats:
        amount = draw(st.sampled_from(levels)) * chip
        if chip > 1 and draw(st.integers(0, 9)) == 0:
            amount += draw(st.integers(1, chip - 1))  # all in below a whole chip
        put_ins.append(amount)
    folded = [draw(st.booleans()) for _ in seats]
    if all(folded):
        folded[draw(st.integers(0, len(seats) - 1))] = False
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = rng.sample(DECK, len(DECK))
    live = sum(not f for f in folded)
    players: list[dict[str, Any]] = []
    for seat, amount, out in zip(seats, put_ins, folded, strict=True):
        player: dict[str, Any] = {"seat": seat, "put_in": amount}
        if out:
            player["folded"] = True
        if (not out and live > 1) or (out and rng.random() < 0.3):
            player["cards"] = [deck.pop() for _ in range(spec.hole)]
        players.append(player)
    hand: dict[str, Any] = {"game": name, "chip": chip, "button": rng.choice(seats), "players": players}
    if spec.board:
        hand["board"] = [deck.pop() for _ in range(spec.board)] if live > 1 else []
    return hand


@settings(max_examples=600, deadline=None)
@given(entries())
def test_no_folded_seat_gets_chips_back_and_the_pot_pays_every_put_in_but_the_uncalled(
    hand: dict[str, Any],
) -> None:
    players = hand["players"]
    put = {p["seat"]: p["put_in"] for p in players}
    folded = {p["seat"] for p in players if p.get("folded")}
    most_live = max(p["put_in"] for p in players if not p.get("folded"))
    paying = [seat for seat, amount in put.items() if amount]
    refused_for = (
        FOLDED_ABOVE
        if any(put[seat] > most_live for seat in folded)
        else NO_POT
        if len(paying) == 1
        else None
    )
    if refused_for is not None:
        with pytest.raises(ShowdownError, match=refused_for):
            decide(hand)
        return
    result = decide(hand)
    returned = result["returned"]
    paid = sum(a["amount"] for pot in result["pots"] for a in pot["awards"])
    uncalled = sum(r["amount"] for r in returned)
    # No folded seat gets chips back: it loses exactly what it put in.
    assert not folded & {r["seat"] for r in returned}
    for seat in folded:
        assert result["net"][str(seat)] == -put[seat]
    # Nothing created or lost: the chips paid to winners and the uncalled ones are every put-in.
    assert paid + uncalled == sum(put.values())
    assert sum(result["net"].values()) == 0
    # Uncalled chips go back only to the single largest put-in's seat, only above the second largest.
    ranked = sorted(put.values(), reverse=True)
    top, second = ranked[0], (ranked[1:] or [0])[0]
    if top > second:
        (seat,) = (s for s, amount in put.items() if amount == top)
        assert returned == [{"seat": seat, "amount": top - second}]
    else:
        assert returned == []
    # Every pot is paid, to live seats only, and a pot was paid if anything was put in.
    for pot in result["pots"]:
        assert sum(a["amount"] for a in pot["awards"]) == pot["amount"] > 0
        assert not folded & {a["seat"] for a in pot["awards"]}
    assert (paid > 0) == (sum(put.values()) > 0)
