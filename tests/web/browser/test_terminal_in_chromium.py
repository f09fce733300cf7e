"""The dealer terminal as a dealer uses it (issue #15): Chromium at a table tablet's size
(1280x800), every game's hand from the deal to the confirmed result on one screen.

Each test counts the dealer's taps (clicks on controls; a "sure?" dialog's OK is a tap) and
keystrokes (characters typed) from the deal to the confirmed result, asserts a ceiling, asserts
that no page was loaded in between (the main frame never navigates: htmx swaps the screen in
place), and prints the counts (``pytest -s``). The figures before each change are in
docs/pages.md (a Chinese poker round took 54 taps before the last row filled itself; the issue
of the one-screen terminal: a 3-player hold'em hand took 9 taps, 36 keystrokes and 4 page loads).
With ``SCREENSHOTS_DIR`` set the screens are saved there (``docs/screenshots/``). More of the
screen (a short all-in, kill keys, reloads, a dropped connection, long names):
``test_terminal_screen_in_chromium.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Sum

from ledger.models import JournalTransaction
from ledger.verification import verify_ledger
from tables.choices import HandStatus
from tables.models import Hand, HandPlayer, HandResult, Player, Table
from tests.web.browser.browser import BROWSER_MARKS, Dealer, accessible, chips, snapshot

pytestmark = BROWSER_MARKS

TABLET = (1280, 800)
PORTRAIT = (800, 1280)
FITS = "() => document.scrollingElement.scrollHeight <= window.innerHeight"
ACROSS = "() => document.scrollingElement.scrollWidth <= window.innerWidth"
#: A field shows all it holds: nothing scrolled out of sight across or down.
WHOLE = "el => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight"
SIZES = "el => [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight]"
IN_VIEW = """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth; }"""


def deal(dealer: Dealer) -> None:
    """Tap "Deal: fees $N": counting starts with this tap."""
    dealer.start()
    dealer.tap("#deal")
    assert dealer.page.inner_text("#hand-status") == "dealt"


def entry_order(dealer: Dealer) -> list[int]:
    """The seats of the showdown entry as the screen lists them, the order their cards are tapped:
    a pot game's from the button's left, the button last; Chinese and Taiwanese poker's from the
    button (the action button)."""
    seats = dealer.page.eval_on_selector_all("#seats [data-seat]", "els => els.map(e => +e.dataset.seat)")
    return [int(n) for n in seats]


def read_and_confirm(dealer: Dealer) -> None:
    """The entry is complete: the reading is on the screen (read as the last card was tapped),
    with "Confirm and pay" on it; one tap settles the hand."""
    dealer.page.wait_for_selector("#confirm:enabled")
    dealer.tap("#confirm")
    assert dealer.page.inner_text("#hand-status") == "settled"


def test_a_ten_seat_table_fits_one_screen(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A", seat_count=10)
    seat(table, {n: 8_000 for n in range(1, 11)})
    for viewport in (TABLET, PORTRAIT):
        dealer = dealer_at(table, viewport)
        page = dealer.page
        assert page.evaluate(FITS), (viewport, page.evaluate("document.scrollingElement.scrollHeight"))
        assert page.evaluate(ACROSS), (viewport, page.evaluate("document.scrollingElement.scrollWidth"))
        assert page.evaluate(IN_VIEW, "#deal")
        assert page.locator(".seat").count() == 10
        assert page.locator("#dealer-button").count() == 1
        accessible(page)
        name = "terminal-before-the-deal" if viewport == TABLET else "terminal-portrait"
        snapshot(page, name, full_page=False)


def test_three_player_holdem_by_taps(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """The issue's measure: 3 players at $4-$8, two show down, one folded; no typing at all."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    deal(dealer)
    hand = Hand.objects.get(table=table)
    first, second, third = (p.seat.number for p in hand.players.order_by("position"))
    assert entry_order(dealer) == [second, third, first]  # from the button's left, the button last
    before = chips(table, *players)
    dealer.cards("Ah", "Kd", "7c", "7s", "2h")  # the board, then each seat in turn
    dealer.cards("Kc", "Qc")
    dealer.tap(f"label:has(#folded_{third})")
    dealer.cards("As", "Ac")
    dealer.tap("#put-in-pad button[data-add='800']")  # each live player put in the big bet
    read_and_confirm(dealer)
    dealer.done("3-player hold'em", taps=1 + 12)  # the tap on "Deal", then at most 12
    after = chips(table, *players)
    moved = {p.pk: a - b for p, a, b in zip(players, after, before, strict=True)}
    by_seat = {p.seatings.get(left_at=None).seat.number: moved[p.pk] for p in players}
    assert by_seat == {first: 800, second: -800, third: 0}
    assert verify_ledger().ok


