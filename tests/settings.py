"""pytest's settings: config.settings, read with the environment of a local plain-http deployment.

The values go into the environment (not just into these settings) before config.settings reads
it, so the servers some tests start as subprocesses (daphne, runserver) inherit them. DEBUG stays
off, as in production; the keys are fixed, published and good for tests only; the HTTPS-only
switches that production turns on by default are off, because the test client, the browser tests
and the integration tier speak plain http to 127.0.0.1. Anything already set in the environment
wins. mypy's Django plugin loads these settings too (pyproject.toml), for the same reason: it
needs no environment.
"""

import atexit
import os
import shutil
import tempfile

TEST_ENVIRONMENT = {
    "SECRET_KEY": "tests-only-secret-key-never-used-anywhere-else-0123456789abcdef",
    "FABULA_KEY_ENCRYPTION_SECRET": "tests-only-key-encryption-secret-0123456789abcdef",
    "SECURE_SSL_REDIRECT": "false",
    "SECURE_HSTS_SECONDS": "0",
    "SECURE_COOKIES": "false",
}
for _name, _value in TEST_ENVIRONMENT.items():
    os.environ.setdefault(_name, _value)
# Uploads (portraits, audio) go to a folder of this run, never into the checkout's media/.
if "MEDIA_ROOT" not in os.environ:
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="fabula-test-media-")
    atexit.register(shutil.rmtree, os.environ["MEDIA_ROOT"], True)

from config.settings import *  # noqa: E402, F403
