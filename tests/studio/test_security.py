"""The studio from an attacker's side: access on every route, escaping, CSRF, tokens, uploads,
redirects, mass assignment and the response headers.

The route tests walk ``get_resolver()``: a new URL that takes a world, item, version or token id
is checked the day it is added, without anyone listing it here.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.resolvers import RoutePattern
from django.views.static import serve

from studio.assets import resolve_asset_url, store_audio_asset
from studio.models import (
    ApiToken,
    Asset,
    AudioTrack,
    Component,
    ConditionalBGM,
    Entry,
    EntryFolder,
    Reaction,
    RootComponentFile,
    Rule,
    Variable,
    World,
    WorldItem,
    WorldVersion,
)
from studio.presets import PRESETS
from studio.publishing import publish_world, unpublish_world
from studio.tokens import authenticate_token, create_token, revoke_token
from studio.worlds import create_item, import_world, update_world
from tests.factories import audio_upload, full_world_data, make_token, wav_bytes, world_data
from tests.studio.view_helpers import hx

XSS = "<script>alert(1)</script>"
ATTR = '"><img src=x onerror=alert(1)>'

# --- every route that takes an id ----------------------------------------------------------

ALICE_PK, CHARLIE_PK = 9001, 9002
ITEM_MODELS: tuple[type[WorldItem] | type[RootComponentFile], ...] = (
    Entry,
    EntryFolder,
    Variable,
    Rule,
    Reaction,
    AudioTrack,
    ConditionalBGM,
    Component,
    RootComponentFile,
)
ID_KWARGS = {"world_id", "pk", "version_id", "token_id"}
# Every id a URL may take. A new one must be added here, and to the scenarios when it names
# something of the studio; play's sessions and personas are checked in tests/play.
# A table's invitation ``token`` is play's too (tests/play/test_tables.py).
KNOWN_KWARGS = ID_KWARGS | {"key", "session_id", "persona_id", "message_id", "ref", "token"}
# An evaluation of the world, one of its games, an export format and a plot (studio.evaluations).
KNOWN_KWARGS |= {"evaluation_id", "game_id", "fmt", "name"}
# A run of the world's tests (studio.worldtests).
KNOWN_KWARGS |= {"run_id"}
_PARAM = re.compile(r"<(?:\w+:)?(\w+)>")

# (route, method) a stranger may use on someone else's *published* world. Everything else that
# names it answers 403 (a token answers 404: tokens are never public).
PUBLIC = {
    ("worlds/<int:world_id>/", "GET"),
    ("versions/<int:version_id>/export/", "GET"),
    ("versions/<int:version_id>/fork/", "POST"),
    ("api/versions/<int:version_id>/fork", "POST"),
    ("api/worlds/<int:world_id>", "GET"),
    ("api/worlds/<int:world_id>/versions", "GET"),
    ("play/start/<int:version_id>/", "GET"),
    ("play/start/<int:version_id>/", "POST"),
    ("play/preview/<int:version_id>/", "GET"),
    ("play/preview/<int:version_id>/", "POST"),
}
# Readable by anybody once the world is listed; the cast's world has no demo to watch: 404.
PUBLIC_WITHOUT_DEMO = {("play/demos/<int:world_id>/watch/", "POST")}
# What a JSON operation is sent: enough for every input schema, so the access check decides.
API_BODY = {"position": 0, "path": "x.tsx", "source": "", "text": "x", "name": "x"}


def all_routes() -> list[str]:
    """Every URL route of the project (admin and media excepted), each once."""
    found: list[str] = []

    def walk(resolver: URLResolver, prefix: str) -> None:
        for pattern in resolver.url_patterns:
            if not isinstance(pattern.pattern, RoutePattern):
                continue
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern, route)
            elif isinstance(pattern, URLPattern) and not route.startswith("admin/"):
                found.append(route)

    walk(get_resolver(), "")
    return list(dict.fromkeys(found))


def id_routes() -> list[str]:
    return [r for r in all_routes() if ID_KWARGS & set(_PARAM.findall(r))]


def fill(route: str, values: dict[str, Any]) -> str | None:
    """The URL of ``route`` with ``values``; None when it takes something else (a session…)."""
    names = _PARAM.findall(route)
    if any(name not in values for name in names):
        return None
    return "/" + _PARAM.sub(lambda m: str(values[m.group(1)]), route)


def rich_world(owner: Any, pk: int) -> World:
    """A world with a row of every kind, each kind's row renumbered to ``pk``."""
    world = import_world(owner, {**full_world_data(), "id": ""})
    for model in ITEM_MODELS:
        row = model.objects.filter(world=world).order_by("pk").first()
        assert row is not None, model
        model.objects.filter(pk=row.pk).update(id=pk)
    return world


