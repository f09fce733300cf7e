"""The showdown entry's seats in the order their cards are tapped, and a seat the screen read as
folded because it showed no cards, through Django's test client as htmx.

A pot game's seats go round from the button's left, the button last (the order the cards were
dealt, and a showdown goes round the table): a button that folded is the last seat, and the
screen's script reads it as folded when it shows no cards, so its "Folded" needs no tap (the
browser side: ``tests/web/browser/test_terminal_screen_in_chromium.py``). Chinese and Taiwanese
poker keep the button (the action button) first. A fold the screen made is posted as
``folded_<seat>=auto``: the server reads it as any fold, draws it back as the screen's, and says
so beside the reading."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tables.models import Hand, Player, Table
from tests.web.terminal.test_terminal_page import HOLDEM, HX, body, deal, dealer_client


def entry_order(shown: str) -> list[int]:
    """The seats of the showdown entry in the order the screen lists them."""
    seats = shown[shown.index('id="seats"') : shown.index('id="entry-pane"')]
    return [int(n) for n in re.findall(r'<fieldset class="seat seat-entry[^"]*" data-seat="(\d+)"', seats)]


def fold_box(shown: str, seat: int) -> str:
    tag = re.search(rf'<input type="checkbox" name="folded_{seat}"[^>]*>', shown)
    assert tag is not None, seat
    return tag.group(0)


def test_a_pot_games_seats_go_round_from_the_buttons_left(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A", seat_count=6)
    buy_in_players(table, [1, 3, 4, 6], 8_000)
    shown = body(deal(dealer_client(users, table), table))
    hand = Hand.objects.get(table=table)
    by_position = list(hand.players.order_by("position").values_list("seat__number", flat=True))
    assert by_position[0] == hand.button_seat.number
    assert entry_order(shown) == [*by_position[1:], by_position[0]]  # the button last
    # The tap order of the card fields follows: the board, then the seats in that order.
    orders = dict(re.findall(r'name="(board|cards_\d+)"[^>]*data-order="(\d+)"', shown))
    assert sorted(orders, key=lambda name: int(orders[name])) == [
        "board",
        *(f"cards_{n}" for n in entry_order(shown)),
    ]


def test_chinese_poker_keeps_the_action_button_first(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    shown = body(deal(dealer_client(users, table), table))
    hand = Hand.objects.get(table=table)
    by_position = hand.players.order_by("position").values_list("seat__number", flat=True)
    assert entry_order(shown) == list(by_position)


def test_a_fold_the_screen_made_is_read_as_a_fold_and_drawn_back_as_the_screens(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    client_for: Callable[[str | None], Any],
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    mucked = HOLDEM | {"folded_3": "auto"}
    read = dealer.post(f"/hands/{hand.pk}/showdown/", mucked, headers=HX)
    shown = body(read)
    assert read.status_code == 200
    assert re.search(r"to seat 1 \([^)]*\): Full house, aces full of sevens", shown)
    box = fold_box(shown, 3)
    assert " checked" in box
    assert 'value="auto"' in box
    assert re.search(r'<span class="hint muck" id="muck_3">', shown)  # shown, not hidden
    assert 'id="mucked">Read as folded, no cards shown: seat 3.' in shown
    # The dealer's own fold ("on") is the same reading, said as the dealer's.
    tapped = body(dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM, headers=HX))
    assert 'value="on"' in fold_box(tapped, 3)
    assert 'id="muck_3" hidden' in tapped
    assert 'id="mucked"' not in tapped
    assert 'value="on"' in fold_box(tapped, 1)
    assert " checked" not in fold_box(tapped, 1)
    # A reload draws the entry back from the draft the script keeps: the screen's fold as the screen's.
    draft = f"/api/terminal/hands/{hand.pk}/draft/"
    kept = client_for("dealer").put(draft, {"entry": mucked}, format="json", HTTP_IDEMPOTENCY_KEY="muck-d-1")
    assert kept.status_code in (200, 201), kept.content
    reloaded = body(dealer.get(f"/tables/{table.number}/"))
    assert 'value="auto"' in fold_box(reloaded, 3)
    assert 'id="muck_3">' in reloaded
