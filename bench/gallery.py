"""Benchmark the gallery of 100,000 published worlds and a session of 10,000 messages.

Run: ``.venv/bin/python bench/gallery.py`` (``--worlds 20000`` for a smaller run, ``--keep`` to
leave the database behind). Needs PostgreSQL: BENCH_DATABASE_URL, by default
postgres://postgres@127.0.0.1:5432/postgres; the bench creates its own database
``fabula_bench_gallery`` on that server, migrates it and drops it at the end.

Seeding is bulk SQL (INSERT … SELECT generate_series copying one ORM-made template row): N
published worlds with their versions (names and descriptions drawn from English, Spanish and
Chinese vocabularies, two of 40 tags, five languages), 10,000 owners, and 1,000,000 messages
in 1,000-message sessions plus one session of 10,000 messages with full state snapshots.

Each case is requested through Django's test Client (URL resolution, view, template or JSON,
middleware), and the queries of one request are counted. The baseline is the gallery before
issue 14 (icontains on name and description, Paginator's COUNT(*)), timed as its two queries
alone, without rendering, so the comparison flatters the baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DB_NAME = "fabula_bench_gallery"
REPS = 40
BASE_REPS = 10  # the baseline takes up to a second a run
TARGET_MS = 100.0
OWNERS = 10_000
MESSAGES = 1_000_000
LONG_SESSION = 10_000


def words(text: str) -> list[str]:
    return text.split()


EN = words("""dragon salt road harbor moon court tower forest river winter storm ember crown shadow
knight witch empire desert island ruin temple garden city ghost mirror clock wolf raven star
sea mountain valley bridge lantern queen thief sword song memory secret market train station
library school detective murder space ship planet colony signal robot android neon rain
village farm festival wedding letter war peace border exile heir rebel spy code cipher
poison potion academy guild tavern caravan oasis canyon glacier volcano jungle swamp cave
mine forge engine airship pirate treasure map compass island lighthouse tide reef whale""")
ES = words("""dragón sal camino puerto luna corte torre bosque río invierno tormenta brasa corona
sombra caballero bruja imperio desierto isla ruina templo jardín ciudad fantasma espejo reloj
lobo cuervo estrella mar montaña valle puente linterna reina ladrón espada canción""")
ZH = words("""龙 传说 盐路 港口 月亮 宫廷 高塔 森林 河流 冬天 风暴 皇冠 影子 骑士 女巫 帝国
沙漠 岛屿 废墟 寺庙 花园 城市 幽灵 镜子 时钟 狼 乌鸦 星星 大海 山谷 桥 灯笼 女王""")
TAGS = [f"tag{n}" for n in range(30)] + words(
    "fantasy horror romance mystery scifi comedy drama western noir cozy"
)
LANGUAGES = ["en", "en", "en", "en", "es", "es", "zh", "zh-Hans", "fr", ""]


def database_urls() -> tuple[str, str]:
    """The server's URL and the bench database's URL on the same server."""
    server = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(server)
    return server, urlunsplit(parts._replace(path=f"/{DB_NAME}"))


def recreate_database(server: str, *, drop_only: bool = False) -> None:
    """Drop and create the bench's own database; nothing else on the server is touched."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Throwaway keys when run by hand, as the Makefile's bench target sets them.
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-any-real-site-0123456789")
    os.environ.setdefault("FABULA_KEY_ENCRYPTION_SECRET", "bench-only-key-encryption-secret")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test Client's host, in-memory mail
    call_command("migrate", verbosity=0)


