"""The dealer terminal as one screen (issue #15), through Django's test client.

The page's script (htmx) sends ``HX-Request: true`` and swaps the body it gets back in place:
these tests post as it does and read that body. Every write goes through the services; a refusal
comes back with its status, the entry as posted and the bad field marked, and changes nothing.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from benchmarks.bench_terminal import FEE_FIELD, HAND_FIELD, REVISION_FIELD, SEAT_FIELD
from benchmarks.bench_terminal import entry as bench_entry
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from poker.games import rules_for
from tables import services as floor
from tables.choices import HandStatus
from tables.models import Game, Hand, HandPlayer, HandResult, Player, Table
from web.terminal.entry import bad_fields
from web.terminal.showdown_input import entry_from_submitted, showdown_from_post
from web.terminal.views import PANEL_HEADER

HX = {"HX-Request": "true"}


def dealer_client(users: dict[str, Any], table: Table | None = None) -> Client:
    """The demo dealer's browser, clocked in at ``table`` when given."""
    client = Client()
    client.force_login(users["dealer"])
    if table is not None:
        floor.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    return client


def body(response: Any) -> str:
    """The response as text (HTML entities read: ``&#x27;`` is ``'``)."""
    return html.unescape(response.content.decode())


def fees_shown(shown: str) -> dict[str, str]:
    return dict(re.findall(r'name="(fee-\d+)" value="(\d+)"', shown))


def deal(client: Client, table: Table, **choice: Any) -> Any:
    """Tap "Deal" on the screen as it is drawn for ``choice`` (game, sit_out, boards)."""
    shown = body(client.get(f"/tables/{table.number}/", choice, headers=HX))
    return client.post(f"/tables/{table.number}/start/", fees_shown(shown) | choice, headers=HX)


def value_of(shown: str, name: str) -> str:
    """The value of the field ``name`` as drawn: an input's, or a text area's (a whole hand's)."""
    match = re.search(rf'name="{name}" value="([^"]*)"', shown) or re.search(
        rf'<textarea[^>]*\bname="{name}"[^>]*>([^<]*)</textarea>', shown
    )
    assert match is not None, name
    return match.group(1)


def marked(shown: str, name: str) -> bool:
    tag = re.search(rf'<(?:input|textarea)[^>]*\bname="{name}"[^>]*>', shown)
    assert tag is not None, name
    return 'aria-invalid="true"' in tag.group(0)


def seat_card(shown: str, seat: int) -> str:
    """The screen's card of ``seat``: from its ``data-seat`` to the next seat's."""
    start = shown.index(f'data-seat="{seat}"')
    end = shown.find('data-seat="', start + 1)
    return shown[start : end if end > 0 else len(shown)]


def chips(table: Table, *players: Player) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


