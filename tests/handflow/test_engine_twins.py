"""The engine's typed reading, postings and game rules give what the hand flow computes today
(DB-free: the models are built unsaved, as the replay audit builds them), so the hand flow can
switch to them without changing a stored posting, a digest or a message:

* ``handflow.services.settlement_postings`` == ``poker.postings.settlement_postings(...).to_json()``
  (key order included), for every kind of engine reading;
* ``handflow.audit.ledger_lines`` == ``Postings.ledger_lines()``;
* ``handflow.services.outright_winner`` == ``Reading.outright_winner``;
* the hand flow's game facts (``MAX_BOARDS``, ``CHINESE_RULES``, ``PLAYER_DEALER_GAMES``,
  ``POT_PLAYER_KEYS``, ``joker_in_deck``, ``hand_kill_blind``'s percent) == ``poker.games`` /
  ``poker.kill``'s; the floor's ``KillType.multiplier_pct`` == ``KillKind.multiplier_pct``.

These name today's homes of the hand flow's functions; they go once the hand flow reads through
the engine's (then the engine's own tests in tests/poker say it all).
"""

from __future__ import annotations

from typing import Any

import pytest

from handflow import audit
from handflow import services as hand_flow
from poker.games import GAME_RULES, MAX_BOARDS, rules_for
from poker.kill import KillKind
from poker.postings import Postings, settlement_postings
from poker.reading import Reading
from tables.choices import KillType
from tables.models import Game, GameKind, Hand, HandPlayer, Seat, Table
from tests.poker.reading_cases import corpus

CORPUS = corpus(5, pot=330, chinese=70, taiwanese=60)


def _kind(reading: dict[str, Any]) -> str:
    return GameKind.POT if "pots" in reading else GameKind.PLAYER_DEALER


def test_the_engines_postings_are_the_hand_flows() -> None:
    for hand, reading in CORPUS:
        players = {p["seat"]: 500 + 7 * p["seat"] for p in hand["players"]}
        hand_players = [HandPlayer(seat=Seat(number=seat), player_id=pid) for seat, pid in players.items()]
        today = hand_flow.settlement_postings(
            hand=Hand(game=Game(kind=_kind(reading))),
            hand_players=hand_players,
            engine_input=hand,
            reading=reading,
        )
        engine = settlement_postings(Reading.from_json(reading), engine_input=hand, player_of=players)
        assert engine.to_json() == today
        assert list(engine.to_json()) == list(today)  # the same keys in the same order
        assert Postings.from_json(today) == engine
        assert [
            (line.player if line.player is not None else audit.POT, line.amount)
            for line in engine.ledger_lines()
        ] == (audit.ledger_lines(today))


def test_the_outright_winner_is_the_hand_flows() -> None:
    for _, reading in CORPUS:
        assert Reading.from_json(reading).outright_winner == hand_flow.outright_winner(reading)


def test_the_hand_flows_game_facts_are_the_engines() -> None:
    assert hand_flow.MAX_BOARDS == MAX_BOARDS
    assert rules_for("chinese-poker").rule_set == hand_flow.CHINESE_RULES
    for slug, (player_keys, top_keys) in hand_flow.PLAYER_DEALER_GAMES.items():
        rules = rules_for(slug)
        assert player_keys == frozenset(rules.player_fields)
        assert top_keys == frozenset(rules.hand_fields)
    assert set(hand_flow.PLAYER_DEALER_GAMES) == {s for s, r in GAME_RULES.items() if r.played_for_points}
    pot_fields = {f for r in GAME_RULES.values() if r.is_pot_game for f in r.player_fields}
    assert pot_fields == hand_flow.POT_PLAYER_KEYS
    assert tuple(hand_flow.POT_ENGINE_KEYS) == rules_for("lowball").player_fields


@pytest.mark.parametrize("slug", [s for s, r in GAME_RULES.items() if r.is_pot_game])
@pytest.mark.parametrize("at_dealers_choice", [False, True])
def test_the_joker_is_in_the_deck_where_the_engine_says(slug: str, at_dealers_choice: bool) -> None:
    table = Table(
        game=Game(slug="dealers-choice" if at_dealers_choice else slug, is_dealers_choice=at_dealers_choice)
    )
    assert hand_flow.joker_in_deck(table=table, game=Game(slug=slug)) == rules_for(slug).joker_dealt(
        at_dealers_choice=at_dealers_choice
    )


def test_the_kill_multipliers_are_the_floors() -> None:
    for kind in KillKind:
        assert KillType(str(kind)).multiplier_pct == kind.multiplier_pct
    assert {KillKind.from_multiplier_pct(pct) for pct in (150, 200)} == {KillKind.HALF, KillKind.FULL}
