"""Every answer carrying a player's identification numbers, contact details or cash totals is marked
``Cache-Control: no-store`` (a browser's or a proxy's cache keeps none of them): the players' pages
and API, the identifications, the cash per gaming day, and the table page that asks for an
identification (its number is carried in the question). ``/api/identifications/``,
``/floor/players/<id>/`` and ``/api/cash-day/report/`` were sent with no ``Cache-Control``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from tables.models import Player, Table

pytestmark = pytest.mark.django_db

PAGES = [
    "/floor/players/",
    "/floor/players/?q=Kai",
    "/floor/players/search/?q=Kai",
    "/floor/players/search/?q=Kai&for=select",
    "/floor/players/{player}/",
    "/floor/cash-day/",
    "/floor/tables/{table}/",
    "/api/players/",
    "/api/players/{player}/",
    "/api/players/{player}/overview/",
    "/api/players/search/?q=Kai",
    "/api/players/similar/?name=Kai",
    "/api/identifications/",
    "/api/identifications/{identification}/",
    "/api/cash-day/settings/",
    "/api/cash-day/report/",
    "/api/cash-day/check/?player={player}&kind=buy_in&amount_cents=100",
]


@pytest.fixture
def admin(users: dict[str, AbstractBaseUser]) -> Client:
    client = Client()
    client.force_login(users["admin"])
    return client


@pytest.fixture
def ids(
    admin: Client, make_player: Callable[..., Player], make_table: Callable[..., Table]
) -> dict[str, int]:
    player = make_player(name="Kai Wong")
    table = make_table()
    recorded = admin.post(
        "/api/identifications/",
        {"player": player.pk, "document": "drivers_license", "number": "D1234567", "issued_by": "CA"},
        content_type="application/json",
    )
    assert recorded.status_code == 201, recorded.content
    assert "no-store" in recorded["Cache-Control"]
    return {"player": player.pk, "table": table.number, "identification": recorded.json()["id"]}


@pytest.mark.parametrize("url", PAGES)
def test_identifications_and_cash_are_never_stored(admin: Client, ids: dict[str, int], url: str) -> None:
    response = admin.get(url.format(**ids))
    assert response.status_code == 200, response.content
    assert "no-store" in response["Cache-Control"]


def test_a_refused_identification_form_is_not_stored_either(admin: Client, ids: dict[str, int]) -> None:
    """The player's page, re-shown with the identification form's errors (and what was typed)."""
    response = admin.post(
        f"/floor/players/{ids['player']}/", {"action": "identify", "kind": "passport", "number": "P99"}
    )
    assert response.status_code == 400
    assert "no-store" in response["Cache-Control"]
