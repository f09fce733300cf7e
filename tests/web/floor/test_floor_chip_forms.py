"""The floor page's chip forms: a refused buy-in keeps what was typed, a too-large amount names
the table's limit, a large amount and every cash-out are asked about first (``confirm=1``, a
second POST: it works without JavaScript), and the cash-out list starts at nobody."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from casino.core.money import AmountError, parse_dollars
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from tables import services
from tables.models import ChipMovement, Player, PlayerIdentification, Seating, Table


def _floor(users: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(users["floor"])
    return client


def _text(response: Any) -> str:
    return html.unescape(response.content.decode())


def _value(page: str, input_id: str) -> str:
    match = re.search(rf'<input id="{input_id}"[^>]*value="([^"]*)"', page)
    return match.group(1) if match else ""


def test_a_refused_buy_in_keeps_the_walk_ins_name_the_seat_and_the_amount(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=31, stakes="nl-20-100")
    form = {"action": "buy_in", "token": "r1", "player": "", "player_name": "Kai Wong", "seat_number": "5",
            "amount": "5"}  # fmt: skip
    response = _floor(users).post(f"/floor/tables/{table.number}/", form)
    assert response.status_code == 400
    page = _text(response)
    assert "minimum buy-in" in page
    assert _value(page, "bi-name") == "Kai Wong"
    assert _value(page, "bi-amount") == "5"
    assert '<option value="5" selected>5</option>' in page
    assert not Player.objects.filter(name="Kai Wong").exists()


def _answer(page: str) -> dict[str, str]:
    """The hidden fields of the question's answer form: what it posts again with the answer."""
    match = re.search(r'<form method="post" id="answer-form">(.*?)</form>', page, re.DOTALL)
    assert match is not None
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', match.group(1)))


