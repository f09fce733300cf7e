"""Headers: a Content-Security-Policy with Django's own support (scripts and styles from the site only,
no inline ones, no framing) on every page, and pages that need nothing inline to work: no template has
an inline script, style block, style attribute or event-handler attribute."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from tables.models import Player, Table

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))

SITE_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
INLINE = [
    (
        re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I),
        "an inline <script>",
    ),
    (re.compile(r"<style\b", re.I), "a <style> block"),
    (re.compile(r"\sstyle\s*=", re.I), "a style= attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "an on...= event handler"),
    (re.compile(r"\shx-on", re.I), "an hx-on handler (evaluated script)"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
]


def policy(response: Any) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";") if part.strip())


def inline_parts(html: str) -> list[str]:
    return [what for pattern, what in INLINE if pattern.search(html)]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: str(path.relative_to(ROOT / "templates")))
def test_no_template_has_anything_inline(template: Path) -> None:
    assert inline_parts(template.read_text()) == []


@pytest.fixture
def pages(
    users: dict[str, AbstractBaseUser],
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    on_duty: Callable[..., Any],
) -> dict[str, tuple[AbstractBaseUser | None, str]]:
    table, _ = table_with_players(3, stakes="limit-4-8")
    on_duty(table)
    return {
        "login": (None, "/accounts/login/"),
        "floor": (users["floor"], "/"),
        "terminal": (users["dealer"], f"/tables/{table.number}/"),
        "manage": (users["floor"], f"/floor/tables/{table.number}/"),
        "schedules": (users["floor"], "/floor/schedules/"),
        "reports": (users["auditor"], "/reports/"),
        "collection": (users["auditor"], "/reports/collection/"),
        "access": (users["auditor"], "/reports/access/"),
        "password change": (users["floor"], "/accounts/password_change/"),
        "admin": (users["admin"], "/admin/"),
    }


def test_every_page_has_the_site_policy_and_nothing_inline(pages: dict[str, tuple[Any, str]]) -> None:
    for name, (user, url) in pages.items():
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200, name
        assert policy(response) == SITE_POLICY, name
        assert response["X-Frame-Options"] == "DENY"
        if name != "admin":  # Django's own pages: checked in Chromium for violations instead
            assert inline_parts(response.text) == [], name


def test_the_api_documentation_relaxes_inline_styles_only(users: dict[str, AbstractBaseUser]) -> None:
    client = Client()
    client.force_login(users["auditor"])
    for url in ("/api/docs/", "/api/redoc/"):
        response = client.get(url)
        assert response.status_code == 200
        assert policy(response) == {**SITE_POLICY, "style-src": "'self' 'unsafe-inline'"}, url
    docs = client.get("/api/docs/").text
    assert not re.search(r"<script>\s*\S", docs)  # Swagger UI's start-up script comes from the site
    script = client.get("/api/docs/?script")
    assert script.status_code == 200
    assert "SwaggerUIBundle" in script.text
