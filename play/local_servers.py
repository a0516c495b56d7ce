"""How long a model server may take before its first token (issue 37 §4).

A hosted API answers its first token in seconds; a model server on the user's own machine or
network (llama.cpp, Ollama, vLLM, LM Studio) reads the whole prompt on a CPU first: a cold call
to llama.cpp with SmolLM2 on two cores spent 70–170 s there. ``FABULA_FIRST_TOKEN_TIMEOUT`` (60 s)
stays the hosted default; a base URL on loopback, a private or link-local address, ``localhost``
or a ``.local``/``.lan``/``.internal`` name gets ``FABULA_LOCAL_FIRST_TOKEN_TIMEOUT`` (600 s;
0 turns the distinction off, as the test suite does: its loopback servers stand for hosted APIs).
The read timeout between tokens is unchanged: once streaming, a local server is not slower.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings

LOCAL_SUFFIXES = (".local", ".lan", ".internal", ".localhost")


def is_local(base_url: str) -> bool:
    """Whether ``base_url`` names a server on this machine or its private network."""
    host = (urlsplit(base_url).hostname or "").lower().rstrip(".")
    if not host:
        return False
    if host == "localhost" or host.endswith(LOCAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def first_token_timeout(base_url: str) -> float:
    """Seconds to wait for the first token from the server at ``base_url`` (see the module)."""
    hosted = float(getattr(settings, "FABULA_FIRST_TOKEN_TIMEOUT", 60.0))
    local = float(getattr(settings, "FABULA_LOCAL_FIRST_TOKEN_TIMEOUT", 600.0))
    return max(hosted, local) if local > 0 and is_local(base_url) else hosted
