"""The dealer terminal's keys, words and memory, through Django's test client as htmx: the put-in
pad at a kill hand's limits, the kill button after one win, the seat that picks at dealer's
choice, each game's misdeals, the entry kept as a draft (the screen draws it back; the API keeps
it), a sweep declaration no screen sends refused as a form error, and a card room's words."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

import pytest
from django.test import Client
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger.models import JournalTransaction
from poker.chinese_rules import RULE_SETS
from poker.games import GAME_RULES, GameRules
from tables.choices import HandStatus
from tables.models import Hand, HandPlayer, HandResult, Player, ShowdownDraft, Table
from tests.web.terminal.test_terminal_page import (
    CHINESE,
    HOLDEM,
    HX,
    body,
    deal,
    dealer_client,
    seat_card,
    value_of,
)
from web.terminal.screen import terminal_screen
from web.terminal.showdown_input import sweep_choices


@pytest.fixture
def three_players(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> tuple[Table, list[Player]]:
    """Three hold'em players at $4-$8 (no kill), $80 each, in seats 1-3."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    return table, buy_in_players(table, [1, 2, 3], 8_000)


@pytest.fixture
def ten_seats(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> tuple[Table, list[Player]]:
    """A full 10-seat $4-$8 half-kill hold'em table, everyone bought in for $80."""
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A", seat_count=10)
    return table, buy_in_players(table, list(range(1, 11)), 8_000)


def put_draft(client: APIClient, hand: Hand, entry: Any, key: str) -> Any:
    """What the terminal's script sends as the entry changes."""
    return client.put(
        f"/api/terminal/hands/{hand.pk}/draft/", {"entry": entry}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


def floor_client(users: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(users["floor"])
    return client


def reasons(shown: str) -> list[str]:
    """The misdeal reasons the screen offers, by code, in order."""
    return re.findall(r'name="reason_code" value="([a-z_]+)"', shown)


def pad_keys(shown: str) -> list[str]:
    return re.findall(r'data-add="\d+">([^<]+)</button>', shown)


def test_the_pad_follows_a_kill_hands_limits_and_the_kill_button_shows_after_one_win(
    users: dict[str, Any], ten_seats: tuple[Table, list[Player]], settle_hand: Callable[..., Hand]
) -> None:
    """$4-$8 half kill: after seat 3 wins one pot it holds the kill button (the screen says so
    before and during the next hand); after a second, the kill hand's keys are $6 and $12."""
    table, _ = ten_seats
    settle_hand(hand_flow.start_hand(table=table, by=None).hand, winners=(3,))
    dealer = dealer_client(users, table)
    between = body(dealer.get(f"/tables/{table.number}/"))
    assert "Kill button: seat 3 (won the last pot; if it wins the next outright" in between
    assert "kill button</span>" in seat_card(between, 3)
    assert "KILL HAND" not in between
    during = body(deal(dealer, table))
    assert "Kill button: seat 3 (won the last pot; if it wins this one outright" in during
    assert pad_keys(during)[:2] == ["+$4 small bet", "+$8 big bet"]  # not a kill hand: $4-$8
    hand = Hand.objects.get(table=table, status=HandStatus.DEALT)
    settle_hand(hand, winners=(3,))
    kill = body(deal(dealer, table))
    assert "KILL HAND: seat 3 kills, blind $6, limits $6-$12 (150%)" in kill
    assert pad_keys(kill)[:2] == ["+$6 small bet (kill)", "+$12 big bet (kill)"]
    assert 'data-add="600"' in kill
    assert 'data-add="1200"' in kill


def test_a_full_kill_doubles_the_keys(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    settle_hand: Callable[..., Hand],
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8-full", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    for _ in range(2):
        settle_hand(hand_flow.start_hand(table=table, by=None).hand, winners=(2,))
    kill = body(deal(dealer_client(users, table), table))
    assert "KILL HAND: seat 2 kills" in kill
    assert pad_keys(kill)[:2] == ["+$8 small bet (kill)", "+$16 big bet (kill)"]


def test_dealers_choice_marks_the_seat_that_picks_before_the_pick(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    settle_hand: Callable[..., Hand],
    deal_hand: Callable[..., Hand],
) -> None:
    """The button was at seat 1 for the last hand: the next hand's button, seat 2, picks the game,
    and the screen says so and marks it before the pick (the badge used to stay on seat 1)."""
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    settle_hand(deal_hand(table, game="holdem"))
    dealer = dealer_client(users, table)
    shown = body(dealer.get(f"/tables/{table.number}/"))
    assert "Dealer's choice: seat 2 (the button) picks" in shown
    assert 'id="dealer-button"' in seat_card(shown, 2)
    assert 'id="picks"' in seat_card(shown, 2)
    assert shown.count('id="dealer-button"') == 1
    assert 'id="deal"' not in shown  # no deal before the pick
    picked = body(dealer.get(f"/tables/{table.number}/", {"game": "razz"}, headers=HX))
    assert 'id="dealer-button"' in seat_card(picked, 2)  # the pick doesn't move it
    assert 'id="picks"' not in picked
    assert 'id="deal"' in picked
    dealt = deal(dealer, table, game="razz")
    assert dealt.status_code == 200
    assert Hand.objects.get(table=table, number=2).button_seat.number == 2


def test_a_stud_table_offers_robert_s_rules_misdeals_and_refuses_chinese_pokers(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="stud", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    dealer = dealer_client(users, table)
    shown = body(deal(dealer, table))
    assert reasons(shown) == [
        "two_exposed", "two_boxed", "extra_cards", "wrong_number", "out_of_sequence", "first_card_wrong",
        "empty_seat_dealt", "player_dealt_out", "different_back", "same_card_twice", "other",
    ]  # fmt: skip
    hand = Hand.objects.get(table=table)
    refused = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "wrong_count"}, headers=HX)
    assert refused.status_code == 400
    assert "(004 Chinese poker 7b) is not a misdeal of Seven card stud" in body(refused)
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT
    void = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "wrong_number"}, headers=HX)
    assert "A player dealt a wrong number of cards (Robert's Rules, misdeal 2e)" in body(void)
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason) == (HandStatus.VOID, "wrong_number")


