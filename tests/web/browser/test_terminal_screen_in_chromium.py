"""The dealer terminal's keys, memory and layout in Chromium (1280x800 unless said): fewer taps
for a short all-in, keys at a kill hand's limits, every key doing something visible or saying why
not, the seat that picks at dealer's choice, "other" refused before the "sure?" dialog, nothing
lost on a reload at any step or while the connection is down, and nothing wider than the screen
with long names (1280x800 and 800x1280).

Tap counts are ceilings (``Dealer.done``); ``pytest -s`` prints them. The figures before, measured
with the same hands on the screen as it was: docs/pages.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handflow import services as hand_flow
from ledger.verification import verify_ledger
from tables.choices import HandStatus
from tables.models import Hand, HandResult, Player, ShowdownDraft, Table
from tests.web.browser.browser import BROWSER_MARKS, IDLE, Dealer, accessible, chips, snapshot
from web.models import IdempotentRequest

pytestmark = BROWSER_MARKS

PORTRAIT = (800, 1280)
#: Nothing on the page is wider than the window (no sideways scrolling).
NARROW = "() => [document.scrollingElement.scrollWidth, window.innerWidth]"
LONG = "Wolfeschlegelsteinhausenbergerdorffschmi"  # a 40-character name, no space to break at


def fits_across(dealer: Dealer) -> None:
    width, window = dealer.page.evaluate(NARROW)
    assert width <= window, (dealer.page.viewport_size, width, window)


def deal(dealer: Dealer) -> Hand:
    dealer.start()
    dealer.tap("#deal")
    assert dealer.page.inner_text("#hand-status") == "dealt"
    return Hand.objects.get(status=HandStatus.DEALT)


def positions(hand: Hand) -> list[int]:
    return [hp.seat.number for hp in hand.players.order_by("position")]


def entry_order(dealer: Dealer) -> list[int]:
    """The seats of the showdown entry as the screen lists them (the order their cards are tapped)."""
    seats = dealer.page.eval_on_selector_all("#seats [data-seat]", "els => els.map(e => +e.dataset.seat)")
    return [int(n) for n in seats]


def test_holdem_showdown_with_one_short_all_in(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """Three at no-limit hold'em: the button folds, the short stack (seat 3, $20) is all in and
    seat 2 calls. Its "All in" is one tap: its put-in is its chips, and seat 2, still in, put in as
    much. The cards go round from the button's left, the button last: the button shows none, so
    once seats 2 and 3 have theirs it is read as folded (no tap), and the reading starts with the
    last card. Before: 16 taps (the $20 built from the chip keys), 19 with "All in" from the pad
    (the seat's put-in, the key, back to "each live player", the keys), 13 with the button's
    "Folded" tapped. Now 12, the deal and "Confirm and pay" included."""
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    players = seat(table, {1: 10_000, 2: 10_000, 3: 2_000})
    dealer = dealer_at(table)
    before = chips(table, *players)
    hand = deal(dealer)
    assert positions(hand)[0] == 1  # seat 1 has the button (and paid the fee)
    assert entry_order(dealer) == [2, 3, 1]  # from the button's left, the button last
    dealer.tap("#all_in_3")
    page = dealer.page
    assert page.input_value("#put_in_3") == "20"
    assert page.input_value("#put_in_2") == "20"  # still in: called the all-in
    dealer.cards("Ah", "Kd", "7c", "7s", "2h")
    dealer.cards("As", "Ac")  # seat 2
    dealer.cards("Kc", "Qc")  # seat 3: the last card shown; the button shows none
    page.wait_for_selector("#confirm:enabled")
    # The button is read as folded, and the screen says so on the seat and beside the reading.
    assert page.is_checked("#folded_1")
    assert page.get_attribute("#folded_1", "value") == "auto"
    assert page.is_visible("#muck_1")
    assert page.input_value("#put_in_1") == ""
    assert "Read as folded, no cards shown: seat 1." in page.inner_text("#mucked")
    accessible(page)
    dealer.tap("#confirm")
    assert page.inner_text("#hand-status") == "settled"
    dealer.done("hold'em, one short all-in", taps=12)
    fee = hand.players.get(seat__number=1).fee_cents or 0
    after = chips(table, *players)
    assert [a - b for a, b in zip(after, before, strict=True)] == [-fee, 2_000, -2_000]
    assert verify_ledger().ok


def test_a_seat_read_as_folded_is_put_back_by_its_cards_or_by_the_dealer(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """Three show down at $4-$8, the put-ins entered first. Once two seats have their cards the
    third, showing none yet, is read as folded (the reading is on the screen, saying so, also after
    a reload); its first card puts it back in (the reading can't be confirmed until its second is
    in); a card taken back leaves it showing none again, read as folded again; a tap on its
    "Folded" makes the fold the dealer's own, and a second one puts it back in, where a reload
    leaves it (before, the reload read it as folded again). The reading
    confirmed is of three hands."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    players = seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    before = chips(table, *players)
    deal(dealer)
    first, second, third = entry_order(dealer)
    page = dealer.page
    dealer.tap("#put-in-pad button[data-add='800']")
    dealer.cards("Ah", "Kd", "7c", "7s", "2h", "Kc", "Qc", "As", "Ac")
    page.wait_for_selector("#confirm:enabled")
    assert page.get_attribute(f"#folded_{third}", "value") == "auto"
    assert page.input_value(f"#put_in_{third}") == ""
    assert f"Read as folded, no cards shown: seat {third}." in page.inner_text("#mucked")
    assert f"seat {third}" in page.inner_text("#picker-target")  # the next card goes there
    page.reload()
    dealer.idle()
    assert page.get_attribute(f"#folded_{third}", "value") == "auto"
    assert page.is_visible(f"#muck_{third}")
    page.wait_for_selector("#confirm:enabled")
    dealer.cards("Jc")
    assert not page.is_checked(f"#folded_{third}")
    assert page.is_hidden(f"#muck_{third}")
    assert page.input_value(f"#put_in_{third}") == "8"  # in: put in what each live player did
    assert page.is_disabled("#confirm")  # the reading on the screen isn't of this entry
    dealer.cards("Jc")  # taken back: it shows none again
    assert page.get_attribute(f"#folded_{third}", "value") == "auto"
    dealer.tap(f"label:has(#folded_{third})")  # the dealer's tap: the fold is the dealer's own
    assert page.is_checked(f"#folded_{third}")
    assert page.get_attribute(f"#folded_{third}", "value") == "on"
    assert page.is_hidden(f"#muck_{third}")
    dealer.tap(f"label:has(#folded_{third})")  # and untapped: back in, and it stays in
    assert not page.is_checked(f"#folded_{third}")
    assert page.input_value(f"#put_in_{third}") == "8"
    assert page.is_disabled("#confirm")
    page.reload()  # the dealer's "back in" is kept too: the seat is not read as folded again
    dealer.idle()
    page.wait_for_timeout(1_500)  # longer than the screen waits before it reads a seat as folded
    assert not page.is_checked(f"#folded_{third}")
    assert page.is_hidden(f"#muck_{third}")
    assert page.input_value(f"#put_in_{third}") == "8"
    assert page.is_disabled("#confirm")
    dealer.cards("Jc", "Jd")
    page.wait_for_selector("#confirm:enabled")
    assert page.locator("#mucked").count() == 0
    assert page.locator("#readings li").count() == 3
    dealer.tap("#confirm")
    assert page.inner_text("#hand-status") == "settled"
    after = chips(table, *players)
    moved = {n: a - b for n, a, b in zip((1, 2, 3), after, before, strict=True)}
    fees = {hp.seat.number: hp.fee_cents or 0 for hp in Hand.objects.get(table=table).players.all()}
    # Aces full wins the $24 pot: $8 from each of the others.
    assert {n: moved[n] + fees[n] for n in moved} == {first: -800, second: 1_600, third: -800}
    assert verify_ledger().ok


def test_the_keys_follow_a_kill_hand_and_each_does_something_or_says_why_not(
    dealer_at: Callable[..., Dealer],
    make_table: Callable[..., Table],
    seat: Callable[..., list[Player]],
    settle_hand: Callable[..., Hand],
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    settle_hand(hand_flow.start_hand(table=table, by=None).hand, winners=(3,))
    dealer = dealer_at(table)
    page = dealer.page
    # One pot won: seat 3 holds the kill button, and the screen says so.
    assert "Kill button: seat 3 (won the last pot" in page.inner_text("#kill-button")
    settle_hand(hand_flow.start_hand(table=table, by=None).hand, winners=(3,))
    page.reload()
    page.wait_for_function(IDLE)
    deal(dealer)
    assert "KILL HAND: seat 3 kills, blind $6, limits $6-$12 (150%)" in page.inner_text("#kill-hand")
    keys = page.locator("#put-in-pad button[data-add]").all_inner_texts()
    assert keys[:2] == ["+$6 small bet (kill)", "+$12 big bet (kill)"]
    # "All in" with the pad on each live player: disabled, and the screen says why.
    assert page.is_disabled("#all-in")
    assert "tap a seat's put-in first" in page.inner_text("#pad-why")
    assert page.is_disabled("#clear-amount")  # nothing to clear yet, said too
    dealer.tap("#put-in-pad button[data-add='1200']")
    assert page.input_value("#called") == "12"
    assert page.input_value("#put_in_1") == "12"
    assert page.is_enabled("#clear-amount")
    dealer.tap("#put_in_2")  # the pad now adds to seat 2's put-in: "All in" is seat 2's
    assert page.is_enabled("#all-in")
    dealer.tap("#all-in")
    assert page.input_value("#put_in_2") == page.get_attribute("[data-seat='2']", "data-stack")[:-2]  # type: ignore[index]
    accessible(page)


def test_dealers_choice_marks_the_seat_that_picks(
    dealer_at: Callable[..., Dealer],
    make_table: Callable[..., Table],
    seat: Callable[..., list[Player]],
    settle_hand: Callable[..., Hand],
    deal_hand: Callable[..., Hand],
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    settle_hand(deal_hand(table, game="holdem"))  # the button was at seat 1
    dealer = dealer_at(table)
    page = dealer.page
    picker = page.locator(".seat", has=page.locator("#dealer-button"))
    assert picker.get_attribute("data-seat") == "2"
    assert page.locator("[data-seat='2'] #picks").count() == 1
    assert "seat 2 (the button) picks" in page.inner_text("label[for=game]")
    dealer.pick("#game", "omaha")
    assert page.locator(".seat", has=page.locator("#dealer-button")).get_attribute("data-seat") == "2"
    dealer.tap("#deal")
    assert Hand.objects.get(table=table, number=2).button_seat.number == 2


def test_other_without_words_is_refused_before_the_dialog(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="stud", stakes="limit-4-8", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    hand = deal(dealer)
    page = dealer.page
    dialogs: list[str] = []
    answer = {"accept": False}

    def sure(dialog: Any) -> None:
        dialogs.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", sure)
    dealer.tap("#misdeal")
    # Stud: Robert's Rules without the button or the exposed first cards; nothing of 004.
    buttons = page.locator("#misdeal-panel button[name=reason_code]")
    offered = buttons.evaluate_all("bs => bs.map(b => b.value)")
    assert "button_misplaced" not in offered
    assert "wrong_count" not in offered
    assert offered[-1] == "other"
    dealer.tap("#misdeal-other")  # no words: refused here, no "sure?" dialog, nothing sent
    assert dialogs == []
    assert "alert" in (page.get_attribute("#misdeal-other-why", "class") or "")
    assert page.get_attribute("#misdeal-reason", "aria-invalid") == "true"
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT
    page.fill("#misdeal-reason", "the deck was short a card")
    answer["accept"] = True
    dealer.tap("#misdeal-other")
    assert dialogs == [f"Void hand {hand.number}?"]
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason, hand.void_reason) == (
        HandStatus.VOID, "other", "the deck was short a card",
    )  # fmt: skip


def test_a_reload_at_each_step_loses_nothing(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    """Nine cards tapped and a reload used to empty every field (and so after a refused read)."""
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    page = dealer.page

    def reload() -> None:
        page.reload()
        page.wait_for_function(IDLE)

    hand = deal(dealer)
    reload()
    assert page.inner_text("#hand-status") == "dealt"
    first, second, third = entry_order(dealer)  # the order the cards go in
    dealer.cards("Ah", "Kd", "7c", "7s", "2h", "As", "Ac", "Kc", "Qc")  # nine cards
    reload()
    assert page.input_value("#board") == "Ah Kd 7c 7s 2h"
    assert page.input_value(f"#cards_{first}") == "As Ac"
    assert page.input_value(f"#cards_{second}") == "Kc Qc"
    assert page.get_attribute("#card-picker button[data-card='Qc']", "aria-pressed") == "true"
    assert ShowdownDraft.objects.get(hand=hand).entry[f"cards_{second}"] == "Kc Qc"
    # A tap and a reload at once (before the draft reached the server): this tablet kept it.
    page.click(f"label:has(#folded_{third})")
    reload()
    assert page.is_checked(f"#folded_{third}")
    dealer.tap("#put-in-pad button[data-add='800']")
    # A refused read: a typed slip, sent anyway.
    page.fill(f"#cards_{second}", "Kc Qx")
    dealer.tap("#read-showdown")
    assert "unknown card" in page.inner_text("#refusal")
    reload()
    assert page.input_value(f"#cards_{second}") == "Kc Qx"
    assert page.input_value(f"#put_in_{first}") == "8"
    assert page.is_checked(f"#folded_{third}")
    page.fill(f"#cards_{second}", "Kc Qc")
    page.wait_for_selector("#confirm:enabled")
    dealer.idle()
    reload()  # the reading and its entry are back, and it can be confirmed as it is
    assert page.input_value(f"#cards_{second}") == "Kc Qc"
    page.wait_for_selector("#confirm:enabled")
    assert HandResult.objects.get(hand=hand).revision == 1
    dealer.tap("#confirm")
    reload()
    assert page.inner_text("#hand-status") == "settled"
    assert verify_ledger().ok


def test_taps_made_while_the_connection_is_down_are_kept_and_sent_once(
    dealer_at: Callable[..., Dealer], make_table: Callable[..., Table], seat: Callable[..., list[Player]]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    seat(table, {1: 8_000, 2: 8_000, 3: 8_000})
    dealer = dealer_at(table)
    page = dealer.page
    hand = deal(dealer)
    first, second, third = entry_order(dealer)
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if "/api/terminal/" in r.url else None)
    page.context.set_offline(True)
    dealer.cards("Ah", "Kd", "7c", "7s", "2h", "As", "Ac")
    assert "No connection" in page.inner_text("#sync")
    assert page.input_value(f"#cards_{first}") == "As Ac"
    assert "As Ac" not in ShowdownDraft.objects.get(hand=hand).entry.values()  # not sent yet
    dealer.tap(f"label:has(#folded_{third})")
    dealer.tap("#put-in-pad button[data-add='800']")
    dealer.cards("Kc", "Qc")  # complete: the read can't go, and waits
    page.wait_for_function(  # the read goes 300 ms after the last change, and fails
        "() => document.getElementById('sync').textContent.includes('the reading waits for the connection')"
    )
    drafts_offline = len([r for r in sent if r.url.endswith("/draft/")])
    page.context.set_offline(False)
    page.wait_for_selector("#confirm:enabled")  # read once the connection is back
    dealer.idle()
    draft = ShowdownDraft.objects.get(hand=hand)
    assert draft.entry[f"cards_{second}"] == "Kc Qc"
    assert draft.entry[f"folded_{third}"] == "on"
    # The waiting draft went once: only the last entry, not one per tap made offline.
    after = [r for r in sent[drafts_offline:] if r.url.endswith("/draft/") and r.failure is None]
    assert len(after) == 1, [r.url for r in after]
    # "Confirm and pay" tapped with no connection: kept, shown as waiting, sent once it is back.
    page.context.set_offline(True)
    dealer.tap("#confirm")
    assert "waiting to be sent: Confirm and pay" in page.inner_text("#sync")
    hand.refresh_from_db()
    assert hand.status == HandStatus.SHOWDOWN
    confirms = len(sent)
    page.context.set_offline(False)
    page.wait_for_function("() => document.getElementById('hand-status').textContent === 'settled'")
    dealer.idle()
    hand.refresh_from_db()
    assert hand.status == HandStatus.SETTLED
    confirm_requests = [r for r in sent[confirms:] if r.url.endswith(f"/hands/{hand.pk}/confirm/")]
    assert len(confirm_requests) == 1
    key = confirm_requests[0].headers["idempotency-key"]
    assert IdempotentRequest.objects.get(key=key).status_code == 200
    assert page.inner_text("#sync") == ""
    assert verify_ledger().ok


def test_long_names_fit_the_screen_both_ways(
    dealer_at: Callable[..., Dealer],
    make_table: Callable[..., Table],
    seat: Callable[..., list[Player]],
) -> None:
    """40-character names at a full 10-seat table and in a Taiwanese poker reading (1,526 px wide
    at 1280 before): cut with an ellipsis, nothing wider than the screen, at 1280x800 and 800x1280."""
    ten = make_table(game="holdem", stakes="limit-4-8", schedule="A", seat_count=10)
    seat(ten, {n: 8_000 for n in range(1, 11)}, names={n: f"{n}{LONG}"[:40] for n in range(1, 11)})
    taiwanese = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    seat(taiwanese, {1: 10_000, 2: 10_000, 3: 10_000}, names={n: f"{LONG[:-1]}{n}" for n in (1, 2, 3)})
    for viewport in ((1280, 800), PORTRAIT):
        dealer = dealer_at(ten, viewport)
        fits_across(dealer)
        name = dealer.page.locator("[data-seat='1'] .name")
        assert name.get_attribute("title") == f"1{LONG}"[:40]  # the full name, on the seat
        assert name.evaluate("n => n.scrollWidth > n.clientWidth")  # cut with an ellipsis
        accessible(dealer.page)
    dealer = dealer_at(taiwanese)
    hand = deal(dealer)
    page = dealer.page
    entry = {
        "board": "Ac Ad Kh 3s 2d",
        "top_1": "Qs", "middle_1": "As Kd", "bottom_1": "9c 9h 4s 5s",
        "top_2": "Jh", "middle_2": "7h 7d", "bottom_2": "Ks Kc 6h 8h",
        "top_3": "2c", "middle_3": "3c 4c", "bottom_3": "Th Jc Qc 5d",
    }  # fmt: skip
    for name, cards in entry.items():
        page.fill(f"#{name}", cards)
    page.wait_for_selector("#confirm:enabled")
    dealer.idle()
    assert "point(s)" not in page.inner_text("#reading-panel")
    assert "$5 a point" in page.inner_text("#reading-panel")
    fits_across(dealer)
    snapshot(page, "terminal-taiwanese-long-names", full_page=False)
    portrait = dealer_at(taiwanese, PORTRAIT)
    assert portrait.page.input_value("#top_3") == "2c"  # the draft, on another tablet
    portrait.page.wait_for_selector("#reading-panel")
    fits_across(portrait)
    assert hand.pk == Hand.objects.get(table=taiwanese).pk
