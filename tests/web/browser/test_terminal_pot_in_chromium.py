"""No pot paid to nobody (issue #32), at the dealer terminal in Chromium (1280x800): the put-ins
the pad sets stay in the pot when the hand is won without a showdown, and a key after a tap on a
seat's put-in enters that seat's own amount, never adding to the amount the pad set for each live
player. The engine's side of the rule (a folded seat's chips never go back to it; a pot that
would pay nobody is refused): tests/poker/test_no_pot_to_nobody.py.

Tap counts are ceilings (``Dealer.done``); ``pytest -s`` prints them.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.verification import verify_ledger
from tables.choices import HandStatus
from tables.models import Hand, Player, Table
from tests.web.browser.browser import BROWSER_MARKS, Dealer, accessible, chips

pytestmark = BROWSER_MARKS


def deal(dealer: Dealer) -> Hand:
    dealer.start()
    dealer.tap("#deal")
    assert dealer.page.inner_text("#hand-status") == "dealt"
    return Hand.objects.get(status=HandStatus.DEALT)


def entry_order(dealer: Dealer) -> list[int]:
    """The seats of the showdown entry as the screen lists them (the order their cards are tapped)."""
    seats = dealer.page.eval_on_selector_all("#seats [data-seat]", "els => els.map(e => +e.dataset.seat)")
    return [int(n) for n in seats]


def moved_by_seat(table: Table, players: list[Player], before: list[int], hand: Hand) -> dict[int, int]:
    """Each seat's chips moved by the hand, its fee put back (what the pot alone moved)."""
    after = chips(table, *players)
    seats = [p.seatings.get(left_at=None).seat.number for p in players]
    fees = {hp.seat.number: hp.fee_cents or 0 for hp in hand.players.all()}
    return {n: a - b + fees[n] for n, a, b in zip(seats, after, before, strict=True)}


def test_won_without_a_showdown_keeps_the_folded_seats_put_ins(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """The issue's hold'em hand: each live player put in $4 + $8 + $8, then seat 3 won without a
    showdown. The other seats folded: their $20 each stays in the pot, which goes to seat 3 (before:
    their put-ins were emptied, and the reading gave seat 3 its own $20 back as uncalled chips, the
    pot paying nothing)."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 3: 8_000, 6: 8_000})
    dealer = dealer_at(table)
    before = chips(table, *players)
    hand = deal(dealer)
    page = dealer.page
    for cents in ("400", "800", "800"):
        dealer.tap(f"#put-in-pad button[data-add='{cents}']")
    assert page.input_value("#called") == "20"
    dealer.tap("#won_3")
    assert [page.input_value(f"#put_in_{n}") for n in (1, 3, 6)] == ["20", "20", "20"]
    assert page.is_checked("#folded_1")
    assert page.is_checked("#folded_6")
    assert not page.is_checked("#folded_3")
    page.wait_for_selector("#confirm:enabled")
    reading = page.inner_text("#reading-panel")
    assert "the pot to seat 3 (C3): everyone else folded, no showdown" in reading, reading
    assert "uncalled" not in reading, reading
    assert "Main pot $60" in reading, reading
    accessible(page)
    dealer.tap("#confirm")
    assert page.inner_text("#hand-status") == "settled"
    dealer.done("hold'em, won without a showdown", taps=6)
    assert moved_by_seat(table, players, before, Hand.objects.get(pk=hand.pk)) == {
        1: -2_000,
        3: 4_000,
        6: -2_000,
    }
    assert verify_ledger().ok


def test_a_key_after_a_tap_on_a_seats_put_in_enters_that_seats_own_amount(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """The issue's lowball hand: each live player put in $8 + $8; seat 2 put in $4 and folded. The
    dealer taps seat 2's put-in (showing the $16 the pad set for each live player) and +$4: seat 2
    put in $4 (before: the key added to the $16, $20, and the reading gave the folded seat $4 back
    as uncalled chips). A second key adds to the seat's own amount."""
    table = make_table(game="lowball", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    before = chips(table, *players)
    hand = deal(dealer)
    page = dealer.page
    dealer.tap("#put-in-pad button[data-add='800']")
    dealer.tap("#put-in-pad button[data-add='800']")
    assert [page.input_value(f"#put_in_{n}") for n in (1, 2, 3)] == ["16", "16", "16"]
    dealer.tap("#put_in_2")
    assert page.inner_text("#pad-target") == "Keys add to: Seat 2, put in"
    dealer.tap("#put-in-pad button[data-add='400']")
    assert page.input_value("#put_in_2") == "4"  # the seat's own amount, not $16 + $4
    assert [page.input_value(f"#put_in_{n}") for n in (1, 3)] == ["16", "16"]  # the others as they were
    dealer.tap("#put-in-pad button[data-add='100']")
    assert page.input_value("#put_in_2") == "5"  # the next key adds to the seat's own amount
    dealer.tap("#clear-amount")
    dealer.tap("#put-in-pad button[data-add='400']")
    assert page.input_value("#put_in_2") == "4"
    dealer.tap("label:has(#folded_2)")
    assert page.input_value("#put_in_2") == "4"  # a fold keeps what the seat put in
    hands = {1: ("7c", "5d", "4h", "3s", "2c"), 3: ("8c", "6d", "4s", "3h", "2d")}
    for number in entry_order(dealer):
        if number in hands:
            dealer.cards(*hands[number])
    page.wait_for_selector("#confirm:enabled")
    reading = page.inner_text("#reading-panel")
    assert "uncalled" not in reading, reading
    assert "Main pot $36" in reading, reading
    assert "the pot to seat 1 (A1): low 7-5-4-3-2" in reading, reading
    dealer.tap("#confirm")
    assert page.inner_text("#hand-status") == "settled"
    dealer.done("lowball, a folded seat's own put-in", taps=20)
    assert moved_by_seat(table, players, before, Hand.objects.get(pk=hand.pk)) == {
        1: 2_000,
        2: -400,
        3: -1_600,
    }
    assert verify_ledger().ok
