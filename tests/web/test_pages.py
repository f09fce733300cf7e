"""The dealer terminal and floor manager pages through Django's test client: every form goes
through the services, refusals show a message and change nothing, auditors change nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from casino.core.money import AmountError, parse_dollars
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from ledger.verification import verify_ledger
from poker.games import rules_for
from tables import services as floor_services
from tables.choices import HandStatus
from tables.models import CollectionSchedule, Hand, HandResult, Player, Seating, Table
from web.terminal.showdown_input import showdown_from_post


def logged_in(user: Any, *, clocked_in_at: Table | None = None) -> Client:
    """A browser logged in as ``user``; a dealer runs a table's hands once clocked in there."""
    client = Client()
    client.force_login(user)
    if clocked_in_at is not None:
        floor_services.clock_in(table=clocked_in_at, dealer=user, by=user)
    return client


def chips(table: Table, *players: Player) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def messages_of(client: Client, url: str) -> str:
    return page(client, url)


def deal(client: Client, number: int) -> Any:
    """Deal as a page without the script does: the start page shows the fees, "Collect the fees
    and deal" posts the fees it showed."""
    shown = page(client, f"/tables/{number}/start/")
    fees = dict(re.findall(r'name="(fee-\d+)" value="(\d+)"', shown))
    return client.post(f"/tables/{number}/start/", fees)


def digest_of(shown: str) -> str:
    """The preview's digest on a schedule page (what a save must send back)."""
    return re.search(r'name="preview_digest" value="([0-9a-f]+)"', shown).group(1)  # type: ignore[union-attr]


@pytest.fixture
def holdem_table(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> tuple[Table, list[Player]]:
    table = make_table(number=21, game="holdem", stakes="nl-20-100", schedule="A")
    players = [make_player(f"H{seat}") for seat in range(1, 6)]
    for seat, (player, amount) in enumerate(
        zip(players, (10_000, 2_000, 5_000, 8_000, 2_000), strict=True), 1
    ):
        hand_flow.buy_in(
            table=table,
            player=player,
            amount_cents=amount,
            seat_number=seat,
            by=users["floor"],
            idempotency_key=f"pages-{seat}",
        )
    return table, players


HOLDEM_FORM = {
    "board": "Ah Kd 7c 7s 2h",
    "cards_1": "9c 8c", "put_in_1": "98",
    "cards_2": "Qc Jd", "put_in_2": "20",
    "cards_3": "qd, jc", "put_in_3": "50.00",
    "cards_4": "10c 3d", "put_in_4": "80",
    "put_in_5": "5", "folded_5": "on",
}  # fmt: skip


def test_dealer_plays_a_holdem_hand_with_side_pots(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]]
) -> None:
    table, players = holdem_table
    dealer = logged_in(users["dealer"], clocked_in_at=table)
    terminal = page(dealer, "/tables/21/")
    assert 'id="fee-preview"' in terminal
    assert 'Deal: fees <span id="total-fees">$2</span>' in terminal
    confirm = page(dealer, "/tables/21/start/")
    assert 'id="fees-to-confirm"' in confirm
    assert ">$2<" in confirm
    assert Hand.objects.filter(table=table).count() == 0  # shown, not dealt
    assert deal(dealer, 21).status_code == 302
    hand = Hand.objects.get(table=table)
    assert hand.status == HandStatus.DEALT
    assert chips(table, *players) == [9_800, 2_000, 5_000, 8_000, 2_000]

    dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM_FORM)
    shown = page(dealer, "/tables/21/")
    assert "Payments in settlement order" in shown
    assert "Seat 2: Pair of sevens (7c 7s Ah Kd Qc)" in shown  # read aloud, with the five cards
    assert "main pot to seat 2 (H2)" in shown
    assert "$43" in shown
    assert "uncalled chips back to seat 1" in shown
    assert chips(table, *players) == [9_800, 2_000, 5_000, 8_000, 2_000]  # nothing posted yet

    revision = HandResult.objects.get(hand=hand).revision
    dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": revision})
    assert chips(table, *players) == [1_800, 4_300, 13_200, 6_000, 1_500]
    # A second terminal confirming the same reading posts nothing.
    count = JournalTransaction.objects.count()
    other = logged_in(users["floor"])
    other.post(f"/hands/{hand.pk}/confirm/", {"revision": revision})
    assert JournalTransaction.objects.count() == count
    assert "already settled" in page(other, "/tables/21/")
    assert verify_ledger().ok


