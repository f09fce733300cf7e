"""A shift of a 30-table room run from the floor's pages and the dealer terminals' API alone, as the
floor manager and thirty dealers run it (issue "The floor runs the room"), with no admin and no
whiteboard; then the day's list report, the cash-per-gaming-day report, the collection report and
the ledger all tie out.

The floor sets up thirty tables on the table page (twenty of $4-$8 limit hold'em, ten of $20-$100 no
limit hold'em, schedule A) and opens them; each table's dealer clocks in at its terminal. The floor
opens a list per game, puts sixty players on them (some by phone: a call-in is marked arrived when
they walk in), and seats each one from "Seats to fill": call the next player to the table, seat
them when they come. Each dealer sells the buy-ins and deals and settles a few hands at the
terminal, fees first. Then table 20 becomes a must-move table and its longest-seated player is moved
in to table 1 from "Seats to fill"; a player at table 21 asks for a table change and is moved in to
table 22 the same way, with their chips; both play a hand at their new table. At the end the floor
cashes everybody out on the table pages, ends the must-move, closes every table, and the dealers
clock out.

What must tie out, to the cent: what the cage sold (the buy-ins) is what it bought back (the
cash-outs) plus the fees the hands kept; the cash-per-gaming-day page shows those totals in and out;
the collection report shows those fees; the list report counts every add, arrival, call, seating,
must-move and table change; no chips are left at any table; ``verify_ledger`` finds nothing wrong.

Kept to a few hands a table so the suite runs it (marked ``slow``: it takes tens of seconds).
"""

from __future__ import annotations

import datetime as dt
import html
import itertools
import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from ledger.verification import verify_ledger
from tables import services
from tables.models import Game, Stakes
from tables.roles import DEALER
from tests.web.terminal.terminal_client import fees_shown

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

#: (first table, last table, game, stakes): twenty limit tables (20 is the must-move table), ten NL.
ROOM = ((1, 20, "holdem", "limit-4-8"), (21, 30, "holdem", "nl-20-100"))
SEATED = 2  # players seated from the lists at each table
HANDS = 2  # hands dealt and settled at each table
MUST_MOVE, MAIN = 20, 1  # the must-move table, and the main-game table its player moves to
CHANGE_FROM, CHANGE_TO = 21, 22  # a table change within the no-limit game


def page_text(response: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.content.decode()))


