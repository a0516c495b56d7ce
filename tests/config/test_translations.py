"""Every string of the UI in English, Spanish and Chinese (issue 16 §6).

Two nets. The catalogues: ``makemessages`` runs afresh on a copy of the tree each time, so a
string marked anywhere since the last ``make messages`` shows up here as untranslated, and a
changed one as fuzzy. The pages: the gallery, every studio page of the demo worlds, the play
pages, personas, My model and the account pages are rendered in Spanish and Chinese, and any
visible text with an English word that neither the world's own content nor the language's
catalogue holds is an unmarked string (a template without ``{% translate %}``, a label without
gettext, a lazy string formatted at import).
"""

from __future__ import annotations

import gettext
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings
from django.urls import reverse
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]
# makemessages over the whole tree and the page renders take a while on a busy 2-core machine.
pytestmark = pytest.mark.timeout(600)

LOCALES = ("es", "zh_Hans")
DOMAINS = ("django", "djangojs")
# Not copied for extraction: no translatable UI lives there (the engine never imports Django).
NOT_SOURCES = {"tests", "bench", "docs", "engine", "media", "staticfiles", "node_modules"}
IGNORED = ["static/vendor/*", "*.egg-info/*", "__pycache__/*"]


# --- the catalogues ---------------------------------------------------------------------------


@dataclass
class Message:
    msgid: str
    context: str | None = None
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False

    @property
    def label(self) -> str:
        return f"[{self.context}] {self.msgid!r}" if self.context else repr(self.msgid)


KEYWORD_LINE = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (\".*\")$")


def read_po(path: Path) -> list[Message]:
    """The live messages of a PO file (obsolete ``#~`` ones are skipped; the header too)."""
    messages: list[Message] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        lines = [line for line in block.splitlines() if not line.startswith("#~")]
        fields: dict[str, str] = {}
        key, fuzzy = "", False
        for line in lines:
            if line.startswith("#,"):
                fuzzy = fuzzy or "fuzzy" in line
            elif match := KEYWORD_LINE.match(line):
                key = match.group(1)
                fields[key] = json.loads(match.group(2))
            elif line.startswith('"') and key:
                fields[key] += json.loads(line)
        if not fields.get("msgid"):
            continue
        strings = {
            int(k[7:-1]) if "[" in k else 0: v for k, v in fields.items() if k.startswith("msgstr")
        }
        messages.append(
            Message(
                fields["msgid"],
                fields.get("msgctxt"),
                fields.get("msgid_plural"),
                strings,
                fuzzy,
            )
        )
    return messages


def needs_gettext_tools() -> None:
    if shutil.which("xgettext") and shutil.which("msgmerge") and shutil.which("msgfmt"):
        return
    message = "needs GNU gettext (apt-get install -y gettext)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def fresh_catalogues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tree with ``makemessages`` run in it: the PO files as the sources stand."""
    needs_gettext_tools()
    tree = tmp_path_factory.mktemp("extract")
    for item in ROOT.iterdir():
        if item.is_dir() and not item.name.startswith(".") and item.name not in NOT_SOURCES:
            shutil.copytree(
                item, tree / item.name, ignore=shutil.ignore_patterns("__pycache__", "vendor")
            )
    cwd = Path.cwd()
    os.chdir(tree)  # makemessages walks the current directory
    try:
        with override_settings(LOCALE_PATHS=[str(tree / "locale")]):
            for domain in DOMAINS:
                call_command(
                    "makemessages",
                    locale=list(LOCALES),
                    domain=domain,
                    ignore_patterns=IGNORED,
                    no_obsolete=True,
                    verbosity=0,
                )
    finally:
        os.chdir(cwd)
    return tree / "locale"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("locale", LOCALES)