def test_the_questions_come_one_at_a_time_each_answer_carried(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    other = make_table(number=38, game="holdem", stakes="nl-100-500", schedule="A")
    table = make_table(number=37, game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=other, player=ana, amount_cents=20_000, seat_number=2, by=None, idempotency_key="q0"
    )
    floor, url = _floor(users), f"/floor/tables/{table.number}/"
    form = {"action": "buy_in", "token": "q1", "player": str(ana.pk), "player_name": "", "seat_number": "4",
            "amount": "12000"}  # fmt: skip
    # First the second table, then the identification (over the day's $10,000), last the amount.
    asked = floor.post(url, form)
    assert asked.status_code == 409
    assert "already sits at table 38 seat 2" in _text(asked)
    asked = floor.post(url, _answer(_text(asked)) | {"elsewhere_reason": "moving, chips racked"})
    assert asked.status_code == 409
    assert 'name="id_number"' in _text(asked)
    asked = floor.post(
        url, _answer(_text(asked)) | {"id_kind": "passport", "id_number": "P9", "id_issued_by": "MX"}
    )
    assert asked.status_code == 409
    page = _text(asked)
    assert "Buy in Ana Ruiz for $12,000.00 at table 37? That is more than $4,000.00" in page
    assert not PlayerIdentification.objects.exists()
    assert not Seating.objects.active().filter(table=table).exists()
    # "Yes": every answer given so far goes with the confirmation, and all is written at once.
    assert floor.post(url, _answer(page)).status_code == 302
    assert ledger_selectors.player_chips(table=table, player=ana) == 1_200_000
    assert Seating.objects.active().get(table=table).elsewhere_reason == "moving, chips racked"
    assert PlayerIdentification.objects.get().number == "P9"


def test_an_amount_the_table_refuses_is_refused_before_any_question(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=39, stakes="nl-20-100")
    ana = services.create_player(name="Ana Ruiz")
    form = {"action": "buy_in", "token": "q2", "player": "", "player_name": "ana ruiz", "seat_number": "1",
            "amount": "20000"}  # fmt: skip
    floor = _floor(users)
    # The name is asked about first (it decides who buys in), then the table's maximum refuses.
    asked = floor.post(f"/floor/tables/{table.number}/", form)
    assert asked.status_code == 409
    assert "Same person?" in _text(asked)
    refused = floor.post(f"/floor/tables/{table.number}/", form | {"player": str(ana.pk)})
    assert refused.status_code == 400
    page = _text(refused)
    assert "The most a player may have at this table is $100;" in page
    assert "Identification needed" not in page
    assert _value(page, "bi-amount") == "20000"


def test_a_ten_digit_amount_names_the_tables_limit(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=32, stakes="nl-20-100")
    form = {"action": "buy_in", "token": "r2", "player": "", "player_name": "Big", "seat_number": "2",
            "amount": "1000000000"}  # fmt: skip
    response = _floor(users).post(f"/floor/tables/{table.number}/", form)
    assert response.status_code == 400
    page = _text(response)
    assert "is not an amount" not in page
    assert "The most a player may have at this table is $100;" in page
    assert _value(page, "bi-amount") == "1000000000"


def test_an_amount_beyond_what_any_form_takes_is_called_too_large() -> None:
    with pytest.raises(AmountError, match=r"more than \$999,999,999,999, the most a form takes"):
        parse_dollars("1" + "0" * 12, what="amount")
    assert parse_dollars("1000000000", what="amount") == 100_000_000_000


def test_a_large_buy_in_at_a_points_table_is_asked_about_first(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=33, game="chinese-poker", stakes="points-5", schedule="CP2")
    floor = _floor(users)
    # Under the gaming day's $10,000 (a walk-in over it is sent to the Players page first).
    form = {"action": "buy_in", "token": "r3", "player": "", "player_name": "Lee", "seat_number": "1",
            "amount": "5000"}  # fmt: skip
    before = JournalTransaction.objects.count()
    asked = floor.post(f"/floor/tables/{table.number}/", form)
    assert asked.status_code == 409
    page = _text(asked)
    assert "Buy in Lee for $5,000.00 at table 33? That is more than $2,000.00" in page
    assert '<input type="hidden" name="confirm" value="1">' in page
    assert JournalTransaction.objects.count() == before
    assert not Player.objects.filter(name="Lee").exists()
    done = floor.post(f"/floor/tables/{table.number}/", form | {"confirm": "1"})
    assert done.status_code == 302
    lee = Player.objects.get(name="Lee")
    assert ledger_selectors.player_chips(table=table, player=lee) == 500_000


def test_a_usual_buy_in_is_not_asked_about(users: dict[str, Any], make_table: Callable[..., Table]) -> None:
    table = make_table(number=34, game="chinese-poker", stakes="points-5", schedule="CP2")
    form = {"action": "buy_in", "token": "r4", "player": "", "player_name": "Mo", "seat_number": "1",
            "amount": "200"}  # fmt: skip
    assert _floor(users).post(f"/floor/tables/{table.number}/", form).status_code == 302
    assert Player.objects.filter(name="Mo").exists()


def test_a_cash_out_names_the_player_and_the_amount_and_waits_for_confirm(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=35, stakes="nl-20-100")
    floor = _floor(users)
    floor.post("/floor/tables/35/", {"action": "buy_in", "token": "c1", "player": "", "player_name": "Ona",
                                      "seat_number": "3", "amount": "60"})  # fmt: skip
    ona = Player.objects.get(name="Ona")
    page = _text(floor.get("/floor/tables/35/"))
    # The cash-out list starts at nobody: a tap without a choice cashes out no one.
    assert re.search(r'<select id="rb-player" name="player"><option value="">choose a player</option>', page)
    form = {"action": "cash_out", "token": "c2", "player": str(ona.pk)}
    asked = floor.post("/floor/tables/35/", form)
    assert asked.status_code == 409
    assert "Cash out Ona: $60.00, all their chips at table 35? They leave the table." in _text(asked)
    assert Seating.objects.active().filter(table=table, player=ona).exists()
    assert not ChipMovement.objects.filter(player=ona, kind="cash_out").exists()
    assert floor.post("/floor/tables/35/", form | {"confirm": "1"}).status_code == 302
    assert ledger_selectors.player_chips(table=table, player=ona) == 0
    assert not Seating.objects.active().filter(table=table, player=ona).exists()


def test_a_cash_out_without_a_player_chosen_is_refused(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    make_table(number=36, stakes="nl-20-100")
    response = _floor(users).post("/floor/tables/36/", {"action": "cash_out", "token": "c3", "player": ""})
    assert response.status_code == 400
    assert "Choose a player" in _text(response)


def test_the_services_decide_and_the_page_asks_their_refusal(
    users: dict[str, Any], make_table: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's own questions are a courtesy: with them skipped (the state changed after the
    page asked), the money flow still refuses, and the page asks the same question; nothing is
    written until it is answered."""
    from web.floor.views import ManageTableView

    monkeypatch.setattr(ManageTableView, "_ask_first", lambda self, *args: None)
    other = make_table(number=40, game="holdem", stakes="nl-100-500", schedule="A")
    table = make_table(number=41, game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=other, player=ana, amount_cents=20_000, seat_number=2, by=None, idempotency_key="s0"
    )
    floor, url = _floor(users), f"/floor/tables/{table.number}/"
    players, movements = Player.objects.count(), ChipMovement.objects.count()
    walk_in = {"action": "buy_in", "token": "s1", "player": "", "player_name": "ruiz, ana",
               "seat_number": "4", "amount": "300"}  # fmt: skip
    asked = floor.post(url, walk_in)
    assert (asked.status_code, asked.context["question"].kind) == (409, "same_person")
    assert asked.context["question"].candidates == [ana]
    form = walk_in | {"player": str(ana.pk), "player_name": "", "amount": "12000"}
    asked = floor.post(url, form)
    assert (asked.status_code, asked.context["question"].kind) == (409, "elsewhere")
    asked = floor.post(url, form | {"elsewhere_reason": "moving, chips racked"})
    assert (asked.status_code, asked.context["question"].kind) == (409, "identification")
    assert "over $10,000" in asked.context["question"].message
    assert (Player.objects.count(), ChipMovement.objects.count()) == (players, movements)
    assert not Seating.objects.active().filter(table=table).exists()
