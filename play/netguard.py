"""Where a user's own model server may be, and a connection that cannot be steered elsewhere.

A user names the base URL of their model server and the site connects to it with their key
(issue 9 §2). Unguarded, that lets anybody make the site call its own Redis, PostgreSQL or the
cloud's metadata service. So, for a URL a user gave:

- only ``http`` and ``https``;
- the host is resolved once per connection, every address it resolves to is checked, and the
  socket is opened to a checked address by number: no second lookup that a rebinding DNS server
  could answer differently. TLS still verifies the certificate of, and SNI and ``Host`` still
  name, the host the user typed (the connection pool keeps the named origin);
- loopback, private, link-local, CGNAT, multicast, reserved, ULA and metadata addresses are
  refused however they are spelled: the check runs on what the C resolver made of the host, so
  decimal, octal, hex and short IPv4 forms land on their real address, and IPv4-mapped and
  NAT64 IPv6 addresses are judged by the IPv4 address inside. The operator may allow private
  networks for a local Ollama (``allow_private``); metadata, link-local, multicast and
  unspecified addresses stay refused even then;
- redirects are never followed (the key goes only to the named host; a 3xx fails the turn);
- every refused or failed connection reads the same (``UNREACHABLE``). A refused address is
  refused before any packet leaves, whatever listens there, so neither the text nor the time
  tells what is behind it.

No Django here: the operator's flag is an argument. The site's own ``FABULA_BASE_URL`` is the
operator's and is not guarded.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import AsyncIterator, Iterable, Sequence

import anyio
import anyio.to_thread
import httpcore2
import httpx2
from django.utils.translation import gettext_noop
from httpcore2 import AsyncNetworkStream

from engine.llm.base import ChatRequest, Chunk, Provider, ProviderError
from play.netstream import AsyncioBackend, StaleSocketRetry

log = logging.getLogger(__name__)

UNREACHABLE = "The model server could not be reached. Check its address and try again."
NOT_ALLOWED = gettext_noop("This address is not allowed.")
BAD_SCHEME = gettext_noop("The base URL must start with http:// or https://.")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(*cidrs: str) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


# Never a model server, whatever the operator allows.
ALWAYS_REFUSED = _networks(
    "0.0.0.0/8",  # "this network": 0.0.0.0 reaches the local host on Linux
    "169.254.0.0/16",  # link-local: cloud metadata (169.254.169.254, ECS 169.254.170.2)
    "100.100.100.200/32",  # Alibaba Cloud metadata
    "168.63.129.16/32",  # Azure host agent
    "224.0.0.0/4",  # multicast
    "240.0.0.0/4",  # reserved, broadcast
    "::/128",
    "fe80::/10",  # link-local
    "ff00::/8",  # multicast
    "fd00:ec2::254/128",  # AWS metadata over IPv6
)
# Refused unless the operator allows private model hosts (a local Ollama, a LAN server).
PRIVATE = _networks(
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",  # CGNAT
    "::1/128",
    "fc00::/7",  # unique local
)
# Special-purpose blocks that are not on the public internet (IANA registries); Python's own
# ``is_global`` varies between versions, so they are listed here.
SPECIAL = _networks(
    "192.0.0.0/24",
    "192.0.2.0/24",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "::/96",  # IPv4-compatible (deprecated)
    "64:ff9b:1::/48",  # local-use NAT64
    "100::/64",  # discard
    "2001::/23",  # IETF protocol assignments, Teredo
    "2001:db8::/32",  # documentation
    "2002::/16",  # 6to4
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped or NAT64 IPv6 address leads to."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_allowed(address: IPAddress, allow_private: bool = False) -> bool:
    """Whether a user's model server may be at ``address``."""
    ip = embedded_ipv4(address) or address
    if any(ip in net for net in ALWAYS_REFUSED):
        return False
    if any(ip in net for net in PRIVATE):
        return allow_private
    if any(ip in net for net in SPECIAL):
        return False
    return ip.is_global


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address the system resolver reads in ``host``, in its order (IP spellings too)."""
    found: list[IPAddress] = []
    for family, _type, _proto, _name, sockaddr in socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM
    ):
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in found:
            found.append(address)
    return found


def all_allowed(addresses: Sequence[IPAddress], allow_private: bool) -> bool:
    """A host is allowed only when every address it resolves to is (one bad one spoils it)."""
    return bool(addresses) and all(address_allowed(a, allow_private) for a in addresses)


def url_problem(url: str, allow_private: bool) -> str | None:
    """Why a user may not save ``url`` as their model server's base URL; None when they may.

    A host that does not resolve now is accepted: the connection checks again anyway.
    """
    try:
        parsed = httpx2.URL(url)
    except (httpx2.InvalidURL, TypeError, ValueError):
        return NOT_ALLOWED
    if parsed.scheme not in ("http", "https"):
        return BAD_SCHEME
    host = parsed.raw_host.decode("ascii", "replace")
    if not host:
        return NOT_ALLOWED
    try:
        addresses = resolve(host, parsed.port or (443 if parsed.scheme == "https" else 80))
    except (OSError, UnicodeError, ValueError):
        return None
    return None if all_allowed(addresses, allow_private) else NOT_ALLOWED


# --- the connection --------------------------------------------------------------------------


class PinnedBackend(AsyncioBackend):
    """Resolves the host once, checks every address, and connects to a checked one by number."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        addresses = await self._resolve(host, port, timeout)
        if not all_allowed(addresses, self.allow_private):
            log.warning("refused a model connection to %s: %s is not allowed", host, addresses)
            raise httpcore2.ConnectError(UNREACHABLE)
        failure: Exception = httpcore2.ConnectError(UNREACHABLE)
        for address in addresses:
            try:
                return await super().connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        raise failure

    async def _resolve(self, host: str, port: int, timeout: float | None) -> list[IPAddress]:
        try:
            with anyio.fail_after(timeout):
                return await anyio.to_thread.run_sync(resolve, host, port, abandon_on_cancel=True)
        except TimeoutError:
            raise httpcore2.ConnectTimeout(UNREACHABLE) from None
        except (OSError, UnicodeError, ValueError):
            raise httpcore2.ConnectError(UNREACHABLE) from None