def test_bad_cards_show_the_error_and_post_nothing(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem_table
    dealer = logged_in(users["dealer"], clocked_in_at=table)
    deal(dealer, 21)
    hand = Hand.objects.get(table=table)
    count = JournalTransaction.objects.count()
    for bad, expected in [
        ({"cards_2": "Qc Xd"}, "unknown card"),
        ({"cards_2": "Ah Jd"}, "Ah"),  # the ace of hearts is on the board
        ({"cards_2": "Qc Jd 4s"}, "needs 2 cards"),
        ({"put_in_2": "lots"}, "is not an amount in dollars"),
    ]:
        # Without the script the page is drawn again: the refusal, and the entry as posted.
        response = dealer.post(f"/hands/{hand.pk}/showdown/", HOLDEM_FORM | bad)
        assert response.status_code == 400
        shown = response.content.decode()
        assert expected in shown, (bad, expected)
        assert 'class="alert" id="refusal"' in shown
        field, value = next(iter(bad.items()))
        assert f'name="{field}" value="{value}"' in shown
        assert not HandResult.objects.filter(hand=hand).exists()
        hand.refresh_from_db()
        assert hand.status == HandStatus.DEALT
    assert JournalTransaction.objects.count() == count


CHINESE_FORM = {
    # A: king high / pair of twos / four eights
    "front_1": "Kc Qd 5h", "middle_1": "2c 2d 9s 7h 4c", "back_1": "8c 8d 8h 8s 3c",
    # B: three jacks / straight, ace high / flush
    "front_2": "Jc Jd Js", "middle_2": "Ah Kd Qh Jh Ts", "back_2": "2h 3h 6h 9h Th",
    # C: ace high / pair of threes / queens and sevens
    "front_3": "Ac Kh 4d", "middle_3": "3d 3s Td 6c 5d", "back_3": "Qs Qc 7c 7d 2s",
    # D: fouled (a pair of sixes in front over fives in the middle)
    "front_4": "6s 6d Tc", "middle_4": "5c 5s 4h Ks 7s", "back_4": "As Ad 9c 9d 4s",
}  # fmt: skip


CHINESE_FORM_2 = {
    # A: ace high / pair of tens / straight flush, nine high
    "front_1": "Ac Kd 2c", "middle_1": "Tc Th 3c 4d 7s", "back_1": "5h 6h 7h 8h 9h",
    # B: three queens / straight, ace high / jacks full of eights
    "front_2": "Qc Qd Qs", "middle_2": "Ah Kc Qh Jc Ts", "back_2": "Js Jh Jd 8s 8c",
    # C: five high / pair of kings / aces and nines
    "front_3": "5c 3s 4h", "middle_3": "Ks Kh 2h 6s 7d", "back_3": "As Ad 9s 9d 5d",
    # D: loses every segment to everyone
    "front_4": "2d 3h 5s", "middle_4": "2s 4c 6d 7c 8d", "back_4": "3d 4s 6c 9c Td",
}  # fmt: skip


def test_dealer_plays_chinese_poker_rounds_with_capped_payments(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    # $5 a point, collection option 2 (the button $2, each other player $1): the worked example of
    # tests/handflow/test_hand_flow.py, played from the pages.
    table = make_table(number=22, game="chinese-poker", stakes="points-5", schedule="CP2")
    players = [make_player(n) for n in "ABCD"]
    floor = logged_in(users["floor"])
    for seat, player in enumerate(players, 1):
        floor.post(
            "/floor/tables/22/",
            {
                "action": "buy_in",
                "token": f"cp{seat}",
                "player": str(player.pk),
                "seat_number": str(seat),
                "amount": "100",
            },
        )
    assert chips(table, *players) == [10_000] * 4
    dealer = logged_in(users["dealer"], clocked_in_at=table)
    deal(dealer, 22)
    hand1 = Hand.objects.get(table=table)
    assert [p.fee_cents for p in hand1.players.order_by("position")] == [200, 100, 100, 100]
    dealer.post(f"/hands/{hand1.pk}/showdown/", CHINESE_FORM)
    shown = page(dealer, "/tables/22/")
    assert "Seat 4 (D): fouled: " in shown
    dealer.post(f"/hands/{hand1.pk}/confirm/", {"revision": "1"})
    assert chips(table, *players) == [14_800, 15_900, 6_900, 1_900]

    # D can't pay and keep 9 points: the terminal says so; the floor sells D the short rebuy.
    assert "Not dealt in: has $19" in page(dealer, "/tables/22/")
    floor.post(
        "/floor/tables/22/", {"action": "rebuy", "token": "cp5", "player": str(players[3].pk), "amount": "50"}
    )
    assert chips(table, players[3]) == [6_900]
    deal(dealer, 22)
    hand2 = Hand.objects.filter(table=table).order_by("-number").first()
    assert hand2 is not None
    assert hand2.button_seat.number == 2
    dealer.post(f"/hands/{hand2.pk}/showdown/", CHINESE_FORM_2)
    shown = page(dealer, "/tables/22/")
    # Chinese poker's dealer and action buttons are one position, shown once, at seat 2.
    assert shown.count('id="dealer-button"') == 1
    seat_2 = shown[shown.index('data-seat="2"') : shown.index('data-seat="3"')]
    assert "Dealer and action button" in seat_2
    # C and D are all in: C pays A $20 of the $30 due, D pays A $20 of the $40 due.
    assert "capped (due $30)" in shown
    assert "capped (due $40)" in shown
    dealer.post(f"/hands/{hand2.pk}/confirm/", {"revision": "1"})
    hand2.refresh_from_db()
    assert hand2.status == HandStatus.SETTLED
    assert chips(table, *players) == [19_200, 21_200, 3_300, 300]
    assert verify_ledger().ok


def test_misdeal_from_the_terminal_returns_the_fees(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]]
) -> None:
    table, players = holdem_table
    dealer = logged_in(users["dealer"], clocked_in_at=table)
    deal(dealer, 21)
    hand = Hand.objects.get(table=table)
    dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason": "two cards exposed on the deal"})
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT  # no reason code, no misdeal
    dealer.post(f"/hands/{hand.pk}/misdeal/", {"reason_code": "other", "reason": ""})
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT  # "other" needs the dealer's words
    dealer.post(
        f"/hands/{hand.pk}/misdeal/", {"reason_code": "other", "reason": "two cards exposed on the deal"}
    )
    hand.refresh_from_db()
    assert hand.status == HandStatus.VOID
    assert chips(table, *players) == [10_000, 2_000, 5_000, 8_000, 2_000]