def send(client: Client, method: str, url: str) -> Any:
    if method == "GET":
        return client.get(url)
    if not url.startswith("/api/"):
        return client.post(url, {}) if method == "POST" else client.generic(method, url)
    response = client.generic(method, url, json.dumps(API_BODY), "application/json")
    if response.status_code == 422 and method == "POST":  # an upload operation
        response = client.post(url, {"file": audio_upload()})
    return response


API_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def probe(client: Client, url: str) -> dict[str, Any]:
    """Every method the route answers (405s left out)."""
    methods = API_METHODS if url.startswith("/api/") else ("GET", "POST")
    out = {}
    for method in methods:
        response = send(client, method, url)
        if response.status_code != 405:
            out[method] = response
    return out


@pytest.fixture
def cast(client, alice, charlie, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    mine = rich_world(alice, ALICE_PK)
    version = publish_world(mine)
    unpublish_world(mine)
    rich_world(charlie, CHARLIE_PK)
    token, _raw = create_token(alice, "alice's")
    values = {
        "world_id": mine.pk,
        "pk": ALICE_PK,
        "version_id": version.pk,
        "token_id": token.pk,
        "key": PRESETS[0].key,
        "ref": "anything",  # a gameMaster record's id (studio.views.gamemaster)
        **evaluation_values(alice, mine),
        "run_id": world_test_run(alice, mine),
    }
    return {"world": mine, "values": values}


def world_test_run(owner: Any, world: World) -> int:
    """A run of ``world``'s tests, for the routes of studio.worldtests."""
    from studio.worldtests.models import WorldTestRun

    run = WorldTestRun.objects.create(world=world, started_by=owner, definition={}, suite={})
    return int(run.pk)


def evaluation_values(owner: Any, world: World) -> dict[str, Any]:
    """An evaluation of ``world`` with one game, for the routes of studio.evaluations."""
    from studio.evaluations.models import Evaluation, EvaluationGame

    run = Evaluation.objects.create(
        owner=owner, world=world, world_label="draft", definition={}, model_keys=["offline"]
    )
    game = EvaluationGame.objects.create(evaluation=run, model_index=0, number=0)
    return {"evaluation_id": run.pk, "game_id": game.pk, "fmt": "csv", "name": "cost"}


def expected(scenario: str, route: str, method: str) -> set[int]:
    if scenario == "anonymous":
        return {401} if route.startswith("api/") else {302, 404}
    if scenario == "published" and "token_id" not in route:
        if (route, method) in PUBLIC_WITHOUT_DEMO:
            return {404}
        return {200, 201, 302} if (route, method) in PUBLIC else {403}
    return {404}


@pytest.mark.parametrize("scenario", ["anonymous", "draft", "published", "foreign_item"])
def test_every_id_route_checks_access(client, alice, charlie, cast, scenario):
    """Charlie gets 404 on Alice's draft and 403 on writes to her published world; Alice cannot
    reach Charlie's items through her own world's URLs; anonymous users are sent to log in."""
    values = dict(cast["values"])
    if scenario in ("draft", "published"):
        client.force_login(charlie)
    if scenario == "published":
        publish_world(cast["world"])
    if scenario == "foreign_item":
        client.force_login(alice)
        values["pk"] = CHARLIE_PK
    wrong = []
    tried = 0
    for route in id_routes():
        if scenario == "foreign_item" and "<int:pk>" not in route:
            continue
        url = fill(route, values)
        if url is None:
            continue
        for method, response in probe(client, url).items():
            tried += 1
            want = expected(scenario, route, method)
            status = response.status_code
            if status not in want or (scenario == "anonymous" and not refused(client, response)):
                wrong.append(f"{method} {url} ({route}): {status}, expected {sorted(want)}")
    assert tried > 90
    assert wrong == []


def refused(client: Client, response: Any) -> bool:
    """An anonymous request ends at the login page or at a 404 (after one redirect at most)."""
    if response.status_code != 302:
        return response.status_code in (401, 404)
    location = response["Location"]
    return location.startswith("/accounts/login/") or client.get(location).status_code == 404


def test_the_walk_knows_every_id_a_url_takes():
    routes = all_routes()
    unknown = {(r, n) for r in routes for n in _PARAM.findall(r) if n not in KNOWN_KWARGS}
    assert unknown == set()
    assert len(id_routes()) > 120
    assert "studio/w/<int:world_id>/entries/<int:pk>/" in routes
    assert "api/worlds/<int:world_id>/entries/<int:pk>" in routes


def test_an_entry_of_another_world_is_404_through_mine(client, alice, charlie, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    mine = rich_world(alice, ALICE_PK)
    rich_world(charlie, CHARLIE_PK)
    client.force_login(alice)
    html = client.post(f"/studio/w/{mine.pk}/entries/{CHARLIE_PK}/", {"name": "Mine now"})
    api = client.patch(
        f"/api/worlds/{mine.pk}/entries/{CHARLIE_PK}", {"name": "Mine now"}, "application/json"
    )
    assert (html.status_code, api.status_code) == (404, 404)
    assert api.json() == {"detail": "entry not found", "errors": []}
    assert Entry.objects.get(pk=CHARLIE_PK).name != "Mine now"


def test_reordering_with_another_worlds_items_moves_nothing(client, alice, charlie, world):
    theirs = import_world(charlie, world_data(id=""))
    foreign = theirs.entries.get()
    client.force_login(alice)
    response = client.post(f"/studio/w/{world.pk}/entries/reorder/", {"order": [foreign.pk]})
    assert response.status_code == 400
    assert response.content.decode() == f"order: unknown item {foreign.pk}"


def test_others_read_a_published_world_through_versions_not_the_draft(client, bob, world):
    publish_world(world)
    entry = world.entries.get()
    create_item(world, Entry, {"id": "secret-twist", "content": "the guide is the villain"})
    client.force_login(bob)
    for path in ("/entries", f"/entries/{entry.pk}", "/settings", "/bgm-playlist"):
        response = client.get(f"/api/worlds/{world.pk}{path}")
        assert response.status_code == 403, path
        assert response.json()["detail"] == "only the owner can read the draft; export a version"
    for path in ("/root-component", "/root-component/files"):
        assert client.get(f"/api/worlds/{world.pk}{path}").status_code == 403
    page = client.get(f"/worlds/{world.pk}/").content.decode()
    assert "villain" not in page


def test_others_get_the_published_header_not_the_drafts(client, bob, world):
    publish_world(world)
    update_world(world, {"name": "Act 3 spoilers", "description": "The guide dies."})
    client.force_login(bob)
    header = client.get(f"/api/worlds/{world.pk}").json()
    assert (header["name"], header["description"]) == (
        "The Salt Road",
        "Caravans cross a drowned desert.",
    )
    assert (header["author"], header["language"]) == ("Alice", "en")


def test_the_public_page_never_shows_the_drafts_description(client, world):
    update_world(world, {"description": ""})
    publish_world(world)
    update_world(world, {"description": "Unreleased: the caravan master dies in act 3."})
    page = client.get(f"/worlds/{world.pk}/").content.decode()
    assert "Unreleased" not in page


def test_fork_and_export_of_an_unpublished_version_are_404(client, charlie, world):
    version = publish_world(world)
    unpublish_world(world)
    client.force_login(charlie)
    assert client.post(f"/versions/{version.pk}/fork/").status_code == 404
    assert client.get(f"/versions/{version.pk}/export/").status_code == 404
    assert client.post(f"/api/versions/{version.pk}/fork").status_code == 404
    assert client.get(f"/api/worlds/{world.pk}/export?version=1").status_code == 404
    assert World.objects.filter(owner=charlie).count() == 0


# --- escaping ------------------------------------------------------------------------------


class _Tags(HTMLParser):
    """Every start tag with its attributes, as the browser would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


_URL_ATTRS = {"href", "src", "action", "formaction", "hx-get", "hx-post", "hx-push-url"}
_SAFE_CLASS = re.compile(r"^[\w\- ]*$")
# The only inline handler of the templates: a fixed, translated confirm().
_HANDLERS = {("form", "onsubmit")}


def injections(html: str) -> list[str]:
    """What creator text made of the page: raw markup, handlers, script URLs, odd classes."""
    found = []
    if XSS in html or "<img src=x" in html:
        found.append("raw payload in the page")
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        if tag == "img" or (tag == "script" and not attrs.get("src", "").startswith("/static/")):
            found.append(f"<{tag} {attrs}>")
        for name, value in attrs.items():
            if name.startswith("on") and (tag, name) not in _HANDLERS:
                found.append(f"<{tag} {name}={value!r}>")
            if name in _URL_ATTRS and re.match(r"\s*(javascript|data|vbscript):", value, re.I):
                found.append(f"<{tag} {name}={value!r}>")
            if name == "class" and not _SAFE_CLASS.match(value):
                found.append(f"<{tag} class={value!r}>")
            if name == "style" and re.search(r"url\(|expression|<|javascript", value, re.I):
                found.append(f"<{tag} style={value!r}>")
    return found


def hostile_world_data() -> dict[str, Any]:
    """A world whose every creator string is an attack."""
    data = full_world_data()
    data.update(
        id="",
        name=f"Salt {XSS}",
        description=f"{ATTR} {XSS}",
        author=XSS,
        customTags=[XSS, ATTR, "plain"],
        customTagColors={
            XSS: 'red" onmouseover="alert(1)',
            ATTR: "bg-red-500;background:url(javascript:alert(1))",
            "plain": f"</style>{XSS}",
        },
    )
    data["entries"][0].update(
        name=XSS, content=f"{ATTR} {XSS}", tags=[XSS, ATTR, "plain"], keywords=[XSS]
    )
    data["variables"].append(
        {"id": "motto", "name": XSS, "type": "string", "defaultValue": ATTR, "description": XSS}
    )
    data["rules"][0].update(name=XSS, description=ATTR)
    data["rules"][0]["actions"][0]["message"] = XSS
    data["reactions"][0]["name"] = XSS
    data["entryFolders"][0]["name"] = XSS
    data["components"][0]["name"] = XSS
    data["audioTracks"][0].update(name=XSS, url="javascript:alert(1)")
    data["audioTracks"][1].update(name=ATTR, url=" data:text/html,<script>alert(1)</script>")
    data["conditionalBGM"][0]["name"] = XSS
    data["rootComponent"].update(name=XSS, files={"index.tsx": XSS, f"{ATTR}.tsx": XSS})
    return data


@pytest.fixture
def hostile(alice, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    world = import_world(alice, hostile_world_data())
    publish_world(world, changelog=XSS)
    return world


def editor_urls(world: World) -> list[str]:
    pk = world.pk
    urls = [
        reverse(f"studio:{name}", args=[pk])
        for name in ("world", "tags", "settings", "playlist", "ui", "tester")
    ]
    for slug, model in (
        ("entries", Entry),
        ("folders", EntryFolder),
        ("variables", Variable),
        ("rules", Rule),
        ("reactions", Reaction),
        ("audio", AudioTrack),
        ("bgm", ConditionalBGM),
        ("components", Component),
    ):
        urls.append(reverse(f"studio:{slug}", args=[pk]))
        for row in model.objects.filter(world=world):
            urls.append(reverse(f"studio:{slug}_edit", args=[pk, row.pk]))
    for file in world.root_files.all():
        urls.append(reverse("studio:ui_file", args=[pk, file.pk]))
    return urls


def test_creator_text_is_escaped_on_every_editor_page(client, alice, hostile):
    client.force_login(alice)
    for url in editor_urls(hostile):
        for headers in ({}, hx("workspace")):
            response = client.get(url, **headers)
            assert response.status_code == 200, url
            assert injections(response.content.decode()) == [], url
    entries = client.get(reverse("studio:entries", args=[hostile.pk]), {"q": XSS, "tag": ATTR})
    assert injections(entries.content.decode()) == []


def test_creator_text_is_escaped_in_public_pages(client, hostile):
    for url in ("/", f"/?q={XSS}&tag={ATTR}&language={ATTR}", f"/worlds/{hostile.pk}/"):
        response = client.get(url)
        assert response.status_code == 200
        assert injections(response.content.decode()) == [], url
    card = client.get("/").content.decode()
    assert "Salt &lt;script&gt;alert(1)&lt;/script&gt;" in card


def test_creator_text_is_escaped_in_my_worlds_and_messages(client, alice, hostile):
    client.force_login(alice)
    mine = client.get("/studio/")
    assert injections(mine.content.decode()) == []
    upload = SimpleUploadedFile(
        "w.json", json.dumps(hostile_world_data()).encode(), "application/json"
    )
    imported = client.post("/studio/import/", {"file": upload}, follow=True)
    assert imported.status_code == 200
    html = imported.content.decode()
    assert "Imported “Salt &lt;script&gt;" in html
    assert injections(html) == []


def test_the_preview_and_the_tester_escape_their_output(client, alice, hostile):
    client.force_login(alice)
    chat = f"user: {XSS}\nassistant: {ATTR}"
    data = {
        "preview-chat": chat,
        "preview-state": json.dumps({"motto": XSS}),
        "preview-persona_name": XSS,
        "preview-persona_backstory": ATTR,
        "draft_kind": "entries",
        "draft_key": "narrator",
        "name": XSS,
        "content": f"{{{{motto}}}} {ATTR}",
        "section": "system-presets",
        "role": "system",
        "api_role": "system",
        "secondary_keyword_logic": "AND_ANY",
        "condition_logic": "all",
        "position": "0",
    }
    for headers in ({}, hx("preview-result")):
        response = client.post(reverse("studio:preview", args=[hostile.pk]), data, **headers)
        assert response.status_code == 200
        html = response.content.decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert injections(html) == []
    reply = f"{XSS} [motto: set {ATTR}] [{XSS}: + 1] [audio: {XSS}]"
    tested = client.post(
        reverse("studio:tester", args=[hostile.pk]),
        {"tester-reply": reply, "tester-state": json.dumps({"motto": XSS})},
    )
    assert tested.status_code == 200
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in tested.content.decode()
    assert injections(tested.content.decode()) == []


def test_form_errors_and_token_names_are_escaped(client, alice, hostile):
    client.force_login(alice)
    token = client.post("/accounts/tokens/", {"name": XSS})
    assert injections(token.content.decode()) == []
    assert injections(client.get("/accounts/").content.decode()) == []
    bad = client.post(
        reverse("studio:entries_new", args=[hostile.pk]), {"name": XSS, "conditions": ATTR}
    )
    assert bad.status_code == 200
    assert injections(bad.content.decode()) == []


def test_tag_colours_only_ever_become_a_fixed_class(client, alice, hostile):
    client.force_login(alice)
    html = client.get(reverse("studio:tags", args=[hostile.pk])).content.decode()
    classes = set(re.findall(r'class="badge ([^"]*)"', html)) - {"ok", "off"}
    assert classes == {"tag-color-red", "tag-color-gray"}
    assert injections(html) == []


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "@asset:not-a-uuid",
    ],
)
def test_track_urls_other_than_http_or_a_site_path_never_reach_src(db, url):
    assert resolve_asset_url(url) == ""


def test_track_urls_that_are_safe_pass_through(db):
    assert resolve_asset_url("https://cdn.example/a.ogg") == "https://cdn.example/a.ogg"
    assert resolve_asset_url("/media/assets/a.ogg") == "/media/assets/a.ogg"


def test_the_audio_player_gets_no_script_url(client, alice, hostile):
    client.force_login(alice)
    for track in hostile.audio_tracks.all():
        html = client.get(reverse("studio:audio_edit", args=[hostile.pk, track.pk])).content
        assert b"<audio" not in html
        assert injections(html.decode()) == []


# --- CSRF and tokens -----------------------------------------------------------------------


@pytest.fixture
def strict(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    return client


def csrf_of(client: Client) -> str:
    client.get("/studio/")
    return str(client.cookies["csrftoken"].value)


def test_session_api_writes_need_the_csrf_token(strict, world):
    url = f"/api/worlds/{world.pk}"
    refused = strict.patch(url, {"name": "Forged"}, "application/json")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "CSRF check Failed", "errors": []}
    assert strict.post("/api/worlds", {"name": "Forged"}, "application/json").status_code == 403
    assert World.objects.filter(name="Forged").count() == 0
    token = csrf_of(strict)
    allowed = strict.patch(url, {"name": "Mine"}, "application/json", HTTP_X_CSRFTOKEN=token)
    assert allowed.status_code == 200


def test_session_api_reads_need_no_csrf_token(strict, world):
    assert strict.get(f"/api/worlds/{world.pk}").status_code == 200


def test_html_writes_need_the_csrf_token(strict, world):
    assert strict.post(f"/studio/w/{world.pk}/delete/").status_code == 403
    assert World.objects.filter(pk=world.pk).exists()
    token = csrf_of(strict)
    deleted = strict.post(f"/studio/w/{world.pk}/delete/", HTTP_X_CSRFTOKEN=token)
    assert deleted.status_code == 302
    assert not World.objects.filter(pk=world.pk).exists()


def test_token_auth_needs_no_csrf(alice, world):
    client = Client(enforce_csrf_checks=True)
    raw = make_token(alice)
    response = client.patch(
        f"/api/worlds/{world.pk}",
        {"name": "By script"},
        "application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 200
    assert response.json()["name"] == "By script"


def test_tokens_are_stored_as_digests_and_a_revoked_token_fails(client, alice, world):
    token, raw = create_token(alice, "ci")
    assert raw.startswith("fab_") and len(raw) > 40
    assert raw not in {token.digest, token.prefix}
    assert ApiToken.objects.filter(digest=raw).count() == 0
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.get("/api/worlds", **auth).status_code == 200
    revoke_token(token)
    refused = client.get("/api/worlds", **auth)
    assert refused.status_code == 401
    assert authenticate_token(raw) is None
    assert authenticate_token(raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
    assert authenticate_token(token.digest) is None


def test_a_deactivated_users_token_fails(client, alice):
    raw = make_token(alice)
    alice.is_active = False
    alice.save()
    assert client.get("/api/worlds", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401


def test_the_new_token_page_is_not_cached(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/tokens/", {"name": "ci"})
    assert "no-store" in response["Cache-Control"]


# --- uploads -------------------------------------------------------------------------------


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def test_an_audio_polyglot_named_html_is_stored_as_audio(media, world):
    polyglot = b"ID3\x04\x00\x00\x00\x00\x00\x00<html><script>alert(1)</script></html>"
    asset = store_audio_asset(world, audio_upload(polyglot, name="../../evil.html"))
    name = str(asset.file.name)
    assert name == f"assets/{world.pk}/{asset.uid}.mp3"
    assert "evil" not in name and ".." not in name
    assert asset.original_name == "evil.html"
    assert (media / name).read_bytes() == polyglot


def test_stored_audio_is_served_as_audio_with_nosniff(client, rf, media, world):
    asset = store_audio_asset(world, audio_upload(name="page.html"))
    # What /media/ serves in development (a production web server also goes by the extension).
    response = serve(rf.get("/media/x"), str(asset.file.name), document_root=str(media))
    assert response["Content-Type"] in ("audio/wav", "audio/x-wav")
    assert client.get("/")["X-Content-Type-Options"] == "nosniff"


def test_an_upload_that_is_not_audio_creates_nothing(client, alice, world, media):
    client.force_login(alice)
    html = SimpleUploadedFile("a.mp3", b"<html><script>alert(1)</script>", "audio/mpeg")
    response = client.post(
        f"/studio/w/{world.pk}/audio/upload/", {"file": html, "track_name": "x", "type": "bgm"}
    )
    assert response.status_code == 200
    assert "not an audio file (WAV, MP3, OGG, FLAC or M4A expected)" in response.content.decode()
    api = client.post(f"/api/worlds/{world.pk}/assets", {"file": html})
    assert api.status_code == 422
    assert Asset.objects.count() == 0 and world.audio_tracks.count() == 0


def test_an_audio_upload_over_the_limit_creates_nothing(client, alice, world, media, settings):
    settings.MAX_AUDIO_BYTES = 1024 * 1024
    client.force_login(alice)
    big = SimpleUploadedFile("a.wav", wav_bytes(frames=600_000), "audio/wav")
    response = client.post(f"/api/worlds/{world.pk}/assets", {"file": big})
    assert response.status_code == 422
    assert response.json()["errors"] == ["file: is larger than the 1 MB limit"]
    assert Asset.objects.count() == 0


@pytest.fixture
def small_imports(settings):
    settings.MAX_IMPORT_BYTES = 1024 * 1024


def test_an_import_over_the_limit_creates_nothing(client, alice, small_imports):
    client.force_login(alice)
    data = world_data(id="", pad="x" * 1100 * 1024)
    body = json.dumps(data).encode()
    upload = SimpleUploadedFile("big.json", body, "application/json")
    form = client.post("/studio/import/", {"file": upload})
    assert form.status_code == 200
    assert "The file is larger than 20 MB." in form.content.decode()
    upload.seek(0)
    multipart = client.post("/api/worlds/import", {"file": upload})
    assert multipart.status_code == 413
    assert multipart.json()["errors"] == ["file: is larger than the 1 MB limit"]
    raw = client.post("/api/worlds/import", body, "application/json")
    assert raw.status_code == 413
    assert raw.json()["errors"] == ["$: is larger than the 1 MB limit"]
    assert World.objects.count() == 0


def test_an_import_over_20_mb_is_refused_through_the_api(client, alice):
    client.force_login(alice)
    body = json.dumps(world_data(id="", pad="y" * (20 * 1024 * 1024))).encode()
    response = client.post("/api/worlds/import", body, "application/json")
    assert response.status_code == 413
    assert response.json() == {
        "detail": "request body too large",
        "errors": ["$: is larger than the 20 MB limit"],
    }
    assert World.objects.count() == 0


def test_a_malformed_import_names_the_field_and_creates_nothing(client, alice):
    client.force_login(alice)
    data = world_data(id="")
    data["entries"].append({"id": "second", "section": "nowhere"})
    data["variables"][0]["type"] = "colour"
    upload = SimpleUploadedFile("w.json", json.dumps(data).encode(), "application/json")
    form = client.post("/studio/import/", {"file": upload})
    assert form.status_code == 200
    page = form.content.decode()
    assert "entries[1].section" in page and "variables[0].type" in page
    api = client.post("/api/worlds/import", data, "application/json")
    assert api.status_code == 422
    errors = api.json()["errors"]
    assert any(e.startswith("entries[1].section: ") for e in errors)
    assert any(e.startswith("variables[0].type: ") for e in errors)
    assert World.objects.count() == 0
    assert Entry.objects.count() == 0


# --- redirects, mass assignment, headers, settings -----------------------------------------


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:x"]
)
def test_login_never_redirects_off_site(client, alice, target):
    response = client.post(
        f"/accounts/login/?next={target}", {"username": "alice", "password": "password"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("studio:world_list")


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/"])
def test_signup_and_the_language_switch_never_redirect_off_site(client, db, target):
    signup = client.post(
        f"/accounts/signup/?next={target}",
        {"username": "dana", "password1": "a-long-passphrase", "password2": "a-long-passphrase"},
    )
    assert signup["Location"] == reverse("studio:world_list")
    switched = client.post("/i18n/setlang/", {"language": "es", "next": target})
    assert switched.status_code == 302
    assert switched["Location"] == "/"


def test_the_language_switch_only_takes_known_languages_and_needs_csrf(db):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/i18n/setlang/", {"language": "es"}).status_code == 403
    client = Client()
    client.post("/i18n/setlang/", {"language": "<script>", "next": "/"})
    assert django_settings.LANGUAGE_COOKIE_NAME not in client.cookies
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in page


@pytest.mark.parametrize(
    "body",
    [
        {"owner": 2},
        {"owner_id": 2},
        {"published": True},
        {"published_version": 1},
        {"uid": "stolen"},
        {"id": "stolen"},
        {"forked_from": 1},
    ],
)
def test_the_api_refuses_fields_it_does_not_own(client, alice, charlie, world, body):
    client.force_login(alice)
    key = next(iter(body))
    changed = client.patch(f"/api/worlds/{world.pk}", body, "application/json")
    assert changed.status_code == 422
    assert changed.json()["errors"] == [f"{key}: unknown field"]
    created = client.post("/api/worlds", {"name": "New", **body}, "application/json")
    assert created.status_code == 422
    world.refresh_from_db()
    assert (world.owner, world.published, world.published_version) == (alice, False, None)
    assert World.objects.count() == 1


def test_html_forms_ignore_fields_they_do_not_own(client, alice, charlie, world):
    client.force_login(alice)
    posted = {
        "name": "Renamed",
        "editor_mode": "advanced",
        "owner": charlie.pk,
        "published": "on",
        "uid": "stolen",
    }
    assert client.post(f"/studio/w/{world.pk}/", posted).status_code == 302
    world.refresh_from_db()
    assert (world.name, world.owner, world.published) == ("Renamed", alice, False)
    assert world.uid != "stolen"
    new = client.post("/studio/new/", {"name": "Fresh", "owner": charlie.pk, "published": "on"})
    assert new.status_code == 302
    fresh = World.objects.get(name="Fresh")
    assert (fresh.owner, fresh.published) == (alice, False)


def test_item_bodies_cannot_move_an_item_to_another_world(client, alice, charlie, world):
    theirs = import_world(charlie, world_data(id=""))
    entry = world.entries.get()
    client.force_login(alice)
    response = client.patch(
        f"/api/worlds/{world.pk}/entries/{entry.pk}",
        {"world": theirs.pk, "world_id": theirs.pk, "pk": 1},
        "application/json",
    )
    assert response.status_code == 200
    entry.refresh_from_db()
    assert entry.world_id == world.pk
    assert theirs.entries.count() == 1


def test_replacing_content_keeps_owner_id_and_publication(client, alice, world):
    version = publish_world(world)
    client.force_login(alice)
    data = world_data(id="someone-elses-id", name="Replaced")
    response = client.put(f"/api/worlds/{world.pk}/content", data, "application/json")
    assert response.status_code == 200
    world.refresh_from_db()
    assert (world.owner, world.published_version, world.name) == (alice, version, "Replaced")
    assert WorldVersion.objects.get(pk=version.pk).name == "The Salt Road"


def test_pages_refuse_to_be_framed_and_sniffed(client, alice, world):
    client.force_login(alice)
    for url in ("/", f"/studio/w/{world.pk}/", "/accounts/login/", f"/api/worlds/{world.pk}"):
        response = client.get(url)
        assert response["X-Frame-Options"] == "DENY", url
        assert response["X-Content-Type-Options"] == "nosniff", url


def test_cookies_are_http_only_and_same_site(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "password"})
    cookie = response.cookies[django_settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"


def test_production_settings_secure_the_cookies(monkeypatch):
    """With DEBUG off the settings module turns the secure cookie flags on by itself."""
    import importlib

    import config.settings as module

    monkeypatch.delenv("SECURE_COOKIES", raising=False)  # tests/settings.py turns it off
    monkeypatch.setenv("DEBUG", "false")
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "31536000")
    monkeypatch.setenv("SECURE_PROXY_SSL_HEADER", "true")
    try:
        prod = importlib.reload(module)
        assert prod.SESSION_COOKIE_SECURE and prod.CSRF_COOKIE_SECURE
        assert prod.LANGUAGE_COOKIE_SECURE
        assert prod.SECURE_HSTS_SECONDS == 31536000
        assert prod.SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")
        monkeypatch.setenv("SECURE_COOKIES", "false")
        assert not importlib.reload(module).SESSION_COOKIE_SECURE
        monkeypatch.setenv("DEBUG", "true")
        monkeypatch.delenv("SECURE_COOKIES")
        assert not importlib.reload(module).SESSION_COOKIE_SECURE
    finally:
        monkeypatch.undo()
        importlib.reload(module)  # django.conf.settings was read at start-up and is untouched


def test_a_script_tag_in_a_name_round_trips_as_text_through_the_api(client, alice, world):
    client.force_login(alice)
    response = client.patch(f"/api/worlds/{world.pk}", {"name": XSS}, "application/json")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.json()["name"] == XSS
