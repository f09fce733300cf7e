"""A shift played through the HTTP API alone, as a room plays it, and every chip accounted for.

The floor manager opens three tables (two hold'em, one Chinese poker), creates the players and
seats them with their buy-ins; the dealers play hands (random showdowns within each player's
chips), call a misdeal, and the floor moves a player to another table mid-shift; at the end the
floor cashes everybody out. Then, to the cent: what the cage sold minus what it bought back is
exactly the fees the hands kept; the auditor's collection report shows those fees, table by table;
no chips are left at any table; the ledger verifies. Rebuys keep short stacks in play; after
the table change the moved player's first purchase at the new table is that session's buy-in.
"""

from __future__ import annotations

import datetime
import itertools
import random
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from rest_framework.test import APIClient

from ledger.verification import verify_ledger
from tests.web.terminal.terminal_client import fees_shown

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]
RANK = {r: i for i, r in enumerate("23456789TJQKA")}
TABLES = (  # number, game, stakes, schedule, buy-in per player
    (61, "holdem", "nl-20-100", "A", 10_000),
    (62, "holdem", "nl-20-100", "A", 6_000),
    (63, "chinese-poker", "points-5", "CP2", 20_000),
)
ROUNDS = 8


class Shift:
    def __init__(self, users: dict[str, AbstractBaseUser]) -> None:
        self.floor, self.dealer, self.auditor = (
            self.client(users[r]) for r in ("floor", "dealer", "auditor")
        )
        self.keys = (f"shift-request-{n:05d}" for n in itertools.count())

    @staticmethod
    def client(user: AbstractBaseUser) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    def post(self, client: APIClient, path: str, body: dict[str, Any], status: int) -> dict[str, Any]:
        response = client.post(path, body, format="json", headers={"Idempotency-Key": next(self.keys)})
        assert response.status_code == status, (path, response.status_code, response.json())
        return dict(response.json())

    def top_up(self, number: int, game: str) -> int:
        """The dealer clocked in at table ``number`` sells a rebuy to every player short of a
        playable stack; returns the cents sold."""
        short, amount = (5_000, 10_000) if game == "chinese-poker" else (2_000, 2_000)
        sold = 0
        for player, cents in self.chips(number).items():
            if cents >= short:
                continue
            body = {"player": player, "amount_cents": amount}
            self.post(self.dealer, f"/api/terminal/tables/{number}/rebuy/", body, 201)
            sold += amount
        return sold

    def chips(self, number: int) -> dict[int, int]:
        """player id -> chips at table ``number`` (the terminal's view)."""
        body = self.floor.get(f"/api/terminal/tables/{number}/chips/").json()
        return {p["player"]: p["chips_cents"] for p in body["players"]}