@pytest.mark.parametrize(
    ("game", "stakes", "schedule", "offered"),
    [
        ("chinese-poker", "points-5", "CP2", ["exposed_five", "wrong_count", "boxed_cards", "foreign_card",
                                              "duplicate_card"]),
        ("lowball", "limit-4-8", "A", ["six_cards", "exposed_up", "two_boxed"]),
        ("taiwanese-poker", "points-5", "CP1", []),
    ],
)  # fmt: skip
def test_each_game_offers_its_misdeals_and_other(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    game: str,
    stakes: str,
    schedule: str,
    offered: list[str],
) -> None:
    table = make_table(game=game, stakes=stakes, schedule=schedule)
    buy_in_players(table, [1, 2, 3], 10_000)
    shown = body(deal(dealer_client(users, table), table))
    codes = reasons(shown)
    assert codes[: len(offered)] == offered
    assert codes[-1] == "other"
    if game == "taiwanese-poker":
        assert codes == ["other"]


def test_the_entry_is_kept_as_a_draft_and_a_reload_draws_it_back(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    """Nine cards tapped, then a reload: the entry as it was (it used to come back empty); the
    same after a refused read. Another tablet sees it too. The draft touches no reading or money."""
    table, _ = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    nine = {"board": "Ah Kd 7c 7s 2h", "cards_1": "As Ac", "cards_2": "Kc Qc", "active": "cards_3"}
    api = _api(users["dealer"])
    saved = put_draft(api, hand, nine, "draft-nine-1")
    assert saved.status_code == 200, saved.content
    assert saved.json()["field_count"] == 4
    reloaded = body(dealer.get(f"/tables/{table.number}/"))
    for name in ("board", "cards_1", "cards_2"):
        assert value_of(reloaded, name) == nine[name]
    assert value_of(reloaded, "active") == "cards_3"
    # Another tablet: the floor manager's.
    other = Client()
    other.force_login(users["floor"])
    assert value_of(body(other.get(f"/tables/{table.number}/")), "cards_2") == "Kc Qc"
    # A refused read (a card twice), the draft saved as the tablet does: a reload keeps it.
    twice = HOLDEM | {"cards_2": "Kc Ah"}
    refused = dealer.post(f"/hands/{hand.pk}/showdown/", twice, headers=HX)
    assert refused.status_code == 400
    api.put(
        f"/api/terminal/hands/{hand.pk}/draft/",
        {"entry": twice},
        format="json",
        HTTP_IDEMPOTENCY_KEY="draft-2x",
    )
    again = body(dealer.get(f"/tables/{table.number}/"))
    assert value_of(again, "cards_2") == "Kc Ah"
    assert value_of(again, "put_in_3") == "4"
    assert re.search(r'name="folded_3" id="folded_3" checked', again)
    # A seat the dealer put back in (its "Folded" unticked) is kept so: its live_ field is drawn
    # on, and the others off (a disabled field is not sent, so they can be read as folded).
    put_draft(api, hand, nine | {"live_3": "1"}, "draft-live-3")
    live = body(dealer.get(f"/tables/{table.number}/"))
    assert re.search(r'name="live_3" id="live_3" value="1">', live)
    assert re.search(r'name="live_1" id="live_1" value="1" disabled>', live)
    assert not HandResult.objects.filter(hand=hand).exists()
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT


def test_a_draft_changed_since_the_reading_is_read_again_before_it_can_be_confirmed(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    assert dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM, headers=HX).status_code == 200
    api = _api(users["dealer"])
    api.put(
        f"/api/terminal/hands/{hand.pk}/draft/",
        {"entry": HOLDEM},
        format="json",
        HTTP_IDEMPOTENCY_KEY="draft-same",
    )
    same = body(dealer.get(f"/tables/{table.number}/"))
    assert 'data-changed="1"' not in same  # the draft is what was read: confirm as it is
    changed = HOLDEM | {"cards_2": "Kc Kh"}
    api.put(
        f"/api/terminal/hands/{hand.pk}/draft/",
        {"entry": changed},
        format="json",
        HTTP_IDEMPOTENCY_KEY="draft-kh",
    )
    shown = body(dealer.get(f"/tables/{table.number}/"))
    assert value_of(shown, "cards_2") == "Kc Kh"
    assert 'data-changed="1"' in shown  # the script reads it again before "Confirm" works


def _api(user: Any) -> APIClient:
    """The terminal's script as the API sees it: the user's session (the page's)."""
    client = APIClient()
    client.force_login(user)
    return client


def test_the_draft_endpoint_is_idempotent_bounded_and_only_for_a_hand_in_progress(
    users: dict[str, Any], three_players: tuple[Table, list[Player]], on_duty: Callable[..., Any]
) -> None:
    table, _ = three_players
    on_duty(table)
    hand = hand_flow.start_hand(table=table, by=None).hand
    url = f"/api/terminal/hands/{hand.pk}/draft/"
    dealer = _api(users["dealer"])
    assert dealer.put(url, {"entry": {"board": "Ah"}}, format="json").status_code == 400  # no key
    first = put_draft(dealer, hand, {"board": "Ah"}, "draft-key-1")
    replay = put_draft(dealer, hand, {"board": "Ah"}, "draft-key-1")
    assert (first.status_code, replay.status_code) == (200, 200)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == first.json()
    assert ShowdownDraft.objects.get(hand=hand).entry == {"board": "Ah"}
    big = dealer.put(
        url, {"entry": {"cards_1": "x" * 201}}, format="json", HTTP_IDEMPOTENCY_KEY="draft-key-2"
    )
    assert big.status_code == 400
    many = {f"cards_{i}": "" for i in range(151)}
    assert (
        dealer.put(url, {"entry": many}, format="json", HTTP_IDEMPOTENCY_KEY="draft-key-3").status_code == 400
    )
    auditor = _api(users["auditor"])
    assert (
        auditor.put(url, {"entry": {}}, format="json", HTTP_IDEMPOTENCY_KEY="draft-key-4").status_code == 403
    )
    hand_flow.misdeal(hand=hand, reason_code="two_boxed", by=None)
    over = dealer.put(url, {"entry": {"board": "Kd"}}, format="json", HTTP_IDEMPOTENCY_KEY="draft-key-5")
    assert (over.status_code, over.json()["code"]) == (409, "hand_void")
    assert ShowdownDraft.objects.get(hand=hand).entry == {"board": "Ah"}


def test_a_10_kb_sweep_declaration_is_a_form_error_not_a_server_error(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    """It answered 500 on PostgreSQL (the declaration was recorded into a 30-character column
    before the engine refused it): the page refuses what the screen never sends, the field marked,
    nothing written."""
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    dealer.raise_request_exception = False
    huge = "dragon" + "x" * 10_000
    count = JournalTransaction.objects.count()
    read = dealer.post(f"/hands/{hand.pk}/showdown/", CHINESE | {"declare_2": huge}, headers=HX)
    assert read.status_code == 400
    shown = body(read)
    assert "declare 2: longer than any entry (200 characters at most)" in shown
    assert re.search(r'<select id="declare_2"[^>]*aria-invalid="true"', shown)
    assert len(read.content) < 200_000
    unknown = dealer.post(f"/hands/{hand.pk}/showdown/", CHINESE | {"declare_2": "dragonfly"}, headers=HX)
    assert unknown.status_code == 400
    assert "Seat 2: 'dragonfly' is not a clean sweep the rules know" in body(unknown)
    sweep = dealer.post(
        f"/hands/{hand.pk}/sweep/", CHINESE | {"sweep_seat": "2", "declare_2": huge}, headers=HX
    )
    assert sweep.status_code == 400
    # The terminals' API the same way (it answered 500 too): a 400 naming the field.
    players = [
        {"seat": seat} | {row: CHINESE[f"{row}_{seat}"].split() for row in ("front", "middle", "back")}
        for seat in (1, 2, 3, 4)
    ]
    players[1]["declare"] = huge
    api = _api(users["dealer"]).post(
        f"/api/terminal/hands/{hand.pk}/showdown/", {"players": players}, format="json",
        HTTP_IDEMPOTENCY_KEY="huge-sweep-1",
    )  # fmt: skip
    assert (api.status_code, api.json()["field"]) == (400, "players")
    assert "is not a clean sweep the rules know" in api.json()["detail"]
    assert HandPlayer.objects.get(hand=hand, seat__number=2).sweep_declared == ""
    assert not HandResult.objects.filter(hand=hand).exists()
    assert JournalTransaction.objects.count() == count


def test_the_screen_speaks_a_card_rooms_words(
    users: dict[str, Any],
    three_players: tuple[Table, list[Player]],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    short = dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM | {"cards_2": "Kc"}, headers=HX)
    assert short.status_code == 400
    said = body(short)
    assert "Hold'em needs 2 cards" in said
    refusal = re.search(r'<p class="alert" id="refusal">([^<]*)</p>', said)
    assert refusal is not None
    assert "Hold'em needs 2 cards" in refusal.group(1)
    assert "holdem" not in refusal.group(1)
    read = body(dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM, headers=HX))
    assert "Hand 1: the result to check, then confirm and pay." in read
    assert "Result to check" in read
    # Chinese poker: points and what a point is worth.
    chinese = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(chinese, [1, 2, 3, 4], 10_000)
    cp = floor_client(users)  # the floor runs any table (the dealer is clocked in at the first)
    deal(cp, chinese)
    cp_hand = Hand.objects.get(table=chinese)
    shown = body(cp.post(f"/hands/{cp_hand.pk}/showdown/", CHINESE, headers=HX))
    assert "$5 a point" in shown
    assert "point(s)" not in shown
    assert re.search(r"; -?\d+ points?, net", shown)
    # Lowball: what was bet after the draw is part of the put-in, and the screen says so.
    lowball = make_table(game="lowball", stakes="limit-4-8", schedule="A")
    buy_in_players(lowball, [1, 2], 8_000)
    lb = floor_client(users)
    dealt = body(deal(lb, lowball))
    assert "of it, after the draw $" in dealt
    assert "is the part bet after the draw" in dealt


def test_taiwanese_points_are_said_in_words(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2, 3], 10_000)
    dealer = dealer_client(users, table)
    deal(dealer, table, boards="1")
    hand = Hand.objects.get(table=table)
    entry = {
        "board": "Ac Ad Kh 3s 2d",
        "top_1": "Qs", "middle_1": "As Kd", "bottom_1": "9c 9h 4s 5s",
        "top_2": "Jh", "middle_2": "7h 7d", "bottom_2": "Ks Kc 6h 8h",
        "top_3": "2c", "middle_3": "3c 4c", "bottom_3": "Th Jc Qc 5d",
    }  # fmt: skip
    shown = body(dealer.post(f"/hands/{hand.pk}/showdown/", entry, headers=HX))
    assert "point(s)" not in shown
    assert re.search(r"<td>\d+ points? \(", shown)
    assert "$5 a point" in shown


