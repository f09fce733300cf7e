"""Settings for the card-room system.

Everything is read from environment variables, each with a safe default: with no environment at all
the settings are production's (DEBUG off, so a SECRET_KEY is required), and development asks for
itself with DEBUG=1 (`make run`, `make test`; casino.settings_dev for the tests and mypy), so that an
unset variable can't open a production server up (the style of healthchecks.io's settings). A bad
value fails loudly at start-up with `ImproperlyConfigured` rather than running half-configured.

Variables: DEBUG, SECRET_KEY, DATABASE_URL, DATABASE_OWNER_URL, ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS,
CACHE_URL, TIME_ZONE, CELERY_BROKER_URL, CELERY_RESULT_BACKEND, SECURE_SSL_REDIRECT,
SECURE_HSTS_SECONDS, LOG_LEVEL, CONN_MAX_AGE, DATABASE_PREPARED_STATEMENTS, REQUEST_BODY_MAX_BYTES,
DATABASE_POOL_MAX, DATABASE_POOL_MIN, DATABASE_POOL_TIMEOUT,
LEDGER_TASK_MAX_RETRIES, LEDGER_TASK_RETRY_BACKOFF_MAX, LEDGER_DROP_VARIANCE_THRESHOLD_BP,
IDEMPOTENCY_KEY_RETENTION_HOURS, LEDGER_KEYS, LEDGER_KEYS_FILE, LEDGER_KEY_ID,
LEDGER_ANCHOR_SIGNING_KEY, LEDGER_ANCHOR_PUBLIC_KEYS, LEDGER_ANCHOR_DIR, LEDGER_ALLOW_UNKEYED,
TRUSTED_PROXIES, LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES, LOGIN_USER_FAILURE_LIMIT,
LOGIN_USER_COOLDOWN_SECONDS, SESSION_IDLE_MINUTES, TERMINAL_IDLE_MINUTES, SESSION_MAX_HOURS,
TERMINAL_SESSION_MAX_HOURS.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import zoneinfo
from email.utils import formataddr, parseaddr
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_admins(name: str) -> list[str]:
    """``Name <a@example.com>,b@example.com`` as Django's ``ADMINS``: one address a person (with its
    name when given); unset or empty: none. An item without an address fails loudly."""
    admins = []
    for item in env_list(name, ""):
        real_name, address = parseaddr(item)
        if "@" not in address:
            raise ImproperlyConfigured(f"{name}: {item!r} is not like 'Name <someone@example.com>'")
        admins.append(formataddr((real_name, address)) if real_name else address)
    return admins


def secret_key_weakness(key: str) -> str | None:
    """Why ``key`` can't be production's ``SECRET_KEY``, or None: the placeholder of
    deploy/casino.env.example, a development key (Django's ``django-insecure-`` ones, this file's
    included), or a key Django's own ``check --deploy`` calls weak (fewer than 50 characters or than 5
    different ones). It signs the sessions, the CSRF tokens and the password resets: a known or
    guessable key lets anyone forge them."""
    if "CHANGE-ME" in key:
        return "is the placeholder of deploy/casino.env.example"
    if key.startswith("django-insecure"):
        return "is a development key (it starts with 'django-insecure')"
    if len(key) < 50:
        return "is shorter than 50 characters"
    if len(set(key)) < 5:
        return "has fewer than 5 different characters"
    return None


# Production is the default: DEBUG is off unless asked for (DEBUG=1), and then a SECRET_KEY must be
# set. Development asks explicitly: `make run`/`make test` set DEBUG=1, and the tests and mypy load
# casino.settings_dev, which does the same.
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (production, the default). For a local development "
            "server set DEBUG=1 (`make run` does); in production set SECRET_KEY to a long random string, "
            "e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    # Only ever used by a local debug server; never valid when DEBUG is off.
    SECRET_KEY = "django-insecure-local-development-key-not-for-production"
elif not DEBUG and (_weakness := secret_key_weakness(SECRET_KEY)):
    # Refused at start, as the ledger's public development keys are (ledger.keys): whatever serves the
    # app, a WSGI server, Celery or manage.py, reads these settings first.
    raise ImproperlyConfigured(
        f"SECRET_KEY {_weakness}: with DEBUG off it signs the sessions, CSRF tokens and password resets, "
        "and a known or guessable key lets anyone forge them. Set SECRET_KEY to a long random string, "
        "made with python -c 'import secrets; print(secrets.token_urlsafe(50))'; for a local "
        "development server set DEBUG=1."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # The layers (docs/decisions.md, "Layers"): the two domains, then what sits above them.
    "tables",
    "ledger",
    "handflow",
    "backoffice",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A body over REQUEST_BODY_MAX_BYTES is refused unread (413), before any middleware reads one.
    "web.common.middleware.BodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "web.common.middleware.RefuseNulMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "casino.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

# --- Database -----------------------------------------------------------------
# SQLite under var/ by default (the `make run` demo); PostgreSQL in CI and production.
VAR_DIR.mkdir(exist_ok=True)
# The app connects as DATABASE_URL's role. On PostgreSQL in production that is a least-privilege
# role, and DATABASE_OWNER_URL (the same database, as the role that owns the tables) is the login
# `migrate` and `db_roles grant` switch the default connection to (docs/ledger.md, "Database
# roles"; docs/decisions.md). Unset, the owner URL is DATABASE_URL: one role does both.
DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'casino.sqlite3'}")
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "").strip() or DATABASE_URL


# Connection pooling (PostgreSQL only; docs/deployment.md, "Database connections"): with
# DATABASE_POOL_MAX > 0 each server process keeps a psycopg pool of at most that many connections
# (Django's built-in pool), at least DATABASE_POOL_MIN open, and a request waits at most
# DATABASE_POOL_TIMEOUT seconds for one. So PostgreSQL sees at most processes x DATABASE_POOL_MAX
# connections, whatever the number of terminals, and none is opened per request. 0 (the default):
# a connection per request (or kept CONN_MAX_AGE seconds), as behind PgBouncer.
DATABASE_POOL_MAX = env_int("DATABASE_POOL_MAX", 0)
DATABASE_POOL_MIN = env_int("DATABASE_POOL_MIN", 1)
DATABASE_POOL_TIMEOUT = env_int("DATABASE_POOL_TIMEOUT", 10)
if DATABASE_POOL_MAX < 0 or not 0 <= DATABASE_POOL_MIN <= max(DATABASE_POOL_MAX, 1):
    raise ImproperlyConfigured(
        f"DATABASE_POOL_MIN={DATABASE_POOL_MIN} and DATABASE_POOL_MAX={DATABASE_POOL_MAX}: need "
        "0 <= DATABASE_POOL_MIN <= DATABASE_POOL_MAX (0 turns the pool off)"
    )
if DATABASE_POOL_TIMEOUT < 1:
    raise ImproperlyConfigured(f"DATABASE_POOL_TIMEOUT={DATABASE_POOL_TIMEOUT} must be at least 1 second")


def _database(name: str, url: str, *, pooled: bool = False) -> dict[str, Any]:
    try:
        db: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=env_int("CONN_MAX_AGE", 0)))
    except Exception as exc:  # dj-database-url raises several types for a bad URL
        raise ImproperlyConfigured(f"{name}={url!r} is not a usable database URL: {exc}") from exc
    if db.get("ENGINE") not in {"django.db.backends.sqlite3", "django.db.backends.postgresql"}:
        raise ImproperlyConfigured(f"{name} must be sqlite:// or postgres://, not {db.get('ENGINE')!r}")
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # Serialise writers at BEGIN so concurrent postings wait instead of failing.
        db.setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"
        return db  # never pooled: SQLite opens a file, not a connection to a server
    if env_bool("DATABASE_PREPARED_STATEMENTS", True):
        # PostgreSQL plans every statement it is sent; a hand's 70 statements are the same few dozen
        # texts each time. Server-side binding lets psycopg prepare a statement after its 5th run on a
        # connection, and PostgreSQL reuse its plan: about a third less database CPU per hand
        # (benchmarks/README.md, "Hand API"). Off (``0``) behind a transaction-mode connection pooler,
        # which can't keep a connection's prepared statements.
        db.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
    if pooled and DATABASE_POOL_MAX > 0:
        if db["CONN_MAX_AGE"] != 0:
            raise ImproperlyConfigured(
                f"CONN_MAX_AGE={db['CONN_MAX_AGE']} with DATABASE_POOL_MAX={DATABASE_POOL_MAX}: a pooled "
                "connection goes back to the pool after each request; set CONN_MAX_AGE=0 (or unset it)"
            )
        db.setdefault("OPTIONS", {})["pool"] = {
            "min_size": DATABASE_POOL_MIN,
            "max_size": DATABASE_POOL_MAX,
            "timeout": DATABASE_POOL_TIMEOUT,
        }
        # A pooled connection is checked (an empty statement) before a request gets it: after
        # PostgreSQL restarts, the pool's connections are dead, and the first tap on each would fail.
        db["CONN_HEALTH_CHECKS"] = True
    return db


DATABASES = {"default": _database("DATABASE_URL", DATABASE_URL, pooled=True)}
# Not a second alias: everything that walks the connections (system checks, a worker's start) would
# open it too. Pooled only when it is DATABASE_URL itself (then the logins are equal and `migrate`
# switches nothing); another login is used for a run of `migrate` at a time, unpooled, so that the
# default alias's pool never holds the owner's connections (ledger/db_privileges.py switches the
# alias's login by its settings, which a pool made with the app's login would ignore).
DATABASE_OWNER = _database(
    "DATABASE_OWNER_URL", DATABASE_OWNER_URL, pooled=DATABASE_OWNER_URL == DATABASE_URL
)
# Another host or port is fine (the app behind a pooler, migrate direct), another database is not:
# migrate would change one database and the app use another.
if any(DATABASE_OWNER[key] != DATABASES["default"][key] for key in ("ENGINE", "NAME")):
    raise ImproperlyConfigured(
        f"DATABASE_OWNER_URL must name the database DATABASE_URL names ({DATABASES['default']['NAME']!r}), "
        f"not {DATABASE_OWNER['NAME']!r}"
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- The cache, shared by every process of the server (docs/deployment.md, "The cache") -----------
# The per-user rates of the heavy requests count in Django's default cache (web/common/throttles.py, DRF's
# throttles), and so does the pending mark of a queued integrity check (backoffice/integrity_status.py).
# Django's own default, a local-memory cache, is one per process: each of gunicorn's WORKERS would
# keep its own count, and a user got WORKERS times the limit. CACHE_URL names a cache every process
# shares:
#   unset or empty       files under var/cache: shared by the processes of this machine, no service
#                        to run (the default; one server runs the whole room);
#   file:///abs/path     files in that directory (the same backend elsewhere);
#   redis://host:port/N  a Redis database (rediss:// with TLS, unix:///path.sock?db=N a socket):
#                        shared by several machines; Django's RedisCache.
# Login lock-outs are not counted here: django-axes keeps them in the database (AXES_HANDLER).
CACHE_URL = os.environ.get("CACHE_URL", "").strip()
_REDIS_SCHEMES = {"redis", "rediss", "unix"}


def _file_cache(directory: str) -> dict[str, Any]:
    # Culling drops a third of the entries at random when full: room for every user's counts.
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": directory,
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }


def cache_from_url(url: str, var_dir: Path) -> dict[str, Any]:
    """The default cache ``CACHE_URL`` names (see above), always one that several processes share;
    anything else stops the start with the accepted forms (the URL itself is not repeated: it may
    hold Redis's password)."""
    if not url:
        return _file_cache(str(var_dir / "cache"))
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower() if sep else ""
    if scheme in _REDIS_SCHEMES:
        # A Redis that stops answering fails a request in 2 s rather than holding its thread.
        options = {"socket_connect_timeout": 2, "socket_timeout": 2}
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url, "OPTIONS": options}
    if scheme == "file" and rest.startswith("/"):
        return _file_cache(unquote(rest))
    raise ImproperlyConfigured(
        f"CACHE_URL ({scheme or 'no'} scheme) is not a cache every process shares: use "
        "redis://host:port/db, rediss://..., unix:///path.sock?db=N or file:///absolute/path "
        "(unset: files under var/cache)"
    )


