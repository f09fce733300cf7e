"""Worked examples of the hand's money, end to end, each run twice: through the services
(:mod:`handflow.services`) and through the dealer terminals' HTTP API.

Every figure below is worked out by hand from the rules (RULINGS §2, §3, §6; seed 004) in the
comments next to it; the engine's reading, the ledger's postings and the chips after each hand
must all agree with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.errors import LedgerError
from ledger.models import Entry, JournalTransaction
from ledger.shifts import Shift
from ledger.verification import verify_ledger
from tables import services as floor_services
from tables.choices import HandStatus
from tables.errors import FloorError
from tables.models import Game, Hand, Player, Table
from tests.web.terminal.terminal_client import fees_shown
from web.terminal.serializers import ChipMovementSerializer, FeePreviewSerializer, TerminalHandSerializer


class Refused(Exception):
    """A request refused by the services or the API: the HTTP status and the error code."""

    def __init__(self, status: int, code: str, detail: str = "") -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail = status, code, detail


class ServiceDriver:
    """Runs the steps through handflow.services; answers with the API's shapes."""

    name = "services"

    def __init__(self, users: dict[str, AbstractBaseUser]) -> None:
        self.dealer, self.floor = users["dealer"], users["floor"]
        self.keys = (f"svc-{n}" for n in itertools.count())

    def _call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except FloorError as exc:
            raise Refused(exc.status, exc.code, exc.message) from exc
        except LedgerError as exc:
            raise Refused(409, exc.code, str(exc)) from exc

    def buy_in(self, table: Table, player: Player, amount: int, seat: int | None = None) -> dict[str, Any]:
        movement = self._call(
            hand_flow.buy_in,
            table=table,
            player=player,
            amount_cents=amount,
            seat_number=seat,
            by=self.floor,
            idempotency_key=next(self.keys),
        ).movement
        return dict(ChipMovementSerializer(movement).data)

    def rebuy(self, table: Table, player: Player, amount: int) -> dict[str, Any]:
        movement = self._call(
            hand_flow.rebuy,
            table=table,
            player=player,
            amount_cents=amount,
            by=self.dealer,
            idempotency_key=next(self.keys),
        ).movement
        return dict(ChipMovementSerializer(movement).data)

    def cash_out(self, table: Table, player: Player) -> dict[str, Any]:
        movement = self._call(
            hand_flow.cash_out, table=table, player=player, by=self.floor, idempotency_key=next(self.keys)
        ).movement
        return dict(ChipMovementSerializer(movement).data)

    def preview(self, table: Table) -> dict[str, Any]:
        plan = self._call(hand_flow.preview_fees, table=table)
        return dict(FeePreviewSerializer(FeePreviewSerializer.from_plan(plan)).data)

    def clock_in(self, table: Table) -> None:
        self._call(floor_services.clock_in, table=table, dealer=self.dealer, by=self.dealer)

    def start(self, table: Table) -> dict[str, Any]:
        # The dealer runs the table's hands from their clock-in there (again: the same down).
        self.clock_in(table)
        dealt = self._call(hand_flow.start_hand, table=table, by=self.dealer)
        return TerminalHandSerializer.from_hand(dealt.hand)

    def showdown(self, hand_id: int, body: dict[str, Any]) -> dict[str, Any]:
        hand = Hand.objects.get(pk=hand_id)
        self._call(hand_flow.submit_showdown, hand=hand, submitted=body, by=self.dealer)
        return TerminalHandSerializer.from_hand(hand)

    def confirm(self, hand_id: int, revision: int | None = None) -> dict[str, Any]:
        hand = Hand.objects.get(pk=hand_id)
        settled = self._call(hand_flow.confirm_settlement, hand=hand, by=self.dealer, revision=revision)
        return TerminalHandSerializer.from_hand(hand, replayed=settled.replayed)

    def misdeal(self, hand_id: int, reason: str) -> dict[str, Any]:
        hand = Hand.objects.get(pk=hand_id)
        voided = self._call(hand_flow.misdeal, hand=hand, reason_code="other", reason=reason, by=self.dealer)
        return TerminalHandSerializer.from_hand(voided.hand, replayed=voided.replayed)


