"""One settings module, driven by environment variables.

The defaults are the embedded mode (SQLite, in-memory channel layer, eager Celery, offline
narrator), so `make run` and a bare `pytest` need no services. DATABASE_URL and REDIS_URL switch
to PostgreSQL, the Redis channel layer and a real Celery broker.
"""

from pathlib import Path

import dj_database_url

from config.env import env_bool, env_int, env_list, env_secret, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = env_secret("SECRET_KEY", "fabula-embedded-dev-key-change-me-in-production")
DEBUG = env_bool("DEBUG", True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "template_partials",
    "django_htmx",
    "studio",
    "play",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
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
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "studio:world_list"
LOGOUT_REDIRECT_URL = "gallery"

# Production hardening. With DEBUG off, cookies travel over HTTPS only unless SECURE_COOKIES=false
# says otherwise; the HTTPS redirect, HSTS and trusting the proxy's X-Forwarded-Proto are opt-in
# because TLS usually ends at the proxy in front of daphne.
SECURE_COOKIES = env_bool("SECURE_COOKIES", not DEBUG)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
LANGUAGE_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"  # the custom-UI sandbox opts in with @xframe_options_sameorigin

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
DATA_UPLOAD_MAX_MEMORY_SIZE = 25 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 25 * 1024 * 1024
MAX_IMPORT_BYTES = 20 * 1024 * 1024
MAX_AUDIO_BYTES = env_int("MAX_AUDIO_BYTES", 10 * 1024 * 1024)

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout, the same 5 s channels_redis blocks
            # in BZPOPMIN, so under load the pop's answer lands after the timeout and the
            # consumer dies with 1011; and its pools refuse (not queue) a 101st concurrent
            # command, which 500 sockets joining their groups at once exceed.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30, "max_connections": 4096}]
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

# The narrator. "offline" needs no network; "openai" / "anthropic" use the official SDKs.
FABULA_PROVIDER = env_str("FABULA_PROVIDER", "offline")
FABULA_MODEL = env_str("FABULA_MODEL", "")
FABULA_BASE_URL = env_str("FABULA_BASE_URL", "")
FABULA_API_KEY = env_secret("FABULA_API_KEY", "")
# Key for encrypting users' own API keys at rest (Fernet, derived from SECRET_KEY by default).
FABULA_KEY_ENCRYPTION_SECRET = env_secret("FABULA_KEY_ENCRYPTION_SECRET", SECRET_KEY)
# USD per million tokens; glob patterns on the model name.
FABULA_PRICES: dict[str, dict[str, float]] = {}
FABULA_DAILY_ACTION_QUOTA = env_int("FABULA_DAILY_ACTION_QUOTA", 200)
# Play: the per-session turn lock's lease (renewed while a turn runs; a dead process frees the
# session after it), model timeouts and retries, and the history size that triggers compaction
# (0: 60% of the world's maxContext).
FABULA_TURN_LOCK_TTL_MS = env_int("FABULA_TURN_LOCK_TTL_MS", 30_000)
FABULA_PROVIDER_TIMEOUT = float(env_str("FABULA_PROVIDER_TIMEOUT", "60"))
FABULA_FIRST_TOKEN_TIMEOUT = float(env_str("FABULA_FIRST_TOKEN_TIMEOUT", "60"))
FABULA_PROVIDER_RETRIES = env_int("FABULA_PROVIDER_RETRIES", 3)
FABULA_PROVIDER_BACKOFF = float(env_str("FABULA_PROVIDER_BACKOFF", "0.5"))
FABULA_COMPACTION_TOKENS = env_int("FABULA_COMPACTION_TOKENS", 0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
