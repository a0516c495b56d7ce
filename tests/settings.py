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
    # The suite's loopback model servers stand for hosted APIs (play.local_servers).
    "FABULA_LOCAL_FIRST_TOKEN_TIMEOUT": "0",
}
for _name, _value in TEST_ENVIRONMENT.items():
    os.environ.setdefault(_name, _value)
# Under pytest-xdist each worker (gw0, gw1, ...) gets its own Redis database (tests/support/
# xdist.py), as pytest-django gives it its own test database: the Celery workers, channel layers
# and locks one worker's integration tests start would otherwise take another's tasks and keys.
# Set here, in the environment, so the servers those tests start agree with them.
if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
    from tests.support.xdist import worker_redis_url

    os.environ["REDIS_URL"] = worker_redis_url(
        os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"]
    )
# Uploads (portraits, audio) go to a folder of this run, never into the checkout's media/.
if "MEDIA_ROOT" not in os.environ:
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="fabula-test-media-")
    atexit.register(shutil.rmtree, os.environ["MEDIA_ROOT"], True)

from config.settings import *  # noqa: E402, F403

# Unit tests assert on an evaluation right after starting it: in eager mode it runs inside the
# request, not in the thread the embedded site uses (studio/evaluations/background.py). The
# servers the browser tests start read config.settings, where the thread is on.
FABULA_EVAL_IN_THREAD = False

# A transactional test's flush deletes rows instead of truncating every table (the module says
# why); the database, its schema and its constraints are PostgreSQL's as in production.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "tests.support.postgres_fast_flush"  # noqa: F405

# A transactional test's flush keeps the content types and permissions, so that no post_migrate
# has to make them again (tests/support/flush_keeps_types says why).
INSTALLED_APPS = [*INSTALLED_APPS, "tests.support.flush_keeps_types"]  # noqa: F405