class ApiDriver:
    """Runs the steps through /api/terminal/ as the dealer (hands, rebuys) and the floor
    manager (seating buy-ins, cash-outs), each write with its own Idempotency-Key."""

    name = "api"

    def __init__(self, users: dict[str, AbstractBaseUser]) -> None:
        self.dealer, self.floor = APIClient(), APIClient()
        self.dealer.force_authenticate(users["dealer"])
        self.floor.force_authenticate(users["floor"])
        self.keys = (f"api-key-{n:06d}" for n in itertools.count())

    def _answer(self, response: Any, ok: int) -> dict[str, Any]:
        body = response.json()
        if response.status_code >= 400:
            raise Refused(response.status_code, body.get("code", ""), body.get("detail", ""))
        assert response.status_code == ok, (response.status_code, body)
        return dict(body)

    def _post(self, client: APIClient, url: str, body: dict[str, Any], ok: int) -> dict[str, Any]:
        response = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=next(self.keys))
        return self._answer(response, ok)

    def buy_in(self, table: Table, player: Player, amount: int, seat: int | None = None) -> dict[str, Any]:
        body = {"player": player.pk, "amount_cents": amount, "seat_number": seat}
        return self._post(self.floor, f"/api/terminal/tables/{table.number}/buy-in/", body, 201)

    def rebuy(self, table: Table, player: Player, amount: int) -> dict[str, Any]:
        body = {"player": player.pk, "amount_cents": amount}
        return self._post(self.dealer, f"/api/terminal/tables/{table.number}/rebuy/", body, 201)

    def cash_out(self, table: Table, player: Player) -> dict[str, Any]:
        return self._post(
            self.floor, f"/api/terminal/tables/{table.number}/cash-out/", {"player": player.pk}, 201
        )

    def preview(self, table: Table) -> dict[str, Any]:
        return self._answer(self.dealer.get(f"/api/terminal/tables/{table.number}/fees/"), 200)

    def clock_in(self, table: Table) -> None:
        clocked = self.dealer.post(f"/api/terminal/tables/{table.number}/clock-in/", {}, format="json")
        assert clocked.status_code in (200, 201), clocked.json()

    def start(self, table: Table) -> dict[str, Any]:
        self.clock_in(table)
        shown = fees_shown(self.dealer, table.number)
        return self._post(self.dealer, f"/api/terminal/tables/{table.number}/hands/", shown, 201)

    def showdown(self, hand_id: int, body: dict[str, Any]) -> dict[str, Any]:
        return self._post(self.dealer, f"/api/terminal/hands/{hand_id}/showdown/", body, 200)

    def confirm(self, hand_id: int, revision: int | None = None) -> dict[str, Any]:
        return self._post(self.dealer, f"/api/terminal/hands/{hand_id}/confirm/", {"revision": revision}, 200)

    def misdeal(self, hand_id: int, reason: str) -> dict[str, Any]:
        body = {"reason_code": "other", "reason": reason}
        return self._post(self.dealer, f"/api/terminal/hands/{hand_id}/misdeal/", body, 200)


Driver = ServiceDriver | ApiDriver


@pytest.fixture(params=["services", "api"])
def driver(request: pytest.FixtureRequest, users: dict[str, AbstractBaseUser]) -> Iterator[Driver]:
    yield ServiceDriver(users) if request.param == "services" else ApiDriver(users)
    report = verify_ledger()
    assert report.ok, report.problems


def chips(table: Table, *players: Player) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def house(hand_id: int) -> int:
    hand = Hand.objects.get(pk=hand_id)
    return ledger_selectors.house_collected(table=hand.table, shift=Shift.at(hand.created_at))


def fees_by_seat(hand: dict[str, Any]) -> dict[int, int]:
    return {p["seat_number"]: p["fee_cents"] for p in hand["players"]}


def refused(call: Callable[[], Any]) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    return caught.value