CACHES = {"default": cache_from_url(CACHE_URL, VAR_DIR)}

# --- Auth -----------------------------------------------------------------------
# ModelBackend, with a user's and their groups' permissions read in one query (casino/auth.py).
AUTHENTICATION_BACKENDS = ["casino.auth.OneQueryModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Validates nothing: records every password set or changed in the access log (docs/security.md).
    {"NAME": "ledger.access_log.RecordPasswordChange"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- Time and language --------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "America/Los_Angeles")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(f"TIME_ZONE={TIME_ZONE!r} is not a known IANA time zone") from None
USE_I18N = True
USE_TZ = True  # stored in UTC, shown in TIME_ZONE

# --- Static files ----------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing root on every request
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Security (production values whenever DEBUG is off) ------------------------------------
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# --- Safe by default: logins, sessions, headers (docs/security.md) ------------------------------------
# Kept in one block: the apps, middleware and settings for login throttling (django-axes), idle
# session time-outs, the Content-Security-Policy and the proxy whose client addresses are trusted.

# The proxy in front (README, "In production": it terminates TLS and sets X-Forwarded-Proto and
# X-Forwarded-For). A request from one of these addresses is the proxy's: the client is the right-most
# X-Forwarded-For address that is not one of them (casino.core.client_address). Addresses or networks,
# comma-separated; the loopback proxy of the same host by default. Empty: no proxy, the peer is the client.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "127.0.0.1,::1")
try:
    TRUSTED_PROXY_NETWORKS = [ipaddress.ip_network(item, strict=False) for item in TRUSTED_PROXIES]
except ValueError as exc:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES: {exc}") from None

# Logins (docs/security.md, "Logins are throttled"): django-axes counts failed logins (the login page,
# the admin; every authenticate() with a request) per address and locks the address out after
# LOGIN_FAILURE_LIMIT failures within LOGIN_LOCKOUT_MINUTES, for that long after the last one. A
# username is never locked out of every terminal: failed LOGIN_USER_FAILURE_LIMIT times from all
# addresses together (so never by one address alone), it cools down, LOGIN_USER_COOLDOWN_SECONDS
# between password checks (casino.auth.cool_down_seconds). An attempt refused (its address locked, its
# username cooling down) is answered 429 before its password is hashed (casino.auth) with the lock-out
# page (web.accounts.sessions.locked_out), and counts for nothing: not against the username, nor to
# extend the lock. Staff unlock early with `manage.py axes_reset_ip ADDRESS` (or axes_reset_username).
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last: turns a lock-out into its response
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15)
LOGIN_USER_FAILURE_LIMIT = env_int("LOGIN_USER_FAILURE_LIMIT", 2 * LOGIN_FAILURE_LIMIT)
LOGIN_USER_COOLDOWN_SECONDS = env_int("LOGIN_USER_COOLDOWN_SECONDS", 30)
if LOGIN_FAILURE_LIMIT < 1 or LOGIN_LOCKOUT_MINUTES < 1:
    raise ImproperlyConfigured("LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be at least 1")
