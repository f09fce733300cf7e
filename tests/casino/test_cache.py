"""The cache the throttles count in is one every process of the server shares (``CACHES`` from
``CACHE_URL`` in casino/settings.py): by default files under var/cache, which two processes of
the production settings really share (a user's count taken in one is the other's); a Redis URL is
Django's RedisCache; anything per-process or unknown stops the start. Logins are counted by
django-axes in the database, not in the cache."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from casino.settings import cache_from_url
from tests.casino.test_deploy import ROOT, documented_environment, run

SHARED_BACKENDS = {
    "django.core.cache.backends.filebased.FileBasedCache",
    "django.core.cache.backends.redis.RedisCache",
    "django.core.cache.backends.db.DatabaseCache",
}

# One request of the reports scope counted by HeavyRequestThrottle (web/common/throttles.py), as a view
# counts it, for the account ``argv[1]``, ``argv[2]`` times; prints whether each was allowed.
# ``argv[3] == "forget"``: then drops the account's count (the test leaves nothing behind).
THROTTLE_SCRIPT = """
import json, sys
import django
django.setup()
from web.common.throttles import REPORTS, HeavyRequestThrottle

class Account:
    is_authenticated = True
    pk = int(sys.argv[1])
    date_joined = None

class Request:
    user = Account()
    META = {"REMOTE_ADDR": "127.0.0.1"}

class View:
    throttle_scope = REPORTS

allowed = []
for _ in range(int(sys.argv[2])):
    throttle = HeavyRequestThrottle()
    allowed.append(throttle.allow_request(Request(), View()))
if sys.argv[3:] == ["forget"]:
    throttle.cache.delete(throttle.key)
print(json.dumps(allowed))
"""


def _production_env(**extra: str) -> dict[str, str]:
    """The documented production environment (deploy/casino.env.example), with the production
    settings module, no CACHE_URL unless given, and a rate of 3 report requests a minute."""
    env = documented_environment() | {"DJANGO_SETTINGS_MODULE": "casino.settings", "RATE_REPORTS": "3/minute"}
    env.pop("CACHE_URL", None)
    return env | extra


def _count(account: int, requests: int, env: dict[str, str], *extra: str) -> list[bool]:
    result = run([sys.executable, "-c", THROTTLE_SCRIPT, str(account), str(requests), *extra], env)
    assert result.returncode == 0, result.stdout + result.stderr
    allowed: list[bool] = json.loads(result.stdout.strip().splitlines()[-1])
    return allowed


def test_the_production_default_is_a_cache_the_processes_share() -> None:
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.CACHES['default']))"
    )
    result = run([sys.executable, "-c", code], _production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    default = json.loads(result.stdout.strip().splitlines()[-1])
    assert default["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert Path(default["LOCATION"]) == ROOT / "var" / "cache"
    assert default["BACKEND"] in SHARED_BACKENDS


def test_two_processes_of_the_production_settings_share_a_users_count() -> None:
    """Two processes, as two gunicorn workers: the user's third request of a 3-a-minute rate is
    refused in the second process, which counted none itself (each would allow 3 with a cache of
    its own)."""
    account = 10**12 + uuid.uuid4().int % 10**12  # no real account's id; its own count
    env = _production_env()
    assert _count(account, 2, env) == [True, True]
    assert _count(account, 2, env, "forget") == [True, False]


def test_a_file_url_names_the_directory(tmp_path: Path) -> None:
    directory = tmp_path / "shared cache"
    env = _production_env(CACHE_URL=directory.as_uri())
    assert _count(7, 2, env) == [True, True]
    assert _count(7, 2, env) == [True, False]
    assert any(directory.iterdir())  # the counts are files there


def test_cache_url_forms() -> None:
    var = Path("/srv/casino/var")
    assert cache_from_url("", var)["LOCATION"] == "/srv/casino/var/cache"
    redis = cache_from_url("redis://:secret@127.0.0.1:6379/1", var)
    assert redis["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert redis["LOCATION"] == "redis://:secret@127.0.0.1:6379/1"
    assert redis["OPTIONS"]["socket_timeout"] > 0  # a Redis that hangs doesn't hold a request
    assert cache_from_url("unix:///run/redis/redis.sock?db=1", var)["BACKEND"].endswith("RedisCache")
    assert cache_from_url("rediss://cache.example:6380/0", var)["BACKEND"].endswith("RedisCache")
    assert cache_from_url("file:///var/lib/casino/cache", var)["LOCATION"] == "/var/lib/casino/cache"
    for bad in (
        "locmem://",
        "memcached://:pw-in-url@10.0.0.1",
        "file://relative/dir",
        "dummy://",
        "nonsense",
    ):
        with pytest.raises(ImproperlyConfigured) as refused:
            cache_from_url(bad, var)
        assert "pw-in-url" not in str(refused.value)  # Redis's password is never repeated
        assert "file:///absolute/path" in str(refused.value)


def test_a_per_process_cache_url_stops_the_start() -> None:
    result = run([sys.executable, "manage.py", "check"], _production_env(CACHE_URL="locmem://"))
    assert result.returncode != 0
    assert "is not a cache every process shares" in result.stderr


def test_check_deploy_passes_with_a_redis_cache() -> None:
    env = _production_env(CACHE_URL="redis://127.0.0.1:6379/1")
    result = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_logins_are_counted_in_the_database_not_the_cache() -> None:
    """django-axes's lock-outs hold across the processes without the cache: its database handler
    keeps the failures as AccessAttempt rows."""
    assert settings.AXES_HANDLER == "axes.handlers.database.AxesDatabaseHandler"
    handler = AxesProxyHandler.get_implementation(force=True)
    assert type(handler).__name__ == "AxesDatabaseHandler"


def test_the_example_and_the_guide_document_cache_url() -> None:
    assert "CACHE_URL=redis://" in (ROOT / "deploy" / "casino.env.example").read_text()
    assert "CACHE_URL" in (ROOT / "docs" / "deployment.md").read_text()
    assert "CACHE_URL" in (ROOT / "docs" / "security.md").read_text()