# --- Chinese poker: fee option 2, the 9-point rule, the short rebuy, all-in caps ---------------


ROUND_1 = {
    "players": [
        # A: king high / pair of twos / four eights (back quads: bonus 4)
        {"seat": 1, "front": ["Kc", "Qd", "5h"], "middle": ["2c", "2d", "9s", "7h", "4c"],
         "back": ["8c", "8d", "8h", "8s", "3c"]},
        # B: three jacks (front trips: bonus 3) / straight, ace high / flush
        {"seat": 2, "front": ["Jc", "Jd", "Js"], "middle": ["Ah", "Kd", "Qh", "Jh", "Ts"],
         "back": ["2h", "3h", "6h", "9h", "Th"]},
        # C: ace high / pair of threes / two pair, queens and sevens
        {"seat": 3, "front": ["Ac", "Kh", "4d"], "middle": ["3d", "3s", "Td", "6c", "5d"],
         "back": ["Qs", "Qc", "7c", "7d", "2s"]},
        # D: pair of sixes in front over a pair of fives in the middle: fouled
        {"seat": 4, "front": ["6s", "6d", "Tc"], "middle": ["5c", "5s", "4h", "Ks", "7s"],
         "back": ["As", "Ad", "9c", "9d", "4s"]},
    ]
}  # fmt: skip

ROUND_2 = {
    "players": [
        # A: ace high / pair of tens / straight flush, nine high (back: bonus 5)
        {"seat": 1, "front": ["Ac", "Kd", "2c"], "middle": ["Tc", "Th", "3c", "4d", "7s"],
         "back": ["5h", "6h", "7h", "8h", "9h"]},
        # B: three queens (bonus 3) / straight, ace high / jacks full of eights
        {"seat": 2, "front": ["Qc", "Qd", "Qs"], "middle": ["Ah", "Kc", "Qh", "Jc", "Ts"],
         "back": ["Js", "Jh", "Jd", "8s", "8c"]},
        # C: five high / pair of kings / two pair, aces and nines
        {"seat": 3, "front": ["5c", "3s", "4h"], "middle": ["Ks", "Kh", "2h", "6s", "7d"],
         "back": ["As", "Ad", "9s", "9d", "5d"]},
        # D: five high / eight high / ten high: loses every segment to everyone
        {"seat": 4, "front": ["2d", "3h", "5s"], "middle": ["2s", "4c", "6d", "7c", "8d"],
         "back": ["3d", "4s", "6c", "9c", "Td"]},
    ]
}  # fmt: skip


