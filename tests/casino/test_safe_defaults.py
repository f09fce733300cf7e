"""Production can't start unsafe: the settings are production's unless development is asked for
(DEBUG=1), production needs its SECRET_KEY and the ledger's own keys whatever serves it (a WSGI or
ASGI server runs no system checks), and the first keys can be made under production settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from ledger.apps import running_keyless_command
from ledger.keys import refuse_development_keys

ROOT = Path(__file__).resolve().parents[2]

SECRET = "s" * 20 + "production-like-secret-for-the-start-up-tests-0123456789"
LEDGER_KEYS = {
    "LEDGER_KEYS": "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    "LEDGER_KEY_ID": "k1",
    "LEDGER_ANCHOR_SIGNING_KEY": "a1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=",
}
# What a WSGI server does with casino.wsgi: import it, then call the application with a request.
SERVE_ONE_REQUEST = """
import io, sys
from wsgiref.util import setup_testing_defaults
import casino.wsgi
from django.conf import settings
environ = {"PATH_INFO": sys.argv[1], "HTTP_HOST": "cardroom.example.com", "wsgi.url_scheme": "https",
           "HTTP_X_FORWARDED_PROTO": "https"}
setup_testing_defaults(environ)
seen = {}
def start_response(status, headers):
    seen["status"] = status
