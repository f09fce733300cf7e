"""The production set-up: the documented environment (deploy/casino.env.example) passes
``check --deploy``, gunicorn loads deploy/gunicorn.conf.py and the app with it, the configuration's
variables are read and a bad one stops it, and `make serve-prod` runs what the benchmarks run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = ROOT / "deploy" / "casino.env.example"
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))

# What an operator puts where the example says CHANGE-ME (valid shapes, no real secret).
FILLED = {
    "SECRET_KEY": "s3cr3t-" + "x7Kq9vLm2Rp4Wn8Zt6Yb" * 3,
    "LEDGER_KEYS": "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    "LEDGER_KEY_ID": "k1",
    "LEDGER_ANCHOR_SIGNING_KEY": "a1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=",
}


def documented_environment() -> dict[str, str]:
    """deploy/casino.env.example's variables, each CHANGE-ME filled in as an operator would."""
    env: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, value = line.partition("=")
        env[name.strip()] = value.strip()
    for name, value in env.items():
        if "CHANGE-ME" in value:
            env[name] = FILLED.get(name) or value.replace("CHANGE-ME", "operator-password")
    return env


def clean_base() -> dict[str, str]:
    """This process's environment without anything the documented one sets or the settings read."""
    prefixes = ("DATABASE_", "CELERY_", "LEDGER_", "SECURE_")
    names = {
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "CSRF_TRUSTED_ORIGINS",
        "TIME_ZONE",
        "CONN_MAX_AGE",
        "CACHE_URL",
    }
    names |= {
        "HOST",
        "PORT",
        "WORKER_CLASS",
        "WORKERS",
        "THREADS",
        "WEB_CONCURRENCY",
        "DJANGO_SETTINGS_MODULE",
    }
    return {k: v for k, v in os.environ.items() if k not in names and not k.startswith(prefixes)}


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``args`` with ``env`` over a clean environment (development settings unless ``env`` sets DEBUG)."""
    return subprocess.run(
        args, cwd=ROOT, env={**clean_base(), "DEBUG": "1", **env}, capture_output=True, text=True, timeout=120
    )


def print_config(env: dict[str, str]) -> dict[str, str]:
    """gunicorn's resolved settings (``--print-config``, which loads the app too) as text."""
    result = run([GUNICORN, "-c", str(CONFIG), "--print-config"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    settings = {}
    for line in result.stdout.splitlines():
        name, sep, value = line.partition(" = ")
        if sep:
            settings[name.strip()] = value.strip()
    return settings


def test_the_example_fills_every_secret_and_leaves_no_placeholder() -> None:
    env = documented_environment()
    assert env["DEBUG"] == "0"
    assert not any("CHANGE-ME" in value for value in env.values())
    assert {"SECRET_KEY", "DATABASE_URL", "ALLOWED_HOSTS", "LEDGER_KEYS"} <= env.keys()


def test_check_deploy_passes_with_the_documented_environment() -> None:
    result = run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        documented_environment(),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_every_documented_variable_is_read_somewhere() -> None:
    """A misspelt variable in the example would be silently ignored in production."""
    readers = (ROOT / "casino" / "settings.py").read_text() + CONFIG.read_text()
    for name in documented_environment():
        assert re.search(rf'["\']{name}["\']', readers), (
            f"{name} is read by neither settings.py nor the config"
        )


def test_gunicorn_loads_the_config_and_the_app_with_the_documented_environment() -> None:
    result = run([GUNICORN, "-c", str(CONFIG), "--check-config"], documented_environment())
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_app_failing_to_load_fails_the_check() -> None:
    env = documented_environment() | {"SECRET_KEY": ""}
    result = run([GUNICORN, "-c", str(CONFIG), "--check-config"], env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_defaults_are_sized_from_the_cpus() -> None:
    settings = print_config({})
    cpus = len(os.sched_getaffinity(0))
    assert settings["worker_class"] == "gthread"
    assert settings["workers"] == str(cpus)
    assert settings["threads"] == "4"
    assert settings["bind"] == "['127.0.0.1:8000']"
    assert settings["wsgi_app"] == "casino.wsgi:application"
    assert settings["chdir"] == str(ROOT)
    assert settings["control_socket_disable"] == "True"


def test_the_environment_sets_the_server() -> None:
    settings = print_config({"HOST": "0.0.0.0", "PORT": "9001", "WORKERS": "3", "THREADS": "6"})
    assert settings["bind"] == "['0.0.0.0:9001']"
    assert (settings["worker_class"], settings["workers"], settings["threads"]) == ("gthread", "3", "6")
    settings = print_config({"WORKER_CLASS": "sync"})
    cpus = len(os.sched_getaffinity(0))
    assert (settings["worker_class"], settings["workers"], settings["threads"]) == (
        "sync",
        str(2 * cpus + 1),
        "1",
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"WORKER_CLASS": "gevent"}, "WORKER_CLASS='gevent' is not one of sync, gthread"),
        ({"WORKERS": "many"}, "WORKERS='many' is not an integer"),
        ({"WORKERS": "0"}, "WORKERS=0 must be at least 1"),
        ({"WORKER_CLASS": "sync", "THREADS": "4"}, "THREADS > 1 needs WORKER_CLASS=gthread"),
        ({"THREADS": "0"}, "THREADS=0 must be at least 1"),
        ({"PORT": "http"}, "PORT='http' is not an integer"),
    ],
)
def test_a_bad_variable_stops_gunicorn_with_its_name(env: dict[str, str], message: str) -> None:
    result = run([GUNICORN, "-c", str(CONFIG), "--check-config"], env)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_the_pool_is_sized_to_the_threads_unless_set() -> None:
    """The config gives each process a pool as large as the requests it serves at once; the
    settings then hold it (PostgreSQL only)."""
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['OPTIONS'].get('pool', {}).get('max_size'))"
    )
    url = {"DATABASE_URL": "postgres://app@127.0.0.1:5432/casino"}
    probe = [
        "-c",
        f"import runpy, os; runpy.run_path({str(CONFIG)!r}); import django; django.setup(); {code}",
    ]
    env = url | {"DJANGO_SETTINGS_MODULE": "casino.settings"}
    assert run([sys.executable, *probe], env | {"THREADS": "6"}).stdout.split() == ["6"]
    assert run([sys.executable, *probe], env).stdout.split() == ["4"]
    assert run([sys.executable, *probe], env | {"WORKER_CLASS": "sync"}).stdout.split() == ["1"]
    assert run([sys.executable, *probe], env | {"DATABASE_POOL_MAX": "0"}).stdout.split() == ["None"]