def test_floor_manager_changes_a_schedule_and_the_next_hand_uses_it(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem_table
    floor = logged_in(users["floor"])
    shown = page(floor, "/floor/schedules/A/")
    assert 'id="notice"' in shown
    assert "from the button" in shown
    schedule = CollectionSchedule.objects.get(code="A")
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    rates = list(latest.rates.order_by("pk"))
    # the rate that covers this table ($20-$100 no limit, 5 players): find its index
    index = next(
        i for i, r in enumerate(rates) if r.structure == "nl_pl" and r.players_min <= 5 <= r.players_max
    )
    form = {f"fee_{i}": str(r.fee_cents / 100) for i, r in enumerate(rates)}
    form |= {
        f"others_fee_{i}": str(r.others_fee_cents / 100) for i, r in enumerate(rates) if r.others_fee_cents
    }
    bad = floor.post("/floor/schedules/A/", form | {f"fee_{index}": "three", "reason": "new rates"})
    assert bad.status_code == 400
    assert "is not an amount in dollars" in bad.content.decode()
    assert schedule.versions.count() == latest.number
    no_reason = floor.post("/floor/schedules/A/", form | {f"fee_{index}": "3", "step": "save"})
    assert no_reason.status_code == 400
    # First the preview: table 21's band of 5-6 players goes from $2 to $3; nothing is saved yet.
    change = form | {f"fee_{index}": "3", "reason": "rate review"}
    preview = floor.post("/floor/schedules/A/", change | {"step": "preview"})
    assert preview.status_code == 200
    shown = preview.content.decode()
    assert 'id="revision-preview"' in shown
    row = shown[shown.index("<td>21</td>") : shown.index("</tr>", shown.index("<td>21</td>"))]
    assert "<td>5-6</td>" in row
    assert '<td class="old-fee">$2 from the button</td><td class="new-fee">$3 from the button</td>' in row
    assert 'id="fee-warnings"' not in shown  # $3 is well within the schedule's sense
    assert schedule.versions.count() == latest.number
    response = floor.post(
        "/floor/schedules/A/", change | {"step": "save", "preview_digest": digest_of(shown)}
    )
    assert response.status_code == 302
    assert schedule.versions.count() == latest.number + 1
    assert "rate review" in page(floor, "/floor/schedules/A/")

    dealer = logged_in(users["dealer"], clocked_in_at=table)
    deal(dealer, 21)
    hand = Hand.objects.get(table=table)
    assert next(p.fee_cents for p in hand.players.order_by("position")) == 300


def test_floor_manager_runs_a_table(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table(number=23, game="holdem", stakes="nl-20-100", schedule="A", open=False)
    floor = logged_in(users["floor"])
    assert "Closed tables" in page(floor, "/")
    floor.post("/floor/tables/23/", {"action": "open", "token": "t1"})
    table.refresh_from_db()
    assert table.is_open
    # a walk-in: a new player, seated and bought in together; the same form posted twice is one
    form = {
        "action": "buy_in",
        "token": "t2",
        "player": "",
        "player_name": "Walk In",
        "seat_number": "4",
        "amount": "60",
    }
    floor.post("/floor/tables/23/", form)
    walk_in = Player.objects.get(name="Walk In")
    floor.post("/floor/tables/23/", form | {"player": str(walk_in.pk), "player_name": ""})
    assert chips(table, walk_in) == [6_000]
    refused = floor.post(
        "/floor/tables/23/",
        {
            "action": "buy_in",
            "token": "t3",
            "player": "",
            "player_name": "Big",
            "seat_number": "5",
            "amount": "101",
        },
        follow=True,
    )
    assert 'class="error"' in refused.content.decode()
    floor.post(
        "/floor/tables/23/", {"action": "rebuy", "token": "t4", "player": str(walk_in.pk), "amount": "20"}
    )
    assert chips(table, walk_in) == [8_000]
    seating = Seating.objects.get(table=table, player=walk_in, left_at=None)
    floor.post(
        "/floor/tables/23/", {"action": "move", "token": "t5", "seating": str(seating.pk), "to_seat": "7"}
    )
    assert Seating.objects.get(table=table, player=walk_in, left_at=None).seat.number == 7
    cash_out = {"action": "cash_out", "token": "t6", "player": str(walk_in.pk)}
    assert "Cash out Walk In: $80.00" in floor.post("/floor/tables/23/", cash_out).content.decode()
    assert chips(table, walk_in) == [8_000]  # asked first; nothing done before the confirm
    floor.post("/floor/tables/23/", cash_out | {"confirm": "1"})
    assert chips(table, walk_in) == [0]
    assert not Seating.objects.filter(table=table, player=walk_in, left_at=None).exists()
    floor.post("/floor/tables/23/", {"action": "close", "token": "t7"})
    table.refresh_from_db()
    assert not table.is_open
    assert verify_ledger().ok


def test_floor_manager_changes_a_players_table_with_the_chips(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]], make_table: Callable[..., Table]
) -> None:
    table, players = holdem_table
    other = make_table(number=24, game="holdem", stakes="nl-20-100", schedule="A")
    floor = logged_in(users["floor"])
    shown = page(floor, "/floor/tables/21/")
    assert 'value="change_table"' in shown
    assert '<option value="24">24: ' in shown
    h1, h4 = players[0], players[3]
    seating = Seating.objects.get(table=table, player=h1, left_at=None)
    form = {"action": "change_table", "token": "tc", "seating": str(seating.pk), "to_table": "24"}

    moved = floor.post("/floor/tables/21/", form | {"to_table_seat": "3"}, follow=True)

    assert "H1 moved to table 24 seat 3 with their chips ($100.00 there now)." in moved.content.decode()
    assert chips(table, h1) == [0]
    assert chips(other, h1) == [10_000]
    assert Seating.objects.get(player=h1, left_at=None).table == other
    # Seat 3 over there is now taken: refused with the reason, nothing moves.
    seating = Seating.objects.get(table=table, player=h4, left_at=None)
    count = JournalTransaction.objects.count()
    refused = floor.post(
        "/floor/tables/21/", form | {"seating": str(seating.pk), "to_table_seat": "3"}, follow=True
    )
    assert "Seat 3 at table 24 is taken by H1." in refused.content.decode()
    assert JournalTransaction.objects.count() == count
    assert chips(table, h4) == [8_000]
    missing = floor.post("/floor/tables/21/", form | {"seating": str(seating.pk)}, follow=True)
    assert "Choose the table and type the seat to move to." in missing.content.decode()
    assert verify_ledger().ok