@pytest.fixture
def ten_seats(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> tuple[Table, list[Player]]:
    """A full 10-seat $4-$8 half-kill hold'em table, everyone bought in for $80."""
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A", seat_count=10)
    players = []
    for seat in range(1, 11):
        player = make_player(f"P{seat}")
        hand_flow.buy_in(
            table=table, player=player, amount_cents=8_000, seat_number=seat, by=users["floor"],
            idempotency_key=f"ten-{table.number}-{seat}",
        )  # fmt: skip
        players.append(player)
    return table, players


@pytest.fixture
def three_players(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> tuple[Table, list[Player]]:
    """Three hold'em players at $4-$8 (no kill), $80 each."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = []
    for seat in (1, 2, 3):
        player = make_player(f"T{seat}")
        hand_flow.buy_in(
            table=table, player=player, amount_cents=8_000, seat_number=seat, by=users["floor"],
            idempotency_key=f"three-{table.number}-{seat}",
        )  # fmt: skip
        players.append(player)
    return table, players


def test_the_table_screen_shows_seats_button_fees_and_the_deal(
    users: dict[str, Any], ten_seats: tuple[Table, list[Player]]
) -> None:
    table, _ = ten_seats
    dealer = dealer_client(users, table)
    response = dealer.get(f"/tables/{table.number}/")
    shown = body(response)
    assert response.status_code == 200
    plan = hand_flow.preview_fees(table=table)
    # Every seat, its chips and its fee; the button once, on the seat the next hand's fees start at.
    for seat in range(1, 11):
        assert f'data-seat="{seat}"' in shown
    assert shown.count('id="dealer-button"') == 1
    assert 'id="dealer-button"' in seat_card(shown, plan.button)
    assert fees_shown(shown) == {f"fee-{d.seat}": str(d.fee_cents) for d in plan.dealt}
    total = sum(d.fee_cents for d in plan.dealt)
    assert f'Deal: fees <span id="total-fees">${total // 100}</span>' in shown
    assert "users" not in shown  # no stray context
    assert 'id="on-duty">dealer<' in shown


def test_htmx_gets_the_body_alone_and_the_page_gets_the_whole_page(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    page = dealer.get(f"/tables/{table.number}/")
    part = dealer.get(f"/tables/{table.number}/", headers=HX)
    assert "<html" in body(page)
    assert "htmx.min.js" in body(page)
    assert "<html" not in body(part)
    assert body(part).lstrip().startswith('<div id="terminal"')
    assert part[PANEL_HEADER] == "1"


def test_a_dealer_deals_only_once_clocked_in(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _players = three_players
    dealer = dealer_client(users)
    shown = body(dealer.get(f"/tables/{table.number}/"))
    assert 'id="clock-in"' in shown
    assert 'id="deal"' not in shown
    assert "Clock in at this table to deal." in shown
    # A deal posted anyway is refused (the service's 403), and nothing is taken.
    fees = fees_shown(shown)
    refused = dealer.post(f"/tables/{table.number}/start/", fees, headers=HX)
    assert refused.status_code == 403
    assert "Clock in at the table first" in body(refused)
    assert not Hand.objects.filter(table=table).exists()
    clocked = dealer.post(f"/tables/{table.number}/clock/", {"action": "in"}, headers=HX)
    assert clocked.status_code == 200
    assert "dealer is clocked in at table" in body(clocked)
    assert 'id="deal"' in body(clocked)
    dealt = dealer.post(f"/tables/{table.number}/start/", fees, headers=HX)
    assert dealt.status_code == 200
    assert Hand.objects.get(table=table).status == HandStatus.DEALT
    assert 'id="showdown-form"' in body(dealt)
    # Clocking out waits for the hand to end: the button isn't offered, and a post is refused.
    assert 'id="clock-out"' not in body(dealt)
    assert dealer.post(f"/tables/{table.number}/clock/", {"action": "out"}, headers=HX).status_code == 409


def test_the_floor_assigns_a_dealer(users: dict[str, Any], three_players: tuple[Table, list[Player]]) -> None:
    table, _ = three_players
    floor_manager = Client()
    floor_manager.force_login(users["floor"])
    shown = body(floor_manager.get(f"/tables/{table.number}/"))
    assert 'id="assign-dealer"' in shown
    assert 'id="deal"' in shown  # the floor runs any table
    assigned = floor_manager.post(
        f"/tables/{table.number}/clock/", {"action": "assign", "dealer": str(users["dealer"].pk)}, headers=HX
    )
    assert assigned.status_code == 200
    assert floor.dealer_on_duty(table).dealer == users["dealer"]  # type: ignore[union-attr]
    clock = f"/tables/{table.number}/clock/"
    nobody = floor_manager.post(clock, {"action": "assign", "dealer": "x"}, headers=HX)
    assert nobody.status_code == 400
    assert "Pick the dealer" in body(nobody)


def test_the_deal_takes_the_fees_shown_or_nothing(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    shown = body(dealer.get(f"/tables/{table.number}/", headers=HX))
    fees = fees_shown(shown)
    wrong = {name: str(int(value) + 100) for name, value in fees.items()}
    count = JournalTransaction.objects.count()
    refused = dealer.post(f"/tables/{table.number}/start/", wrong, headers=HX)
    assert refused.status_code == 409
    assert "The fees changed since they were shown" in body(refused)
    assert fees_shown(body(refused)) == fees  # the fees due now, shown to confirm
    assert JournalTransaction.objects.count() == count
    assert not Hand.objects.filter(table=table).exists()


def test_dealers_choice_game_and_a_seat_sitting_out(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3, 4], 8_000)
    dealer = dealer_client(users, table)
    first = body(dealer.get(f"/tables/{table.number}/"))
    assert 'id="game"' in first
    assert "Dealer's choice: seat 1 (the button) picks" in first
    assert 'id="deal"' not in first
    picked = body(dealer.get(f"/tables/{table.number}/", {"game": "lowball", "sit_out": ["2"]}, headers=HX))
    assert "dealt without the joker (004 lowball rule 1)" in picked
    assert re.search(r'name="sit_out" value="2" checked', picked)
    assert "fee-2" not in fees_shown(picked)
    assert 'value="lowball" selected' in picked
    unknown = body(dealer.get(f"/tables/{table.number}/", {"game": "snap"}, headers=HX))
    assert "There is no game 'snap'" in unknown
    odd = dealer.post(
        f"/tables/{table.number}/start/", {"game": "lowball", "sit_out": "two", "boards": "9"}, headers=HX
    )
    assert odd.status_code == 400
    assert "A seat to sit out is a seat number. Taiwanese poker is dealt with 1 to 3 boards." in body(odd)
    assert not Hand.objects.filter(table=table).exists()
    dealt = deal(dealer, table, game="lowball", sit_out=["2"])
    assert dealt.status_code == 200, body(dealt)
    hand = Hand.objects.get(table=table)
    assert hand.game.slug == "lowball"
    assert not hand.joker
    assert 2 not in set(hand.players.values_list("seat__number", flat=True))
    assert 'data-joker="1"' not in body(dealt)


def test_the_kill_state_is_on_the_screen(
    users: dict[str, Any], ten_seats: tuple[Table, list[Player]], settle_hand: Callable[..., Hand]
) -> None:
    table, _ = ten_seats
    # One player wins two pots in a row outright: the next hand is a half kill (RULINGS §2).
    for _ in range(2):
        hand = hand_flow.start_hand(table=table, by=None).hand
        settle_hand(hand, winners=(3,))
    dealer = dealer_client(users, table)
    shown = body(dealer.get(f"/tables/{table.number}/"))
    plan = hand_flow.preview_fees(table=table)
    assert plan.kill_seat == 3
    assert (
        f"Next hand is a KILL HAND: seat 3 kills, blind ${plan.kill_blind_cents // 100}, limits $6-$12 (150%)"  # type: ignore[operator]
        in shown
    )
    dealt = body(deal(dealer, table))
    assert "KILL HAND: seat 3 kills" in dealt
    # The kill seat's put-in starts at its kill blind: what the flow knows.
    assert value_of(dealt, "put_in_3") == str(plan.kill_blind_cents // 100)  # type: ignore[operator]


HOLDEM = {
    "board": "Ah Kd 7c 7s 2h",
    "cards_1": "As Ac", "put_in_1": "8",
    "cards_2": "Kc Qc", "put_in_2": "8",
    "put_in_3": "4", "folded_3": "on",
}  # fmt: skip


def test_a_refusal_keeps_the_entry_and_marks_the_bad_field(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    count = JournalTransaction.objects.count()
    # A card twice: seat 2 holds the ace of hearts that is on the board.
    twice = HOLDEM | {"cards_2": "Kc Ah", "active": "cards_2"}
    refused = dealer.post(f"/hands/{hand.pk}/showdown/", twice, headers=HX)
    shown = body(refused)
    assert refused.status_code == 400
    assert "Ah" in shown[shown.index('id="refusal"') :][:300]
    for name, value in twice.items():
        if name.startswith(("folded", "active")):
            continue
        assert value_of(shown, name) == value, name
    assert re.search(r'name="folded_3" id="folded_3" checked', shown)
    assert marked(shown, "cards_2")
    assert marked(shown, "board")
    assert not marked(shown, "cards_1")
    assert value_of(shown, "active") == "cards_2"
    # An amount that isn't whole chips of the table ($1 here): the put-in is marked.
    odd = dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM | {"put_in_2": "7.50"}, headers=HX)
    assert odd.status_code == 400
    assert "not a whole number of the table's $1 chips" in body(odd)
    assert marked(body(odd), "put_in_2")
    assert not marked(body(odd), "cards_2")
    typo = dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM | {"put_in_1": "lots"}, headers=HX)
    assert typo.status_code == 400
    assert marked(body(typo), "put_in_1")
    assert not HandResult.objects.filter(hand=hand).exists()
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT
    assert JournalTransaction.objects.count() == count


def test_a_reading_keeps_the_entry_so_one_card_can_be_corrected(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, players = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    read = dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM, headers=HX)
    shown = body(read)
    assert read.status_code == 200
    assert value_of(shown, "cards_2") == "Kc Qc"
    assert "Result to check" in shown
    assert "reading r" not in shown.lower()
    assert "Main pot $20" in shown
    assert "to seat 1 (T1): Full house, aces full of sevens" in shown
    assert 'name="revision" value="1"' in shown
    # Seat 2 actually showed the king of hearts: one card changed, the hand read again.
    again = body(dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM | {"cards_2": "Kc Kh"}, headers=HX))
    assert "Result to check" in again
    assert 'name="revision" value="2"' in again
    assert value_of(again, "cards_1") == "As Ac"
    # The first reading can't be confirmed any more; the one shown can, once.
    stale = dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "1"}, headers=HX)
    assert stale.status_code == 409
    before = chips(table, *players)
    settled = dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "2"}, headers=HX)
    assert settled.status_code == 200
    after = chips(table, *players)
    assert [a - b for a, b in zip(after, before, strict=True)] == [1_200, -800, -400]
    shown = body(settled)
    assert 'id="hand-status">settled<' in shown
    assert "Seat 1 +$12 · Seat 2 -$8 · Seat 3 -$4" in shown
    assert '<span class="chips">$91</span>' in shown  # seat 1's chips now, before the next fee
    assert 'id="deal"' in shown  # the next hand, one tap away
    count = JournalTransaction.objects.count()
    twice = dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "2"}, headers=HX)
    assert "already settled; nothing was posted again" in body(twice)
    assert JournalTransaction.objects.count() == count


def test_a_reload_after_the_reading_draws_the_entry_back(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM)  # a plain post (no script): redirected
    shown = body(dealer.get(f"/tables/{table.number}/"))
    assert value_of(shown, "board") == "Ah Kd 7c 7s 2h"
    assert value_of(shown, "cards_1") == "As Ac"
    assert value_of(shown, "put_in_3") == "4"
    assert re.search(r'name="folded_3" id="folded_3" checked', shown)


def test_won_without_a_showdown_needs_no_cards(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, players = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    entry = {"board": "Ah Kd 7c", "put_in_1": "4", "folded_1": "on", "put_in_2": "8", "put_in_3": "4",
             "folded_3": "on"}  # fmt: skip
    shown = body(dealer.post(f"/hands/{hand.pk}/showdown/", entry, headers=HX))
    assert "the pot to seat 2 (T2): everyone else folded, no showdown" in shown
    before = chips(table, *players)
    dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "1"}, headers=HX)
    after = chips(table, *players)
    assert [a - b for a, b in zip(after, before, strict=True)] == [-400, 800, -400]


CHINESE = {
    "front_1": "Jc Jd Js", "middle_1": "Ad As Ac 9c 7c", "back_1": "6h 5h 4h 3h 2h",
    "front_2": "2c 3d 4c", "middle_2": "5s 6c 7d 8h 9s", "back_2": "Tc Jh Qs Kc Ah",
    "front_3": "2d 3s 4d", "middle_3": "5d 6d 7s 8s 9d", "back_3": "Td Kd Qd Ks Kh",
    "front_4": "2s 3c 4s", "middle_4": "5c 6s 7h 8c 9h", "back_4": "Th Ts Qh Qc 8d",
}  # fmt: skip


def test_a_hi_lo_pot_without_a_qualifying_low_and_chips_given_back(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    """The reading says why a hi-lo pot went whole to the high hand (no low can qualify on this
    board), and names the player the uncalled chips go back to."""
    table = make_table(game="omaha-hi-lo", stakes="limit-6-12", schedule="C")
    players = buy_in_players(table, [1, 2], 20_000)
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    entry = {"board": "Ks Qd Jh 9c 9d", "cards_1": "Ac Kd 2s 3s", "put_in_1": "8",
             "cards_2": "Qh Qc 4d 5d", "put_in_2": "12"}  # fmt: skip
    read = dealer.post(f"/hands/{hand.pk}/showdown/", entry, headers=HX)
    shown = body(read)
    assert read.status_code == 200, shown
    assert "the pot to seat 2 (" in shown
    assert "no qualifying low: the high hand takes the whole pot" in shown
    assert f"uncalled chips back to seat 2 ({players[1].name}): <strong>$4</strong>" in shown
    assert f"seat 1 ({players[0].name}) puts in" in shown  # every seat said one way


def test_chinese_poker_sweeps_declared_before_the_showdown(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    # Seat 2 declares a dragon before the showdown: recorded now, its 13 cards in one field.
    declared = dealer.post(
        f"/hands/{hand.pk}/sweep/", CHINESE | {"sweep_seat": "2", "declare_2": "dragon"}, headers=HX
    )
    shown = body(declared)
    assert declared.status_code == 200, shown
    assert HandPlayer.objects.get(hand=hand, seat__number=2).sweep_declared == "dragon"
    assert value_of(shown, "cards_2") == "2c 3d 4c 5s 6c 7d 8h 9s Tc Jh Qs Kc Ah"
    assert 'name="front_2"' not in shown
    assert value_of(shown, "middle_1") == "Ad As Ac 9c 7c"  # the rest as entered
    assert 'id="declared_2">Declared dragon' in shown
    # Seat 3 declares three flushes its cards don't hold: the reading says so; seat 4 surrenders.
    entry = {k: v for k, v in CHINESE.items() if not k.endswith("_2")} | {
        "cards_2": value_of(shown, "cards_2"), "declare_2": "dragon", "surrender_4": "on",
    }  # fmt: skip
    sweep = f"/hands/{hand.pk}/sweep/"
    dealer.post(sweep, entry | {"sweep_seat": "3", "declare_3": "three-flushes"}, headers=HX)
    entry = {k: v for k, v in entry.items() if not k.endswith("_3")} | {
        "cards_3": " ".join(CHINESE[f"{row}_3"] for row in ("front", "middle", "back")),
        "declare_3": "three-flushes",
    }
    read = dealer.post(f"/hands/{hand.pk}/showdown/", entry, headers=HX)
    shown = body(read)
    assert read.status_code == 200, shown
    assert "Seat 2 (" in shown
    assert "clean sweep: dragon (declared dragon, verified)" in shown
    assert "false declaration (three-flushes): declared three-flushes, which the 13 cards do not" in shown
    assert "Seat 4 (" in shown
    assert ": surrendered;" in shown
    assert "(sweep)" in shown  # the pairs a sweep decides
    # A declaration stands: declaring another is refused, the entry kept.
    again = dealer.post(sweep, entry | {"sweep_seat": "2", "declare_2": "six-pairs"}, headers=HX)
    assert again.status_code == 400
    refusal = body(again)
    assert "Seat 2 already declared dragon; a declaration stands." in refusal
    assert value_of(refusal, "cards_3") == entry["cards_3"]
    assert HandPlayer.objects.get(hand=hand, seat__number=2).sweep_declared == "dragon"


def test_taiwanese_poker_two_boards_read_by_board_and_position(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    players = [make_player(n) for n in ("Tai", "Wan", "Ese")]
    for seat, player in enumerate(players, 1):
        hand_flow.buy_in(table=table, player=player, amount_cents=10_000, seat_number=seat, by=None,
                         idempotency_key=f"tw2-{seat}")  # fmt: skip
    dealer = dealer_client(users, table)
    assert 'id="boards"' in body(dealer.get(f"/tables/{table.number}/"))
    dealt = body(deal(dealer, table, boards="2"))
    hand = Hand.objects.get(table=table)
    assert hand.boards == 2
    assert 'name="board_2"' in dealt
    assert 'name="board_3"' not in dealt
    entry = {
        "board": "Ac Ad Kh 3s 2d", "board_2": "5c 6c 7c 8d 9d",
        "top_1": "Qs", "middle_1": "As Kd", "bottom_1": "9c 9h 4s 5s",
        "top_2": "Jh", "middle_2": "7h 7d", "bottom_2": "Ks Kc 6h 8h",
        "top_3": "2c", "middle_3": "3c 4c", "bottom_3": "Th Jc Qc 5d",
    }  # fmt: skip
    shown = body(dealer.post(f"/hands/{hand.pk}/showdown/", entry, headers=HX))
    assert "board 2 middle" in shown
    assert "seat 3 (Ese) wins: Straight flush, seven high" in shown
    # Each hand with its five cards, board by board (the hand history's words).
    assert (
        "Seat 1 (Tai): board 1: top Pair of aces (Ac Ad Kh Qs 3s) / "
        "middle Full house, aces full of kings (Ac Ad As Kd Kh) / "
        "bottom Straight, five high (5s 4s 3s 2d Ac); board 2: top Straight, nine high (9d 8d 7c 6c 5c)"
    ) in shown
    assert "tie: seat 1 (Tai), seat 2 (Wan), seat 3 (Ese)" in shown
    # One board short of the two agreed: refused, the entry kept.
    short = dealer.post(f"/hands/{hand.pk}/showdown/", entry | {"board_2": ""}, headers=HX)
    assert short.status_code == 400
    assert value_of(body(short), "top_3") == "2c"


def test_a_misdeal_is_one_reason_tap(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, players = three_players
    dealer = dealer_client(users, table)
    deal(dealer, table)
    hand = Hand.objects.get(table=table)
    shown = body(dealer.get(f"/tables/{table.number}/"))
    # Hold'em's misdeals (Robert's Rules), not Chinese poker's or lowball's (004).
    assert 'id="misdeal-first_cards_exposed"' in shown
    assert 'id="misdeal-button_misplaced"' in shown
    assert 'id="misdeal-six_cards"' not in shown
    assert 'id="misdeal-wrong_count"' not in shown
    lowball = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "exposed_up"}, headers=HX)
    assert lowball.status_code == 400
    assert "is not a misdeal of Texas Hold'em" in body(lowball)
    other = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "other", "reason": ""}, headers=HX)
    assert other.status_code == 400
    assert "the reason is 'other'" in body(other)
    nothing = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason": "x"}, headers=HX)
    assert nothing.status_code == 400
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT
    void = dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "two_exposed"}, headers=HX)
    assert void.status_code == 200
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason) == (HandStatus.VOID, "two_exposed")
    assert "(fees returned)" in body(void)
    assert chips(table, *players) == [8_000, 8_000, 8_000]


def test_an_auditor_sees_the_screen_and_can_change_nothing(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    auditor = Client()
    auditor.force_login(users["auditor"])
    shown = body(auditor.get(f"/tables/{table.number}/"))
    assert 'id="deal"' not in shown
    assert 'id="clock-in"' not in shown
    assert 'name="sit_out"' not in shown
    for url in (f"/tables/{table.number}/start/", f"/tables/{table.number}/clock/"):
        assert auditor.post(url, {"action": "in"}, headers=HX).status_code == 403
    assert not Hand.objects.filter(table=table).exists()


def test_showdown_fields_round_trip_and_bad_fields() -> None:
    entry = {"board": "Ah Kd 7c 7s 2h", "cards_1": "As Ac", "put_in_1": "8", "cards_2": "Kc Qc",
             "put_in_2": "8.50", "folded_3": "on", "put_in_3": "4"}  # fmt: skip
    submitted = showdown_from_post(rules=rules_for("holdem"), seats=[1, 2, 3], data=entry)
    back = entry_from_submitted(rules=rules_for("holdem"), submitted=submitted)
    assert back == entry | {"cards_3": ""}
    taiwanese = showdown_from_post(
        rules=rules_for("taiwanese-poker"),
        seats=[1],
        data={"board": "Ac Ad Kh 3s 2d", "top_1": "Qs"},
        boards=3,
    )
    assert taiwanese["boards"] == [["Ac", "Ad", "Kh", "3s", "2d"], [], []]
    assert bad_fields("card Ah is held by seat 2 and the board (misdeal)", entry | {"cards_2": "Ah Kc"}) == {
        "cards_2",
        "board",
    }
    assert bad_fields("seat 2 put in $8.50, not a whole number of the table's $1 chips.", entry) == {
        "put_in_2"
    }
    assert bad_fields("seat 1: needs 2 cards, got 3", entry) == {"cards_1"}
    assert bad_fields("holdem needs 5 board cards", entry) == {"board"}
    assert bad_fields("anything", entry, "put_in_3") == {"put_in_3"}


def test_unknown_game_for_a_table_that_isnt_dealers_choice_is_refused(
    users: dict[str, Any], three_players: tuple[Table, list[Player]]
) -> None:
    table, _ = three_players
    dealer = dealer_client(users, table)
    Game.objects.get(slug="omaha")  # an approved game, just not this table's
    refused = deal(dealer, table, game="omaha")
    assert refused.status_code == 400
    assert "deals Texas Hold'em, not" in body(refused)
    assert not Hand.objects.filter(table=table).exists()


def test_the_benchmark_plays_hands_as_the_screen_does(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    """``benchmarks/bench_terminal.py`` sends what the screen sends and reads what it answers: its
    deal, entry and confirmation (for hold'em and Chinese poker) settle hands here too."""
    rng = random.Random(7)
    for game, stakes, schedule, seats in (
        ("holdem", "nl-100-nomax", "A", [1, 2, 3, 4, 5, 6]),
        ("chinese-poker", "points-1", "CP2", [1, 2, 3, 4]),
    ):
        table = make_table(game=game, stakes=stakes, schedule=schedule)
        buy_in_players(table, seats, 1_000_000)
        dealer = dealer_client(users, table)  # clocking in here ends the down at the last table
        for _ in range(3):
            screen = body(dealer.get(f"/tables/{table.number}/", headers=HX))
            dealt = body(
                dealer.post(f"/tables/{table.number}/start/", dict(FEE_FIELD.findall(screen)), headers=HX)
            )
            hand = HAND_FIELD.search(dealt)
            assert hand is not None
            found = [int(s) for s in SEAT_FIELD.findall(dealt)]
            assert sorted(found) == seats
            read = dealer.post(f"/hands/{hand.group(1)}/showdown/", bench_entry(game, found, rng), headers=HX)
            assert read.status_code == 200, body(read)
            revision = REVISION_FIELD.search(body(read))
            assert revision is not None
            confirmed = dealer.post(
                f"/hands/{hand.group(1)}/confirm/", {"revision": revision.group(1)}, headers=HX
            )
            assert confirmed.status_code == 200
            assert confirmed[PANEL_HEADER] == "1"
        assert Hand.objects.filter(table=table, status=HandStatus.SETTLED).count() == 3


def test_chinese_poker_fifth_player_sits_out_the_round(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4, 5], 10_000)
    dealer = dealer_client(users, table)
    shown = body(dealer.get(f"/tables/{table.number}/"))
    plan = hand_flow.preview_fees(table=table)
    (out,) = [o.seat for o in plan.left_out if o.reason == "rotates_out"]
    assert 'id="sitting-out">Sits out this round' in seat_card(shown, out)
    assert "Dealer and action button" in seat_card(shown, plan.button)
    assert shown.count("Dealer and action button") == 1
    assert "fee-" + str(out) not in fees_shown(shown)
    deal(dealer, table)
    assert out not in set(Hand.objects.get(table=table).players.values_list("seat__number", flat=True))
