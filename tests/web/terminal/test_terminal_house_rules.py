"""The terminal's form for the house rules of 004: the house fouls a Chinese poker hand (rule 8),
lowball's sevens rule (lowball rule 2), and the joker only when it is in the deck (rule 1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.test import Client

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from poker.games import MAX_BOARDS, rules_for
from tables.models import Game, HandResult, Player, Table
from web.terminal.showdown_input import BOARD_FIELDS, SWEEP_CHOICES, showdown_from_post, sweep_choices


def test_the_entrys_boards_and_sweeps_are_the_engines() -> None:
    """The board fields go as far as the engine's most boards; the sweeps offered are the ones the
    game's rules let a player declare (none outside Chinese poker), labelled for the dealer."""
    assert BOARD_FIELDS == ("board", "board_2", "board_3")
    assert len(BOARD_FIELDS) == MAX_BOARDS
    chinese = sweep_choices(rules_for("chinese-poker"))
    assert [value for value, _ in chinese] == ["", *(str(kind) for kind in rules_for("chinese-poker").sweeps)]
    assert chinese[1] == ("dragon", "Dragon (A to K)")
    assert chinese == SWEEP_CHOICES
    assert (
        sweep_choices(rules_for("taiwanese-poker"))
        == sweep_choices(rules_for("holdem"))
        == [("", "no declaration")]
    )


def test_form_fields_for_a_house_foul_and_the_sevens_rule() -> None:
    chinese = showdown_from_post(
        rules=rules_for("chinese-poker"),
        seats=[1, 2],
        data={"front_1": "As Ad 2c", "middle_1": "Ks Kd 3c 3d", "back_1": "Qs Qd Qh 4c 4d", "fouled_1": "on",
              "front_2": "Js Jd 2d", "middle_2": "Ts Td 5c 5d 6h", "back_2": "9s 9d 9h 7c 7d"},
    )  # fmt: skip
    assert chinese["players"][0] == {
        "seat": 1,
        "fouled": True,
        "front": ["As", "Ad", "2c"],
        "middle": ["Ks", "Kd", "3c", "3d"],
        "back": ["Qs", "Qd", "Qh", "4c", "4d"],
    }
    lowball = showdown_from_post(
        rules=rules_for("lowball"),
        seats=[1, 2, 3],
        data={"cards_1": "7c 5d 4h 3s 2c", "put_in_1": "12", "after_draw_1": "8", "checked_seven_1": "on",
              "cards_2": "8c 6d 4s 3h 2d", "put_in_2": "12", "after_draw_2": "8",
              "put_in_3": "4", "folded_3": "on"},
    )  # fmt: skip
    assert [(p.get("put_in_after_draw"), p.get("checked_seven")) for p in lowball["players"]] == [
        (800, True),
        (800, None),
        (None, None),
    ]
    plain = showdown_from_post(
        rules=rules_for("lowball"),
        seats=[1],
        data={"cards_1": "7c 5d 4h 3s 2c", "put_in_1": "12", "after_draw_1": "8"},
    )
    assert "put_in_after_draw" not in plain["players"][0]  # sent only when a seat is marked


def test_the_card_picker_offers_the_joker_only_when_it_is_in_the_deck(
    users: dict[str, Any], make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]
) -> None:
    dealer = Client()
    dealer.force_login(users["dealer"])
    for game, picked, joker in (("lowball", None, True), ("dealers-choice", "lowball", False)):
        table = make_table(game=game, stakes="limit-4-8", schedule="A")
        for i, player in enumerate(seat_players(table, [1, 2])):
            hand_flow.buy_in(
                table=table, player=player, amount_cents=8_000, by=None, idempotency_key=f"{game}{i}"
            )
        chosen = Game.objects.get(slug=picked) if picked else None
        hand_flow.start_hand(table=table, by=None, game=chosen)
        page = dealer.get(f"/tables/{table.number}/").content.decode()
        assert ('data-joker="1"' in page) is joker
        assert ("the joker JK" in page) is joker
        assert 'name="checked_seven_1"' in page


def test_a_twelve_card_entry_is_refused_on_the_page_unless_fouled(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    seat_players: Callable[..., list[Player]],
    on_duty: Callable[..., Any],
) -> None:
    dealer = Client()
    dealer.force_login(users["dealer"])
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    on_duty(table)
    players = seat_players(table, [1, 2])
    for i, player in enumerate(players):
        hand_flow.buy_in(table=table, player=player, amount_cents=10_000, by=None, idempotency_key=f"c{i}")
    hand = hand_flow.start_hand(table=table, by=None).hand
    form = {"front_1": "Qs Qd 2c", "middle_1": "9s 9d 8c 8d 3h", "back_1": "As Ks Js 7s 4s",
            "front_2": "5c 4d 2d", "middle_2": "Tc Td 6h 6c", "back_2": "Ah Ad Kh Kd 7h"}  # fmt: skip
    refused = dealer.post(f"/hands/{hand.pk}/showdown/", form, follow=True).content.decode()
    assert "middle 4" in refused
    assert "mark the hand fouled" in refused
    assert not HandResult.objects.filter(hand=hand).exists()
    dealer.post(f"/hands/{hand.pk}/showdown/", form | {"fouled_2": "on"})
    reading = HandResult.objects.get(hand=hand)
    assert reading.engine_result["players"]["2"]["fouled"] is True
    assert [ledger_selectors.player_chips(table=table, player=p) for p in players] == [9_900, 9_900]
