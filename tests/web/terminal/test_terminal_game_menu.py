"""The terminal's game picker between hands lists the games the button may pick, as the floor
decides them in one place (``tables.selectors.choice_games``): Seven Card Stud Choice its three
games (the screen used to offer every approved pot game there, which the deal then refused), a
dealer's-choice table every approved pot game that isn't itself a choice."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tables.choices import GameKind
from tables.models import Game, Hand, Player, Table
from tables.selectors import choice_games
from tests.web.terminal.test_terminal_page import HX, body, deal, dealer_client


def menu(shown: str) -> list[str]:
    """The slugs the game picker offers, in order (the blank "pick the game" left out)."""
    picker = re.search(r'<select id="game" name="game">(.*?)</select>', shown, re.S)
    assert picker is not None, "no game picker on the screen"
    return [slug for slug in re.findall(r'<option value="([^"]*)"', picker.group(1)) if slug]


def test_stud_choice_offers_its_three_games_only(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="stud-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    dealer = dealer_client(users, table)
    offered = menu(body(dealer.get(f"/tables/{table.number}/", headers=HX)))
    assert sorted(offered) == ["razz", "stud", "stud-hi-lo"]
    assert offered == [g.slug for g in choice_games(table.game)]  # the floor's order too
    # What it offers deals: the pick goes through the deal's own check.
    assert deal(dealer, table, game=offered[-1]).status_code == 200
    assert Hand.objects.get(table=table).game.slug == offered[-1]


def test_dealers_choice_offers_the_approved_pot_games(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    offered = menu(body(dealer_client(users, table).get(f"/tables/{table.number}/", headers=HX)))
    assert offered == [g.slug for g in choice_games(table.game)]
    approved = Game.objects.filter(kind=GameKind.POT, is_dealers_choice=False, is_active=True)
    assert set(offered) == set(approved.values_list("slug", flat=True))
    assert {"holdem", "omaha", "razz", "lowball"} <= set(offered)
    assert not set(offered) & {"dealers-choice", "stud-choice", "chinese-poker", "taiwanese-poker"}


def test_a_table_of_one_game_has_no_picker(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    assert 'id="game"' not in body(dealer_client(users, table).get(f"/tables/{table.number}/", headers=HX))