if LOGIN_USER_FAILURE_LIMIT <= LOGIN_FAILURE_LIMIT or LOGIN_USER_COOLDOWN_SECONDS < 1:
    # At most LOGIN_FAILURE_LIMIT failures come from one address: one address can't start a cool-down.
    raise ImproperlyConfigured(
        "LOGIN_USER_FAILURE_LIMIT must be more than LOGIN_FAILURE_LIMIT, "
        "LOGIN_USER_COOLDOWN_SECONDS at least 1"
    )
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = dt.timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
# Per address only: a username's failures lock no terminal out for it (the cool-down above slows a
# username instead). A (username, address) pair's failures are its address's, locked with it.
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
# An attempt refused during a lock-out is not counted, and doesn't restart the lock's time.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "casino.core.client_address.client_address"
AXES_LOCKOUT_CALLABLE = "web.accounts.sessions.locked_out"  # the lock-out page, 429
# Failures are counted in the database (axes's AccessAttempt rows), which every process shares: no cache.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
# The access log (ledger.AccessEvent, append-only) records every login, logout and failure; axes's
# own log of successful logins would repeat it.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

# Sessions end after a time without a request (web.accounts.sessions.IdleSessionMiddleware): a back-office
# session after SESSION_IDLE_MINUTES, a dealer terminal's (a user whose only role is Dealer) after
# TERMINAL_IDLE_MINUTES; and however active, a fixed time after the login: a terminal's after
# TERMINAL_SESSION_MAX_HOURS (a shift), a back-office one's after SESSION_MAX_HOURS (a working day).
# The cookie lasts no longer than the longest of them.
SESSION_IDLE_MINUTES = env_int("SESSION_IDLE_MINUTES", 30)
TERMINAL_IDLE_MINUTES = env_int("TERMINAL_IDLE_MINUTES", 12 * 60)
if SESSION_IDLE_MINUTES < 1 or TERMINAL_IDLE_MINUTES < 1:
    raise ImproperlyConfigured("SESSION_IDLE_MINUTES and TERMINAL_IDLE_MINUTES must be at least 1")
