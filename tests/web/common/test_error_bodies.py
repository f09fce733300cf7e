"""Every error of the API has the documented body ``{code, detail[, field, errors]}``: the domain's
refusals, DRF's own errors (authentication, permission, validation, parsing, method) and a path
that is no route. 403 bodies were ``{"detail"}`` only and 400 validation errors ``{field: [msgs]}``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from tables.models import Table


@pytest.fixture
def table(make_table: Callable[..., Table]) -> Table:
    return make_table(game="holdem", stakes="nl-20-100", schedule="A")


def documented(body: object, code: str) -> dict[str, object]:
    assert isinstance(body, dict)
    assert set(body) <= {"code", "detail", "field", "errors"}, body
    assert body["code"] == code, body
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return body


def test_drfs_own_errors_have_the_documented_body(
    client_for: Callable[[str | None], APIClient], table: Table
) -> None:
    anonymous = APIClient()
    documented(anonymous.get("/api/players/").json(), "not_authenticated")
    dealer, floor = client_for("dealer"), client_for("floor")
    response = dealer.post("/api/players/", {"name": "X"}, format="json")
    assert response.status_code == 403
    documented(response.json(), "permission_denied")
    response = floor.post("/api/players/", {}, format="json")
    assert response.status_code == 400
    body = documented(response.json(), "invalid")
    assert body["field"] == "name"
    assert body["errors"] == {"name": "This field is required."}
    response = floor.post("/api/players/", "{not json", content_type="application/json")
    assert response.status_code == 400
    documented(response.json(), "parse_error")
    response = floor.put(f"/api/terminal/tables/{table.number}/chips/", {}, format="json")
    assert response.status_code == 405
    documented(response.json(), "method_not_allowed")
    response = floor.get("/api/players/999999/")
    assert response.status_code == 404
    documented(response.json(), "not_found")


@pytest.mark.parametrize("path", ["/api/terminal/hands/abc/", "/api/stakes/a%00b/", "/api/no-such-thing/"])
def test_a_path_that_is_no_route_has_the_documented_body(
    client_for: Callable[[str | None], APIClient], path: str
) -> None:
    response = client_for("floor").get(path)
    assert response.status_code in (400, 404)
    body = response.json()
    assert set(body) == {"code", "detail"}
