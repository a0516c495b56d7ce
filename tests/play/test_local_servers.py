"""A local model server's first-token timeout (issue 37 §4, play.local_servers)."""

from __future__ import annotations

import pytest

from play.local_servers import first_token_timeout, is_local


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/v1",
        "http://localhost:11434/v1",
        "http://192.168.1.20:8000/v1",
        "http://[::1]:8080/v1",
        "http://gpu-box.local:8000/v1",
    ],
)
def test_loopback_private_and_local_names_are_local_servers(url):
    assert is_local(url)


@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "https://openrouter.ai/api/v1", ""])
def test_hosted_apis_and_the_default_url_are_not(url):
    assert not is_local(url)


def test_a_local_server_waits_longer_for_its_first_token_than_a_hosted_api(settings):
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 60.0
    settings.FABULA_LOCAL_FIRST_TOKEN_TIMEOUT = 600.0

    assert first_token_timeout("http://127.0.0.1:8080/v1") == 600.0
    assert first_token_timeout("https://api.openai.com/v1") == 60.0


def test_zero_turns_the_local_default_off(settings):
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 0.5
    settings.FABULA_LOCAL_FIRST_TOKEN_TIMEOUT = 0.0

    assert first_token_timeout("http://127.0.0.1:8080/v1") == 0.5