class PinnedTransport(StaleSocketRetry):
    """httpx's transport on a pool whose every socket goes through ``PinnedBackend``.

    No proxy from the environment either: a proxy would resolve the host itself.
    """

    def __init__(self, *, allow_private: bool, max_connections: int = 100) -> None:
        context = httpx2.create_ssl_context(trust_env=False)
        super().__init__(verify=context, trust_env=False)
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=5.0,
            network_backend=PinnedBackend(allow_private),
        )


def pinned_client(*, allow_private: bool, timeout: float) -> httpx2.AsyncClient:
    """The HTTP client for a user's model server: pinned addresses, no redirects, no env proxy."""
    return httpx2.AsyncClient(
        transport=PinnedTransport(allow_private=allow_private),
        follow_redirects=False,
        trust_env=False,
        timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
    )


# --- what the player reads -------------------------------------------------------------------


class PlainFailures:
    """A provider whose server a user named: every way of not reaching it reads the same.

    Refused address, refused or reset connection, TLS failure, timeout, an answer that is not a
    model's, a redirect: all become ``UNREACHABLE`` (the technical cause stays in ``detail``,
    for logs). Errors the model server itself states (a refused key, an unknown model, 429, 5xx)
    keep their words, since they are about the user's own account.
    """

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        try:
            async for chunk in self.inner.stream(request):
                yield chunk
        except ProviderError as exc:
            if not (exc.before_first_token and unreachable(exc)):
                raise
            raise ProviderError(
                UNREACHABLE,
                retryable=exc.retryable,
                detail=exc.detail or exc.message,
            ) from exc


class Unreachable:
    """A user's server whose stored address cannot even be used: each turn fails as unreachable."""

    name = "unreachable"

    def __init__(self, model: str, detail: str) -> None:
        self.model = model
        self.detail = detail

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        raise ProviderError(UNREACHABLE, detail=self.detail)
        yield Chunk()  # pragma: no cover - makes this an async generator


def unreachable(exc: ProviderError) -> bool:
    """No model spoke: no HTTP status at all, or a redirect."""
    return exc.status is None or 300 <= exc.status < 400
