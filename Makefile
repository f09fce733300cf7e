# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Python 3.12 is required by Django 6.1; pyenv's 3.12 is used when it is not on PATH.
# requirements.lock is the complete resolved set, installed with --no-deps (django-celery-beat
# declares Django<6.1 but works on 6.1: docs/reports.md).
PYTHON ?= $(shell command -v python3.12 2>/dev/null || ls -d $(HOME)/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -n1)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell md5sum requirements.lock | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

# Development asks for the development settings by name: casino/settings.py is production's by
# default (DEBUG off: a SECRET_KEY and the ledger's keys are required, README "In production").
# `run`, `serve`, `demo` and `test` always use DEBUG=1; `setup` uses the environment's DEBUG
# (production: DEBUG=0 make setup) and DEBUG=1 when it has none.
DEV := DEBUG=1
SETUP_DEBUG := DEBUG=$(if $(DEBUG),$(DEBUG),1)

.PHONY: install run serve serve-prod setup demo test lint typecheck bench clean

$(STAMP): requirements.lock
	@test -n "$(PYTHON)" || { echo "Python 3.12 is required (python3.12 not found)"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements.lock
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

# Migrate and load the house data (seed 004); safe to run again. What production runs too: no demo
# data. With DATABASE_OWNER_URL (least-privilege roles, README), migrate runs as the owner and then
# grants the app's role (DATABASE_URL) its rights; the loading runs as the app.
setup: install
	$(SETUP_DEBUG) $(PY) manage.py migrate --noinput
	$(SETUP_DEBUG) $(PY) manage.py load_house_data

# The demo floor (staff users with printed passwords, open tables, buy-ins): development only.
demo: setup
	$(DEV) $(PY) manage.py load_demo_floor

run: demo serve

serve: install
	$(DEV) $(PY) manage.py runserver $(HOST):$(PORT)

# Production: the static files collected (with DEBUG=0 the pages name them through the manifest
# this writes; WhiteNoise serves them), then gunicorn with deploy/gunicorn.conf.py, which reads
# WORKER_CLASS, WORKERS, THREADS, DATABASE_POOL_MAX... from the environment (docs/deployment.md).
# Needs the production settings (README, "Production server"). The benchmarks run the same command.
serve-prod: install
	$(PY) manage.py collectstatic --noinput --verbosity 0
	HOST=$(HOST) PORT=$(PORT) exec $(VENV)/bin/gunicorn -c deploy/gunicorn.conf.py

# The whole suite: on PostgreSQL when DATABASE_URL points there, on SQLite otherwise. With
# DATABASE_OWNER_URL too, the owner makes the test database and the tests connect as the app's role.
test: install
	$(DEV) $(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

bench: install
	$(DEV) $(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) var/*.sqlite3 staticfiles