SESSION_MAX_HOURS = env_int("SESSION_MAX_HOURS", 8)
TERMINAL_SESSION_MAX_HOURS = env_int("TERMINAL_SESSION_MAX_HOURS", 12)
if SESSION_MAX_HOURS < 1 or TERMINAL_SESSION_MAX_HOURS < 1:
    raise ImproperlyConfigured("SESSION_MAX_HOURS and TERMINAL_SESSION_MAX_HOURS must be at least 1")
SESSION_COOKIE_AGE = 60 * max(
    SESSION_IDLE_MINUTES, TERMINAL_IDLE_MINUTES, 60 * SESSION_MAX_HOURS, 60 * TERMINAL_SESSION_MAX_HOURS
)
# After the messages middleware (it may say why the session ended), before any view is chosen.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.messages.middleware.MessageMiddleware") + 1,
    "web.accounts.sessions.IdleSessionMiddleware",
)

# Content-Security-Policy (Django's own): scripts, styles, images, fonts and connections from the site
# only, no inline script or style, no plugins, no framing. The pages keep their scripts and styles in
# static/. The API's documentation pages (Swagger UI, Redoc) inline styles: they relax style-src alone
# (web.site.api_docs).
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
)
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# The largest request body taken (bytes; the proxy's client_max_body_size, docs/deployment.md, is the
# same): no page or API takes a file, and the largest JSON is a few kilobytes. A bigger body is refused
# from its Content-Length, unread (web.common.middleware.BodyLimitMiddleware); what Django reads is
# then kept in memory, never spooled to a temporary file.
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 1024 * 1024)
if REQUEST_BODY_MAX_BYTES < 64 * 1024:
    raise ImproperlyConfigured(f"REQUEST_BODY_MAX_BYTES={REQUEST_BODY_MAX_BYTES} must be at least 65536")
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES

