"""One settings module, driven by environment variables.

The defaults are the embedded mode (SQLite, in-memory channel layer, eager Celery, offline
narrator), so `make run` and a bare `pytest` need no services. DATABASE_URL and REDIS_URL switch
to PostgreSQL, the Redis channel layer and a real Celery broker.
"""

from pathlib import Path

import dj_database_url

from config.env import env_bool, env_int, env_list, env_secret, env_str, required_secret

BASE_DIR = Path(__file__).resolve().parent.parent

# Production unless told otherwise: DEBUG is off unless set (`make run` sets DEBUG=1). Without
# DEBUG, SECRET_KEY must come from the environment; with it, one is generated per install and
# kept in FABULA_SECRETS_DIR (git-ignored). SECRET_KEY_FALLBACKS still verify what older keys
# signed, for a rotation.
DEBUG = env_bool("DEBUG", False)
FABULA_SECRETS_DIR = Path(env_str("FABULA_SECRETS_DIR", str(BASE_DIR / ".secrets")))
SECRET_KEY = required_secret("SECRET_KEY", debug=DEBUG, store=FABULA_SECRETS_DIR)
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "config.devserver",  # runserver is daphne's (before staticfiles, whose runserver it replaces)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "template_partials",
    "django_htmx",
    "ninja",  # its templates and static files: /api/docs loads Swagger UI from here, not a CDN
    "studio",
    "play",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outside XFrameOptionsMiddleware, so its frame-ancestors follows X-Frame-Options.
    "config.security.SecurityHeadersMiddleware",
    # Bad input (over-size body, NUL, broken UTF-8, deep JSON) is a 4xx before any view runs.
    "config.limits.input_limits",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "config.timezones.timezone_middleware",  # the browser's zone (fabula_tz cookie), else UTC
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.security.csp_nonce",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The embedded default under load: writers queue for the lock (IMMEDIATE, up to 20 s)
    # instead of failing as "database is locked", readers never wait on a writer (WAL), and
    # the database thread keeps its connection instead of opening one per trip.
    DATABASES["default"]["CONN_MAX_AGE"] = None
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=20,
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
# PostgreSQL behind a pool (FABULA_DB_POOL = its size; 0 = a connection per request): every turn
# makes three trips to the database thread and each would otherwise connect anew (make serve-prod
# sets it; docs/SCALING.md).
DB_POOL_SIZE = env_int("FABULA_DB_POOL", 0)
if DB_POOL_SIZE and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_SIZE,
        "timeout": 30,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The throttle goes first: while a name or address is locked it refuses every check.