def showdown(game: str, players: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random showdown of the players dealt in, each putting in no more than their chips."""
    deck = rng.sample(DECK, len(DECK))
    if game == "chinese-poker":
        entries = []
        for k, p in enumerate(players):
            cards = deck[13 * k : 13 * k + 13]
            if rng.random() < 0.8:  # strongest at the back: usually a legal setting, sometimes a foul
                cards = sorted(cards, key=lambda c: RANK[c[0]], reverse=True)
            entries.append(
                {"seat": p["seat_number"], "back": cards[:5], "middle": cards[5:10], "front": cards[10:]}
            )
        return {"players": entries}
    live = [rng.random() < 0.7 for _ in players]
    live[rng.randrange(len(players))] = True
    # Pots of a few big blinds to all-in, in whole dollars, never more than the player's chips.
    put = [min(p["chips_cents"], rng.choice([200, 400, 1_000, 2_500, 10_000])) for p in players]
    top = max(amount for amount, alive in zip(put, live, strict=True) if alive)
    return {
        "board": deck[:5],
        "players": [
            {
                "seat": p["seat_number"],
                "cards": deck[5 + 2 * k : 7 + 2 * k],
                "put_in": amount if alive else min(amount, top),
            }
            | ({} if alive else {"folded": True})
            for k, (p, amount, alive) in enumerate(zip(players, put, live, strict=True))
        ],
    }


@pytest.mark.django_db
def test_a_shift_through_the_api_accounts_for_every_chip(
    users: dict[str, AbstractBaseUser], house: None
) -> None:
    shift, rng = Shift(users), random.Random(20261125)
    sold = bought_back = fees_kept = misdeal_fees = hands_settled = 0
    fees_by_table: dict[int, int] = {}

    for number, game, stakes, schedule, buy_in in TABLES:
        shift.post(
            shift.floor,
            "/api/tables/",
            {
                "number": number,
                "game": game,
                "stakes": stakes,
                "collection_schedule": schedule,
                "reason": "shift",
            },
            201,
        )
        shift.post(shift.floor, f"/api/tables/{number}/open/", {}, 200)
        for seat in range(1, 5 if game == "chinese-poker" else 7):
            player = shift.post(shift.floor, "/api/players/", {"name": f"T{number} S{seat}"}, 201)
            shift.post(
                shift.floor,
                f"/api/terminal/tables/{number}/buy-in/",
                {"player": player["id"], "amount_cents": buy_in, "seat_number": seat},
                201,
            )
            sold += buy_in

    for round_ in range(ROUNDS):
        for number, game, *_ in TABLES:
            # The dealer pushes from table to table: clocking in here ends the down at the last one.
            down = shift.post(shift.dealer, f"/api/terminal/tables/{number}/clock-in/", {}, 201)
            assert (down["table"], down["dealer"], down["clocked_out_at"]) == (number, "dealer", None)
            sold += shift.top_up(number, game)  # at the table the dealer is clocked in at
            hand = shift.post(
                shift.dealer, f"/api/terminal/tables/{number}/hands/", fees_shown(shift.dealer, number), 201
            )
            assert hand["fees_cents"] == sum(p["fee_cents"] for p in hand["players"]) > 0
            if round_ == 2 and number == 61:
                # A misdeal: the fees go back (the table doesn't keep them).
                voided = shift.post(
                    shift.dealer,
                    f"/api/terminal/hands/{hand['id']}/misdeal/",
                    {"reason_code": "two_exposed", "reason": "two cards exposed face up"},
                    200,
                )
                assert voided["status"] == "void"
                misdeal_fees += hand["fees_cents"]
                continue
            fees_kept += hand["fees_cents"]
            fees_by_table[number] = fees_by_table.get(number, 0) + hand["fees_cents"]
            read = shift.post(
                shift.dealer,
                f"/api/terminal/hands/{hand['id']}/showdown/",
                showdown(game, hand["players"], rng),
                200,
            )
            assert sum(read["reading"]["net"].values()) == 0
            done = shift.post(
                shift.dealer,
                f"/api/terminal/hands/{hand['id']}/confirm/",
                {"revision": read["reading"]["revision"]},
                200,
            )
            assert done["status"] == "settled"
            hands_settled += 1
        if round_ == 4:
            # The floor moves the shortest stack at table 61 to seat 8 of table 62, with every chip.
            mover, carried = min(((p, c) for p, c in shift.chips(61).items() if c > 0), key=lambda pc: pc[1])
            seatings = shift.floor.get("/api/seatings/", {"player": mover}).json()["results"]
            seating_id = next(s["id"] for s in seatings if s["table"] == 61 and s["left_at"] is None)
            shift.post(
                shift.floor, f"/api/seatings/{seating_id}/move/", {"to_table": 62, "to_seat_number": 8}, 201
            )
            assert shift.chips(61).get(mover, 0) == 0
            assert shift.chips(62)[mover] == carried
            # A new session at table 62: its first purchase is a buy-in (the floor's), not a rebuy.
            more = {"player": mover, "amount_cents": 2_000}
            refused = shift.floor.post(
                "/api/terminal/tables/62/rebuy/",
                more,
                format="json",
                headers={"Idempotency-Key": next(shift.keys)},
            )
            assert (refused.status_code, refused.json()["code"]) == (409, "no_buy_in")
            assert carried + 2_000 <= 10_000  # within the table's maximum, counting the chips brought
            shift.post(shift.floor, "/api/terminal/tables/62/buy-in/", more, 201)
            sold += 2_000
            assert shift.chips(62)[mover] == carried + 2_000

    # End of the shift: everybody with chips cashes out, wherever they sit now.
    for number, *_ in TABLES:
        for player, cents in shift.chips(number).items():
            if cents > 0:
                out = shift.post(
                    shift.floor, f"/api/terminal/tables/{number}/cash-out/", {"player": player}, 201
                )
                assert out["amount_cents"] == cents
                bought_back += cents
        assert not any(shift.chips(number).values())

    assert hands_settled == ROUNDS * len(TABLES) - 1
    # Every chip the cage sold came back to it or was kept by the house as a fee.
    assert sold - bought_back == fees_kept > 0
    today = timezone.localdate()
    report = shift.auditor.get(
        "/api/ledger/reports/collection/",
        {"date_from": (today - datetime.timedelta(days=1)).isoformat(), "date_to": today.isoformat()},
    ).json()
    totals = report["totals"]
    # Gross fees as taken before each deal, the misdeal's returned, nothing waived or unexplained.
    assert totals["fees_due_cents"] == totals["fees_collected_cents"] == fees_kept + misdeal_fees
    assert totals["fees_returned_cents"] == misdeal_fees
    assert (totals["hands"], totals["void_hands"], totals["waived_cents"]) == (ROUNDS * len(TABLES), 1, 0)
    assert {row["table_number"]: row["net_collected_cents"] for row in report["rows"]} == fees_by_table
    assert not any(row["unexplained_cents"] for row in report["rows"])
    verified = verify_ledger()
    assert verified.ok, verified.problems