def test_every_marked_string_is_translated(fresh_catalogues: Path, locale: str, domain: str):
    po = fresh_catalogues / locale / "LC_MESSAGES" / f"{domain}.po"
    if not po.exists():
        assert domain == "djangojs", f"makemessages wrote no {po}"
        return  # no JavaScript string is marked (play.js gets its words from the page)
    messages = read_po(po)
    untranslated = [m.label for m in messages if not all(m.strings.values())]
    fuzzy = [m.label for m in messages if m.fuzzy]
    assert (untranslated, fuzzy) == ([], []), (
        f"{locale} {domain}: {len(untranslated)} untranslated, {len(fuzzy)} fuzzy; "
        f"run `make messages` and translate them in locale/{locale}/LC_MESSAGES/{domain}.po.\n"
        f"untranslated: {untranslated}\nfuzzy: {fuzzy}"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_keep_the_placeholders_of_their_msgid(fresh_catalogues: Path, locale: str):
    for po in sorted((fresh_catalogues / locale / "LC_MESSAGES").glob("*.po")):
        check = subprocess.run(
            ["msgfmt", "--check-format", "-o", os.devnull, str(po)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stderr


def test_chinese_translations_are_not_english_copies():
    """A Chinese msgstr equal to its English msgid is a string left untranslated."""
    allowed = {"Fabula", "Anthropic", "tokens", "tok", "World Info JSON", "JSON", "NPC", "Top K"}
    copies = [
        m.label
        for m in read_po(ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po")
        if m.msgid not in allowed
        and re.search(r"[A-Za-z]{3,}", m.msgid)
        and m.msgid in m.strings.values()
    ]
    assert copies == []


@pytest.mark.parametrize(
    "po", sorted((ROOT / "locale").glob("*/LC_MESSAGES/*.po")), ids=lambda p: p.parent.parent.name
)
def test_the_committed_mo_files_are_compiled_from_the_po_files(po: Path):
    """locale/*.mo are committed (nothing compiles them on deploy): they say what the .po say."""
    expected: dict[Any, str] = {}
    for message in read_po(po):
        if message.fuzzy or not all(message.strings.values()):
            continue
        key = f"{message.context}\x04{message.msgid}" if message.context else message.msgid
        if message.plural is None:
            expected[key] = message.strings[0]
        else:
            expected.update({(key, n): text for n, text in message.strings.items()})
    with po.with_suffix(".mo").open("rb") as mo:
        compiled = dict(gettext.GNUTranslations(mo)._catalog)  # type: ignore[attr-defined]
    compiled.pop("", None)
    assert compiled == expected, "run `make messages` (it compiles the .mo files too)"


# --- the pages --------------------------------------------------------------------------------

VISIBLE_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "data-confirm", "hx-confirm"}
HIDDEN_ELEMENTS = {"script", "style", "template", "textarea", "pre", "code"}
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")
# Names that stay as they are in every language: products, formats, the languages' own names.
NAMES = {"fabula", "sillytavern", "openai", "anthropic", "json", "png", "webp", "gif", "jpeg"}
NAMES |= {w.lower() for _code, name in settings.LANGUAGES for w in WORD.findall(name)}
ACTIONS = ("export", "delete", "duplicate", "move", "reorder", "remove", "disable", "enable")


class VisibleText(HTMLParser):
    """The text a reader sees: text nodes, tooltips, placeholders, button captions."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.links: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in HIDDEN_ELEMENTS:
            self.hidden += 1
        if tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))
        shown = set(VISIBLE_ATTRIBUTES)
        if tag == "input" and values.get("type") in ("submit", "button"):
            shown.add("value")
        self.texts += [str(v) for k, v in attrs if k in shown and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN_ELEMENTS:
            self.hidden = max(0, self.hidden - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.texts.append(" ".join(data.split()))


PLAY_CONFIG = re.compile(
    r'<script id="play-config-[^"]+" type="application/json">(.*?)</script>', re.S
)


def visible(html: str) -> VisibleText:
    parser = VisibleText()
    parser.feed(html)
    # play.js draws the chat with the words the page hands it in its config
    for config in PLAY_CONFIG.findall(html):
        parser.texts += [str(v) for v in json.loads(config).get("strings", {}).values()]
    return parser


def catalogue_words(code: str) -> set[str]:
    """Every word of the language's translations (ours and Django's): its vocabulary."""
    catalog = translation.trans_real.translation(code)._catalog  # type: ignore[attr-defined]
    words = {w.lower() for _key, text in catalog.items() for w in WORD.findall(str(text))}
    return words | talk_words(code)


def talk_words(code: str) -> set[str]:
    """The words of the engine's talk phrasebook in that language (trust levels, manners, NPC
    lines: data, not gettext), as the studio's NPC page shows them; placeholders left out."""
    from engine.gm.talkbook import talkbook

    shown = ("level_", "tone_", "a_", "b_", "c_", "d_", "e_", "trade_phrase")
    book = talkbook(code)
    texts = [re.sub(r"\{\w+\}", " ", t) for k, t in book.templates.items() if k.startswith(shown)]
    return {w.lower() for text in texts for w in WORD.findall(text)}


def strings_in(value: Any) -> Iterator[str]:
    """Every string of a JSON value: names, ids, texts, and the keys of a creator's JSON
    defaults (``{"qty": 3}``), which a page may show cut at any key."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


@dataclass
class Content:
    """What the creators and players wrote: it stays in its own language on every page."""

    phrases: set[str]

    def __post_init__(self) -> None:
        self.text = "\n".join(self.phrases)
        # names and ids, not prose: a whole text is matched by ``covers``
        ordered = sorted((p for p in self.phrases if 1 < len(p) <= 80), key=len, reverse=True)
        alternatives = "|".join(map(re.escape, ordered))
        # ASCII bounds: in Chinese a name sits right against the words around it
        self.pattern = re.compile(rf"(?<![A-Za-z0-9_'’-])(?:{alternatives})(?![A-Za-z0-9_'’-])")

    def covers(self, text: str) -> bool:
        # a description cut short is still content ("…", or "..." in Django's Chinese)
        return text.removesuffix("...").rstrip("…") in self.text

    def without(self, text: str) -> str:
        return self.pattern.sub(" ", text)


@dataclass
class Site:
    owner: Any
    worlds: list[Any]
    content: Content
    pages: list[str]


@pytest.fixture
def site(db: None, settings: Any, tmp_path: Path) -> Site:
    """The demo worlds (their owner logged in), a persona, a session and every page to read."""
    from play.models import Session
    from play.personas import create_persona
    from play.sessions import start_session
    from studio.demo import load_demo
    from studio.worlds import export_world_json

    settings.MEDIA_ROOT = tmp_path
    demo = load_demo()
    owner = demo["version"].world.owner
    worlds = [demo["version"].world, demo["gm"]["version"].world]
    persona = create_persona(owner, {"name": "Wren"})
    session: Session = start_session(owner, demo["version"], mode="offline")
    fixtures = [json.loads(f.read_text()) for f in (ROOT / "studio" / "fixtures").glob("*.json")]
    phrases = {
        *strings_in([export_world_json(w) for w in worlds]),
        *strings_in(fixtures),
        *(v.changelog for w in worlds for v in w.versions.all()),
        *(m.content for m in session.messages.all()),
        owner.username,
        persona.name,
    }
    pages = [
        "/",
        *(reverse("world_page", args=[w.pk]) for w in worlds),
        reverse("account"),
        reverse("studio:world_list"),
        reverse("studio:world_new"),
        reverse("studio:import"),
        reverse("play:session_list"),
        reverse("play:start", args=[demo["version"].pk]),
        reverse("play:start", args=[demo["gm"]["version"].pk]),
        reverse("play:session", args=[session.pk]),
        reverse("play:personas"),
        reverse("play:persona_edit", args=[persona.pk]),
        reverse("play:provider"),
        *(reverse("studio:lint", args=[w.pk]) for w in worlds),
        *(reverse("play:playtest", args=[w.pk]) for w in worlds),
    ]
    return Site(owner, worlds, Content(phrases), pages)


def studio_pages(client: Client, worlds: list[Any]) -> list[str]:
    """Every page a link reaches from the worlds' editors, one per kind of page."""
    todo = [reverse("studio:world", args=[w.pk]) for w in worlds]
    seen: dict[str, str] = {}
    while todo:
        url = todo.pop(0)
        shape = re.sub(r"^(/studio/w/\d+/.+/)(edit/[^/]+|\d+)/$", r"\1X/", url)
        if url in seen or shape in seen.values():
            continue
        seen[url] = shape
        response = client.get(url)
        assert response.status_code == 200, url
        for href in visible(response.content.decode()).links:
            href = href.split("#")[0].split("?")[0]
            studio = re.match(r"^/studio/w/\d+/", href)
            if studio and href not in seen and not any(f"/{a}" in href for a in ACTIONS):
                todo.append(href)
    return list(seen)


def english_on(html: str, content: Content, vocabulary: set[str]) -> list[str]:
    """Visible texts with a word that is neither content nor the language's own."""
    known = vocabulary | NAMES | technical_ids()
    found = []
    for text in visible(html).texts:
        if not re.search(r"[A-Za-z]{3}", text) or content.covers(text):
            continue
        words = WORD.findall(content.without(text))
        if [w for w in words if len(w) > 2 and w.lower() not in known]:
            found.append(text)
    return found


def technical_ids() -> set[str]:
    """The JSON ids a picker shows beside their label: ``Every turn (every-turn)``."""
    from studio.forms.reactions import EFFECT_LABELS
    from studio.forms.rules import ACTION_LABELS, TRIGGER_LABELS

    return {*TRIGGER_LABELS, *ACTION_LABELS, *EFFECT_LABELS}


@pytest.mark.parametrize("code", ["es", "zh-hans"])
def test_the_pages_show_no_english_in_spanish_and_chinese(site: Site, code: str):
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    anonymous = [reverse("login"), reverse("signup")]
    problems: dict[str, list[str]] = {}
    vocabulary = catalogue_words(code)
    for url in anonymous:
        response = client.get(url)
        problems[url] = english_on(response.content.decode(), site.content, vocabulary)
    client.force_login(site.owner)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    for url in [*site.pages, *studio_pages(client, site.worlds)]:
        response = client.get(url)
        assert response.status_code == 200, url
        problems[url] = english_on(response.content.decode(), site.content, vocabulary)
    for world in site.worlds:  # the prompt preview, as the editor's panel loads it
        url = reverse("studio:preview", args=[world.pk])
        response = client.post(url, {"preview-chat": "user: hola"}, HTTP_HX_REQUEST="true")
        problems[url] = english_on(response.content.decode(), site.content, vocabulary)
    problems = {url: sorted(set(found)) for url, found in problems.items() if found}
    assert problems == {}, json.dumps(problems, ensure_ascii=False, indent=1)


def test_the_websocket_speaks_the_pages_language():
    from play.languages import language_from_scope

    cookie = {"cookies": {settings.LANGUAGE_COOKIE_NAME: "zh-hans"}, "headers": []}
    header = {"cookies": {}, "headers": [(b"accept-language", b"es-ES,es;q=0.9,en;q=0.5")]}
    assert language_from_scope(cookie) == "zh-hans"
    assert language_from_scope(header) == "es"
    assert language_from_scope({"headers": [(b"accept-language", b"fr")]}) == "en"


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    translation.activate(settings.LANGUAGE_CODE)
