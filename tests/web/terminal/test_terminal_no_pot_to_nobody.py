"""No pot paid to nobody (issue #32), at the server: the entries the dealer terminal posted for the
issue's two hands before its keys were mended are refused with a message saying what to correct,
never read as a pot that pays nobody; the same hands entered as meant are read and paid.

The screen's side (the keys that made those entries): tests/web/browser/test_terminal_pot_in_chromium.py;
the engine's rule and its property test: tests/poker/test_no_pot_to_nobody.py.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from django.test import Client

from ledger import selectors as ledger_selectors
from tables import services as floor
from tables.models import Hand, HandResult, Player, Table

HX = {"HX-Request": "true"}


def dealer_client(users: dict[str, Any], table: Table) -> Client:
    client = Client()
    client.force_login(users["dealer"])
    floor.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    return client


def body(response: Any) -> str:
    return html.unescape(response.content.decode())


def deal(client: Client, table: Table) -> Hand:
    """Tap "Deal" on the screen with the fees it shows."""
    shown = body(client.get(f"/tables/{table.number}/", headers=HX))
    fees = dict(re.findall(r'name="(fee-\d+)" value="(\d+)"', shown))
    dealt = client.post(f"/tables/{table.number}/start/", fees, headers=HX)
    assert dealt.status_code == 200, body(dealt)
    return Hand.objects.get(table=table)


def refusal(shown: str) -> str:
    start = shown.index('id="refusal"')
    return shown[start : shown.index("</p>", start)]


def chips(table: Table, players: list[Player]) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def test_won_without_a_showdown_with_the_folded_put_ins_emptied_is_refused(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    """The hold'em entry "Won, no showdown" on seat 3 posted after the pad set $20 for each live
    player: seat 3's $20, the folded seats' put-ins empty. Before, it was read as uncalled chips
    back to seat 3 and a pot of nothing; now it is refused, saying the folded seats' chips stay in
    the pot. With their $20 each, seat 3 wins $60."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = buy_in_players(table, [1, 3, 6], 8_000)
    dealer = dealer_client(users, table)
    hand = deal(dealer, table)
    emptied = {"board": "", "called": "20", "put_in_1": "", "folded_1": "on", "put_in_3": "20",
               "put_in_6": "", "folded_6": "on"}  # fmt: skip
    refused = dealer.post(f"/hands/{hand.pk}/showdown/", emptied, headers=HX)
    shown = body(refused)
    assert refused.status_code == 400, shown
    said = refusal(shown)
    assert "no pot" in said, said
    assert "seat 3" in said, said
    assert "a folded player's chips stay in the pot" in said, said
    assert not HandResult.objects.filter(hand=hand).exists()
    meant = emptied | {"put_in_1": "20", "put_in_6": "20"}
    read = dealer.post(f"/hands/{hand.pk}/showdown/", meant, headers=HX)
    shown = body(read)
    assert read.status_code == 200, shown
    assert f"the pot to seat 3 (Seat 3 at {table.number}): everyone else folded, no showdown" in shown
    assert "uncalled" not in shown
    before = chips(table, players)
    dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "1"}, headers=HX)
    assert [a - b for a, b in zip(chips(table, players), before, strict=True)] == [-2_000, 4_000, -2_000]


LOWBALL = {"cards_1": "7c 5d 4h 3s 2c", "put_in_1": "16", "cards_3": "8c 6d 4s 3h 2d", "put_in_3": "16",
           "folded_2": "on", "called": "16"}  # fmt: skip


def test_a_folded_seat_that_put_in_more_than_every_live_seat_is_refused(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    """The lowball entry posted after "+$4" on seat 2's put-in added to the $16 the pad had set:
    seat 2 folded with $20, the live seats $16. Before, the reading gave the folded seat $4 back as
    uncalled chips; now it is refused, naming the seat. With its $4, the pot is $36."""
    table = make_table(game="lowball", stakes="limit-4-8", schedule="A")
    players = buy_in_players(table, [1, 2, 3], 8_000)
    dealer = dealer_client(users, table)
    hand = deal(dealer, table)
    refused = dealer.post(f"/hands/{hand.pk}/showdown/", LOWBALL | {"put_in_2": "20"}, headers=HX)
    shown = body(refused)
    assert refused.status_code == 400, shown
    said = refusal(shown)
    assert "seat 2 folded" in said, said
    assert "never go back" in said, said
    assert "uncalled chips back to seat 2" not in shown
    assert not HandResult.objects.filter(hand=hand).exists()
    read = dealer.post(f"/hands/{hand.pk}/showdown/", LOWBALL | {"put_in_2": "4"}, headers=HX)
    shown = body(read)
    assert read.status_code == 200, shown
    assert "uncalled" not in shown
    before = chips(table, players)
    dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "1"}, headers=HX)
    assert [a - b for a, b in zip(chips(table, players), before, strict=True)] == [2_000, -400, -1_600]
