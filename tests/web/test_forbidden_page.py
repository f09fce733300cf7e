"""The 403 page names what the signed-in role may do and links to its pages (``web.common.errors``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client


def _client(users: dict[str, Any], who: str) -> Client:
    client = Client()
    client.force_login(users[who])
    return client


def test_a_dealer_refused_a_floor_page_is_told_what_a_dealer_may_do(
    users: dict[str, Any], house: None
) -> None:
    response = _client(users, "dealer").get("/floor/tables/1/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "<strong>Dealer</strong>" in page
    assert "runs hands at the dealer terminal" in page
    assert 'href="/"' in page  # the floor, the dealer's page
    assert "/reports/" not in page.split('id="roles"')[1]  # no link to pages the dealer can't open


def test_an_auditor_refused_a_write_gets_the_reason_and_the_reports(
    users: dict[str, Any], house: None
) -> None:
    response = _client(users, "auditor").post("/floor/schedules/A/", {"step": "preview"})
    assert response.status_code == 403
    page = response.content.decode()
    assert "Only a floor manager changes a schedule." in page
    assert "<strong>Auditor</strong>" in page
    assert 'href="/reports/"' in page


def test_a_user_without_a_role_is_told_to_ask_for_one(users: dict[str, Any], house: None) -> None:
    response = _client(users, "nobody").get("/")
    assert response.status_code == 403
    assert 'id="no-role"' in response.content.decode()


@pytest.mark.parametrize("url", ["/api/ledger/reports/collection/", "/api/tables/"])
def test_the_api_keeps_its_documented_body(users: dict[str, Any], house: None, url: str) -> None:
    response = _client(users, "nobody").get(url)
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