# --- REST API ----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # A session from the login page only: no HTTP Basic, whose every request is a password check
        # (the login page's is throttled; docs/security.md).
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "web.common.pagination.Pagination",
    # JSON too deep for Python or with text PostgreSQL can't hold is a 400 (web/common/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "web.common.parsers.GuardedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 100,
    # Domain errors (casino.core.errors.DomainError) answer with their status and body; DRF's own
    # errors as DRF answers them (web/common/errors.py).
    "EXCEPTION_HANDLER": "web.common.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Card room table management API",
    "DESCRIPTION": (
        "Tables, seats, players, hands and the ledger of a licensed card room. Money is integer cents."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Every page and API call needs a login, the schema and its docs included.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # The statuses every operation shares (401, 403, 404 by id, 400 on input), documented once.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "web.common.schema.document_error_responses",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two models share a field name with different choices (structure, status): name each enum.
    "ENUM_NAME_OVERRIDES": {
        "StakesStructureEnum": "tables.choices.Structure",
        "RateStructureEnum": "tables.choices.RateStructure",
        "TableStatusEnum": "tables.models.TableStatus",
        "HandStatusEnum": "tables.choices.HandStatus",
        "MisdealReasonEnum": "tables.choices.MisdealReason",
    },
}

# --- Celery ------------------------------------------------------------------------------
# Without a broker the tasks run in-process (the `make run` default); with one, in a worker.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True

