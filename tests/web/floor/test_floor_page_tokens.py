"""A chip form's posting is keyed by its page's token and its poster: a form without a token is
refused (it shared the key ``page::buy_in`` with every other token-less post, so player B's
buy-in was refused as "already used" after player A's), and a replayed form says nothing was
posted again (it said "X bought in for $..." a second time)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.test import Client

from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from tables.models import Player, Table


def test_token_less_chip_forms_are_refused_and_replays_say_so(
    users: dict[str, Any], make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    ana, ben = seat_players(table, [1, 2])
    floor = Client()
    floor.force_login(users["floor"])
    url = f"/floor/tables/{table.number}/"
    before = JournalTransaction.objects.count()
    for player in (ana, ben):
        page = floor.post(url, {"action": "buy_in", "player": str(player.pk), "amount": "50"}, follow=True)
        assert "This form has no token" in page.content.decode()
    assert JournalTransaction.objects.count() == before
    # With the page's tokens both buy in; posting the first form again posts nothing.
    form = {"action": "buy_in", "player": str(ana.pk), "amount": "50", "token": "a" * 32}
    assert "bought in for $50.00" in floor.post(url, form, follow=True).content.decode()
    floor.post(url, {**form, "player": str(ben.pk), "token": "b" * 32})
    again = floor.post(url, form, follow=True).content.decode()
    assert "already posted" in again
    assert "nothing was posted again" in again
    assert [ledger_selectors.player_chips(table=table, player=p) for p in (ana, ben)] == [5_000, 5_000]
    # Another floor manager posting the same token is another posting, not a replay of the first.
    other = Client()
    other.force_login(users["admin"])
    refused = other.post(url, form, follow=True).content.decode()
    assert "already bought in" in refused  # a second buy-in of the session: refused, not replayed
