"""The client's IP address, seen through the trusted proxy (``settings.TRUSTED_PROXIES``).

Behind a reverse proxy every request's peer (``REMOTE_ADDR``) is the proxy; the proxy appends the
address it was connected from to ``X-Forwarded-For``. Only the proxy's own entries can be believed
(a client can send any ``X-Forwarded-For`` it likes), so the client is the right-most address of that
header that is not itself a trusted proxy, and only when the peer is one. A request from anywhere
else is its peer's. Used by the login lock-outs (django-axes's ``AXES_CLIENT_IP_CALLABLE``) and the
access log, so both count and record the same address.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest

type IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
type IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address: IPAddress, networks: list[IPNetwork]) -> bool:
    return any(address in network for network in networks)


def client_address(request: HttpRequest) -> str | None:
    """The address of the client that made ``request``: ``REMOTE_ADDR``, unless that is a trusted
    proxy's, then the right-most ``X-Forwarded-For`` entry that isn't (the left-most entry when all are:
    proxies in a chain). ``None`` when there is no usable address (a bare test request)."""
    peer = _address(request.META.get("REMOTE_ADDR", "") or "")
    if peer is None:
        return None
    networks: list[IPNetwork] = getattr(settings, "TRUSTED_PROXY_NETWORKS", [])
    if not _trusted(peer, networks):
        return str(peer)
    forwarded = [_address(item) for item in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [address for address in forwarded if address is not None]
    if not chain:
        return str(peer)
    for address in reversed(chain):
        if not _trusted(address, networks):
            return str(address)
    return str(chain[0])