# --- Celery beat and the report jobs' retries (backoffice/schedules.py, backoffice/tasks.py) ---------------
# The periodic jobs (close ended shifts, verify the ledger nightly) are django-celery-beat
# PeriodicTask rows, synced after every migrate and read by its DatabaseScheduler. Version 2.9.0
# declares Django<6.1 but works on 6.1 (docs/reports.md): it is installed with --no-deps.
INSTALLED_APPS += ["django_celery_beat"]
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# The ledger's tasks retry database errors with exponential backoff (capped), at most this often.
LEDGER_TASK_MAX_RETRIES = env_int("LEDGER_TASK_MAX_RETRIES", 8)
LEDGER_TASK_RETRY_BACKOFF_MAX = env_int("LEDGER_TASK_RETRY_BACKOFF_MAX", 600)
# Drop-count variance over this many basis points of the recorded fees is flagged (300 = 3%).
LEDGER_DROP_VARIANCE_THRESHOLD_BP = env_int("LEDGER_DROP_VARIANCE_THRESHOLD_BP", 300)
if not 0 <= LEDGER_DROP_VARIANCE_THRESHOLD_BP <= 10_000:
    raise ImproperlyConfigured(
        f"LEDGER_DROP_VARIANCE_THRESHOLD_BP={LEDGER_DROP_VARIANCE_THRESHOLD_BP} is not 0 to 10000 basis "
        "points"
    )
# The API's replay records (Idempotency-Key -> first response) are kept this many hours, then
# purged daily. A retry after that is a new request; money is still posted once, since the
# ledger keeps its own keys forever (docs/hand-flow.md, "Idempotency keys").
IDEMPOTENCY_KEY_RETENTION_HOURS = env_int("IDEMPOTENCY_KEY_RETENTION_HOURS", 48)
if IDEMPOTENCY_KEY_RETENTION_HOURS < 1:
    raise ImproperlyConfigured(
        f"IDEMPOTENCY_KEY_RETENTION_HOURS={IDEMPOTENCY_KEY_RETENTION_HOURS} must be at least 1 hour"
    )

# --- The ledger's secrets: chain keys and the anchor signing key (ledger/keys.py, docs/ledger.md) ---
# Kept out of the database, so that write access to it can't rewrite the ledger unseen. Unset, public
# development keys are used, which `check` refuses when DEBUG is off (`manage.py new_ledger_key`).
LEDGER_KEYS = os.environ.get("LEDGER_KEYS", "")  # "k2:<base64>,k1:<base64>": every chain key in use
LEDGER_KEYS_FILE = os.environ.get("LEDGER_KEYS_FILE", "")  # or a file of id:<base64> lines
LEDGER_KEY_ID = os.environ.get("LEDGER_KEY_ID", "")  # the key new rows are hashed with
LEDGER_ANCHOR_SIGNING_KEY = os.environ.get("LEDGER_ANCHOR_SIGNING_KEY", "")  # "id:<base64 Ed25519>"
LEDGER_ANCHOR_PUBLIC_KEYS = os.environ.get("LEDGER_ANCHOR_PUBLIC_KEYS", "")  # earlier public keys
LEDGER_ANCHOR_DIR = os.environ.get("LEDGER_ANCHOR_DIR", "")  # also append each signed anchor here
# Rows hashed before the chain was keyed verify as plain sha256 while this is on (docs/ledger.md).
LEDGER_ALLOW_UNKEYED = env_bool("LEDGER_ALLOW_UNKEYED", True)

