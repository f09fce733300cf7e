"""Who reads a player's identification numbers and cash day: the floor, the cage and auditors; a
dealer reads names (the player search, the names at the table), nothing more.

Issue #32: a dealer opened ``/floor/players/33/`` (200) and read "Driver's license D1234567, CA,
expires 2029-01-31", the currency-transaction status and the cash totals; the player API's
overview and the cash check answered a dealer the same. Each URL below is asked by each role: its
status, and whether the identification's number is in the body.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from tables import services
from tables.models import Player, PlayerIdentification, Table

pytestmark = pytest.mark.django_db

NUMBER = "D1234567"
ROLES = ("dealer", "floor", "cage", "auditor", "admin")
#: Who reads identification numbers and a player's cash day.
ID_READERS = {"floor", "cage", "auditor", "admin"}
EVERYONE = set(ROLES)

#: (url, who gets 200 (the others 403), whether the 200 shows the identification's number).
URLS: list[tuple[str, set[str], bool]] = [
    ("/floor/players/", EVERYONE, False),
    ("/floor/players/?q=Kai", EVERYONE, False),
    ("/floor/players/search/?q=Kai", EVERYONE, False),
    ("/floor/players/search/?q=Kai&for=select", EVERYONE, False),
    ("/floor/players/{player}/", ID_READERS, True),
    ("/floor/cash-day/", ID_READERS, False),
    ("/floor/tables/{table}/", {"floor", "admin"}, False),
    ("/api/players/", EVERYONE, False),
    ("/api/players/{player}/", EVERYONE, False),
    ("/api/players/{player}/overview/", ID_READERS, True),
    ("/api/players/search/?q=Kai", EVERYONE, False),
    ("/api/players/similar/?name=Kai", EVERYONE, False),
    ("/api/identifications/", ID_READERS, True),
    ("/api/identifications/{identification}/", ID_READERS, True),
    ("/api/cash-day/settings/", EVERYONE, False),
    ("/api/cash-day/report/", ID_READERS, True),
    ("/api/cash-day/check/?player={player}&kind=buy_in&amount_cents=100", ID_READERS, False),
]


@pytest.fixture
def clients(users: dict[str, AbstractBaseUser], cage_cashier: AbstractBaseUser) -> dict[str, Client]:
    made = {}
    for role in ROLES:
        client = Client()
        client.force_login(cage_cashier if role == "cage" else users[role])
        made[role] = client
    return made


@pytest.fixture
def kai(
    users: dict[str, AbstractBaseUser],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
) -> dict[str, int]:
    """Kai Wong, seated at table 7 with a buy-in today, his driver's license recorded."""
    table = make_table(number=7)
    (player,) = buy_in_players(table, [1])
    player = services.update_player(player=player, by=users["floor"], name="Kai Wong")
    services.record_identification(
        player=player,
        by=users["floor"],
        kind="drivers_license",
        number=NUMBER,
        issued_by="CA",
        expires_on=dt.date(2029, 1, 31),
    )
    identification = PlayerIdentification.objects.get(player=player)
    return {"player": player.pk, "table": table.number, "identification": identification.pk}


@pytest.mark.parametrize(("url", "allowed", "shows_number"), URLS, ids=[u for u, _, _ in URLS])
def test_each_role_reads_what_its_job_needs(
    clients: dict[str, Client], kai: dict[str, int], url: str, allowed: set[str], shows_number: bool
) -> None:
    seen = {}
    for role in ROLES:
        response = clients[role].get(url.format(**kai))
        seen[role] = (response.status_code, NUMBER in response.content.decode())
    expected = {role: (200, shows_number) if role in allowed else (403, False) for role in ROLES}
    assert seen == expected


def test_a_dealer_reads_no_players_record(clients: dict[str, Client], kai: dict[str, int]) -> None:
    """The issue's case: the dealer's 403 page carries neither the number nor the cash day."""
    response = clients["dealer"].get(f"/floor/players/{kai['player']}/")
    assert response.status_code == 403
    body = response.content.decode()
    assert NUMBER not in body
    assert "2029-01-31" not in body
    assert "Bought" not in body


def test_a_dealer_finds_names_without_links_to_records(
    clients: dict[str, Client], kai: dict[str, int]
) -> None:
    """The search a dealer may use names the player; it links to no record the dealer can't open
    (the floor's links stay)."""
    link = f'href="/floor/players/{kai["player"]}/"'
    dealer = clients["dealer"].get("/floor/players/", {"q": "Kai"}).content.decode()
    assert "Kai Wong" in dealer
    assert link not in dealer
    assert link in clients["floor"].get("/floor/players/", {"q": "Kai"}).content.decode()