class Shift:
    """The floor (its pages, logged in; the API for what the terminals read), the dealers (one per
    table, the terminals' API), the auditor (the collection report), and the shift's tallies."""

    def __init__(self, users: dict[str, AbstractBaseUser]) -> None:
        self.floor = Client()
        self.floor.force_login(users["floor"])
        self.floor_api = self.api(users["floor"])
        self.auditor = self.api(users["auditor"])
        self.keys = (f"floor-shift-{n:05d}" for n in itertools.count())
        self.dealers: dict[int, APIClient] = {}
        dealers = Group.objects.get(name=DEALER)
        for number in self.numbers():
            dealer = get_user_model().objects.create_user(username=f"dealer{number:02d}", password=None)
            dealer.groups.add(dealers)
            self.dealers[number] = self.api(dealer)
        self.sold = self.bought_back = self.fees = self.hands = 0
        self.fees_by_table: dict[int, int] = {}

    @staticmethod
    def api(user: AbstractBaseUser) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    @staticmethod
    def numbers() -> list[int]:
        return [n for first, last, *_ in ROOM for n in range(first, last + 1)]

    @staticmethod
    def game_of(number: int) -> tuple[str, str]:
        return next((game, stakes) for first, last, game, stakes in ROOM if first <= number <= last)

    # --- The floor's pages ---------------------------------------------------------------------

    def floor_post(self, path: str, data: dict[str, Any]) -> Any:
        """A form posted on a floor page: done (a redirect), with the page's success message."""
        response = self.floor.post(path, data)
        assert response.status_code == 302, (path, data, response.status_code, page_text(response)[-800:])
        return response

    def calls(self, number: int) -> str:
        """Table ``number``'s part of "Seats to fill", as the floor reads it."""
        panel = page_text(self.floor.get("/floor/lists/calls/"))
        found = re.search(rf'<article class="seat-call" id="calls-table-{number}".*?</article>', panel)
        assert found is not None, f"table {number} is not in Seats to fill"
        return found.group(0)

    # --- The terminals' API --------------------------------------------------------------------

    def post(self, client: APIClient, path: str, body: dict[str, Any], status: int) -> dict[str, Any]:
        response = client.post(path, body, format="json", headers={"Idempotency-Key": next(self.keys)})
        assert response.status_code == status, (path, response.status_code, response.content[:500])
        return dict(response.json()) if response.content else {}

    def chips(self, number: int) -> dict[int, int]:
        """player id -> chips at table ``number``, as the terminal shows them."""
        return {p["player"]: p["chips_cents"] for p in self.seated(number)}

    def seated(self, number: int) -> list[dict[str, Any]]:
        """The players at table ``number`` as the terminal shows them (name, seat, chips)."""
        body = self.dealers[number].get(f"/api/terminal/tables/{number}/chips/").json()
        return list(body["players"])

    def play(self, number: int) -> None:
        """One hand at table ``number``: the fees shown are the fees taken, everyone but the button
        folds after putting in a chip, the dealer confirms the reading."""
        dealer = self.dealers[number]
        hand = self.post(dealer, f"/api/terminal/tables/{number}/hands/", fees_shown(dealer, number), 201)
        assert hand["fees_cents"] == sum(p["fee_cents"] for p in hand["players"]) > 0
        self.fees += hand["fees_cents"]
        self.fees_by_table[number] = self.fees_by_table.get(number, 0) + hand["fees_cents"]
        players = [
            {"seat": p["seat_number"], "put_in": 100}
            | ({} if p["seat_number"] == hand["button_seat"] else {"folded": True})
            for p in hand["players"]
        ]
        read = self.post(
            dealer, f"/api/terminal/hands/{hand['id']}/showdown/", {"board": [], "players": players}, 200
        )
        assert sum(read["reading"]["net"].values()) == 0
        done = self.post(
            dealer,
            f"/api/terminal/hands/{hand['id']}/confirm/",
            {"revision": read["reading"]["revision"]},
            200,
        )
        assert done["status"] == "settled"
        self.hands += 1


def report_days() -> tuple[dt.date, dt.date]:
    """Today on the room's clock and the gaming day (the shift may not cross either's end)."""
    return timezone.localdate(), services.gaming_day()


def test_a_thirty_table_shift_from_the_floor_pages_and_the_terminals_ties_out(
    users: dict[str, AbstractBaseUser], house: None
) -> None:
    started = report_days()
    shift = Shift(users)

    # The floor sets up the room on the table pages; each table's dealer clocks in at its terminal.
    for number in shift.numbers():
        game, stakes = shift.game_of(number)
        shift.floor_post(
            "/floor/tables/new/",
            {
                "number": number,
                "game": game,
                "stakes": stakes,
                "kill": "none",
                "collection_schedule": "A",
                "seat_count": 9,
                "chip": "1",
                "reason": "tonight's room",
            },
        )
        shift.floor_post(f"/floor/tables/{number}/", {"action": "open", "reason": "shift starts"})
        down = shift.post(shift.dealers[number], f"/api/terminal/tables/{number}/clock-in/", {}, 201)
        assert (down["table"], down["dealer"]) == (number, f"dealer{number:02d}")
    board = page_text(shift.floor.get("/board/panel/"))
    assert all(f'<tr data-table="{n}">' in board for n in shift.numbers())

    # A list per game; sixty players put on them in the tables' order, every fifth by phone.
    lists: dict[str, int] = {}
    for _, _, game, stakes in ROOM:
        shift.floor_post(
            "/floor/lists/",
            {
                "action": "create_list",
                "game": Game.objects.get(slug=game).pk,
                "stakes": Stakes.objects.get(code=stakes).pk,
            },
        )
    page = page_text(shift.floor.get("/floor/lists/"))
    for _, _, game, stakes in ROOM:
        label = f"{Game.objects.get(slug=game).name} {Stakes.objects.get(code=stakes).label}"
        found = re.search(rf'<option value="(\d+)">{re.escape(label)}</option>', page)
        assert found is not None, label
        lists[stakes] = int(found.group(1))
    call_ins = 0
    for number in shift.numbers():
        for k in range(1, SEATED + 1):
            by_phone = (number * SEATED + k) % 5 == 0
            call_ins += by_phone
            shift.floor_post(
                "/floor/lists/",
                {
                    "action": "add",
                    "player_name": f"Guest {number:02d}-{k}",
                    "lists": [lists[shift.game_of(number)[1]]],
                    "added_via": "phone" if by_phone else "in_person",
                },
            )
    # The call-ins walk in: the floor marks each one arrived on the lists page.
    page = shift.floor.get("/floor/lists/").content.decode()
    arriving = re.findall(
        r'name="entry" value="(\d+)"><button type="submit" name="action" value="arrive"', page
    )
    assert len(arriving) == call_ins > 0
    for entry in arriving:
        shift.floor_post("/floor/lists/", {"action": "arrive", "entry": entry})

    # Seats to fill: at each table, call the next player, and seat them when they come.
    for number in shift.numbers():
        for seat in range(1, SEATED + 1):
            offer = shift.calls(number)
            found = re.search(
                r'data-next="([^"]+)".*?name="entry" value="(\d+)"><input type="hidden" name="table" '
                rf'value="{number}">',
                offer,
            )
            assert found is not None, offer
            name, entry = found.groups()
            assert name == f"Guest {number:02d}-{seat}"  # in the list's order
            shift.floor_post("/floor/lists/", {"action": "call", "entry": entry, "table": number})
            if number == 1:  # the call shows at the table until they are seated
                assert f"Called: {name}" in shift.calls(number)
            shift.floor_post("/floor/lists/", {"action": "seat", "entry": entry, "seat_number": seat})
    board = page_text(shift.floor.get("/board/panel/"))
    assert "No one waiting" in board
    assert re.search(rf'<tr data-table="1">.*?open-seats">{9 - SEATED}<', board)

    # Each dealer sells the buy-ins (the table's minimum) and deals and settles a few hands.
    for number in shift.numbers():
        dealer = shift.dealers[number]
        rules = dealer.get(f"/api/terminal/tables/{number}/chips/").json()["rules"]
        for player in shift.chips(number):
            body = {"player": player, "amount_cents": rules["buy_in_min_cents"]}
            shift.post(dealer, f"/api/terminal/tables/{number}/buy-in/", body, 201)
            shift.sold += rules["buy_in_min_cents"]
        for _ in range(HANDS):
            shift.play(number)

    # A must-move table: its player seated longest moves in to the main game's table 1 first.
    shift.floor_post(
        "/floor/lists/", {"action": "set_must_move", "list": lists["limit-4-8"], "table": MUST_MOVE}
    )
    offer = shift.calls(MAIN)
    assert f"Next: <strong>Guest {MUST_MOVE}-1</strong> (must-move table {MUST_MOVE} since" in offer
    seating = re.search(r'name="seating" value="(\d+)"', offer)
    seats = re.findall(r'<option value="(\d+)">', offer)
    assert seating is not None
    assert seats
    [(mover, carried)] = [
        (p["player"], p["chips_cents"])
        for p in shift.seated(MUST_MOVE)
        if p["player_name"] == f"Guest {MUST_MOVE}-1"
    ]
    shift.floor_post(
        "/floor/lists/",
        {"action": "move_in", "seating": seating.group(1), "table": MAIN, "seat_number": seats[0]},
    )
    assert mover not in shift.chips(MUST_MOVE)
    assert shift.chips(MAIN)[mover] == carried

    # A table change: a player at table 21 asks for another table of the game; moved in to table 22.
    changer, carried = next(iter(shift.chips(CHANGE_FROM).items()))
    shift.floor_post(
        "/floor/lists/",
        {"action": "add", "player": changer, "lists": [lists["nl-20-100"]], "entry_kind": "table_change"},
    )
    # The board shows the request; the floor corrects the player's name on the player page, and
    # the board's next poll shows the new name.
    wall = Client()
    polled = wall.get("/board/panel/")
    assert "table change" in page_text(polled)
    shift.floor_post(
        f"/floor/players/{changer}/", {"action": "update", "name": "Quentin Changer", "member_number": ""}
    )
    polled = wall.get("/board/panel/", headers={"if-none-match": polled["ETag"]})
    assert polled.status_code == 200
    assert 'Quentin C. <span class="note">table change</span>' in page_text(polled)
    offer = shift.calls(CHANGE_TO)
    assert f"Next: <strong>Quentin Changer</strong> (table change from table {CHANGE_FROM})" in offer
    seating = re.search(r'name="seating" value="(\d+)"', offer)
    seats = re.findall(r'<option value="(\d+)">', offer)
    assert seating is not None
    assert seats
    shift.floor_post(
        "/floor/lists/",
        {"action": "move_in", "seating": seating.group(1), "table": CHANGE_TO, "seat_number": seats[0]},
    )
    assert changer not in shift.chips(CHANGE_FROM)
    assert shift.chips(CHANGE_TO)[changer] == carried
    for number in (MAIN, CHANGE_TO):  # the movers play at their new tables
        shift.play(number)

    # End of the shift: the floor cashes everybody out on the table pages, ends the must-move,
    # closes the tables; the dealers clock out.
    for number in shift.numbers():
        for player, cents in shift.chips(number).items():
            shift.floor_post(
                f"/floor/tables/{number}/",
                {"action": "cash_out", "token": uuid.uuid4().hex, "player": player, "confirm": "1"},
            )
            shift.bought_back += cents
        assert not shift.chips(number)
    lists_page = shift.floor.get("/floor/lists/").content.decode()
    must_move = re.search(r'name="must_move" value="(\d+)"', lists_page)
    assert must_move is not None
    shift.floor_post("/floor/lists/", {"action": "end_must_move", "must_move": must_move.group(1)})
    for number in shift.numbers():
        shift.floor_post(f"/floor/tables/{number}/", {"action": "close", "reason": "shift over"})
        shift.post(shift.dealers[number], f"/api/terminal/tables/{number}/clock-out/", {}, 200)
    assert "No game is running yet." in page_text(shift.floor.get("/board/panel/"))

    ended = report_days()
    if ended != started:
        pytest.skip("the shift crossed midnight or the gaming day's start: the day's reports split it")
    today, gaming_day = ended
    players = len(shift.numbers()) * SEATED

    # Every chip the cage sold came back to it or was kept by the house as a fee.
    assert shift.hands == len(shift.numbers()) * HANDS + 2
    assert shift.sold == shift.bought_back + shift.fees
    assert shift.fees > 0

    # The cash-per-gaming-day page: those totals in and out.
    cash_day = page_text(shift.floor.get("/floor/cash-day/", {"day": gaming_day.isoformat()}))
    totals = re.search(r'id="cash-day-totals">In \$([\d,.]+) · out \$([\d,.]+)', cash_day)
    assert totals is not None, cash_day[:2000]
    cents = [round(float(amount.replace(",", "")) * 100) for amount in totals.groups()]
    assert cents == [shift.sold, shift.bought_back]

    # The day's list report: every add, arrival, call and seating, the must-move and the change.
    report = page_text(shift.floor.get("/floor/lists/report/", {"day": today.isoformat()}))
    counts = dict(re.findall(r"\b(added|arrived|called|seated|must_moved|table_changed): (\d+)", report))
    assert counts == {
        "added": str(players + 1),
        "arrived": str(call_ins),
        "called": str(players),
        "seated": str(players),
        "must_moved": "1",
        "table_changed": "1",
    }

    # The collection report: the fees the hands kept, table by table; the ledger verifies.
    collection = shift.auditor.get(
        "/api/ledger/reports/collection/",
        {"date_from": (today - dt.timedelta(days=1)).isoformat(), "date_to": today.isoformat()},
    ).json()
    assert collection["totals"]["fees_collected_cents"] == shift.fees
    assert collection["totals"]["hands"] == shift.hands
    assert {row["table_number"]: row["net_collected_cents"] for row in collection["rows"]} == (
        shift.fees_by_table
    )
    verified = verify_ledger()
    assert verified.ok, verified.problems