body = b"".join(casino.wsgi.application(environ, start_response))
print("DEBUG", settings.DEBUG)
print("STATUS", seen["status"])
print("TECHNICAL", b"DEBUG = True" in body or b"Technical" in body)
"""


def production(**extra: str) -> dict[str, str]:
    """The environment of a production start: this process's, less every setting the tests choose,
    with the production settings module (not the tests' casino.settings_dev) and ``extra``."""
    chosen = {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "ALLOWED_HOSTS", *LEDGER_KEYS}
    chosen |= {"LEDGER_KEYS_FILE", "LEDGER_ANCHOR_PUBLIC_KEYS"}
    base = {key: value for key, value in os.environ.items() if key not in chosen}
    return {
        **base,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "ALLOWED_HOSTS": "cardroom.example.com",
        **extra,
    }


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_with_no_environment_the_settings_are_production_and_refuse_without_a_secret_key() -> None:
    """No DEBUG in the environment is DEBUG off: no public development SECRET_KEY, no debug pages."""
    result = run(["manage.py", "check"], production())
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr
    assert "DEBUG=1" in result.stderr  # the message says how to ask for development


def test_with_no_debug_in_the_environment_a_404_is_not_the_debug_page(tmp_path: Path) -> None:
    result = run(
        ["-c", SERVE_ONE_REQUEST, "/api/no-such-thing/"], production(SECRET_KEY=SECRET, **LEDGER_KEYS)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["DEBUG False", "STATUS 404 Not Found", "TECHNICAL False"]


def test_development_is_asked_for_by_name() -> None:
    """DEBUG=1 (make run, make test) or casino.settings_dev (the tests, mypy): the development keys."""
    show = (
        "from django.conf import settings; "
        "print(settings.DEBUG, settings.SECRET_KEY.startswith('django-insecure'))"
    )
    for env in (production(DEBUG="1"), {**production(), "DJANGO_SETTINGS_MODULE": "casino.settings_dev"}):
        result = run(["manage.py", "shell", "-c", show], env)
        assert result.stdout.strip().splitlines()[-1] == "True True", result.stderr


@pytest.mark.parametrize("entry", ["casino.wsgi", "casino.asgi"])
def test_a_server_refuses_to_start_with_the_development_ledger_keys(entry: str) -> None:
    """DEBUG off, a SECRET_KEY, no LEDGER_* keys: served through casino.wsgi a rebuy was posted with
    key_id 'dev'. Now the app refuses at start-up, naming both missing keys and how to make them."""
    result = run(["-c", f"import {entry}"], production(DEBUG="0", SECRET_KEY=SECRET))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "LEDGER_KEYS and LEDGER_ANCHOR_SIGNING_KEY are not set" in result.stderr
    assert "new_ledger_key" in result.stderr
    only_chain = {key: value for key, value in LEDGER_KEYS.items() if key != "LEDGER_ANCHOR_SIGNING_KEY"}
    result = run(["-c", f"import {entry}"], production(DEBUG="0", SECRET_KEY=SECRET, **only_chain))
    assert result.returncode != 0
    assert "LEDGER_ANCHOR_SIGNING_KEY is not set" in result.stderr
    assert (
        run(["-c", f"import {entry}"], production(DEBUG="0", SECRET_KEY=SECRET, **LEDGER_KEYS)).returncode
        == 0
    )


def test_management_commands_refuse_the_development_keys_too() -> None:
    result = run(["manage.py", "showmigrations", "ledger"], production(DEBUG="0", SECRET_KEY=SECRET))
    assert result.returncode != 0
    assert "LEDGER_KEYS and LEDGER_ANCHOR_SIGNING_KEY are not set" in result.stderr


def test_the_first_keys_are_made_under_production_settings_and_then_it_starts() -> None:
    """`DEBUG=0 manage.py new_ledger_key` failed on the checks for the keys it is there to make."""
    env = production(DEBUG="0", SECRET_KEY=SECRET)
    chain = run(["manage.py", "new_ledger_key", "--id", "k1"], env)
    assert chain.returncode == 0, chain.stderr
    anchor = run(["manage.py", "new_ledger_key", "--anchor", "--id", "a1"], env)
    assert anchor.returncode == 0, anchor.stderr
    chain_key = re.search(r'LEDGER_KEYS="(k1:[A-Za-z0-9+/=]+),', chain.stdout)
    signing_key = re.search(r"LEDGER_ANCHOR_SIGNING_KEY=(a1:[A-Za-z0-9+/=]+)", anchor.stdout)
    assert chain_key is not None, chain.stdout
    assert signing_key is not None, anchor.stdout
    keys = {
        "LEDGER_KEYS": chain_key.group(1),
        "LEDGER_KEY_ID": "k1",
        "LEDGER_ANCHOR_SIGNING_KEY": signing_key.group(1),
    }
    started = run(["-c", "import casino.wsgi"], production(DEBUG="0", SECRET_KEY=SECRET, **keys))
    assert started.returncode == 0, started.stderr


def test_check_still_names_the_missing_keys() -> None:
    """`check` starts without the keys so that it can report them (ledger.E001, E002)."""
    result = run(["manage.py", "check", "--deploy"], production(DEBUG="0", SECRET_KEY=SECRET))
    assert result.returncode != 0
    assert "ledger.E001" in result.stderr
    assert "ledger.E002" in result.stderr


def test_the_refusal_follows_debug() -> None:
    with override_settings(DEBUG=False), pytest.raises(ImproperlyConfigured, match="LEDGER_KEYS"):
        refuse_development_keys()
    with override_settings(DEBUG=True):
        refuse_development_keys()
    with override_settings(DEBUG=False, **LEDGER_KEYS):
        refuse_development_keys()


@pytest.mark.parametrize(
    ("argv", "keyless"),
    [
        (["manage.py", "new_ledger_key"], True),
        (["/srv/casino/manage.py", "new_ledger_key", "--anchor"], True),
        (["manage.py", "check", "--deploy"], True),
        (["django-admin", "new_ledger_key"], True),
        (["manage.py", "migrate"], False),
        (["manage.py", "runserver"], False),
        (["manage.py"], False),
        (["gunicorn", "new_ledger_key"], False),  # a server's argv is never a command
        (["/usr/bin/celery", "-A", "casino", "worker"], False),
    ],
)
def test_only_the_keyless_commands_start_without_keys(argv: list[str], keyless: bool) -> None:
    assert running_keyless_command(argv) is keyless


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TRUSTED_PROXIES": "10.0.0.0/8,not-an-address"}, "TRUSTED_PROXIES"),
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be at least 1"),
        ({"LOGIN_LOCKOUT_MINUTES": "0"}, "LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be at least 1"),
        ({"SESSION_IDLE_MINUTES": "0"}, "SESSION_IDLE_MINUTES and TERMINAL_IDLE_MINUTES must be at least 1"),
        ({"TERMINAL_IDLE_MINUTES": "x"}, "TERMINAL_IDLE_MINUTES='x' is not an integer"),
        ({"LOGIN_USER_FAILURE_LIMIT": "5"}, "LOGIN_USER_FAILURE_LIMIT must be more than LOGIN_FAILURE_LIMIT"),
        ({"LOGIN_USER_COOLDOWN_SECONDS": "0"}, "LOGIN_USER_COOLDOWN_SECONDS at least 1"),
        ({"SESSION_MAX_HOURS": "0"}, "SESSION_MAX_HOURS and TERMINAL_SESSION_MAX_HOURS must be at least 1"),
        (
            {"TERMINAL_SESSION_MAX_HOURS": "0"},
            "SESSION_MAX_HOURS and TERMINAL_SESSION_MAX_HOURS must be at least 1",
        ),
    ],
)
def test_bad_login_and_session_settings_fail_loudly(env: dict[str, str], message: str) -> None:
    result = run(["manage.py", "check"], production(DEBUG="1", **env))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr
