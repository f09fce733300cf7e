"""Settings come from the environment, have safe defaults, and fail loudly on bad values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k" * 20 + "production-like-secret-for-the-deploy-check-0123456789",
    "ALLOWED_HOSTS": "cardroom.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://cardroom.example.com",
    # The ledger's keys live outside the database (docs/ledger.md); the dev keys fail the check.
    "LEDGER_KEYS": "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    "LEDGER_KEY_ID": "k1",
    "LEDGER_ANCHOR_SIGNING_KEY": "a1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=",
}


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "TIME_ZONE"}}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_production_environment() -> None:
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "0", "SECRET_KEY": ""}, "SECRET_KEY must be set"),
        ({"DEBUG": "perhaps"}, "DEBUG='perhaps' is not a boolean"),
        ({"TIME_ZONE": "Mars/Olympus_Mons"}, "not a known IANA time zone"),
        ({"DATABASE_URL": "mysql://root@127.0.0.1/casino"}, "DATABASE_URL must be sqlite:// or postgres://"),
        ({"DATABASE_URL": "nonsense"}, "DATABASE_URL"),
        ({"CONN_MAX_AGE": "ten"}, "CONN_MAX_AGE='ten' is not an integer"),
        ({"LEDGER_DROP_VARIANCE_THRESHOLD_BP": "12000"}, "is not 0 to 10000 basis points"),
        ({"IDEMPOTENCY_KEY_RETENTION_HOURS": "0"}, "must be at least 1 hour"),
        (
            {
                "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/casino",
                "DATABASE_PREPARED_STATEMENTS": "maybe",
            },
            "DATABASE_PREPARED_STATEMENTS='maybe' is not a boolean",
        ),
    ],
)
def test_bad_environment_value_fails_loudly_at_start(env: dict[str, str], message: str) -> None:
    result = run_manage("check", env=env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("CHANGE-ME", "is the placeholder of deploy/casino.env.example"),
        ("django-insecure-local-development-key-not-for-production", "is a development key"),
        ("django-insecure-" + "Zq8vK2mWp4Rt7Yb1Xn5Lc9Hd3Gf6Js0Ae", "is a development key"),
        ("x", "is shorter than 50 characters"),
        ("Zq8vK2mWp4Rt7Yb1Xn5Lc9Hd3Gf6Js0Ae", "is shorter than 50 characters"),
        ("abcd" * 20, "has fewer than 5 different characters"),
    ],
)
def test_a_weak_or_placeholder_secret_key_is_refused_at_start(key: str, why: str) -> None:
    """With DEBUG off the key signs sessions, CSRF tokens and password resets: a known or guessable
    one is refused as the ledger's development keys are, and the message says how to make one."""
    result = run_manage("check", env={**PRODUCTION_ENV, "SECRET_KEY": key})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"SECRET_KEY {why}" in result.stderr
    assert "python -c 'import secrets; print(secrets.token_urlsafe(50))'" in result.stderr
    if len(key) > 1:
        assert key not in result.stderr.replace("SECRET_KEY", "")  # the key itself is never printed


def test_a_short_secret_key_is_taken_for_local_development() -> None:
    result = run_manage("check", env={"DEBUG": "1", "SECRET_KEY": "x"})
    assert result.returncode == 0, result.stdout + result.stderr


def test_defaults_are_local_demo_values() -> None:
    from django.conf import settings

    assert os.environ.get("TIME_ZONE", "America/Los_Angeles") == settings.TIME_ZONE
    assert settings.USE_TZ is True
    assert "django.contrib.auth.middleware.LoginRequiredMiddleware" in settings.MIDDLEWARE


def test_without_a_broker_tasks_run_in_process() -> None:
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.CELERY_TASK_ALWAYS_EAGER)",
        env={"CELERY_BROKER_URL": ""},
    )
    assert result.stdout.strip().splitlines()[-1] == "True", result.stderr
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.CELERY_TASK_ALWAYS_EAGER)",
        env={"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"},
    )
    assert result.stdout.strip().splitlines()[-1] == "False", result.stderr


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/casino"}, "True 5"),
        (
            {
                "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/casino",
                "DATABASE_PREPARED_STATEMENTS": "0",
            },
            "None None",
        ),
        ({"DATABASE_URL": "sqlite:///tmp-casino-settings-test.sqlite3"}, "None None"),
    ],
)
def test_postgresql_statements_are_prepared_unless_turned_off(env: dict[str, str], expected: str) -> None:
    """Server-side binding and psycopg's prepare threshold (benchmarks/README.md, "Hand API")."""
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; o = settings.DATABASES['default'].get('OPTIONS', {}); "
        "print(o.get('server_side_binding'), o.get('prepare_threshold'))",
        env=env,
    )
    assert result.stdout.strip().splitlines()[-1] == expected, result.stderr
