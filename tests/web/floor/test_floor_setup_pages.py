"""The floor runs the room from its pages: a table created and set up (game, stakes and kill,
schedule, seats, chip) with the change log in words; players found as typed, "same person?",
merged, their page; the buy-in's questions (same person, a second table, identification); cash per
gaming day. Through Django's test client: refusals change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables import services
from tables.models import CashDaySettings, Player, PlayerIdentification, PlayerMerge, Seating, Table


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def floor(users: dict[str, Any]) -> Client:
    return logged_in(users["floor"])


def text(response: Any) -> str:
    return str(response.content.decode())


def test_a_table_is_created_and_set_up_from_the_floor(floor: Client, house: None) -> None:
    form = text(floor.get("/floor/tables/new/"))
    assert 'name="number"' in form
    assert (
        "Seven card stud choice: the player with the button picks "
        "Seven card stud, Seven card stud hi-lo, Razz" in form
    )
    response = floor.post(
        "/floor/tables/new/",
        {"number": "12", "game": "stud-choice", "stakes": "limit-4-8", "kill": "half",
         "collection_schedule": "A", "seat_count": "8", "chip": "1", "reason": "evening stud"},
    )  # fmt: skip
    assert response.status_code == 302, text(response)
    table = Table.objects.get(number=12)
    assert (table.game.slug, table.stakes.code, table.seat_count, table.status) == (
        "stud-choice", "limit-4-8-half", 8, "closed",
    )  # fmt: skip
    response = floor.post(
        "/floor/tables/12/setup/",
        {"game": "holdem", "stakes": "limit-6-12", "kill": "full", "collection_schedule": "A",
         "seat_count": "10", "chip": "1", "reason": "hold'em tonight"},
        follow=True,
    )  # fmt: skip
    page = text(response)
    assert "Table 12: Texas Hold&#x27;em, $6-$12 limit, full kill, saved." in page
    assert "Game: Seven card stud choice -&gt; Texas Hold&#x27;em" in page
    assert "Stakes: $4-$8 limit, half kill -&gt; $6-$12 limit, full kill" in page
    assert "hold&#x27;em tonight" in page
    assert Table.objects.get(number=12).seats.count() == 10


def test_the_setup_page_refuses_with_the_field_at_fault(
    floor: Client, make_table: Callable[..., Table]
) -> None:
    table = make_table(number=14, game="holdem", stakes="nl-100-500", schedule="A")
    response = floor.post(
        f"/floor/tables/{table.number}/setup/",
        {"game": "holdem", "stakes": "nl-100-500", "kill": "half", "collection_schedule": "A",
         "seat_count": "10", "chip": "1", "reason": "kill"},
    )  # fmt: skip
    assert response.status_code == 400
    assert 'id="error-kill"' in text(response)
    response = floor.post(
        f"/floor/tables/{table.number}/setup/",
        {"game": "holdem", "stakes": "nl-100-500", "kill": "none", "collection_schedule": "A",
         "seat_count": "10", "chip": "1", "reason": ""},
    )  # fmt: skip
    assert response.status_code == 400
    assert "Give a reason" in text(response)
    table.refresh_from_db()
    assert table.stakes.code == "nl-100-500"


@pytest.mark.parametrize("chip", ["\u00b2", "\u0663", "1.005", "-1"])
def test_a_chip_that_is_no_amount_is_a_form_error_on_both_setup_pages(
    floor: Client, make_table: Callable[..., Table], chip: str
) -> None:
    """The chip goes through the one money parser: a digit that is not ASCII's (``²``, ``٣``)
    is the field's error, never a server error, and nothing changes."""
    table = make_table(number=15, game="holdem", stakes="nl-100-500", schedule="A")
    response = floor.post(
        "/floor/tables/new/",
        {"number": "16", "game": "holdem", "stakes": "nl-100-500", "kill": "none",
         "collection_schedule": "A", "seat_count": "10", "chip": chip, "reason": "new"},
    )  # fmt: skip
    assert response.status_code == 400
    assert "is not an amount in dollars" in text(response)
    assert 'id="error-chip"' in text(response)
    assert not Table.objects.filter(number=16).exists()
    response = floor.post(
        f"/floor/tables/{table.number}/setup/",
        {"game": "holdem", "stakes": "nl-100-500", "kill": "none", "collection_schedule": "A",
         "seat_count": "10", "chip": chip, "reason": "chip"},
    )  # fmt: skip
    assert response.status_code == 400
    assert "is not an amount in dollars" in text(response)
    before = table.chip_unit_cents
    table.refresh_from_db()
    assert table.chip_unit_cents == before


def test_dealers_and_auditors_set_up_no_table(users: dict[str, Any], house: None) -> None:
    for role in ("dealer", "auditor"):
        client = logged_in(users[role])
        assert client.get("/floor/tables/new/").status_code == 403
        assert client.post("/floor/tables/new/", {"number": "90"}).status_code == 403
    assert not Table.objects.filter(number=90).exists()


def test_find_a_player_as_you_type(floor: Client) -> None:
    services.create_player(name="Ana Ruiz", member_number="M-77", phone="530-555-0142")
    services.create_player(name="Ben Ortiz")
    partial = text(floor.get("/floor/players/search/", {"q": "555 01"}, HTTP_HX_REQUEST="true"))
    assert "Ana Ruiz" in partial
    assert "Ben Ortiz" not in partial
    assert "<html" not in partial  # htmx gets the list alone
    assert "Ben Ortiz" in text(floor.get("/floor/players/", {"q": "ortiz"}))  # and without a script
    select = text(floor.get("/floor/players/search/", {"q": "m-77", "for": "select"}))
    assert select.startswith('<select id="bi-player" name="player">')
    assert "Ana Ruiz #M-77" in select


def test_a_new_name_that_matches_asks_same_person(floor: Client) -> None:
    ana = services.create_player(name="Ana Ruiz", member_number="M-1")
    response = floor.post("/floor/players/new/", {"name": "ana ruiz", "member_number": "", "phone": ""})
    page = text(response)
    assert 'id="same-person"' in page
    assert f'href="/floor/players/{ana.pk}/"' in page
    assert Player.objects.count() == 1
    response = floor.post(
        "/floor/players/new/", {"name": "ana ruiz", "member_number": "", "phone": "", "confirmed_new": "1"}
    )
    assert response.status_code == 302
    assert Player.objects.count() == 2


def test_the_player_page_and_a_merge(floor: Client, make_table: Callable[..., Table]) -> None:
    table = make_table(number=21, game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz", member_number="M-1", phone="530 555 0142")
    dup = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=table, player=dup, amount_cents=20_300, seat_number=4, by=None, idempotency_key="k"
    )
    found = text(floor.get(f"/floor/players/{ana.pk}/", {"merge_q": "ana ruiz"}))
    assert f'value="{dup.pk}"' in found
    assert f'value="{ana.pk}" id="merged-{ana.pk}"' not in found
    response = floor.post(
        f"/floor/players/{ana.pk}/",
        {"action": "merge", "merged": str(dup.pk), "reason": "same card"},
        follow=True,
    )
    page = text(response)
    assert "merged into Ana Ruiz" in page
    assert PlayerMerge.objects.get(merged=dup).survivor == ana
    # The page reads both records: seated at 21, $203 there, today's buy-in, the session.
    assert 'Table <a href="/floor/tables/21/">21</a> seat 4' in page
    assert "$203" in page
    assert "Bought $203" in page
    assert "same card" in page
    # The merged record's page is the survivor's.
    assert floor.get(f"/floor/players/{dup.pk}/").url == f"/floor/players/{ana.pk}/"


def test_merging_needs_the_floors_permission(users: dict[str, Any]) -> None:
    a, b = services.create_player(name="A"), services.create_player(name="B")
    response = logged_in(users["dealer"]).post(
        f"/floor/players/{a.pk}/", {"action": "merge", "merged": str(b.pk), "reason": "r"}
    )
    assert response.status_code == 403
    assert not PlayerMerge.objects.exists()


def buy_in(floor: Client, table: Table, **fields: str) -> Any:
    data = {
        "action": "buy_in",
        "token": "tok-1",
        "player": "",
        "player_name": "",
        "seat_number": "1",
        "amount": "200",
    }
    return floor.post(f"/floor/tables/{table.number}/", data | fields)


