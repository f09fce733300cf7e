"""The dealer terminals' API: Idempotency-Key on every write, permissions, 4xx errors, schema."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from tables import services
from tables import services as floor_services
from tables.models import ChipMovement, Hand, Player, Table
from tests.web.terminal.terminal_client import fees_shown
from web.models import IdempotentRequest

_keys = (f"test-key-{n:08d}" for n in itertools.count())

SHOWDOWN = {
    "board": ["Ah", "Kd", "7c", "7s", "2h"],
    "players": [
        {"seat": 1, "cards": ["9c", "8c"], "put_in": 1_000},
        {"seat": 2, "cards": ["Qc", "Jd"], "put_in": 1_000},
    ],
}


def post(client: APIClient, url: str, body: dict[str, Any], key: str | None = None) -> Any:
    extra = {} if key == "" else {"HTTP_IDEMPOTENCY_KEY": key or next(_keys)}
    return client.post(url, body, format="json", **extra)


@pytest.fixture
def table(make_table: Callable[..., Table], on_duty: Callable[..., Any]) -> Table:
    table = make_table(number=41, game="holdem", stakes="nl-20-100", schedule="A")
    on_duty(table)  # the dealer runs this table's hands
    return table


@pytest.fixture
def seated(table: Table, seat_players: Callable[..., list[Player]]) -> list[Player]:
    players = seat_players(table, [1, 2])
    for i, player in enumerate(players):
        hand_flow.buy_in(table=table, player=player, amount_cents=5_000, by=None, idempotency_key=f"seed-{i}")
    return players


@pytest.fixture
def client(client_for: Callable[[str | None], APIClient]) -> APIClient:
    return client_for("dealer")


class TestIdempotencyKey:
    def test_every_write_needs_the_header(
        self, client: APIClient, table: Table, seated: list[Player]
    ) -> None:
        count = JournalTransaction.objects.count()
        for url, body in [
            (f"/api/terminal/tables/{table.number}/rebuy/", {"player": seated[0].pk, "amount_cents": 5_000}),
            (f"/api/terminal/tables/{table.number}/hands/", fees_shown(client, table.number)),
        ]:
            missing = post(client, url, body, key="")
            assert (missing.status_code, missing.json()["code"]) == (400, "idempotency_key_required")
            assert missing.json()["field"] == "Idempotency-Key"
            bad = post(client, url, body, key="short")
            assert (bad.status_code, bad.json()["code"]) == (400, "idempotency_key_required")
        assert JournalTransaction.objects.count() == count
        assert not Hand.objects.filter(table=table).exists()

    def test_a_retry_returns_the_first_response_and_posts_nothing(
        self, client: APIClient, table: Table, seated: list[Player]
    ) -> None:
        url = f"/api/terminal/tables/{table.number}/rebuy/"
        body = {"player": seated[0].pk, "amount_cents": 5_000}
        first = post(client, url, body, key="rebuy-0001")
        assert first.status_code == 201, first.json()
        count = JournalTransaction.objects.count()
        again = post(client, url, body, key="rebuy-0001")
        assert again.status_code == 201
        assert again.json() == first.json()
        assert again["Idempotent-Replayed"] == "true"
        assert JournalTransaction.objects.count() == count
        assert ledger_selectors.player_chips(table=table, player=seated[0]) == 10_000
        # The ledger key of the rebuy is the client's key.
        assert JournalTransaction.objects.filter(idempotency_key="req:rebuy-0001").count() == 1

    def test_the_same_key_for_another_request_is_a_conflict(
        self, client: APIClient, table: Table, seated: list[Player]
    ) -> None:
        url = f"/api/terminal/tables/{table.number}/rebuy/"
        assert (
            post(client, url, {"player": seated[0].pk, "amount_cents": 2_500}, key="k-000001").status_code
            == 201
        )
        other = post(client, url, {"player": seated[0].pk, "amount_cents": 3_000}, key="k-000001")
        assert (other.status_code, other.json()["code"]) == (409, "idempotency_conflict")
        start = f"/api/terminal/tables/{table.number}/hands/"
        elsewhere = post(client, start, fees_shown(client, table.number), key="k-000001")
        assert elsewhere.status_code == 409
        assert ledger_selectors.player_chips(table=table, player=seated[0]) == 7_500

    def test_a_refused_request_leaves_its_key_unused(
        self, client: APIClient, table: Table, seated: list[Player]
    ) -> None:
        start = f"/api/terminal/tables/{table.number}/hands/"
        hand = post(client, start, fees_shown(client, table.number)).json()
        url = f"/api/terminal/tables/{table.number}/rebuy/"
        body = {"player": seated[0].pk, "amount_cents": 5_000}
        locked = post(client, url, body, key="during-hand")
        assert (locked.status_code, locked.json()["code"]) == (409, "chips_locked")
        assert not IdempotentRequest.objects.filter(key="during-hand").exists()
        post(client, f"/api/terminal/hands/{hand['id']}/showdown/", SHOWDOWN)
        post(client, f"/api/terminal/hands/{hand['id']}/confirm/", {})
        assert post(client, url, body, key="during-hand").status_code == 201


class TestHandEndpoints:
    def test_a_full_hand(self, client: APIClient, table: Table, seated: list[Player]) -> None:
        preview = client.get(f"/api/terminal/tables/{table.number}/fees/")
        assert preview.status_code == 200
        assert preview.json()["rate"]["label"] == "$1 from the button"
        assert preview.json()["total_fees_cents"] == 100
        start = f"/api/terminal/tables/{table.number}/hands/"
        started = post(client, start, {"expected_fees": preview.json()["dealt"]})
        assert started.status_code == 201, started.json()
        hand = started.json()
        assert (hand["status"], hand["fees_cents"]) == ("dealt", 100)

        wrong = post(client, f"/api/terminal/hands/{hand['id']}/showdown/", SHOWDOWN | {"board": ["Xx"]})
        assert (wrong.status_code, wrong.json()["code"]) == (400, "invalid_showdown")
        assert "unknown card 'Xx'" in wrong.json()["detail"]
        extra = {"seat": 3, "cards": ["2c", "2d"], "put_in": 0}
        not_dealt = post(client, f"/api/terminal/hands/{hand['id']}/showdown/", SHOWDOWN | {
            "players": [*SHOWDOWN["players"], extra]})  # fmt: skip
        assert "was not dealt into this hand" in not_dealt.json()["detail"]
        stack = post(client, f"/api/terminal/hands/{hand['id']}/showdown/", {
            "board": SHOWDOWN["board"], "players": [{**SHOWDOWN["players"][0], "stack": 99_999},
                                                    SHOWDOWN["players"][1]]})  # fmt: skip
        assert "unknown field(s) stack" in stack.json()["detail"]

        read = post(client, f"/api/terminal/hands/{hand['id']}/showdown/", SHOWDOWN)
        assert read.status_code == 200
        assert read.json()["reading"]["revision"] == 1
        assert read.json()["reading"]["net"] == {"1": -1_000, "2": 1_000}
        # A corrected entry before confirming replaces the reading (revision 2).
        corrected = SHOWDOWN | {
            "players": [{**SHOWDOWN["players"][0], "cards": ["Ac", "Ad"]}, SHOWDOWN["players"][1]]
        }
        reread = post(client, f"/api/terminal/hands/{hand['id']}/showdown/", corrected)
        assert reread.json()["reading"]["revision"] == 2
        assert reread.json()["reading"]["net"] == {"1": 1_000, "2": -1_000}
        stale = post(client, f"/api/terminal/hands/{hand['id']}/confirm/", {"revision": 1})
        assert (stale.status_code, stale.json()["code"]) == (409, "reading_changed")

        confirmed = post(client, f"/api/terminal/hands/{hand['id']}/confirm/", {"revision": 2})
        assert confirmed.status_code == 200
        assert confirmed.json()["status"] == "settled"
        assert confirmed.json()["reading"]["outright_winner_seat_number"] == 1
        shown = client.get(f"/api/terminal/hands/{hand['id']}/")
        assert (
            shown.json()["reading"]["ledger_transaction"] == confirmed.json()["reading"]["ledger_transaction"]
        )
        chips = client.get(f"/api/terminal/tables/{table.number}/chips/").json()
        # Seat 1 was the button and paid the $1 fee, then won $10.
        assert [(p["seat_number"], p["chips_cents"]) for p in chips["players"]] == [(1, 5_900), (2, 4_000)]
        assert chips["rules"]["buy_in_min_cents"] == 2_000
        assert chips["rules"]["buy_in_max_cents"] == 10_000

        voided = post(client, f"/api/terminal/hands/{hand['id']}/misdeal/", {"reason_code": "exposed_five"})
        assert (voided.status_code, voided.json()["code"]) == (409, "hand_settled")

    def test_not_found_and_bad_input(self, client: APIClient, table: Table, seated: list[Player]) -> None:
        assert post(client, "/api/terminal/tables/999/hands/", {"expected_fees": []}).status_code == 404
        assert post(client, "/api/terminal/hands/999999/confirm/", {}).json()["code"] == "hand_not_found"
        unknown = post(
            client, f"/api/terminal/tables/{table.number}/rebuy/", {"player": 999_999, "amount_cents": 1}
        )
        assert (unknown.status_code, unknown.json()["code"]) == (404, "player_not_found")
        shape = post(client, f"/api/terminal/tables/{table.number}/rebuy/", {"player": seated[0].pk})
        assert shape.status_code == 400
        bad_seat = client.get(f"/api/terminal/tables/{table.number}/fees/", {"sit_out": "x"})
        assert bad_seat.status_code == 400
        nobody = client.get(f"/api/terminal/tables/{table.number}/fees/", {"sit_out": "9"})
        assert (nobody.status_code, nobody.json()["field"]) == (400, "sit_out_seat_numbers")
        confirm_first = post(
            client, f"/api/terminal/tables/{table.number}/hands/", fees_shown(client, table.number)
        ).json()
        early = post(client, f"/api/terminal/hands/{confirm_first['id']}/confirm/", {})
        assert (early.status_code, early.json()["code"]) == (409, "no_reading")

    def test_preview_leaves_out_a_player_who_cannot_pay(
        self, client: APIClient, table: Table, seated: list[Player], make_player: Callable[..., Player]
    ) -> None:
        services.seat_player(table=table, seat_number=3, player=make_player("Broke"), by=None)
        preview = client.get(f"/api/terminal/tables/{table.number}/fees/").json()
        assert [d["seat_number"] for d in preview["dealt"]] == [1, 2]
        assert [(o["seat_number"], o["reason"]) for o in preview["left_out"]] == [(3, "cannot_pay")]
        assert preview["left_out"][0]["detail"] == "has $0; needs $1 ($0 fee and $1 in play)"
        alone = client.get(f"/api/terminal/tables/{table.number}/fees/", {"sit_out": "2"})
        assert (alone.status_code, alone.json()["code"]) == (409, "not_enough_players")
        assert "seat 2: sits this hand out; seat 3: has $0" in alone.json()["detail"]

    def test_the_floor_void_returns_fees(self, client: APIClient, table: Table, seated: list[Player]) -> None:
        start = f"/api/terminal/tables/{table.number}/hands/"
        hand = post(client, start, fees_shown(client, table.number)).json()
        void = client.post(f"/api/hands/{hand['id']}/void/", {"reason_code": "two_boxed"}, format="json")
        assert void.status_code == 200
        assert [ledger_selectors.player_chips(table=table, player=p) for p in seated] == [5_000, 5_000]


# (name, method, url template, body, roles allowed). {t} table number, {h} a dealt hand, {p} a seated
# player who bought in, {n} a seated player who has not, {q} an unseated player.
TERMINAL_REQUESTS = [
    ("chips", "get", "/api/terminal/tables/{t}/chips/", {}, {"dealer", "floor", "cage", "auditor", "admin"}),
    ("fees", "get", "/api/terminal/tables/{t}/fees/", {}, {"dealer", "floor", "cage", "auditor", "admin"}),
    ("hand", "get", "/api/terminal/hands/{h}/", {}, {"dealer", "floor", "cage", "auditor", "admin"}),
    ("buy-in", "post", "/api/terminal/tables/{t}/buy-in/", {"player": "{n}", "amount_cents": 2_000},
     {"dealer", "floor", "cage", "admin"}),
    ("seat and buy in", "post", "/api/terminal/tables/{t}/buy-in/",
     {"player": "{q}", "amount_cents": 2_000, "seat_number": 6}, {"floor", "admin"}),
    ("rebuy", "post", "/api/terminal/tables/{t}/rebuy/", {"player": "{p}", "amount_cents": 2_000},
     {"dealer", "floor", "cage", "admin"}),
    ("cash-out", "post", "/api/terminal/tables/{t}/cash-out/", {"player": "{p}"}, {"floor", "cage", "admin"}),
    ("start", "post", "/api/terminal/tables/{t}/hands/", {"expected_fees": "{fees}"},
     {"dealer", "floor", "admin"}),
    ("showdown", "post", "/api/terminal/hands/{h}/showdown/", SHOWDOWN, {"dealer", "floor", "admin"}),
    ("confirm", "post", "/api/terminal/hands/{h}/confirm/", {}, {"dealer", "floor", "admin"}),
    ("misdeal", "post", "/api/terminal/hands/{h}/misdeal/", {"reason_code": "different_back"},
     {"dealer", "floor", "admin"}),
]  # fmt: skip


@pytest.mark.parametrize("role", ["dealer", "floor", "cage", "auditor", "admin", "nobody", None])
@pytest.mark.parametrize("name", [r[0] for r in TERMINAL_REQUESTS])
def test_permissions(
    client_for: Callable[[str | None], APIClient],
    users: dict[str, Any],
    make_table: Callable[..., Table],
    seat_players: Callable[..., list[Player]],
    make_player: Callable[..., Player],
    role: str | None,
    name: str,
) -> None:
    from django.contrib.auth.models import Group

    from tables.roles import CAGE

    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    players = seat_players(table, [1, 2, 3, 4])
    for i, player in enumerate(players[:3]):
        hand_flow.buy_in(table=table, player=player, amount_cents=5_000, by=None, idempotency_key=f"p-{i}")
    # The hand is at a second table, so that the chip requests at the first one are not locked.
    other = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    for i, player in enumerate(seat_players(other, [1, 2])):
        hand_flow.buy_in(table=other, player=player, amount_cents=5_000, by=None, idempotency_key=f"o-{i}")
    hand = hand_flow.start_hand(table=other, by=None).hand
    # The dealer is clocked in where the request goes: the first table for the deal and the chips
    # (only its dealer, the floor or the cage moves a table's chips), else the hand's.
    at_first = name in ("start", "buy-in", "seat and buy in", "rebuy", "cash-out")
    floor_services.clock_in(table=table if at_first else other, dealer=users["dealer"], by=users["floor"])
    if name == "confirm":
        hand_flow.submit_showdown(hand=hand, submitted=SHOWDOWN, by=None)
    cage = users["nobody"].__class__.objects.create_user(username="cage", password="pw-cage")
    cage.groups.add(Group.objects.get(name=CAGE))
    _, method, url, body, allowed = next(r for r in TERMINAL_REQUESTS if r[0] == name)
    values = {
        "{t}": table.number,
        "{h}": hand.pk,
        "{p}": players[2].pk,
        "{n}": players[3].pk,
        "{q}": make_player("Q").pk,
        "{fees}": [
            {"seat_number": seat, "fee_cents": fee}
            for seat, fee in hand_flow.fees_as_shown(hand_flow.preview_fees(table=table)).items()
        ],
    }
    for placeholder, value in values.items():
        url = url.replace(placeholder, str(value))
    body = {k: values.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    client = APIClient()
    if role == "cage":
        client.force_authenticate(cage)
    elif role is not None:
        client = client_for(role)
    before = (JournalTransaction.objects.count(), ChipMovement.objects.count(), Hand.objects.count())
    hand_status = Hand.objects.get(pk=hand.pk).status
    response = getattr(client, method)(url, body, format="json", HTTP_IDEMPOTENCY_KEY=next(_keys))
    if role in allowed:
        assert response.status_code < 300, (role, name, response.status_code, response.json())
    else:
        assert response.status_code == 403, (role, name, response.status_code)
        assert (
            JournalTransaction.objects.count(),
            ChipMovement.objects.count(),
            Hand.objects.count(),
        ) == before
        assert Hand.objects.get(pk=hand.pk).status == hand_status


def test_schema_lists_the_terminal_with_the_idempotency_header(db: None, tmp_path: Any) -> None:
    target = tmp_path / "schema.json"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(target)
    )
    schema = json.loads(target.read_text())
    writes = {
        path: operation
        for path, item in schema["paths"].items()
        if path.startswith("/api/terminal/")
        for verb, operation in item.items()
        if verb == "post"
    }
    # The money writes need the header; clocking in and out and declaring a sweep are safe to
    # repeat as they are (the same down, nobody left to clock out, the declaration on record).
    repeatable = {"clock-in", "clock-out", "declare-sweep"}
    writes = {path: op for path, op in writes.items() if path.rstrip("/").rsplit("/", 1)[1] not in repeatable}
    assert len(writes) == 7  # buy-in, rebuy, cash-out, start, showdown, confirm, misdeal
    for path, operation in writes.items():
        headers = [p for p in operation["parameters"] if p["in"] == "header"]
        assert [(h["name"], h["required"]) for h in headers] == [("Idempotency-Key", True)], path
        assert {"400", "403", "404", "409"} <= set(operation["responses"]), path


def test_a_key_replays_only_to_the_user_who_used_it(
    client_for: Callable[[str | None], APIClient], table: Table, make_player: Callable[..., Player]
) -> None:
    """A dealer reusing a floor manager's Idempotency-Key got the stored 201 of a request a
    dealer may not make (seating a player): another user's key is a conflict, not a replay."""
    walk_in = make_player("Walk In")
    body = {"player": walk_in.pk, "amount_cents": 2_000, "seat_number": 6}
    url = f"/api/terminal/tables/{table.number}/buy-in/"
    assert post(client_for("floor"), url, body, key="shared-key-01").status_code == 201
    count = JournalTransaction.objects.count()
    stolen = post(client_for("dealer"), url, body, key="shared-key-01")
    assert (stolen.status_code, stolen.json()["code"]) == (409, "idempotency_conflict")
    assert "another user" in stolen.json()["detail"]
    again = post(client_for("floor"), url, body, key="shared-key-01")
    assert (again.status_code, again["Idempotent-Replayed"]) == (201, "true")
    assert JournalTransaction.objects.count() == count
