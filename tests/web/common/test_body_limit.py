"""A request body larger than ``settings.REQUEST_BODY_MAX_BYTES`` is refused (413) from its
``Content-Length`` before anything reads it: an anonymous 50 MB multipart POST to ``/healthz`` was
spooled to disk in full, then answered 403. A body without a length (chunked) is never read at all."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.test import Client

pytestmark = pytest.mark.django_db

FIFTY_MB = 50 * 1024 * 1024


class Unread(io.RawIOBase):
    """A request's body that fails the test when anything reads it."""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        raise AssertionError("the request's body was read")

    def readinto(self, buffer: Any) -> int:
        raise AssertionError("the request's body was read")

    def readline(self, size: int | None = -1) -> bytes:
        raise AssertionError("the request's body was read")


def serve(path: str, **environ: str) -> tuple[str, dict[str, str], bytes]:
    """``path`` served by the WSGI application as a POST with an unreadable body and ``environ``."""
    seen: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        seen["status"], seen["headers"] = status, dict(headers)

    request = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "443",
        "HTTP_HOST": "testserver",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "https",
        "wsgi.input": Unread(),
        "wsgi.errors": io.StringIO(),
        **environ,
    }
    body = b"".join(WSGIHandler()(request, start_response))
    return seen["status"], seen["headers"], body


MULTIPART = {"CONTENT_TYPE": "multipart/form-data; boundary=x", "CONTENT_LENGTH": str(FIFTY_MB)}


def test_an_anonymous_huge_post_is_refused_unread() -> None:
    status, headers, body = serve("/healthz", **MULTIPART)
    assert status.startswith("413")
    assert headers["Content-Type"].startswith("text/plain")
    assert f"at most {settings.REQUEST_BODY_MAX_BYTES} bytes" in body.decode()


def test_a_huge_api_post_is_refused_unread_with_the_api_s_body() -> None:
    status, headers, body = serve("/api/players/", **MULTIPART)
    assert status.startswith("413")
    assert headers["Content-Type"] == "application/json"
    assert b'"code": "too_large"' in body


@pytest.mark.parametrize("path", ["/healthz", "/accounts/login/", "/api/players/"])
def test_a_body_without_a_length_is_never_read(path: str) -> None:
    """A chunked body (no ``Content-Length``) is read as empty by Django, whatever it holds."""
    status, _, _ = serve(
        path, CONTENT_TYPE="multipart/form-data; boundary=x", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert status[:3] in {"403", "405"}


def test_one_byte_over_is_refused_and_the_cap_itself_is_served() -> None:
    cap = settings.REQUEST_BODY_MAX_BYTES
    over = Client().post("/healthz", b"x" * (cap + 1), content_type="application/octet-stream")
    assert over.status_code == 413
    at_cap = Client().post("/healthz", b"x" * cap, content_type="application/octet-stream")
    assert at_cap.status_code == 405  # the view's own answer: /healthz takes GET and HEAD


def test_nothing_is_spooled_to_disk_below_the_cap() -> None:
    """Django keeps a form's files in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE, then writes them to
    a temporary file: with the cap at most that, no body reaches the disk."""
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE >= settings.REQUEST_BODY_MAX_BYTES
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE >= settings.REQUEST_BODY_MAX_BYTES


def test_the_documented_proxy_refuses_the_same_bodies() -> None:
    """docs/deployment.md's nginx has ``client_max_body_size`` at the app's own cap."""
    docs = (Path(__file__).resolve().parents[3] / "docs" / "deployment.md").read_text()
    sizes = re.findall(r"^\s*client_max_body_size (\d+)m;", docs, flags=re.MULTILINE)
    assert [int(size) * 1024 * 1024 for size in sizes] == [settings.REQUEST_BODY_MAX_BYTES]
