"""Properties of Taiwanese poker settlement on random deals (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.cards import FULL_DECK
from poker.taiwanese import decide_taiwanese

DECK = [c.text for c in FULL_DECK]


@st.composite
def deals(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 6))
    boards = draw(st.integers(1, 2 if n <= 6 else 1))
    order = draw(st.permutations(DECK))
    seats = sorted(draw(st.lists(st.integers(1, 9), min_size=n, max_size=n, unique=True)))
    chip = draw(st.sampled_from([25, 100]))
    point = chip * draw(st.integers(1, 4))
    players = []
    for i, seat in enumerate(seats):
        cards = order[7 * i : 7 * i + 7]
        player: dict[str, Any] = {"seat": seat, "top": cards[:1], "middle": cards[1:3], "bottom": cards[3:]}
        if draw(st.booleans()):
            player["stack"] = draw(st.integers(0, 60)) * chip
        players.append(player)
    used = 7 * n
    board_cards = [order[used + 5 * b : used + 5 * b + 5] for b in range(boards)]
    button = draw(st.integers(1, 9))
    return {
        "game": "taiwanese-poker",
        "point": point,
        "chip": chip,
        "button": button,
        "boards": board_cards,
        "players": players,
    }


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals())
def test_settlement_properties(hand: dict[str, Any]) -> None:
    r = decide_taiwanese(hand)
    chip, point = hand["chip"], hand["point"]
    nets = {int(s): v["net"] for s, v in r["players"].items()}
    assert sum(nets.values()) == 0
    paid_out = dict.fromkeys(nets, 0)
    flows = dict.fromkeys(nets, 0)
    for pay in r["payments"]:
        assert 0 <= pay["amount"] <= pay["due"]
        paid_out[pay["from"]] += pay["amount"]
        flows[pay["from"]] -= pay["amount"]
        flows[pay["to"]] += pay["amount"]
    assert flows == nets
    for p in hand["players"]:  # a player pays at most the chips in play at the start
        if "stack" in p:
            assert paid_out[p["seat"]] <= p["stack"]
    for pos in r["positions"]:
        total = sum(x["amount"] for x in pos["paid"])
        got = [a["amount"] for a in pos["awards"]]
        assert sum(got) == total
        assert max(got) - min(got) <= chip  # an even split, odd chips one each
        assert got == sorted(got, reverse=True)  # odd chips go to the first winners
        winners = set(pos["winners"])
        for x in pos["paid"]:
            assert x["seat"] not in winners
            assert x["due"] == x["points"] * point
            if pos["position"] != "scoop":
                assert x["points"] in (pos["base"], pos["base"] + pos["bonus"])
        if pos["position"] != "scoop":
            assert len(pos["paid"]) + len(winners) == len(hand["players"])