# --- Logging -------------------------------------------------------------------------------
# One line a record, to standard error (systemd's journal in production), each with the request id
# of the request it was logged in ("-" outside one: a Celery task, a command). The id comes from the
# X-Request-ID header or is made, and is sent back on the response (casino/request_id.py), so an
# access log line, a proxy's log and the app's records of one request share it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "casino.request_id.RequestIdLogFilter"}},
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["request_id"], "formatter": "line"},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # psycopg's pool logs every connection lent and returned at INFO: two lines a request.
    "loggers": {"psycopg.pool": {"level": "WARNING"}},
}

# --- Bounded work: export retention and per-user rates of the heavy requests (docs/reports.md) ---------
# A built report export's file is kept this many days, then dropped by the daily purge
# (ledger.purge_expired_exports); the export's row, with the file's sha256 and size, stays.
EXPORT_RETENTION_DAYS = env_int("EXPORT_RETENTION_DAYS", 90)
if EXPORT_RETENTION_DAYS < 1:
    raise ImproperlyConfigured(f"EXPORT_RETENTION_DAYS={EXPORT_RETENTION_DAYS} must be at least 1 day")
# Per user, for the API and the pages alike (web/common/throttles.py): reports built now, exports
# requested, files downloaded. DRF's notation: <number>/<second|minute|hour|day>.
HEAVY_REQUEST_RATES = {
    "reports": os.environ.get("RATE_REPORTS", "60/minute"),
    "exports": os.environ.get("RATE_EXPORTS", "12/minute"),
    "downloads": os.environ.get("RATE_DOWNLOADS", "30/minute"),
}
for _scope, _rate in HEAVY_REQUEST_RATES.items():
    _number, _, _period = _rate.partition("/")
    if not (
        _number.isascii() and _number.isdigit() and int(_number) > 0 and _period[:1] in {"s", "m", "h", "d"}
    ):
        raise ImproperlyConfigured(f"the rate of {_scope} requests {_rate!r} is not like 60/minute")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = dict(HEAVY_REQUEST_RATES)

# --- The production server: request ids, the health endpoint (docs/deployment.md) ------------------
# Kept in one block of its own. The request id is taken or made before any other middleware runs,
# so that everything logged for a request carries it, a refusal by a middleware included.
MIDDLEWARE.insert(0, "casino.request_id.RequestIdMiddleware")
# A load balancer or systemd probes /healthz over plain HTTP on the server itself: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# --- Reports that can't starve the terminals (docs/reports.md, "Bounded work"; docs/deployment.md) -----
# A report built in a request (a report page, /api/ledger/reports/...) runs at most this long: its
# statements under PostgreSQL's statement_timeout, none started after it (backoffice/reports/
# time_limit.py); past it, 503 `report_timeout` saying to narrow the dates or export in the background.
REPORT_STATEMENT_TIMEOUT_MS = env_int("REPORT_STATEMENT_TIMEOUT_MS", 10_000)
# Reports built at once, in all and per user (web/common/slots.py: leases in the default cache, which
# every process shares); beyond, 503 (in all) or 429 (yours) with Retry-After. In all it stays below
# the server's threads, so that a terminal's request always finds one free: deploy/gunicorn.conf.py
# sets it from WORKERS x THREADS and the CPUs (a quarter of the threads, fewer than a process's threads
# and than the CPUs); 2 elsewhere.
REPORTS_AT_ONCE = env_int("REPORTS_AT_ONCE", 2)
REPORTS_AT_ONCE_PER_USER = env_int("REPORTS_AT_ONCE_PER_USER", 1)
if REPORT_STATEMENT_TIMEOUT_MS < 1 or REPORTS_AT_ONCE < 1 or REPORTS_AT_ONCE_PER_USER < 1:
    raise ImproperlyConfigured(
        "REPORT_STATEMENT_TIMEOUT_MS, REPORTS_AT_ONCE and REPORTS_AT_ONCE_PER_USER must be at least 1"
    )