AUTHENTICATION_BACKENDS = [
    "studio.throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins allowed per account name and per client address within the window (seconds).
FABULA_LOGIN_ATTEMPTS = env_int("FABULA_LOGIN_ATTEMPTS", 5)
FABULA_LOGIN_ADDRESS_ATTEMPTS = env_int("FABULA_LOGIN_ADDRESS_ATTEMPTS", 20)
FABULA_LOGIN_WINDOW = env_int("FABULA_LOGIN_WINDOW", 15 * 60)
# Accounts one client address may create per UTC day (studio.signups; 0: no limit).
FABULA_SIGNUPS_PER_ADDRESS = env_int("FABULA_SIGNUPS_PER_ADDRESS", 5)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "studio:world_list"
LOGOUT_REDIRECT_URL = "gallery"

# Production hardening: with DEBUG off every switch defaults to HTTPS-only, so
# `manage.py check --deploy` passes with no warning; each can be turned off by its variable (a
# site served over plain http on a private network). Behind a proxy that ends TLS, set
# SECURE_PROXY_SSL_HEADER=true (and have the proxy set X-Forwarded-Proto), or the redirect loops.
SECURE_COOKIES = env_bool("SECURE_COOKIES", not DEBUG)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
LANGUAGE_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^api/health$"]  # a load balancer may probe over plain http
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"  # the custom-UI sandbox opts in with @xframe_options_sameorigin
# config/security.py adds the nonce CSP and Permissions-Policy. Worlds may name audio by direct
# URL (seed 004), so media may also come from these sources ("'self'" for this site only).
FABULA_CSP_MEDIA_SRC = env_list("FABULA_CSP_MEDIA_SRC", ["https:"])
# Error pages and reports never show these settings, even with DEBUG on (URLs carry passwords).
DEFAULT_EXCEPTION_REPORTER_FILTER = "config.security.SettingsHidingFilter"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
# Request limits (docs/LIMITS.md): a body over FABULA_MAX_BODY_BYTES is a 413 before it is read
# (config.limits); an import (world JSON, card PNG/JSON, World Info) over MAX_IMPORT_BYTES too.
FABULA_MAX_BODY_BYTES = env_int("FABULA_MAX_BODY_BYTES", 25 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = FABULA_MAX_BODY_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = 25 * 1024 * 1024
MAX_IMPORT_BYTES = 20 * 1024 * 1024
MAX_AUDIO_BYTES = env_int("MAX_AUDIO_BYTES", 10 * 1024 * 1024)
# A portrait or avatar upload (studio.portraits, which also caps its pixels).
MAX_PORTRAIT_BYTES = env_int("MAX_PORTRAIT_BYTES", 5 * 1024 * 1024)

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis with lighter receive buffers (config/redis_layer.py).
            "BACKEND": "config.redis_layer.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout, the same 5 s channels_redis blocks
            # in BZPOPMIN, so under load the pop's answer lands after the timeout and the
            # consumer dies with 1011; and its pools refuse (not queue) a 101st concurrent
            # command, which 500 sockets joining their groups at once exceed. No CLIENT SETINFO:
            # for it each new connection read redis-py's version from its package metadata,
            # 2 ms of the play process's CPU, and pools grow by the hundred when turns end.
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 30,
                        "max_connections": 4096,
                        "driver_info": None,
                    }
                ]
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_SERIALIZER = "json"
# A task whose worker dies is not lost: it is requeued (a dead pool child) or, unacknowledged,
# delivered again once the broker's visibility timeout passes (a dead worker), which the Redis
# transport checks every CELERY_RESTORE_INTERVAL seconds. Tasks are idempotent (play.tasks).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 45),
    "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 5),
    "unacked_restore_throttle": 1,
}