# --- seeding ---------------------------------------------------------------------------------
def copy_rows(table: str, template: Any, source: str, overrides: dict[str, str]) -> int:
    """INSERT … SELECT one row per row of ``source``: the template row's values, but for
    ``overrides`` (column -> SQL over ``g`` and the source's columns). Generated columns (the
    versions' search_vector) are left out: PostgreSQL computes them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = %s AND is_generated = 'NEVER' "
            "ORDER BY ordinal_position",
            [table],
        )
        columns = [row[0] for row in cursor.fetchall()]
        names = [c for c in columns if c != "id" or "id" in overrides]
        values = [overrides.get(c, f't."{c}"') for c in names]
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(f'{chr(34)}{c}{chr(34)}' for c in names)}) "
            f"SELECT {', '.join(values)} FROM {table} t, {source} WHERE t.id = {template}"
        )
        return int(cursor.rowcount)


def pick(words: str, k: int, n: int) -> str:
    """SQL for a word of the array parameter ``words`` chosen by hashing ``g`` with ``k``."""
    return f"({words})[1 + (hashint4(g * 16 + {k}) & 2147483647) % {n}]"


def text_columns() -> dict[str, str]:
    en, es, zh = (f"ARRAY{list(v)}::text[]" for v in (EN, ES, ZH))
    lang = f"(ARRAY{LANGUAGES}::text[])[1 + g % {len(LANGUAGES)}]"
    english = " || ' ' || ".join(pick(en, k, len(EN)) for k in range(2, 14))
    spanish = " || ' ' || ".join(pick(es, k, len(ES)) for k in range(2, 12))
    chinese = " || ".join(pick(zh, k, len(ZH)) for k in range(2, 10))
    tags = f"ARRAY{TAGS}::text[]"
    return {
        "name": f"initcap({pick(en, 0, len(EN))} || ' ' || {pick(en, 1, len(EN))}) || ' ' || g",
        "description": f"CASE WHEN {lang} LIKE 'zh%' THEN {chinese} WHEN {lang} = 'es' "
        f"THEN {spanish} ELSE {english} END",
        "language": lang,
        "tags": f"'|' || {pick(tags, 14, len(TAGS))} || '|' || {pick(tags, 15, len(TAGS))} || '|'",
    }


def seed_worlds(count: int) -> dict[str, Any]:
    """``count`` published worlds (ids after the template's), each with its one version."""
    from django.contrib.auth.models import User
    from django.db import connection, transaction

    from studio.publishing import publish_world
    from tests.factories import make_world

    owner = User.objects.create_user("bench-owner")
    version = publish_world(make_world(owner))
    world = version.world
    first_owner = owner.pk + 1
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, "
            "email, is_staff, is_active, date_joined) SELECT '!', false, 'owner' || g, '', '', "
            "'', false, true, now() FROM generate_series(1, %s) g",
            [OWNERS],
        )
        source = f"generate_series(1, {count}) g"
        copy_rows(
            "studio_world",
            world.pk,
            source,
            {
                "id": f"{world.pk} + g",
                "uid": "md5(g::text)",
                "owner_id": f"{first_owner} + g % {OWNERS}",
                "published_version_id": f"{version.pk} + g",
            },
        )
        columns = text_columns() | {"id": f"{version.pk} + g", "world_id": f"{world.pk} + g"}
        columns["created_at"] = "now() - g * interval '1 minute'"
        copy_rows("studio_worldversion", version.pk, source, columns)
        for table in ("studio_world", "studio_worldversion", "auth_user"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}"
            )
    return {"owner": owner, "version": version}


def seed_messages(owner: Any, version: Any) -> Any:
    """1,000,000 messages: sessions of 1,000 copied from a template, plus one long session of
    10,000 with real state snapshots (tests.factories.add_long_history), returned."""
    from django.db import transaction

    from play.sessions import start_session
    from tests.factories import add_long_history

    long_session = start_session(owner, version, mode="offline", dice_seed=7)
    add_long_history(long_session, LONG_SESSION, journal="")
    template = long_session.messages.order_by("position").last()
    sessions = (MESSAGES - LONG_SESSION) // 1000
    with transaction.atomic():
        copy_rows(
            "play_session",
            f"'{long_session.pk}'",
            f"generate_series(1, {sessions}) g",
            {"id": "gen_random_uuid()", "title": "'bench ' || g"},
        )
        copy_rows(
            "play_message",
            template.pk,
            "(SELECT id FROM play_session WHERE title LIKE 'bench %') s, generate_series(0, 999) g",
            {
                "session_id": "s.id",
                "position": "g",
                "role": "CASE WHEN g % 2 = 0 THEN 'assistant' ELSE 'user' END",
                "content": "'Message ' || g || ': the salt road goes on.'",
                "raw": "''",
                "state": "'{}'::jsonb",
                "swipes": "'[]'::jsonb",
                "changes": "'[]'::jsonb",
            },
        )
    return long_session


# --- timing ----------------------------------------------------------------------------------
def timed(fn: Callable[[], Any], reps: int = REPS) -> tuple[float, float, int]:
    """p50 and p95 in ms over REPS runs (after a warm-up), and the queries of one run.

    Counted with an execute wrapper: a request's start resets ``connection.queries``.
    """
    from django.db import connection

    fn()
    queries: list[str] = []
    with connection.execute_wrapper(lambda run, sql, *rest: queries.append(sql) or run(sql, *rest)):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(times, n=20)
    return statistics.median(times), cuts[18], len(queries)


def baseline_worlds(query: str, tag: str, language: str) -> Any:
    """The gallery's query before issue 14, kept here to compare against."""
    from django.db.models import BooleanField, ExpressionWrapper, Q

    from studio.models import World

    worlds = World.objects.filter(published=True, published_version__isnull=False).annotate(
        has_demo=ExpressionWrapper(Q(demo__isnull=False), output_field=BooleanField())
    )
    if query:
        worlds = worlds.filter(
            Q(published_version__name__icontains=query)
            | Q(published_version__description__icontains=query)
            | Q(owner__username__iexact=query)
        )
    if tag:
        worlds = worlds.filter(published_version__tags__icontains=f"|{tag}|")
    if language:
        worlds = worlds.filter(
            Q(published_version__language__iexact=language)
            | Q(published_version__language__istartswith=f"{language}-")
        )
    return worlds.select_related("owner", "published_version").order_by(
        "-published_version__created_at", "-pk"
    )


