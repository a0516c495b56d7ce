"""The websocket Origin check: the page's scheme, host and port, like Django's CSRF check.

channels' AllowedHostsOriginValidator compares host names only, so a page served from
``http://host:8000`` (another process, plain HTTP) could open sockets of ``https://host``. Here
the Origin must be exactly ``scheme://host[:port]`` of the socket's own request: ``ws`` is
``http``, ``wss`` is ``https`` (or the proxy's X-Forwarded-Proto when SECURE_PROXY_SSL_HEADER
trusts it), the Host header must be one of ALLOWED_HOSTS, and a default port may be written or
left out. CSRF_TRUSTED_ORIGINS are accepted too, as Django's CSRF check accepts them. A missing,
``null`` or malformed Origin is refused.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


def _parse(url: str) -> Origin | None:
    try:
        parts: SplitResult = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
    return hosts


def _request_scheme(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str:
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        if name in headers:
            return "https" if headers[name].decode("latin1").strip() == proxy[1] else "http"
    return "https" if scope.get("scheme") == "wss" else "http"


def _trusted(raw_origin: str) -> bool:
    """CSRF_TRUSTED_ORIGINS, read the way Django's CSRF check reads them."""
    trusted = settings.CSRF_TRUSTED_ORIGINS
    if raw_origin in trusted:
        return True
    parts = urlsplit(raw_origin)
    return any(
        parts.scheme == urlsplit(pattern).scheme
        and is_same_domain(parts.netloc, urlsplit(pattern).netloc.lstrip("*"))
        for pattern in trusted
        if "*" in pattern
    )


def origin_allowed(scope: dict[str, Any]) -> bool:
    """True when the socket's Origin is its own page's scheme, host and port (or trusted)."""
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    raw_origin = headers.get(b"origin", b"").decode("latin1")
    host = headers.get(b"host", b"").decode("latin1")
    origin = _parse(raw_origin)
    domain, _port = split_domain_port(host)
    if origin is None or not domain or not validate_host(domain, _allowed_hosts()):
        return False
    return origin == _parse(f"{_request_scheme(scope, headers)}://{host}") or _trusted(raw_origin)