# The narrator. "offline" needs no network; "openai" / "anthropic" use the official SDKs.
FABULA_PROVIDER = env_str("FABULA_PROVIDER", "offline")
FABULA_MODEL = env_str("FABULA_MODEL", "")
FABULA_BASE_URL = env_str("FABULA_BASE_URL", "")
FABULA_API_KEY = env_secret("FABULA_API_KEY", "")
# Users' own API keys are encrypted at rest with FABULA_KEY_ENCRYPTION_SECRET (its own secret, so
# rotating SECRET_KEY loses nothing); required without DEBUG, generated per install with it.
# Rotation: the new value encrypts, FABULA_KEY_ENCRYPTION_OLD_SECRETS (comma-separated) still
# decrypt; `manage.py reencrypt_keys` then moves every stored key to the new one.
FABULA_KEY_ENCRYPTION_SECRET = required_secret(
    "FABULA_KEY_ENCRYPTION_SECRET", debug=DEBUG, store=FABULA_SECRETS_DIR
)
FABULA_KEY_ENCRYPTION_OLD_SECRETS = env_list("FABULA_KEY_ENCRYPTION_OLD_SECRETS", [])
# USD per million tokens; glob patterns on the model name.
FABULA_PRICES: dict[str, dict[str, float]] = {}
FABULA_DAILY_ACTION_QUOTA = env_int("FABULA_DAILY_ACTION_QUOTA", 200)
# Play: the per-session turn lock's lease (renewed while a turn runs; a dead process frees the
# session after it), model timeouts and retries, and the history size that triggers compaction
# (0: 60% of the world's maxContext).
FABULA_TURN_LOCK_TTL_MS = env_int("FABULA_TURN_LOCK_TTL_MS", 12_000)
# A running turn's claim on its session (play.recovery) is renewed every heartbeat; one not renewed
# for FABULA_TURN_STALE_SECONDS (or whose process is gone) is taken over and marked failed.
FABULA_TURN_HEARTBEAT_SECONDS = float(env_str("FABULA_TURN_HEARTBEAT_SECONDS", "2"))
FABULA_TURN_STALE_SECONDS = float(env_str("FABULA_TURN_STALE_SECONDS", "8"))
FABULA_HOST_ID = env_str("FABULA_HOST_ID", "")  # this machine's name in claims (default hostname)
FABULA_PROVIDER_TIMEOUT = float(env_str("FABULA_PROVIDER_TIMEOUT", "60"))
FABULA_FIRST_TOKEN_TIMEOUT = float(env_str("FABULA_FIRST_TOKEN_TIMEOUT", "60"))
# A model server on loopback or a private network reads the prompt on a CPU (play.local_servers).
FABULA_LOCAL_FIRST_TOKEN_TIMEOUT = float(env_str("FABULA_LOCAL_FIRST_TOKEN_TIMEOUT", "600"))
FABULA_PROVIDER_RETRIES = env_int("FABULA_PROVIDER_RETRIES", 3)
FABULA_PROVIDER_BACKOFF = float(env_str("FABULA_PROVIDER_BACKOFF", "0.5"))
FABULA_COMPACTION_TOKENS = env_int("FABULA_COMPACTION_TOKENS", 0)
# Plain worlds: a session-memory block after this many messages without one (play.memory).
FABULA_MEMORY_MESSAGES = env_int("FABULA_MEMORY_MESSAGES", 40)
# Users' own model servers (play.netguard): loopback and private addresses are refused unless
# this is set (a local Ollama); metadata, link-local and multicast addresses are always refused.
FABULA_ALLOW_PRIVATE_MODEL_HOSTS = env_bool("FABULA_ALLOW_PRIVATE_MODEL_HOSTS", False)
# The site's key (play.quota): live actions per UTC day across all players (0: no limit), and the
# models a session or world may pick on it besides FABULA_MODEL.
FABULA_SITE_DAILY_BUDGET = env_int("FABULA_SITE_DAILY_BUDGET", 0)
# An account younger than 24 h: its live actions per UTC day on the site's key (0: the full quota).
FABULA_NEW_ACCOUNT_DAILY_QUOTA = env_int("FABULA_NEW_ACCOUNT_DAILY_QUOTA", 20)
# A world UI's API (issue 15): ai.complete's caps (play.ui_ai), storage per world (play.ui_storage).
FABULA_UI_AI_MAX_PROMPT_CHARS = env_int("FABULA_UI_AI_MAX_PROMPT_CHARS", 12_000)
FABULA_UI_AI_MAX_TOKENS = env_int("FABULA_UI_AI_MAX_TOKENS", 1024)
FABULA_UI_STORAGE_QUOTA = env_int("FABULA_UI_STORAGE_QUOTA", 256 * 1024)
# What all guests from one client address may store there together, every world (0: no bound).
FABULA_UI_GUEST_STORAGE_PER_ADDRESS = env_int("FABULA_UI_GUEST_STORAGE_PER_ADDRESS", 1024 * 1024)
FABULA_SITE_MODELS = env_list("FABULA_SITE_MODELS", [])
# "Test connection" and "List models" on My model (play.provider_check): tries per user and UTC
# day (0: no limit); each reaches the user's own server through play.netguard.
FABULA_PROVIDER_CHECKS = env_int("FABULA_PROVIDER_CHECKS", 50)
# Proxies (addresses or networks) whose X-Forwarded-For names the client; empty: REMOTE_ADDR.
FABULA_TRUSTED_PROXIES = env_list("FABULA_TRUSTED_PROXIES", [])
# Batch evaluations (studio.evaluations): the highest budget cap a run may ask for (USD), the most
# actions one run may play, the base of the retry backoff (seconds, doubled per retry) and how long
# a run may go without progress before beat closes it as stale.
FABULA_EVAL_MAX_BUDGET = float(env_str("FABULA_EVAL_MAX_BUDGET", "5"))
FABULA_EVAL_MAX_ACTIONS = env_int("FABULA_EVAL_MAX_ACTIONS", 2000)
FABULA_EVAL_RETRY_BASE = env_int("FABULA_EVAL_RETRY_BASE", 2)
FABULA_EVAL_STALE_MINUTES = env_int("FABULA_EVAL_STALE_MINUTES", 60)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