def test_make_serve_prod_collects_static_files_then_runs_the_benchmarks_command() -> None:
    """The benchmarks start the server as `make serve-prod` does (benchmarks/prod_server.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import prod_server
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    result = subprocess.run(["make", "-n", "serve-prod"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    collect = next(i for i, line in enumerate(lines) if "manage.py collectstatic --noinput" in line)
    serve = next(i for i, line in enumerate(lines) if "/gunicorn " in line)
    assert collect < serve
    assert lines[serve].split("exec ", 1)[1].split()[1:] == list(prod_server.SERVE_COMMAND[1:])
    assert lines[serve].split("exec ", 1)[1].split()[0].endswith("/" + prod_server.SERVE_COMMAND[0])


def test_the_reports_at_once_stay_below_the_threads_and_the_cpus_unless_set() -> None:
    """The config bounds the reports built at once (web/common/slots.py) from WORKERS x THREADS and
    the CPUs: a quarter of the threads, fewer than a process's, fewer than the CPUs, so that a
    terminal always finds a thread and a CPU free."""
    code = "from django.conf import settings; print(settings.REPORTS_AT_ONCE)"
    probe = [
        "-c",
        f"import runpy, os; runpy.run_path({str(CONFIG)!r}); import django; django.setup(); {code}",
    ]
    below_cpus = max(1, len(os.sched_getaffinity(0)) - 1)
    env = {"DJANGO_SETTINGS_MODULE": "casino.settings", "WORKERS": "2"}
    assert run([sys.executable, *probe], env).stdout.split() == [str(min(2, below_cpus))]  # 2 x 4
    expected = str(min(7, below_cpus))
    assert run([sys.executable, *probe], env | {"WORKERS": "4", "THREADS": "8"}).stdout.split() == [expected]
    assert run([sys.executable, *probe], env | {"THREADS": "2"}).stdout.split() == ["1"]
    assert run([sys.executable, *probe], env | {"WORKER_CLASS": "sync", "WORKERS": "5"}).stdout.split() == [
        "1"
    ]
    assert run([sys.executable, *probe], env | {"REPORTS_AT_ONCE": "3"}).stdout.split() == ["3"]
