"""A user's own base URL cannot make the site call its own network (issue 9 §2).

Loopback listeners count every connection they get: whatever a user names (spellings of
127.0.0.1, names that resolve to it, a redirect to it, DNS that changes its answer after the
check), the listener receives nothing, the user's key goes only to the host they named, and every
refused or failed connection reads the same. Private and metadata addresses that cannot be
listened on here are watched at the socket layer instead: no connection is even attempted.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import httpcore2
import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from engine.llm.base import ChatRequest, ProviderError
from engine.session import Message
from play import netguard
from play.crypto import encrypt_secret
from play.errors import PlayError
from play.models import ProviderSetting
from play.netguard import NOT_ALLOWED, UNREACHABLE
from play.netstream import AsyncioBackend
from play.providers import ProviderConfig, build_provider, save_provider_setting
from play.sessions import start_session
from tests.play.conftest import connect
from tests.support.listeners import Listener, Redirector, Silent, bind_pair
from tests.support.model_server import ModelServer

KEY = "sk-alice-own-key-7c1d"

# Spellings of the loopback listener's address; {port} is the listener's.
LOOPBACK_SPELLINGS = [
    "http://127.0.0.1:{port}/v1",
    "http://[::ffff:127.0.0.1]:{port}/v1",
    "http://[::ffff:7f00:1]:{port}/v1",
    "http://2130706433:{port}/v1",
    "http://0x7f.1:{port}/v1",
    "http://0x7f000001:{port}/v1",
    "http://127.1:{port}/v1",
    "http://0:{port}/v1",
    "http://0.0.0.0:{port}/v1",
    "http://localhost:{port}/v1",
    "http://loopback.example:{port}/v1",  # a name the (patched) DNS resolves to 127.0.0.1
]
# Private, link-local, metadata, CGNAT, multicast and NAT64 forms, however spelled.
PRIVATE_SPELLINGS = [
    "http://10.0.0.1/v1",
    "http://167772161/v1",
    "http://0xa.0.0.1/v1",
    "http://0xa000001/v1",
    "http://10.1/v1",
    "http://012.0.0.1/v1",
    "http://[::ffff:10.0.0.1]/v1",
    "http://[64:ff9b::a00:1]/v1",
    "http://[64:ff9b::7f00:1]/v1",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/v1",
    "http://100.100.100.200/v1",
    "http://100.64.0.1/v1",
    "http://172.16.0.1/v1",
    "http://192.168.1.1/v1",
    "http://[::1]/v1",
    "http://[fc00::1]/v1",
    "http://[fe80::1]/v1",
    "http://224.0.0.1/v1",
    "http://255.255.255.255/v1",
    "http://metadata.example/v1",  # a name the (patched) DNS resolves to 169.254.169.254
    "http://mixed.example/v1",  # one public and one private answer: refused
]
FAKE_DNS = {
    "loopback.example": ["127.0.0.1"],
    "metadata.example": ["169.254.169.254"],
    "mixed.example": ["93.184.215.14", "10.0.0.7"],
    "models.example": ["93.184.215.14"],
}


def fake_dns(monkeypatch: Any, answers: dict[str, Any]) -> None:
    """Answer some names ourselves, at ``socket.getaddrinfo`` itself (whoever asks)."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in answers:
            return real(host, port, *args, **kwargs)
        found = answers[name]
        ips = found() if callable(found) else found
        number = int(port or 0)
        return [
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (ip, number, 0, 0))
            if ":" in ip
            else (socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, number))
            for ip in ips
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def allow_only(monkeypatch: Any, *addresses: str) -> None:
    """Stand-ins for public servers: these loopback addresses pass the policy, nothing else."""
    monkeypatch.setattr(netguard, "address_allowed", lambda ip, allow=False: str(ip) in addresses)


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener("127.0.0.1")
    yield running
    running.close()