def baseline(params: dict[str, str], page_size: int) -> Callable[[], Any]:
    from django.core.paginator import Paginator

    worlds = baseline_worlds(params.get("q", ""), params.get("tag", ""), params.get("language", ""))

    def run() -> Any:
        page = Paginator(worlds, page_size).get_page(params.get("page"))
        return page.paginator.count, list(page.object_list)

    return run


CASES: list[tuple[str, str, dict[str, str]]] = [
    ("page 1", "/", {}),
    ("page 50", "/", {"page": "50"}),
    ("search dragon (common)", "/", {"q": "dragon"}),
    ("search 'salt harbor'", "/", {"q": "salt harbor"}),
    ("search 'lantern'", "/", {"q": "lantern"}),
    ("search dragon page 50", "/", {"q": "dragon", "page": "50"}),
    ("search es 'dragón'", "/", {"q": "dragón"}),
    ("search zh '传说'", "/", {"q": "传说"}),
    ("search owner", "/", {"q": "owner42"}),
    ("search no match", "/", {"q": "zzzzqx"}),
    ("tag", "/", {"tag": "mystery"}),
    ("language zh", "/", {"language": "zh"}),
    ("q + tag + language", "/", {"q": "moon", "tag": "fantasy", "language": "en"}),
    ("q + tag page 3", "/", {"q": "tower", "tag": "tag7", "page": "3"}),
    ("api page 1", "/api/gallery", {}),
    ("api search + language", "/api/gallery", {"q": "dragon", "language": "en"}),
    ("api page 100", "/api/gallery", {"page": "100"}),
]


def request(client: Any, path: str, params: dict[str, str]) -> Callable[[], Any]:
    def run() -> Any:
        response = client.get(path, params, secure=True)
        assert response.status_code == 200, (path, params, response.status_code)
        return response

    return run


def gallery_cases() -> list[tuple[str, float, float, int, float, float]]:
    from django.test import Client

    from studio.api import GALLERY_PAGE_SIZE
    from studio.views.gallery import PAGE_SIZE

    client, rows = Client(), []
    print(
        f"{'case':<26} {'queries':>7} {'p50 ms':>7} {'p95 ms':>7} {'base p50':>9} {'base p95':>9}"
    )
    for name, path, params in CASES:
        p50, p95, queries = timed(request(client, path, params))
        size = GALLERY_PAGE_SIZE if path.startswith("/api") else PAGE_SIZE
        b50, b95, _ = timed(baseline(params, size), BASE_REPS)
        rows.append((name, p50, p95, queries, b50, b95))
        print(
            f"{name:<26} {queries:>7} {p50:>7.1f} {p95:>7.1f} {b50:>9.1f} {b95:>9.1f}", flush=True
        )
    return rows


def session_cases(session: Any) -> None:
    """The 10,000-message session: its play page and a page of older history."""
    from django.test import Client

    client = Client()
    client.force_login(session.owner)
    oldest = session.messages.order_by("position")[LONG_SESSION // 2]
    page = f"/play/{session.pk}/"
    api = f"/api/play/sessions/{session.pk}/messages"
    print(f"\nsession of {session.messages.count():,} messages")
    for name, path, params in (
        ("play page", page, {}),
        ("history api newest", api, {}),
        ("history api mid-session", api, {"before": str(oldest.pk)}),
    ):
        p50, p95, queries = timed(request(client, path, params))
        print(f"{name:<26} {queries:>7} {p50:>7.1f} {p95:>7.1f}", flush=True)


def seed(worlds: int) -> Any:
    from django.db import connection

    start = time.perf_counter()
    made = seed_worlds(worlds)
    world_s = time.perf_counter() - start
    session = seed_messages(made["owner"], made["version"])
    message_s = time.perf_counter() - start - world_s
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("SELECT count(*) FROM play_message")
        messages = cursor.fetchone()[0]
    total = time.perf_counter() - start
    print(
        f"seeded {worlds:,} worlds in {world_s:.1f} s, {messages:,} messages in "
        f"{message_s:.1f} s; with VACUUM ANALYZE {total:.1f} s\n"
    )
    return session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", type=int, default=100_000)
    parser.add_argument("--keep", action="store_true", help="leave the bench database behind")
    args = parser.parse_args()
    server, url = database_urls()
    recreate_database(server)
    try:
        setup_django(url)
        print(f"gallery bench: {args.worlds:,} worlds, {REPS} requests per case, db {DB_NAME}")
        print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        session = seed(args.worlds)
        rows = gallery_cases()
        session_cases(session)
        worst = max(rows, key=lambda r: r[2])
        met = all(r[2] < TARGET_MS for r in rows)
        print(
            f"\ntarget: every case p95 < {TARGET_MS:.0f} ms with a fixed query count: "
            f"{'met' if met else 'NOT met'} (worst {worst[0]}: {worst[2]:.1f} ms)"
        )
        print(
            "p50/p95: wall-clock ms per request through django.test.Client (rendering included);"
            "\nbase: the pre-issue-14 icontains query and COUNT(*) alone, no rendering."
        )
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            recreate_database(server, drop_only=True)


if __name__ == "__main__":
    main()