def test_the_buy_in_asks_same_person_for_a_walk_in(floor: Client, make_table: Callable[..., Table]) -> None:
    table = make_table(number=31, game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    response = buy_in(floor, table, player_name="ANA RUIZ")
    assert response.status_code == 409
    page = text(response)
    assert "Same person?" in page
    assert f'name="player" value="{ana.pk}"' in page
    assert not Seating.objects.exists()
    # "Yes": the same form, the player chosen.
    response = buy_in(floor, table, player_name="ANA RUIZ", player=str(ana.pk))
    assert response.status_code == 302
    assert ledger_selectors.player_chips(table=table, player=ana) == 20_000
    assert Player.objects.count() == 1


def test_the_buy_in_of_someone_else_with_the_same_name(
    floor: Client, make_table: Callable[..., Table]
) -> None:
    table = make_table(number=32, game="holdem", stakes="nl-100-500", schedule="A")
    services.create_player(name="Ana Ruiz")
    response = buy_in(floor, table, player_name="Ana Ruiz", confirmed_new="1")
    assert response.status_code == 302
    assert Player.objects.filter(name="Ana Ruiz").count() == 2


def test_the_buy_in_at_a_second_table_needs_a_reason(floor: Client, make_table: Callable[..., Table]) -> None:
    four = make_table(number=4, game="holdem", stakes="nl-100-500", schedule="A")
    one = make_table(number=1, game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=four, player=ana, amount_cents=20_300, seat_number=2, by=None, idempotency_key="k4"
    )
    response = buy_in(floor, one, player=str(ana.pk))
    assert response.status_code == 409
    assert "already sits at table 4 seat 2" in text(response)
    assert 'name="elsewhere_reason"' in text(response)
    assert ledger_selectors.player_chips(table=one, player=ana) == 0
    response = buy_in(floor, one, player=str(ana.pk), elsewhere_reason="moving, chips racked")
    assert response.status_code == 302
    assert ledger_selectors.player_chips(table=one, player=ana) == 20_000
    assert Seating.objects.active().get(table=one).elsewhere_reason == "moving, chips racked"
    # A retry of the same form is the same buy-in (the same token): nothing twice.
    buy_in(floor, one, player=str(ana.pk), elsewhere_reason="moving, chips racked")
    assert ledger_selectors.player_chips(table=one, player=ana) == 20_000


def test_the_buy_in_over_10000_today_needs_identification(
    floor: Client, make_table: Callable[..., Table]
) -> None:
    table = make_table(number=33, game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    response = buy_in(floor, table, player=str(ana.pk), amount="10,500")
    assert response.status_code == 409
    page = text(response)
    assert "to $10,500, over $10,000" in page
    assert 'name="id_number"' in page
    assert ledger_selectors.player_chips(table=table, player=ana) == 0
    # A refused movement records no identification either.
    buy_in(
        floor, table, player=str(ana.pk), amount="1", id_kind="passport", id_number="P1", id_issued_by="MX"
    )
    assert not PlayerIdentification.objects.exists()
    response = buy_in(
        floor,
        table,
        player=str(ana.pk),
        amount="10,500",
        id_kind="passport",
        id_number="P1",
        id_issued_by="MX",
    )
    # Last, the large amount (over 20 minimum buy-ins) is confirmed, the identification carried.
    assert response.status_code == 409
    page = text(response)
    assert "That is more than $4,000.00" in page
    assert '<input type="hidden" name="id_number" value="P1">' in page
    assert not PlayerIdentification.objects.exists()
    response = buy_in(
        floor,
        table,
        player=str(ana.pk),
        amount="10,500",
        id_kind="passport",
        id_number="P1",
        id_issued_by="MX",
        confirm="1",
    )
    assert response.status_code == 302
    assert ledger_selectors.player_chips(table=table, player=ana) == 1_050_000
    assert PlayerIdentification.objects.get().number == "P1"
    report = text(floor.get("/floor/cash-day/"))
    assert "Passport P1, MX" in report
    assert "$10,500" in report


def test_the_cash_day_settings_page(floor: Client, users: dict[str, Any]) -> None:
    response = floor.post(
        "/floor/cash-day/",
        {
            "gaming_day_start_hour": "8",
            "log_threshold": "2500",
            "report_threshold": "10000",
            "reason": "memo 12",
        },
    )
    assert response.status_code == 302
    rules = CashDaySettings.current()
    assert (rules.gaming_day_start_hour, rules.log_threshold_cents) == (8, 250_000)
    cage = logged_in(users["auditor"])
    assert cage.get("/floor/cash-day/").status_code == 200
    assert cage.post("/floor/cash-day/", {"gaming_day_start_hour": "1"}).status_code == 403


def test_a_walk_in_posted_twice_is_one_buy_in(floor: Client, make_table: Callable[..., Table]) -> None:
    table = make_table(number=34, game="holdem", stakes="nl-100-500", schedule="A")
    first = buy_in(floor, table, player_name="Kim Lee", token="twice")
    again = buy_in(floor, table, player_name="Kim Lee", token="twice")
    assert (first.status_code, again.status_code) == (302, 302)
    kim = Player.objects.get(name="Kim Lee")
    assert ledger_selectors.player_chips(table=table, player=kim) == 20_000
    assert "already posted" in text(floor.get(f"/floor/tables/{table.number}/"))


@pytest.mark.parametrize("seats", ["\u0663", "\u00b2", "8.0"])
def test_a_seat_count_or_table_number_that_is_no_whole_number_is_a_form_error(
    floor: Client, make_table: Callable[..., Table], seats: str
) -> None:
    """Numbers go through the one reading of a number: Django's own integer field reads ``٣`` as
    3; the set-up form refuses it, as the report filters do."""
    table = make_table(number=17, game="holdem", stakes="nl-100-500", schedule="A")
    seat_count = table.seat_count
    response = floor.post(
        f"/floor/tables/{table.number}/setup/",
        {"game": "holdem", "stakes": "nl-100-500", "kill": "none", "collection_schedule": "A",
         "seat_count": seats, "chip": "1", "reason": "seats"},
    )  # fmt: skip
    assert response.status_code == 400
    table.refresh_from_db()
    assert table.seat_count == seat_count
    response = floor.post(
        "/floor/tables/new/",
        {"number": seats, "game": "holdem", "stakes": "nl-100-500", "kill": "none",
         "collection_schedule": "A", "seat_count": "9", "chip": "1", "reason": "new"},
    )  # fmt: skip
    assert response.status_code == 400
    assert not Table.objects.filter(number=3).exists()