@pytest.fixture
def attempts(monkeypatch: Any) -> list[tuple[str, int]]:
    """Every TCP connection the HTTP stack tries to open; none is opened."""
    seen: list[tuple[str, int]] = []

    async def connect_tcp(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        seen.append((host, port))
        raise httpcore2.ConnectError("no network in this test")

    monkeypatch.setattr(AsyncioBackend, "connect_tcp", connect_tcp)
    return seen


async def own_server(user: Any, base_url: str, provider: str = "openai") -> None:
    """The user's own provider as stored (saved before its DNS changed, say): no save check."""
    await sync_to_async(ProviderSetting.objects.update_or_create)(
        user=user,
        defaults={
            "provider": provider,
            "base_url": base_url,
            "model": "own-model",
            "api_key_encrypted": encrypt_secret(KEY),
            "api_key_hint": "sk-…7c1d",
        },
    )


async def play_once(user: Any, version: Any) -> dict[str, Any]:
    session = await sync_to_async(start_session)(user, version, mode="live", dice_seed=3)
    client, _ = await connect(session.pk, user)
    await client.send(type="send", text="Hello?")
    end = await client.settle(timeout=20)
    await client.close()
    return end


def guarded(base_url: str, kind: str = "openai") -> ProviderConfig:
    return ProviderConfig(kind, "m", base_url, KEY, "en", "live", {}, guarded=True)


async def failure_of(config: ProviderConfig) -> ProviderError:
    request = ChatRequest(messages=[Message("user", "Hello?")])
    with pytest.raises(ProviderError) as caught:
        async for _ in build_provider(config).stream(request):
            pass
    return caught.value


# --- at connection time: the listener receives nothing ---------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("spelling", LOOPBACK_SPELLINGS)
async def test_a_loopback_address_however_spelled_is_never_connected(
    alice, version, listener, monkeypatch, spelling
):
    fake_dns(monkeypatch, FAKE_DNS)
    await own_server(alice, spelling.format(port=listener.port))
    end = await play_once(alice, version)
    assert end["type"] == "message_failed"
    assert end["error"] == UNREACHABLE
    assert listener.accepted == 0


@pytest.mark.django_db(transaction=True)
async def test_an_anthropic_base_url_on_loopback_is_never_connected(alice, version, listener):
    await own_server(alice, f"http://localhost:{listener.port}", provider="anthropic")
    end = await play_once(alice, version)
    assert (end["type"], end["error"]) == ("message_failed", UNREACHABLE)
    assert listener.accepted == 0


@pytest.mark.parametrize("spelling", PRIVATE_SPELLINGS)
async def test_a_private_or_metadata_address_is_never_even_tried(
    settings, monkeypatch, attempts, spelling
):
    settings.FABULA_PROVIDER_RETRIES = 0
    fake_dns(monkeypatch, FAKE_DNS)
    error = await failure_of(guarded(spelling))
    assert error.message == UNREACHABLE
    assert attempts == []


async def test_a_public_address_is_connected_by_number(settings, monkeypatch, attempts):
    settings.FABULA_PROVIDER_RETRIES = 0
    fake_dns(monkeypatch, FAKE_DNS)
    await failure_of(guarded("https://models.example/v1"))
    assert attempts == [("93.184.215.14", 443)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("kind", "path"), [("openai", "/v1"), ("anthropic", "")], ids=["openai", "anthropic"]
)
async def test_a_redirect_to_loopback_is_not_followed(alice, version, monkeypatch, kind, path):
    listener, public = bind_pair(
        lambda port: Listener("127.0.0.1", port),
        lambda port: Redirector("127.0.0.2", port, f"http://127.0.0.1:{port}/v1/chat/completions"),
    )
    try:
        allow_only(monkeypatch, "127.0.0.2")
        fake_dns(monkeypatch, {"models.example": ["127.0.0.2"]})
        await own_server(alice, f"http://models.example:{public.port}{path}", provider=kind)
        end = await play_once(alice, version)
    finally:
        listener.close()
        public.close()
    assert (end["type"], end["error"]) == ("message_failed", UNREACHABLE)
    assert public.accepted >= 1
    assert KEY.encode() in public.received[0]  # the key went to the host the user named
    assert listener.accepted == 0


@pytest.mark.django_db(transaction=True)
async def test_the_connection_goes_to_the_checked_address_when_dns_changes(
    alice, version, monkeypatch
):
    """DNS rebinding: the first lookup says public, every later one says 127.0.0.1."""
    listener, server = bind_pair(
        lambda port: Listener("127.0.0.1", port),
        lambda port: ModelServer(host="127.0.0.2", port=port).start(),
    )
    lookups: list[str] = []

    def rebinding() -> list[str]:
        lookups.append("rebind.example")
        return ["127.0.0.2"] if len(lookups) == 1 else ["127.0.0.1"]

    try:
        allow_only(monkeypatch, "127.0.0.2")
        fake_dns(monkeypatch, {"rebind.example": rebinding})
        await own_server(alice, f"http://rebind.example:{server.port}/v1")
        end = await play_once(alice, version)
    finally:
        listener.close()
        server.stop()
    assert end["type"] == "message_done"
    assert len(server.requests) == 1
    assert server.requests[0].headers["host"] == f"rebind.example:{server.port}"
    assert listener.accepted == 0
    assert lookups == ["rebind.example"]  # resolved once; the socket went to that answer


# --- one answer for every way of not getting through -----------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.3", 0))
        return int(probe.getsockname()[1])


async def test_every_refused_or_failed_connection_reads_the_same(settings, monkeypatch):
    settings.FABULA_PROVIDER_RETRIES = 0
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 0.3
    settings.FABULA_PROVIDER_TIMEOUT = 0.3
    allow_only(monkeypatch, "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7")
    silent = Silent("127.0.0.4")
    plain = Listener("127.0.0.5", reply=b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    banner = Listener("127.0.0.6", reply=b"SSH-2.0-OpenSSH_9.6\r\n")
    redirect = Redirector("127.0.0.7", 0, "http://127.0.0.1/")
    urls = {
        "refused address": "http://127.0.0.1:9/v1",
        "connection refused": f"http://127.0.0.3:{_closed_port()}/v1",
        "timeout": f"http://127.0.0.4:{silent.port}/v1",
        "tls failure": f"https://127.0.0.5:{plain.port}/v1",
        "banner": f"http://127.0.0.6:{banner.port}/v1",
        "redirect": f"http://127.0.0.7:{redirect.port}/v1",
    }
    try:
        messages = {case: (await failure_of(guarded(url))).message for case, url in urls.items()}
    finally:
        for server in (silent, plain, banner, redirect):
            server.close()
    assert messages == dict.fromkeys(urls, UNREACHABLE)
    assert "127.0.0" not in UNREACHABLE and "port" not in UNREACHABLE


# --- at save time ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("spelling", LOOPBACK_SPELLINGS + PRIVATE_SPELLINGS)
def test_saving_a_private_address_is_refused(alice, monkeypatch, spelling):
    fake_dns(monkeypatch, FAKE_DNS)
    with pytest.raises(PlayError) as refused:
        save_provider_setting(alice, provider="openai", base_url=spelling.format(port=8080))
    assert (refused.value.message, refused.value.field) == (NOT_ALLOWED, "base_url")
    assert not ProviderSetting.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["ftp://models.example/v1", "file:///etc/passwd", "gopher://x/"])
def test_only_http_and_https_are_saved(alice, url):
    with pytest.raises(PlayError) as refused:
        save_provider_setting(alice, provider="openai", base_url=url)
    assert refused.value.field == "base_url"
    assert "http://" in refused.value.message


@pytest.mark.django_db
def test_a_public_address_is_saved(alice, monkeypatch):
    fake_dns(monkeypatch, FAKE_DNS)
    save_provider_setting(alice, provider="openai", base_url="https://models.example/v1")
    assert ProviderSetting.objects.get(user=alice).base_url == "https://models.example/v1"


@pytest.mark.django_db
def test_the_operator_may_allow_private_hosts_but_never_metadata(alice, settings):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    save_provider_setting(alice, provider="openai", base_url="http://127.0.0.1:11434/v1")
    save_provider_setting(alice, provider="openai", base_url="http://192.168.1.20:11434/v1")
    for url in ("http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://0.0.0.0:11434/"):
        with pytest.raises(PlayError, match=NOT_ALLOWED):
            save_provider_setting(alice, provider="openai", base_url=url)


@pytest.mark.django_db
def test_the_api_refuses_a_private_address_on_the_field(client, alice):
    client.force_login(alice)
    response = client.put(
        "/api/play/provider",
        {"provider": "openai", "base_url": "http://2130706433:6379/"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [f"base_url: {NOT_ALLOWED}"]


@pytest.mark.django_db
def test_the_settings_page_refuses_a_private_address_on_the_field(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("play:provider"), {"provider": "openai", "base_url": "http://localhost:5432/"}
    )
    assert response.status_code == 400
    assert NOT_ALLOWED in response.content.decode()
    assert not ProviderSetting.objects.exists()


# --- the policy itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("93.184.215.14", True),
        ("2606:4700::6810:84e5", True),
        ("64:ff9b::5db8:d70e", True),  # NAT64 of a public address
        ("::ffff:93.184.215.14", True),
        ("127.0.0.1", False),
        ("::ffff:127.0.0.1", False),
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::1", False),  # 6to4
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("198.18.0.1", False),
        ("192.0.2.1", False),
        ("240.0.0.1", False),
    ],
)
def test_the_address_policy(address, allowed):
    assert netguard.address_allowed(ipaddress.ip_address(address)) is allowed