# --- Exports with a size: where built files are kept and how big one may be (docs/reports.md) -------
# The background export writes its file here, row by row, and downloads stream it from here: the
# web server and the worker share it (deploy/*.service: /srv/casino/var is theirs to write).
EXPORT_DIR = Path(os.environ.get("EXPORT_DIR") or VAR_DIR / "exports")
# One export's bounds (docs/decisions.md, "Exports with a size"): a CSV (or zip of CSVs) of at most
# EXPORT_MAX_ROWS rows and EXPORT_MAX_BYTES bytes, a PDF of at most EXPORT_PDF_MAX_ROWS rows. Beyond,
# the export fails with the reason and how to split it (a shorter period); nothing half-written is kept.
EXPORT_MAX_ROWS = env_int("EXPORT_MAX_ROWS", 2_000_000)
EXPORT_MAX_BYTES = env_int("EXPORT_MAX_BYTES", 512 * 1024 * 1024)
EXPORT_PDF_MAX_ROWS = env_int("EXPORT_PDF_MAX_ROWS", 20_000)
for _name in ("EXPORT_MAX_ROWS", "EXPORT_MAX_BYTES", "EXPORT_PDF_MAX_ROWS"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name}={globals()[_name]} must be at least 1")

# --- Alerts: who is told when a check fails or doesn't run (docs/deployment.md, "Alerts") -------------
# casino.core.alerts logs at CRITICAL on "casino.alerts", mails ADMINS and POSTs to the webhook.
# ADMINS="Name <a@example.com>,Other <b@example.com>" (a bare address is its own name); empty: no mail.
ADMINS = env_admins("ADMINS")
# The mail server (Django's MAILERS; the tests send to a local outbox): SMTP on localhost:25 unless told.
_MAIL_OPTIONS: dict[str, Any] = {
    "host": os.environ.get("EMAIL_HOST", "localhost"),
    "port": env_int("EMAIL_PORT", 25),
    "username": os.environ.get("EMAIL_HOST_USER", ""),
    "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
    "use_tls": env_bool("EMAIL_USE_TLS", False),
    "use_ssl": env_bool("EMAIL_USE_SSL", False),
    # Seconds: a mail server that doesn't answer never holds a check long.
    "timeout": env_int("EMAIL_TIMEOUT", 10),
}
MAILERS = {"default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend", "OPTIONS": _MAIL_OPTIONS}}
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", "casino@localhost")
EMAIL_SUBJECT_PREFIX = os.environ.get("EMAIL_SUBJECT_PREFIX", "[casino] ")
if _MAIL_OPTIONS["use_tls"] and _MAIL_OPTIONS["use_ssl"]:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL can't both be on")
# An optional webhook (a chat room's incoming hook, a pager): one JSON POST per alert; empty: none.
ALERT_WEBHOOK_URL = os.environ.get("ALERT_WEBHOOK_URL", "")
ALERT_WEBHOOK_TIMEOUT = env_int("ALERT_WEBHOOK_TIMEOUT", 5)
# A scheduled check (the nightly ledger check, the replay audit) whose newest stored result is older
# than this many hours is reported as not run (backoffice.overdue_checks, hourly).
CHECK_OVERDUE_HOURS = env_int("CHECK_OVERDUE_HOURS", 26)
if ALERT_WEBHOOK_TIMEOUT < 1 or CHECK_OVERDUE_HOURS < 1:
    raise ImproperlyConfigured("ALERT_WEBHOOK_TIMEOUT and CHECK_OVERDUE_HOURS must be at least 1")