def _chinese_under(monkeypatch: pytest.MonkeyPatch, rule_set: str) -> GameRules:
    """Chinese poker as the house would play it under ``rule_set`` (its sweeps, none under the
    western rules): the rules the screen reads for the game, patched where they are looked up."""
    rules = replace(
        GAME_RULES["chinese-poker"], rule_set=rule_set, sweeps=tuple(RULE_SETS[rule_set].sweep_values)
    )
    monkeypatch.setitem(cast(dict[str, GameRules], GAME_RULES), "chinese-poker", rules)
    return rules


def test_chinese_poker_without_sweeps_is_still_drawn_as_chinese_poker(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The screen said Chinese poker from whether the rules declare sweeps: under a rule set
    without them (the western rules) the button was no longer the action button too."""
    rules = _chinese_under(monkeypatch, "western")
    assert not rules.declares_sweeps
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    screen = terminal_screen(table=table, user=users["dealer"])
    assert screen.is_chinese
    holdem = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    assert not terminal_screen(table=holdem, user=users["dealer"]).is_chinese


def test_the_sweeps_offered_are_the_rule_sets(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The screen offered every game's clean sweeps, not those of the rule set the game is
    played under: the eastern rules' differ from the house's."""
    rules = _chinese_under(monkeypatch, "eastern")
    assert sweep_choices(rules) != sweep_choices(
        replace(rules, sweeps=tuple(RULE_SETS["house"].sweep_values))
    )
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    screen = terminal_screen(table=table, user=users["dealer"])
    assert screen.in_progress
    assert list(screen.sweeps) == sweep_choices(rules)
    shown = body(dealer.get(f"/tables/{table.number}/", headers=HX))
    offered = re.findall(
        r'<option value="([a-z0-9-]*)"', shown.split('id="declare_2"')[1].split("</select>")[0]
    )
    assert offered == [value for value, _label in sweep_choices(rules)]
    assert hand.status == HandStatus.DEALT
    holdem = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    assert list(terminal_screen(table=holdem, user=users["dealer"]).sweeps) == sweep_choices(
        GAME_RULES["holdem"]
    )