NINE = {1: 10_000, 2: 2_000, 3: 10_000, 4: 10_000, 5: 5_000, 6: 10_000, 7: 10_000, 8: 10_000, 9: 10_000}


def test_nine_handed_holdem_with_two_side_pots(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A", seat_count=9)
    players = seat(table, NINE)
    dealer = dealer_at(table)
    deal(dealer)
    assert dealer.page.evaluate(IN_VIEW, "#read-showdown")
    dealer.cards("Ah", "Kd", "7c", "7s", "2h")
    hole = {1: ("9c", "8c"), 2: ("Qc", "Jd"), 3: ("Tc", "3d"), 5: ("Qd", "Jc"), 9: ("6h", "6d")}
    folded = {4, 6, 7, 8}
    for number in entry_order(dealer):
        if number in folded:
            dealer.tap(f"label:has(#folded_{number})")
        else:
            dealer.cards(*hole[number])
    # Each live player put in $80 (seats 2 and 5 all in for less); seat 6 put in $10, then folded.
    for _ in range(3):
        dealer.tap("#put-in-pad button[data-add='2500']")
    dealer.tap("#put-in-pad button[data-add='500']")
    dealer.tap("#put_in_6")
    dealer.tap("#put-in-pad button[data-add='500']")
    snapshot(dealer.page, "terminal-showdown-entry", full_page=False)
    dealer.tap("#put-in-pad button[data-add='500']")
    dealer.page.wait_for_selector("#confirm:enabled")
    page = dealer.page
    assert page.evaluate(IN_VIEW, "#confirm")  # no scrolling to confirm
    accessible(page)
    snapshot(page, "terminal-reading-to-confirm", full_page=False)
    reading = page.inner_text("#reading-panel")
    assert "Side pot 1" in reading
    assert "Side pot 2" in reading
    assert "Seat 5: Pair of sevens (7c 7s Ah Kd Qd)" in page.inner_text("#readings")
    read_and_confirm(dealer)
    dealer.done("9-handed hold'em, two side pots", taps=30)
    assert verify_ledger().ok
    fees = Hand.objects.get(table=table).players.aggregate(fees=Sum("fee_cents"))["fees"]
    assert sum(chips(table, *players)) == sum(NINE.values()) - fees


def tap_set_hands(dealer: Dealer, hands: dict[int, str], order: list[int]) -> None:
    """Each seat's cards in the screen's order (the button first): front (top), middle, back
    (bottom) follow each other, so tapping a seat's cards in that order places them. A card the
    screen has already placed (the deck's last cards, which can only go to the last row) is not
    tapped: the dealer sees the row filled."""
    for number in order:
        for card in hands[number].split():
            key = f"#card-picker button[data-card='{card}']"
            if dealer.page.get_attribute(key, "aria-pressed") != "true":
                dealer.tap(key)


FOUR_SET_HANDS = {
    1: "Ac Kd 2c  Tc Th 3c 4d 7s  5h 6h 7h 8h 9h",
    2: "Qc Qd Qs  Ah Kc Qh Jc Ts  Js Jh Jd 8s 8c",
    3: "5c 3s 4h  Ks Kh 2h 6s 7d  As Ad 9s 9d 5d",
    4: "2d 3h 5s  2s 4c 6d 7c 8d  3d 4s 6c 9c Td",
}


def test_chinese_poker_four_set_hands(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    players = seat(table, {1: 10_000, 2: 10_000, 3: 10_000, 4: 10_000})
    dealer = dealer_at(table)
    deal(dealer)
    order = [hp.seat.number for hp in Hand.objects.get(table=table).players.order_by("position")]
    tap_set_hands(dealer, FOUR_SET_HANDS, order)
    dealer.page.wait_for_selector("#confirm:enabled")
    # The fourth seat's back row is the deck's last five cards: the screen fills it (54 taps before).
    filled = dealer.page.input_value(f"#back_{order[-1]}").split()
    assert sorted(filled) == sorted(FOUR_SET_HANDS[order[-1]].split("  ")[-1].split())
    pairs = dealer.page.inner_text("#pairs")
    assert "seat 1 (A1) v seat 4 (D4)" in pairs
    assert "seat 1 (A1) wins 8 points" in pairs
    before = chips(table, *players)
    read_and_confirm(dealer)
    dealer.done("Chinese poker, four set hands", taps=1 + 48)
    moved = [a - b for a, b in zip(chips(table, *players), before, strict=True)]
    assert moved == [7_500, 5_500, -4_500, -8_500]
    assert verify_ledger().ok


SWEEP_ROUND = {
    1: "Jc Jd Js  Ad As Ac 9c 7c  6h 5h 4h 3h 2h",
    2: "2c 3d 4c 5s 6c 7d 8h 9s Tc Jh Qs Kc Ah",  # a dragon, declared before the showdown
    3: "Kh Kd 2s  Qh Qd Qc 3s 4s  2d 4d 5d 6d 8d",
    4: "3c 5c 7h  9h 9d 8c 8s 6s  Ts Th Td Ks 7s",
}


def test_chinese_poker_declared_sweep_with_capped_all_ins(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    players = seat(table, {1: 10_000, 2: 10_000, 3: 10_000, 4: 10_000})
    dealer = dealer_at(table)
    deal(dealer)
    hand = Hand.objects.get(table=table)
    order = [hp.seat.number for hp in hand.players.order_by("position")]
    dealer.pick("#declare_2", "dragon")  # recorded now, with its time
    assert HandPlayer.objects.get(hand=hand, seat__number=2).sweep_declared == "dragon"
    assert "Declared dragon" in dealer.page.inner_text("#declared_2")
    before = chips(table, *players)
    tap_set_hands(dealer, SWEEP_ROUND, order)
    dealer.page.wait_for_selector("#confirm:enabled")
    # The declared hand's 13 cards are all in sight, none scrolled out of its field.
    assert dealer.page.eval_on_selector("#cards_2", WHOLE), dealer.page.eval_on_selector("#cards_2", SIZES)
    readings = dealer.page.inner_text("#readings")
    assert "clean sweep: dragon (declared dragon, verified)" in readings
    payments = dealer.page.inner_text("#payments")
    # The dragon wins 13 points ($65) from each, up to the $99 seat 2 has in play (all in).
    assert "seat 1 (A1) pays seat 2 (B2) — sweep 2-1\t$65" in payments
    assert "seat 3 (C3) pays seat 2 (B2) — sweep 2-3\t$30 capped (due $65)" in payments
    assert "seat 4 (D4) pays seat 2 (B2) — sweep 2-4\t$0 capped (due $65)" in payments
    accessible(dealer.page)
    snapshot(dealer.page, "terminal-chinese-poker-reading", full_page=False)
    read_and_confirm(dealer)
    dealer.done("Chinese poker, a declared sweep", taps=1 + 50)
    moved = [a - b for a, b in zip(chips(table, *players), before, strict=True)]
    assert moved == [-3_500, 9_500, -4_500, -1_500]
    assert verify_ledger().ok


TAIWANESE = {
    1: "Qs  As Kd  9c 9h 4s 5s",
    2: "Jh  7h 7d  Ks Kc 6h 8h",
    3: "2c  3c 4c  Th Jc Qc 5d",
}


def test_taiwanese_poker_two_boards(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    seat(table, {1: 10_000, 2: 10_000, 3: 10_000})
    dealer = dealer_at(table)
    dealer.start()
    dealer.pick("#boards", "2")  # agreed before the deal
    dealer.tap("#deal")
    hand = Hand.objects.get(table=table)
    assert hand.boards == 2
    dealer.cards("Ac", "Ad", "Kh", "3s", "2d")
    dealer.cards("5c", "6c", "7c", "8d", "9d")
    tap_set_hands(dealer, TAIWANESE, [hp.seat.number for hp in hand.players.order_by("position")])
    dealer.page.wait_for_selector("#confirm:enabled")
    positions = dealer.page.inner_text("#positions")
    assert "board 2\tmiddle" in positions.replace(" middle", "\tmiddle") or "board 2 middle" in positions
    assert "seat 3 (C3) wins: Straight flush, seven high" in positions  # names, not blanks
    assert "Seat 1 (A1): board 1: top Pair of aces" in dealer.page.inner_text("#readings")
    accessible(dealer.page)
    snapshot(dealer.page, "terminal-taiwanese-reading", full_page=False)
    read_and_confirm(dealer)
    dealer.done("Taiwanese poker, two boards", taps=40)
    assert verify_ledger().ok


def test_dealers_choice_lowball(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    assert dealer.page.locator("#deal").count() == 0  # the button player picks first
    dealer.start()
    dealer.pick("#game", "lowball")
    assert "without the joker (004 lowball rule 1)" in dealer.page.inner_text("#game-note")
    dealer.tap("#deal")
    hand = Hand.objects.get(table=table)
    assert (hand.game.slug, hand.joker) == ("lowball", False)
    assert dealer.page.locator("#card-picker [data-card=JK]").count() == 0
    first, second, third = (hp.seat.number for hp in hand.players.order_by("position"))
    before = chips(table, *players)
    dealer.cards("8c", "6d", "4s", "3h", "2d")  # the button's left first
    dealer.tap(f"label:has(#folded_{third})")
    dealer.cards("7c", "5d", "4h", "3s", "2c")  # a seven low, the button's
    dealer.tap("#put-in-pad button[data-add='800']")
    dealer.page.wait_for_selector("#confirm:enabled")
    assert "7-5-4-3-2" in dealer.page.inner_text("#readings")
    read_and_confirm(dealer)
    dealer.done("dealer's choice lowball", taps=16)
    moved = [a - b for a, b in zip(chips(table, *players), before, strict=True)]
    seats_moved = dict(zip((p.seatings.get(left_at=None).seat.number for p in players), moved, strict=True))
    assert seats_moved == {first: 800, second: -800, third: 0}


def test_a_misdeal_from_the_screen(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    button = dealer.page.inner_text("#fee-preview")
    deal(dealer)
    dealer.tap("#misdeal")
    dealer.tap_and_accept("#misdeal-two_exposed")  # hold'em: Robert's Rules, misdeal 2b
    hand = Hand.objects.get(table=table)
    assert (hand.status, hand.misdeal_reason) == (HandStatus.VOID, "two_exposed")
    assert "(fees returned)" in dealer.page.inner_text("#last-hand")
    assert chips(table, *players) == [8_000] * 3
    assert dealer.page.inner_text("#fee-preview") == button  # the redeal has the same button
    dealer.done("misdeal", taps=4)


def test_a_refused_entry_is_corrected_by_changing_one_card(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    deal(dealer)
    hand = Hand.objects.get(table=table)
    first, second, third = (hp.seat.number for hp in hand.players.order_by("position"))
    dealer.cards("Ah", "Kd", "7c", "7s", "2h")
    dealer.type(f"#cards_{second}", "Kc Qx")  # a slip on the keyboard
    assert "unknown card Qx" in dealer.page.inner_text(f"#cards_{second}-error")
    dealer.tap(f"label:has(#folded_{third})")
    dealer.cards("As", "Ac")  # the button's
    dealer.tap("#put-in-pad button[data-add='800']")
    dealer.tap("#read-showdown")  # sent anyway: refused, nothing read
    page = dealer.page
    assert "unknown card" in page.inner_text("#refusal")
    assert not HandResult.objects.filter(hand=hand).exists()
    # Everything as entered; the bad field marked.
    assert page.input_value("#board") == "Ah Kd 7c 7s 2h"
    assert page.input_value(f"#cards_{first}") == "As Ac"
    assert page.input_value(f"#cards_{second}") == "Kc Qx"
    assert page.get_attribute(f"#cards_{second}", "aria-invalid") == "true"
    assert page.is_checked(f"#folded_{third}")
    snapshot(page, "terminal-bad-card", full_page=False)
    count = JournalTransaction.objects.count()
    dealer.tap(f"#cards_{second}")
    dealer.tap("#back-card")
    dealer.cards("Qc")
    read_and_confirm(dealer)
    dealer.done("refused entry corrected by one card", taps=18, keys=5)
    assert JournalTransaction.objects.count() == count + 1
