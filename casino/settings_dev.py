"""The development settings: :mod:`casino.settings` with ``DEBUG`` on unless the environment says
otherwise (``DEBUG=0``), and so the public development ``SECRET_KEY`` and ledger keys.

``casino.settings`` is production's by default (DEBUG off). This module is how the tests (pytest-django's
``DJANGO_SETTINGS_MODULE`` in pyproject.toml) and mypy's Django plugin (``[tool.django-stubs]``) ask for
the development settings explicitly, so that a plain ``python -m pytest`` or ``mypy`` from a fresh clone
works. ``DEBUG`` goes into the environment (not only into this module), so that what a test starts
(``manage.py``, a Celery worker) runs with the same settings. ``make run`` and ``make test`` set
``DEBUG=1`` themselves; nothing that serves production imports this module.

Two differences. The test database on SQLite is a file (below). And the cache is each process's
own (local memory) whatever ``CACHE_URL`` says, so that the test run's processes (pytest-xdist's
workers) never share a throttle's count or a mark naming rows of a test database another process
rolled back, and every test starts with it empty
(``tests/fixtures/cache.py``). What a test starts (``manage.py``, gunicorn) has ``casino.settings``'
cache, shared by its processes; ``tests/casino/test_cache.py`` checks that one.
"""

from __future__ import annotations

import os

os.environ.setdefault("DEBUG", "1")

from casino.settings import *  # noqa: F403

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tests"}}

# The test database on SQLite is a file under var/, not Django's shared in-memory database: a page
# under test sends requests of its own (the showdown's draft beside the reading), and the live
# server's threads on a shared in-memory database fail at once with "database table is locked"
# where a file's connections wait their turn (the busy timeout), as they do when `make run` serves.
# Nothing on disk has to survive a test run, so the file is written without waiting for the disk.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA synchronous = OFF"  # noqa: F405