def test_auditor_reads_but_changes_nothing(
    users: dict[str, Any], holdem_table: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem_table
    auditor = logged_in(users["auditor"])
    shown = page(auditor, "/tables/21/")
    assert 'id="deal"' not in shown
    assert "showdown-form" not in shown
    assert page(auditor, "/floor/schedules/A/").count("save-version") == 0
    count = JournalTransaction.objects.count()
    versions = CollectionSchedule.objects.get(code="A").versions.count()
    for url, data in [
        ("/tables/21/start/", {}),
        ("/floor/tables/21/", {"action": "close", "token": "x"}),
        ("/floor/schedules/A/", {"reason": "no", "fee_0": "9"}),
    ]:
        assert auditor.post(url, data).status_code == 403, url
    assert auditor.get("/tables/21/start/").status_code == 403
    assert auditor.get("/floor/tables/21/").status_code == 403
    assert JournalTransaction.objects.count() == count
    assert CollectionSchedule.objects.get(code="A").versions.count() == versions
    assert Hand.objects.filter(table=table).count() == 0
    table.refresh_from_db()
    assert table.is_open


def test_form_input_helpers() -> None:
    assert parse_dollars("12", what="x") == 1200
    assert parse_dollars("$12.5", what="x") == 1250
    assert parse_dollars("1,250.05", what="x") == 125_005
    for bad in ("-1", "1.234", "", "ten"):
        with pytest.raises(AmountError):
            parse_dollars(bad, what="x")
    shown = showdown_from_post(
        rules=rules_for("holdem"),
        seats=[1, 2],
        data={"board": "Ah Kd 7c", "cards_1": "As,Ks", "put_in_1": "2", "folded_2": "on", "put_in_2": "1"},
    )
    assert shown == {
        "players": [
            {"seat": 1, "put_in": 200, "cards": ["As", "Ks"]},
            {"seat": 2, "put_in": 100, "folded": True},
        ],
        "board": ["Ah", "Kd", "7c"],
    }


def test_dealer_plays_a_taiwanese_poker_hand(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    # $5 a point, option 1 ($1 each); the worked example of tests/handflow/test_hand_flow_rules.py.
    table = make_table(number=24, game="taiwanese-poker", stakes="points-5", schedule="CP1")
    players = [make_player(n) for n in ("T1", "T2", "T3")]
    for seat, player in enumerate(players, 1):
        hand_flow.buy_in(
            table=table, player=player, amount_cents=10_000, seat_number=seat, by=users["floor"],
            idempotency_key=f"tw-{seat}",
        )  # fmt: skip
    dealer = logged_in(users["dealer"], clocked_in_at=table)
    deal(dealer, 24)
    hand = Hand.objects.get(table=table)
    terminal = page(dealer, "/tables/24/")
    assert 'id="top_1"' in terminal
    assert 'id="bottom_3"' in terminal
    assert 'id="board"' in terminal
    dealer.post(
        f"/hands/{hand.pk}/showdown/",
        {
            "board": "Ac Ad Kh 3s 2d",
            "top_1": "Qs", "middle_1": "As Kd", "bottom_1": "9c 9d 4s 5s",
            "top_2": "Jh", "middle_2": "7c 7d", "bottom_2": "Ks Kc 6h 8h",
            "top_3": "2c", "middle_3": "3c 4c", "bottom_3": "Th Jc Qc 5d",
        },
    )  # fmt: skip
    shown = page(dealer, "/tables/24/")
    assert "board 1 top" in shown
    dealer.post(f"/hands/{hand.pk}/confirm/", {"revision": "1"})
    assert chips(table, *players) == [9_900 + 1_500, 9_900 + 1_500, 9_900 - 3_000]
    assert verify_ledger().ok


def test_showdown_entry_for_chinese_declarations_and_taiwanese_boards() -> None:
    chinese = showdown_from_post(
        rules=rules_for("chinese-poker"),
        seats=[1, 2, 3],
        data={
            "front_1": "Kc Qd 5h", "middle_1": "2c 2d 9s 7h 4c", "back_1": "8c 8d 8h 8s 3c",
            "declare_2": "dragon", "cards_2": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad",
            "surrender_3": "on",
            "front_3": "Ac Kh 4d", "middle_3": "3d 3s Td 6c 5d", "back_3": "Qs Qc 7c 7d 2s",
        },
    )  # fmt: skip
    assert chinese["players"][0] == {
        "seat": 1, "front": ["Kc", "Qd", "5h"], "middle": ["2c", "2d", "9s", "7h", "4c"],
        "back": ["8c", "8d", "8h", "8s", "3c"],
    }  # fmt: skip
    assert chinese["players"][1]["declare"] == "dragon"
    assert len(chinese["players"][1]["cards"]) == 13
    assert chinese["players"][2]["surrender"] is True
    assert len(chinese["players"][2]["cards"]) == 13  # the three rows together
    two_boards = showdown_from_post(
        rules=rules_for("taiwanese-poker"),
        seats=[1],
        data={"board": "Ac Ad Kh 3s 2d", "board_2": "5c 6c 7c 8d 9d", "top_1": "Qs"},
    )
    assert two_boards["boards"] == [["Ac", "Ad", "Kh", "3s", "2d"], ["5c", "6c", "7c", "8d", "9d"]]
    assert "board" not in two_boards
