"""DATABASE_POOL_MAX: Django's psycopg pool on PostgreSQL, sized from the environment; SQLite and the
owner's login (migrate) stay unpooled; a bad combination fails at start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
PG = "postgres://app:pw@127.0.0.1:5432/casino"
SHOW = (
    "import json; from django.conf import settings; "
    "print(json.dumps([settings.DATABASES['default'], settings.DATABASE_OWNER], default=str))"
)


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    names = {"DEBUG", "SECRET_KEY", "CONN_MAX_AGE", "DJANGO_SETTINGS_MODULE"}
    base = {k: v for k, v in os.environ.items() if k not in names and not k.startswith("DATABASE_")}
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "casino.settings", "DEBUG": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def databases(env: dict[str, str]) -> tuple[dict[str, object], dict[str, object]]:
    result = run_python(SHOW, env)
    assert result.returncode == 0, result.stderr
    default, owner = json.loads(result.stdout.strip().splitlines()[-1])
    return default, owner


def test_unpooled_unless_asked() -> None:
    default, owner = databases({"DATABASE_URL": PG})
    assert "pool" not in default["OPTIONS"]  # type: ignore[operator]
    assert "pool" not in owner["OPTIONS"]  # type: ignore[operator]


def test_pool_sized_from_the_environment() -> None:
    env = {
        "DATABASE_URL": PG,
        "DATABASE_POOL_MAX": "6",
        "DATABASE_POOL_MIN": "2",
        "DATABASE_POOL_TIMEOUT": "4",
    }
    default, owner = databases(env)
    assert default["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 6, "timeout": 4}  # type: ignore[index]
    assert default["CONN_MAX_AGE"] == 0
    assert default["CONN_HEALTH_CHECKS"] is True  # each connection checked before a request gets it
    # DATABASE_OWNER_URL unset: the owner is the app's login, the same settings (migrate switches nothing).
    assert owner["OPTIONS"] == default["OPTIONS"]


def test_another_owner_login_is_never_pooled() -> None:
    """The default alias's pool is made with the app's login; migrate's owner login goes around it."""
    env = {
        "DATABASE_URL": PG,
        "DATABASE_OWNER_URL": "postgres://owner:pw@127.0.0.1:5432/casino",
        "DATABASE_POOL_MAX": "4",
    }
    default, owner = databases(env)
    assert default["OPTIONS"]["pool"]["max_size"] == 4  # type: ignore[index]
    assert "pool" not in owner["OPTIONS"]  # type: ignore[operator]


def test_sqlite_is_never_pooled() -> None:
    default, _ = databases(
        {"DATABASE_URL": "sqlite:///pool-test-never-made.sqlite3", "DATABASE_POOL_MAX": "4"}
    )
    assert "pool" not in default["OPTIONS"]  # type: ignore[operator]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_POOL_MAX": "4", "CONN_MAX_AGE": "600"}, "set CONN_MAX_AGE=0"),
        ({"DATABASE_POOL_MAX": "-1"}, "need 0 <= DATABASE_POOL_MIN <= DATABASE_POOL_MAX"),
        (
            {"DATABASE_POOL_MAX": "2", "DATABASE_POOL_MIN": "3"},
            "need 0 <= DATABASE_POOL_MIN <= DATABASE_POOL_MAX",
        ),
        (
            {"DATABASE_POOL_MAX": "2", "DATABASE_POOL_TIMEOUT": "0"},
            "DATABASE_POOL_TIMEOUT=0 must be at least 1",
        ),
        ({"DATABASE_POOL_MAX": "four"}, "DATABASE_POOL_MAX='four' is not an integer"),
    ],
)
def test_a_bad_pool_setting_fails_loudly(env: dict[str, str], message: str) -> None:
    result = run_python("pass", {"DATABASE_URL": PG, **env})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def _test_database_url() -> str:
    s = connection.settings_dict
    password = f":{quote(str(s['PASSWORD']), safe='')}" if s.get("PASSWORD") else ""
    user, host, port = quote(str(s["USER"]), safe=""), s["HOST"] or "127.0.0.1", s["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{s['NAME']}"


@pytest.mark.postgres
@pytest.mark.django_db
def test_pooled_connections_are_kept_and_bounded_on_postgresql() -> None:
    """Eight threads, each a request after another (connection closed after each): with a pool of
    two, the process never has more than two backends, and a connection closed goes back to the pool
    (the same backend serves the next request); without one, each request has a backend of its own."""
    code = """
import json, threading
from django.db import connection
pids, lock = [], threading.Lock()
def request():
    for _ in range(5):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        connection.close()  # the end of a request
        with lock:
            pids.append(pid)
threads = [threading.Thread(target=request) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"pids": pids, "pool": connection.pool is not None}))
"""
    url = _test_database_url()
    pooled = run_python(code, {"DATABASE_URL": url, "DATABASE_POOL_MAX": "2"})
    assert pooled.returncode == 0, pooled.stderr
    outcome = json.loads(pooled.stdout.strip().splitlines()[-1])
    assert outcome["pool"] is True
    assert len(outcome["pids"]) == 40
    assert 1 <= len(set(outcome["pids"])) <= 2
    unpooled = run_python(code, {"DATABASE_URL": url})
    assert unpooled.returncode == 0, unpooled.stderr
    outcome = json.loads(unpooled.stdout.strip().splitlines()[-1])
    assert outcome["pool"] is False
    assert len(set(outcome["pids"])) > 2
