"""The ledger's secrets, which live outside the database: the chain keys and the anchor signing key.

* **Chain keys** (HMAC-SHA256): every journal row's ``hash`` is an HMAC of its content under the
  key named by its ``key_id`` (``ledger.hashing``). Someone who can write the database but does not
  have the key can't recompute a chain that verifies. ``LEDGER_KEYS`` holds every key that may have
  signed a row (``"k2:<base64>,k1:<base64>"``, and/or a file ``LEDGER_KEYS_FILE`` with one
  ``id:<base64>`` a line); ``LEDGER_KEY_ID`` names the one new rows use. Rotation: add a new key,
  point ``LEDGER_KEY_ID`` at it, keep the old ones (their rows stay verifiable).
* **Anchor signing key** (Ed25519): the chain heads a shift close or an integrity check publishes
  are signed (``ledger.anchors``), so anyone with the *public* key can check a published copy.
  ``LEDGER_ANCHOR_SIGNING_KEY`` is ``"id:<base64 of the 32-byte private key>"``;
  ``LEDGER_ANCHOR_PUBLIC_KEYS`` (``"id:<base64>,..."``) are earlier public keys still trusted.

Without any of these, fixed development keys (``DEV_KEY_ID``) are used: they are public (they are in
this file), so they protect nothing. With ``DEBUG`` off the app refuses to start with them
(:func:`refuse_development_keys`, called by ``LedgerConfig.ready``, whatever serves the app: a WSGI
or ASGI server, a Celery worker, a management command), and a system check (``ledger.E001``/``E002``)
names them in ``manage.py check``. The commands that make or need no keys (:data:`KEYLESS_COMMANDS`)
start without them. Once real keys are set, the development keys are not trusted at all (a row or an
anchor under ``dev`` is then an ``unknown_key``), unless listed explicitly.

The parsed keys are cached (the posting path asks for the current key on every posting) and the
cache is dropped when a test overrides a ``LEDGER_*`` setting.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver

DEV_KEY_ID = "dev"
"""The id of the development chain key and of the development anchor key."""

# Public on purpose: a fresh checkout must post and verify without any set-up. Never secret.
_DEV_CHAIN_KEY = hashlib.sha256(b"card room ledger: development chain key, not a secret").digest()
_DEV_ANCHOR_SEED = hashlib.sha256(b"card room ledger: development anchor key, not a secret").digest()

MIN_KEY_BYTES = 32
"""A chain key has at least 256 bits."""

KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,32}")
"""What a key id may be: it is stored on every row (``JournalTransaction.key_id``, 32 characters)."""


@dataclass(frozen=True, slots=True)
class ChainKeys:
    """The chain keys in force: ``keys`` by id, ``current_id`` the one new rows use."""

    current_id: str
    keys: Mapping[str, bytes]
    development: bool

    @property
    def current(self) -> tuple[str, bytes]:
        return self.current_id, self.keys[self.current_id]


@dataclass(frozen=True, slots=True)
class AnchorKeys:
    """The anchor signing key (``signing_id``, ``signing_key``) and every public key trusted to have
    signed an anchor, by id (the signing key's own among them)."""

    signing_id: str
    signing_key: Ed25519PrivateKey
    public: Mapping[str, Ed25519PublicKey]
    development: bool


def _decode(text: str, *, what: str) -> bytes:
    try:
        return base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ImproperlyConfigured(f"{what}: {text[:8]!r}... is not base64") from None


def _key_id(text: str, *, what: str) -> str:
    if not KEY_ID.fullmatch(text):
        raise ImproperlyConfigured(f"{what}: key id {text!r} must be 1-32 letters, digits, '_', '.' or '-'")
    return text


def parse_entries(text: str, *, what: str) -> dict[str, bytes]:
    """``"id:<base64>,id:<base64>"`` (commas and/or new lines; ``#`` starts a comment) as
    ``{id: bytes}``. Raises ImproperlyConfigured for a malformed entry or an id given twice."""
    found: dict[str, bytes] = {}
    for raw_line in text.splitlines():
        line = raw_line.split("#", 1)[0]
        for item in line.split(","):
            item = item.strip()
            if not item:
                continue
            key_id, sep, value = item.partition(":")
            if not sep:
                raise ImproperlyConfigured(f"{what}: {item[:8]!r}... is not id:<base64>")
            key_id = _key_id(key_id.strip(), what=what)
            if key_id in found:
                raise ImproperlyConfigured(f"{what}: key id {key_id!r} is given twice")
            found[key_id] = _decode(value, what=what)
    return found


@functools.cache
def chain_keys() -> ChainKeys:
    """The chain keys from the settings (cached). Raises ImproperlyConfigured for a bad setting."""
    keys = parse_entries(getattr(settings, "LEDGER_KEYS", ""), what="LEDGER_KEYS")
    if path := getattr(settings, "LEDGER_KEYS_FILE", ""):
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ImproperlyConfigured(f"LEDGER_KEYS_FILE={path!r} can't be read: {exc}") from None
        for key_id, key in parse_entries(text, what="LEDGER_KEYS_FILE").items():
            if keys.setdefault(key_id, key) != key:
                raise ImproperlyConfigured(
                    f"key id {key_id!r} has different keys in LEDGER_KEYS and LEDGER_KEYS_FILE"
                )
    for key_id, key in keys.items():
        if len(key) < MIN_KEY_BYTES:
            raise ImproperlyConfigured(
                f"ledger chain key {key_id!r} has {len(key)} bytes; at least {MIN_KEY_BYTES} are needed"
            )
    current = getattr(settings, "LEDGER_KEY_ID", "")
    if not keys:
        if current and current != DEV_KEY_ID:
            raise ImproperlyConfigured(f"LEDGER_KEY_ID={current!r} but LEDGER_KEYS has no keys")
        return ChainKeys(current_id=DEV_KEY_ID, keys={DEV_KEY_ID: _DEV_CHAIN_KEY}, development=True)
    if not current:
        if len(keys) > 1:
            raise ImproperlyConfigured(
                "LEDGER_KEYS has several keys: LEDGER_KEY_ID must name the current one"
            )
        current = next(iter(keys))
    if current not in keys:
        raise ImproperlyConfigured(f"LEDGER_KEY_ID={current!r} is not one of LEDGER_KEYS ({', '.join(keys)})")
    return ChainKeys(current_id=current, keys=keys, development=keys.get(current) == _DEV_CHAIN_KEY)


def public_key_bytes(key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of an Ed25519 public key (what ``LEDGER_ANCHOR_PUBLIC_KEYS`` holds, base64)."""
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def parse_public_keys(text: str, *, what: str) -> dict[str, Ed25519PublicKey]:
    """``"id:<base64 of 32 bytes>,..."`` as Ed25519 public keys by id."""
    found: dict[str, Ed25519PublicKey] = {}
    for key_id, raw in parse_entries(text, what=what).items():
        try:
            found[key_id] = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError:
            raise ImproperlyConfigured(
                f"{what}: key {key_id!r} is not a 32-byte Ed25519 public key"
            ) from None
    return found


@functools.cache
def anchor_keys() -> AnchorKeys:
    """The anchor signing key and the trusted public keys (cached). Raises ImproperlyConfigured."""
    text = getattr(settings, "LEDGER_ANCHOR_SIGNING_KEY", "").strip()
    public = parse_public_keys(
        getattr(settings, "LEDGER_ANCHOR_PUBLIC_KEYS", ""), what="LEDGER_ANCHOR_PUBLIC_KEYS"
    )
    if not text:
        signing_id, seed, development = DEV_KEY_ID, _DEV_ANCHOR_SEED, True
    else:
        entries = parse_entries(text, what="LEDGER_ANCHOR_SIGNING_KEY")
        if len(entries) != 1:
            raise ImproperlyConfigured("LEDGER_ANCHOR_SIGNING_KEY is one id:<base64> entry")
        ((signing_id, seed),) = entries.items()
        development = seed == _DEV_ANCHOR_SEED
    try:
        signing_key = Ed25519PrivateKey.from_private_bytes(seed)
    except ValueError:
        raise ImproperlyConfigured("LEDGER_ANCHOR_SIGNING_KEY is not a 32-byte Ed25519 private key") from None
    own = signing_key.public_key()
    if signing_id in public and public_key_bytes(public[signing_id]) != public_key_bytes(own):
        raise ImproperlyConfigured(
            f"LEDGER_ANCHOR_PUBLIC_KEYS has another key under the signing key's id {signing_id!r}"
        )
    return AnchorKeys(
        signing_id=signing_id,
        signing_key=signing_key,
        public={**public, signing_id: own},
        development=development,
    )


def new_chain_key() -> str:
    """A new random chain key, base64 (32 bytes from the operating system's generator)."""
    return base64.b64encode(_random(MIN_KEY_BYTES)).decode()


def new_signing_key() -> tuple[str, str]:
    """A new Ed25519 key pair as base64 ``(private, public)``."""
    seed = _random(32)
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    return base64.b64encode(seed).decode(), base64.b64encode(public_key_bytes(public)).decode()


def _random(size: int) -> bytes:
    return secrets.token_bytes(size)


@receiver(setting_changed)
def _forget_keys(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith("LEDGER_"):
        chain_keys.cache_clear()
        anchor_keys.cache_clear()


KEYLESS_COMMANDS = frozenset({"new_ledger_key", "check"})
"""Management commands that start without the ledger's keys under production settings: making the
first keys (``new_ledger_key``, which runs no system checks either), and ``check``, which reports
missing keys as ``ledger.E001``/``E002``. Neither posts to the ledger."""


def development_keys_in_use() -> list[str]:
    """The settings that are (or fall back to) the public development keys: ``LEDGER_KEYS`` for the
    chain key, ``LEDGER_ANCHOR_SIGNING_KEY`` for the anchor signing key. Raises ImproperlyConfigured for
    a malformed key setting."""
    found = []
    if chain_keys().development:
        found.append("LEDGER_KEYS")
    if anchor_keys().development:
        found.append("LEDGER_ANCHOR_SIGNING_KEY")
    return found


def refuse_development_keys() -> None:
    """With ``DEBUG`` off, raise ImproperlyConfigured unless real keys are set: the development keys are
    public, so a ledger kept with them can be rewritten unseen. (A malformed key setting raises too.)
    Nothing is checked with ``DEBUG`` on."""
    if settings.DEBUG:
        return
    missing = development_keys_in_use()
    if missing:
        raise ImproperlyConfigured(
            f"DEBUG is off but {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: the "
            "ledger would be kept with the public development keys, which anyone can use to rewrite it "
            "unseen. Make the keys with `manage.py new_ledger_key` and `manage.py new_ledger_key --anchor` "
            'and set what they print (README, "The ledger\'s keys and checks"); for a local development '
            "server set DEBUG=1."
        )


@checks.register(checks.Tags.security)
def check_keys(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """``ledger.E001``: the public development chain key with DEBUG off; ``E002``: the same for the
    anchor signing key; ``E003``: a malformed ``LEDGER_*`` key setting."""
    messages: list[checks.CheckMessage] = []
    try:
        chain = chain_keys()
        anchors = anchor_keys()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="ledger.E003")]
    if settings.DEBUG:
        return messages
    if chain.development:
        messages.append(
            checks.Error(
                "The ledger's chain key is the public development key: anyone with database access "
                "can rewrite the ledger unseen.",
                hint="Set LEDGER_KEYS and LEDGER_KEY_ID (manage.py new_ledger_key prints them).",
                id="ledger.E001",
            )
        )
    if anchors.development:
        messages.append(
            checks.Error(
                "The ledger's anchor signing key is the public development key: published chain heads "
                "can be forged.",
                hint="Set LEDGER_ANCHOR_SIGNING_KEY (manage.py new_ledger_key --anchor prints it).",
                id="ledger.E002",
            )
        )
    return messages