def test_chinese_poker_round_with_fee_option_2_and_an_all_in_cap(
    driver: Driver, make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    # $5 a point, Chinese poker collection option 2 (004): the button $2, each other player $1.
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    a, b, c, d = (make_player(name) for name in ("A", "B", "C", "D"))
    for seat, player in enumerate((a, b, c, d), start=1):
        bought = driver.buy_in(table, player, 10_000, seat=seat)  # the buy-in: 20 points = $100
        assert (bought["kind"], bought["seat_number"], bought["chips_cents"]) == ("buy_in", seat, 10_000)
    assert refused(lambda: driver.buy_in(table, make_player("E"), 9_500, seat=5)).code == "buy_in_refused"

    # Round 1: the button is the first seat from the dealer's left (seat 1): P1 A, P2 B, P3 C, P4 D.
    hand1 = driver.start(table)
    assert (hand1["status"], hand1["button_seat"]) == ("dealt", 1)
    assert fees_by_seat(hand1) == {1: 200, 2: 100, 3: 100, 4: 100}
    assert [p["stack_cents"] for p in hand1["players"]] == [9_800, 9_900, 9_900, 9_900]
    assert house(hand1["id"]) == 500
    # Chips are locked from the deal to the settlement (004 rule 1, RULINGS §3).
    locked = refused(lambda: driver.rebuy(table, d, 5_000))
    assert (locked.status, locked.code) == (409, "chips_locked")

    read = driver.showdown(hand1["id"], ROUND_1)
    assert read["status"] == "showdown"
    assert read["reading"]["revision"] == 1
    # Pairs in 004's order; no cap binds (every stack holds 19 whole points, nobody moves more):
    #   A-B: B wins front (+1, trips bonus 3) and middle, A wins back (+1, quads bonus 4): 0
    #   A-C: C wins front and middle, A wins back with its bonus: 1 + 4 - 2 = 3 points, C pays $15
    #   A-D: D fouled: pays 3 points and A's quads bonus 4 = 7 points, $35
    #   B-C: B wins all three and its trips bonus: 6 points, C pays $30
    #   B-D: fouled D pays 3 + B's trips bonus 3 = 6 points, $30
    #   C-D: fouled D pays 3 points, $15 (C has no bonus)
    expected_1 = [(3, 1, 1_500), (4, 1, 3_500), (3, 2, 3_000), (4, 2, 3_000), (4, 3, 1_500)]
    payments = read["reading"]["postings"]["payments"]
    assert [(p["from_seat"], p["to_seat"], p["amount"]) for p in payments] == expected_1
    assert read["reading"]["net"] == {"1": 5_000, "2": 6_000, "3": -3_000, "4": -8_000}
    assert chips(table, a, b, c, d) == [9_800, 9_900, 9_900, 9_900]  # nothing posted before confirming

    settled = driver.confirm(hand1["id"], revision=1)
    assert settled["status"] == "settled"
    assert chips(table, a, b, c, d) == [14_800, 15_900, 6_900, 1_900]
    settlement = JournalTransaction.objects.get(idempotency_key=f"hand:{hand1['id']}:settle")
    lines = list(
        Entry.objects.filter(transaction=settlement).order_by("line").values_list("amount", flat=True)
    )
    assert lines == [a for _, _, cents in expected_1 for a in (-cents, cents)]  # in the engine's order

    # Round 2: the button moves to B. D has $19: the $1 fee would leave $18, under the 9 points
    # ($45) a player needs in play (004 rule 2), so D is not dealt in; the three others are.
    preview = driver.preview(table)
    assert preview["button_seat"] == 2
    assert [(p["seat_number"], p["fee_cents"]) for p in preview["dealt"]] == [(2, 200), (3, 100), (1, 100)]
    assert [(o["seat_number"], o["reason"]) for o in preview["left_out"]] == [(4, "cannot_pay")]
    # D takes the one short rebuy (at least 10 points, under the 20-point buy-in); a second is refused.
    short = driver.rebuy(table, d, 5_000)
    assert (short["kind"], short["is_short"], short["chips_cents"]) == ("rebuy", True, 6_900)
    assert refused(lambda: driver.rebuy(table, d, 5_000)).code == "short_rebuy_used"
    assert refused(lambda: driver.rebuy(table, d, 4_500)).code == "buy_in_refused"  # under 10 points

    hand2 = driver.start(table)
    assert hand2["button_seat"] == 2
    assert [p["seat_number"] for p in hand2["players"]] == [2, 3, 4, 1]  # P1 B, P2 C, P3 D, P4 A
    assert fees_by_seat(hand2) == {2: 200, 3: 100, 4: 100, 1: 100}
    # Caps: floor(stack / $5) points: A $147 -> $145, B $157 -> $155, C $68 -> $65, D $68 -> $65.
    assert [p["stack_cents"] for p in hand2["players"]] == [15_700, 6_800, 6_800, 14_700]

    read = driver.showdown(hand2["id"], ROUND_2)
    #   B-C: B wins all three + trips bonus 3 = 6 points, $30; C's cap 65 -> 35
    #   B-D: the same, $30; D's cap 65 -> 35
    #   B-A: B wins front (+1, bonus 3) and middle, A wins back (+1, straight flush bonus 5):
    #        B pays 1 point, $5
    #   C-D: C wins all three: $15; D's cap 35 -> 20 and C's 35 -> 20 (a cap counts what moves
    #        either way)
    #   C-A: C wins the middle, A front and back with its bonus: 6 points ($30) due; C's cap
    #        leaves $20 to move
    #   D-A: A wins all three + bonus 5 = 8 points ($40) due; D is all in: $20 moves, the rest
    #        is beyond D's cap and not paid (RULINGS §3)
    payments = read["reading"]["postings"]["payments"]
    assert [(p["from_seat"], p["to_seat"], p["amount"], p["due"]) for p in payments] == [
        (3, 2, 3_000, 3_000),
        (4, 2, 3_000, 3_000),
        (2, 1, 500, 500),
        (4, 3, 1_500, 1_500),
        (3, 1, 2_000, 3_000),
        (4, 1, 2_000, 4_000),
    ]
    driver.confirm(hand2["id"])
    # A 147 + 5 + 20 + 20; B 157 + 30 + 30 - 5; C 68 - 30 + 15 - 20; D 68 - 30 - 15 - 20.
    assert chips(table, a, b, c, d) == [19_200, 21_200, 3_300, 300]
    assert house(hand2["id"]) == 1_000  # two collections of $5, one shift
    assert ledger_selectors.cage_position(table=table) == -45_000  # 4 x $100 + D's $50
    assert sum(chips(table, a, b, c, d)) + 1_000 - 45_000 == 0

    # D leaves: the cash-out takes all D's chips and ends the seating.
    out = driver.cash_out(table, d)
    assert (out["kind"], out["amount_cents"], out["chips_cents"], out["seat_number"]) == (
        "cash_out",
        300,
        0,
        4,
    )
    assert refused(lambda: driver.cash_out(table, d)).code == "no_chips"


# --- Hold'em: two side pots, an odd chip, uncalled chips going back ----------------------------------


HOLDEM = {
    "board": ["Ah", "Kd", "7c", "7s", "2h"],
    "players": [
        {"seat": 1, "cards": ["9c", "8c"], "put_in": 9_800},  # all in for $98
        {"seat": 2, "cards": ["Qc", "Jd"], "put_in": 2_000},  # all in for $20
        {"seat": 3, "cards": ["Qd", "Jc"], "put_in": 5_000},  # all in for $50
        {"seat": 4, "cards": ["Tc", "3d"], "put_in": 8_000},  # all in for $80
        {"seat": 5, "put_in": 500, "folded": True},
    ],
}


def test_holdem_hand_with_two_side_pots_and_an_odd_chip(
    driver: Driver, make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    # No limit, $20-$100 buy-in, schedule A: 5-6 players, the button pays $2.
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    players = [make_player(f"H{seat}") for seat in range(1, 6)]
    for seat, (player, amount) in enumerate(
        zip(players, (10_000, 2_000, 5_000, 8_000, 2_000), strict=True), start=1
    ):
        driver.buy_in(table, player, amount, seat=seat)
    assert refused(lambda: driver.buy_in(table, make_player("X"), 10_100, seat=6)).code == "buy_in_refused"

    hand = driver.start(table)
    assert fees_by_seat(hand) == {1: 200, 2: 0, 3: 0, 4: 0, 5: 0}
    assert chips(table, *players) == [9_800, 2_000, 5_000, 8_000, 2_000]
    too_much = refused(
        lambda: driver.showdown(
            hand["id"],
            HOLDEM
            | {
                "players": [
                    *HOLDEM["players"][:1],
                    {"seat": 2, "cards": ["Qc", "Jd"], "put_in": 2_100},
                    *HOLDEM["players"][2:],
                ]
            },
        )
    )
    assert (too_much.status, too_much.code) == (400, "invalid_showdown")

    read = driver.showdown(hand["id"], HOLDEM)
    reading = read["reading"]["reading"]
    # Contribution levels 5, 20, 50, 80, 98:
    #   main pot: 4 x $20 + seat 5's folded $5 = $85 for seats 1-4; seats 2 and 3 tie with
    #     A-K-Q-7-7: $42 each and the odd $1 chip to seat 2, the first of them clockwise from the
    #     button (seat 1);
    #   side pot 1: 3 x $30 = $90 for seats 1, 3, 4: seat 3's queen kicker wins;
    #   side pot 2: 2 x $30 = $60 for seats 1 and 4: seat 4's ten beats seat 1's nine;
    #   seat 1's last $18 was called by nobody and goes back.
    assert [(p["amount"], p["seats"]) for p in reading["pots"]] == [
        (8_500, [1, 2, 3, 4]),
        (9_000, [1, 3, 4]),
        (6_000, [1, 4]),
    ]
    assert [(a["seat"], a["amount"]) for a in reading["pots"][0]["awards"]] == [(2, 4_300), (3, 4_200)]
    assert reading["returned"] == [{"seat": 1, "amount": 1_800}]
    assert read["reading"]["net"] == {"1": -8_000, "2": 2_300, "3": 8_200, "4": -2_000, "5": -500}

    settled = driver.confirm(hand["id"])
    assert settled["status"] == "settled"
    assert settled["reading"]["outright_winner_seat_number"] is None  # a split pot: no outright winner
    assert chips(table, *players) == [1_800, 4_300, 13_200, 6_000, 1_500]
    settlement = JournalTransaction.objects.get(idempotency_key=f"hand:{hand['id']}:settle")
    assert settlement.kind == "pot_award"
    assert ledger_selectors.hand_pot(hand=Hand.objects.get(pk=hand["id"])) == 0

    # A second confirmation (another terminal) returns the first result and posts nothing.
    count = JournalTransaction.objects.count()
    again = driver.confirm(hand["id"])
    assert (again["replayed"], again["reading"]["ledger_transaction"]) == (True, settlement.pk)
    assert JournalTransaction.objects.count() == count
    conflict = refused(lambda: driver.confirm(hand["id"], revision=2))
    assert (conflict.status, conflict.code) == (409, "hand_settled")
    assert refused(lambda: driver.showdown(hand["id"], HOLDEM)).code == "hand_settled"


# --- Misdeal: fees returned by reversing entries, or kept --------------------------------------------


@pytest.mark.parametrize("keep", [False, True], ids=["fees-returned", "fees-kept"])
def test_misdeal_returns_the_fees_unless_the_table_keeps_them(
    driver: Driver, make_table: Callable[..., Table], make_player: Callable[..., Player], keep: bool
) -> None:
    # Chinese poker, option 3: the button $3, the others $2 each.
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP3", keep_fees_on_misdeal=keep)
    players = [make_player(f"M{seat}") for seat in (1, 2, 3)]
    for seat, player in enumerate(players, start=1):
        driver.buy_in(table, player, 10_000, seat=seat)
    hand = driver.start(table)
    assert fees_by_seat(hand) == {1: 300, 2: 200, 3: 200}
    assert chips(table, *players) == [9_700, 9_800, 9_800]
    driver.showdown(hand["id"], {"players": [ROUND_1["players"][i] for i in range(3)]})

    voided = driver.misdeal(hand["id"], "004 rule 7a: five cards of one hand exposed")
    assert (voided["status"], voided["reading"]["status"], voided["fees_returned"]) == (
        "void",
        "void",
        not keep,
    )
    fee = JournalTransaction.objects.get(idempotency_key=f"hand:{hand['id']}:fees")
    if keep:
        assert chips(table, *players) == [9_700, 9_800, 9_800]
        assert house(hand["id"]) == 700
        assert not JournalTransaction.objects.filter(reverses=fee).exists()
    else:
        assert chips(table, *players) == [10_000, 10_000, 10_000]
        assert house(hand["id"]) == 0
        reversal = JournalTransaction.objects.get(reverses=fee)
        assert reversal.idempotency_key == f"hand:{hand['id']}:fees:return"
    assert not JournalTransaction.objects.filter(idempotency_key=f"hand:{hand['id']}:settle").exists()

    # Safe to retry: the void hand comes back, nothing is posted again; no settlement after it.
    count = JournalTransaction.objects.count()
    assert driver.misdeal(hand["id"], "retry from the other terminal")["replayed"] is True
    assert JournalTransaction.objects.count() == count
    assert refused(lambda: driver.confirm(hand["id"])).code == "hand_void"
    # The redeal has the same button (the floor puts it back).
    assert driver.start(table)["button_seat"] == 1


# --- Kill: two outright wins in a row, then a kill hand ----------------------------------------------


def fold_to(winner: int, put_ins: dict[int, int]) -> dict[str, Any]:
    """Everyone but ``winner`` folds: no showdown, the cards may be left out (engine docs)."""
    return {
        "board": [],
        "players": [{"seat": s, "put_in": cents, "folded": s != winner} for s, cents in put_ins.items()],
    }


def test_kill_hand_after_two_outright_wins(
    driver: Driver, make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    # $4-$8 limit with a half kill (004); the minimum buy-in is 10 big bets, $80.
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A")
    players = [make_player(f"K{seat}") for seat in (1, 2, 3)]
    assert refused(lambda: driver.buy_in(table, players[0], 7_900, seat=1)).code == "buy_in_refused"
    for seat, player in enumerate(players, start=1):
        driver.buy_in(table, player, 10_000, seat=seat)

    # Hand 1 (button 1): blinds $2 (seat 2) and $4 (seat 3); seat 3 raises, everyone folds.
    first = driver.start(table)
    assert (first["button_seat"], first["kill_seat"]) == (1, None)
    assert (
        driver.confirm(driver.showdown(first["id"], fold_to(3, {1: 0, 2: 200, 3: 800}))["id"])["reading"][
            "outright_winner_seat_number"
        ]
        == 3
    )
    # Hand 2 (button 2): seat 3 wins again outright.
    second = driver.start(table)
    assert (second["button_seat"], second["kill_seat"]) == (2, None)
    driver.showdown(second["id"], fold_to(3, {1: 400, 2: 0, 3: 800}))
    driver.confirm(second["id"])
    assert Table.objects.get(pk=table.pk).buttons.kill_seat.number == 3

    # Hand 3 is a kill hand: seat 3 posts the kill blind, the $4 big blind x 1.5 = $6 (004 kill
    # rules: half kill), and the stakes are x1.5.
    third = driver.start(table)
    assert (third["kill_seat"], third["kill_multiplier_pct"], third["kill_blind_cents"]) == (3, 150, 600)
    short_kill = refused(lambda: driver.showdown(third["id"], fold_to(3, {1: 0, 2: 0, 3: 400})))
    assert (short_kill.status, short_kill.code) == (400, "invalid_showdown")
    assert "kill blind" in short_kill.detail
    driver.showdown(third["id"], fold_to(1, {1: 1_200, 2: 0, 3: 600}))
    assert driver.confirm(third["id"])["reading"]["outright_winner_seat_number"] == 1
    # Another player won: the kill is off for hand 4.
    assert driver.start(table)["kill_seat"] is None
    # Fees: the button paid $1 each hand (schedule A, $4-$8, 1-4 players).
    assert sum(hp.fee_cents or 0 for h in Hand.objects.filter(table=table) for hp in h.players.all()) == 400
    assert Hand.objects.filter(table=table, status=HandStatus.SETTLED).count() == 3


def test_dealers_choice_records_the_button_pick(
    driver: Driver, make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    for seat in (1, 2):
        driver.buy_in(table, make_player(f"DC{seat}"), 8_000, seat=seat)
    hand = hand_flow.start_hand(table=table, by=None, game=Game.objects.get(slug="razz")).hand
    assert hand.game.slug == "razz"
    driver.clock_in(table)
    # Stud games need no board; the showdown reads razz.
    read = driver.showdown(
        hand.pk,
        {"players": [
            {"seat": 1, "cards": ["Ac", "2d", "3h", "4s", "5c", "Kd", "Kh"], "put_in": 1_000},
            {"seat": 2, "cards": ["6c", "7d", "8h", "9s", "Tc", "Qd", "Qh"], "put_in": 1_000},
        ]},
    )  # fmt: skip
    assert read["reading"]["net"] == {"1": 1_000, "2": -1_000}
