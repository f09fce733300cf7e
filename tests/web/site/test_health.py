"""``GET /healthz``: 200 when the database answers and every migration is applied (what the
terminals need), ``degraded`` and naming the broker when only the broker is down; 503 naming what
failed otherwise. Without a login, a session or CSRF, in one
statement once the migrations were seen applied. Checked in process and through the production
server (gunicorn with deploy/gunicorn.conf.py) against real failures: a database never migrated, one
that can't be reached, a broker that isn't there."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

ROOT = Path(__file__).resolve().parents[3]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))

pytestmark = pytest.mark.django_db


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


# --- In process ---------------------------------------------------------------------------------------


@override_settings(CELERY_BROKER_URL="")
def test_ok_for_anyone_without_a_session_or_a_cookie() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {
        "status": "ok",
        "checks": {"database": "ok", "migrations": "ok", "broker": "not configured"},
    }
    assert not response.cookies  # no session, no CSRF cookie
    assert "no-cache" in response["Cache-Control"]


@override_settings(CELERY_BROKER_URL="")
def test_one_statement_once_the_migrations_were_seen_applied() -> None:
    client = Client()
    assert client.get("/healthz").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/healthz").status_code == 200
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT 1"]


def test_only_read() -> None:
    client = Client()
    assert client.post("/healthz").status_code == 405
    assert client.head("/healthz").status_code in (200, 503)


@override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0")
def test_200_degraded_naming_the_broker_when_only_the_broker_is_not_there() -> None:
    """The terminals don't use the broker: a broker outage is said, not failed (issue #36; this test
    used to assert 503 here, which was the defect)."""
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert json.loads(response.content) == {
        "status": "degraded",
        "checks": {"database": "ok", "migrations": "ok", "broker": "failed: OperationalError"},
    }


@pytest.mark.skipif(not redis_answers(), reason="no Redis on 127.0.0.1:6379")
@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:6379/0")
def test_ok_with_the_broker_there() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200, response.content
    assert json.loads(response.content)["checks"]["broker"] == "ok"


# --- Through the production server -------------------------------------------------------------------------


class Served:
    """gunicorn -c deploy/gunicorn.conf.py (one worker) with ``env``, its output in ``log``."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port, self.log = free_port(), log
        names = {
            "DEBUG",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "CONN_MAX_AGE",
            "DJANGO_SETTINGS_MODULE",
            "HOST",
            "PORT",
        }
        base = {
            k: v
            for k, v in os.environ.items()
            if k not in names and not k.startswith(("DATABASE_", "CELERY_", "SECURE_", "LEDGER_"))
        }
        self.env = {
            **base,
            "DEBUG": "0",
            "SECRET_KEY": "health-test-" + "k" * 50,
            # DEBUG=0 refuses the ledger's public development keys (manage.py migrate checks).
            "LEDGER_KEYS": "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            "LEDGER_KEY_ID": "k1",
            "LEDGER_ANCHOR_SIGNING_KEY": "a1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=",
            "ALLOWED_HOSTS": "127.0.0.1",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "WORKERS": "1",
            **env,
        }
        with log.open("wb") as output:
            self.process = subprocess.Popen(
                [GUNICORN, "-c", "deploy/gunicorn.conf.py"],
                cwd=ROOT,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )

    def get(self, path: str, request_id: str = "") -> tuple[int, dict[str, str], bytes]:
        """GET ``path`` (waiting up to 60 s for the server to listen): status, headers, body."""
        headers = {"X-Request-ID": request_id} if request_id else {}
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", headers=headers)
        opener = urllib.request.build_opener(NoRedirect)
        deadline = time.monotonic() + 60
        while True:
            try:
                with opener.open(request, timeout=30) as response:
                    return response.status, dict(response.headers), response.read()
            except urllib.error.HTTPError as error:
                return error.code, dict(error.headers), error.read()
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server is not answering:\n{self.log.read_text()}") from None
                time.sleep(0.2)

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=60)
        return self.log.read_text()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[object]:
    servers: list[Served] = []

    def start(env: dict[str, str]) -> Served:
        servers.append(Served(env, tmp_path / f"server-{len(servers)}.log"))
        return servers[-1]

    yield start
    for server in servers:
        if server.process.poll() is None:
            server.stop()


@pytest.mark.slow
def test_served_503_until_migrate_has_run_then_200(serve: object, tmp_path: Path) -> None:
    """A release started before ``migrate``: the database answers, the migrations are missing (503);
    after ``migrate`` the same server answers 200. SSL redirects are on (DEBUG=0) and /healthz is
    exempt from them; the request id is in the answer, the access line and the app's log line."""
    database = tmp_path / "release.sqlite3"
    server = serve({"DATABASE_URL": f"sqlite:///{database}"})  # type: ignore[operator]
    status, headers, body = server.get("/healthz", request_id="before-migrate-1")
    assert status == 503, body
    answer = json.loads(body)
    assert answer["status"] == "failing"
    assert answer["checks"]["database"] == "ok"
    assert answer["checks"]["migrations"].startswith("failed: ")
    assert answer["checks"]["migrations"].endswith(" unapplied")
    assert answer["checks"]["broker"] == "not configured"
    assert headers["X-Request-ID"] == "before-migrate-1"
    assert "Set-Cookie" not in headers
    # Any other page is sent to HTTPS (SECURE_SSL_REDIRECT is on with DEBUG=0).
    status, headers, _ = server.get("/accounts/login/")
    assert status == 301
    assert headers["Location"].startswith("https://")

    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=server.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrated.returncode == 0, migrated.stderr
    status, headers, body = server.get("/healthz", request_id="after-migrate-1")
    assert status == 200, body
    assert json.loads(body) == {
        "status": "ok",
        "checks": {"database": "ok", "migrations": "ok", "broker": "not configured"},
    }
    log = server.stop()
    assert "[before-migrate-1] health:" in log  # the app's record of the failed check
    assert '"GET /healthz HTTP/1.1" 503' in log
    assert "rid=before-migrate-1" in log
    assert "rid=after-migrate-1" in log


def test_served_503_when_the_database_cannot_be_reached(serve: object) -> None:
    """Nothing listens where DATABASE_URL points. The production configuration pools the
    connections: the check waits DATABASE_POOL_TIMEOUT at most."""
    url = f"postgres://casino:pw@127.0.0.1:{free_port()}/casino"
    server = serve({"DATABASE_URL": url, "DATABASE_POOL_TIMEOUT": "2"})  # type: ignore[operator]
    assert server.get("/accounts/login/")[0] == 301  # up (sent to HTTPS: nothing read)
    started = time.monotonic()
    status, _, body = server.get("/healthz", request_id="no-database-1")
    assert status == 503, body
    answer = json.loads(body)
    assert answer["status"] == "failing"
    assert answer["checks"]["database"].startswith("failed: ")
    assert answer["checks"]["migrations"] == "not checked"
    assert time.monotonic() - started < 20  # the pool's timeout, not the server's 30 s
    log = server.stop()
    assert "[no-database-1] health: the database check failed" in log
