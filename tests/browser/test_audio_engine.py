"""static/js/audio.js in Chromium, with a fake <audio> element and a hand-driven clock.

The engine gets its Audio, timers, random and storage injected, so these tests watch cues, fades,
chains, the playlist and conditional BGM step by step without sound and without waiting. The
condition operators are checked against the engine's own (engine/conditions.py) on one table.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.conditions import check_condition
from tests.browser.conftest import CHROMIUM

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}")
sync_api = pytest.importorskip("playwright.sync_api")

HARNESS = """
window.T = (() => {
  let now = 0, id = 0, timers = [];
  const all = [];
  function FakeAudio(url) {
    this.url = url; this.volume = 1; this.loop = false; this.paused = true; this.listeners = {};
    all.push(this);
  }
  FakeAudio.prototype.play = function () { this.paused = false; return Promise.resolve(); };
  FakeAudio.prototype.pause = function () { this.paused = true; };
  FakeAudio.prototype.addEventListener = function (e, f) {
    (this.listeners[e] = this.listeners[e] || []).push(f);
  };
  const clock = {
    setTimeout: (f, ms) => { timers.push({ id: ++id, at: now + ms, f }); return id; },
    clearTimeout: (i) => { timers = timers.filter((t) => t.id !== i); },
    setInterval: (f, ms) => { timers.push({ id: ++id, at: now + ms, f, every: ms }); return id; },
    clearInterval: (i) => { timers = timers.filter((t) => t.id !== i); },
  };
  function advance(ms) {
    const end = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const t = timers[0];
      if (!t || t.at > end) break;
      now = t.at;
      if (t.every) t.at += t.every; else timers.shift();
      t.f();
    }
    now = end;
  }
  function end(trackUrl) {
    const el = all.filter((a) => a.url === trackUrl && !a.paused).pop();
    (el.listeners.ended || []).forEach((f) => f());
  }
  const store = {};
  const storage = {
    getItem: (k) => (k in store ? store[k] : null),
    setItem: (k, v) => { store[k] = String(v); },
  };
  let seed = 1;
  const random = () => { seed = (seed * 16807) % 2147483647; return (seed - 1) / 2147483646; };
  function engine(config) {
    const makeAudio = (u) => new FakeAudio(u);
    return FabulaAudio.create(config, Object.assign({ makeAudio, storage, random }, clock));
  }
  return { engine, advance, end, all };
})();
"""

TRACKS = [
    {"id": "bgm-a", "url": "/a", "type": "bgm", "volume": 1},
    {"id": "bgm-b", "url": "/b", "type": "bgm", "volume": 1},
    {"id": "bgm-c", "url": "/c", "type": "bgm", "volume": 1, "loop": True},
    {"id": "bgm-d", "url": "/d", "type": "bgm", "volume": 1, "loop": True},
    {"id": "sfx-hit", "url": "/hit", "type": "sfx", "volume": 0.5, "fadeOut": 1},
    {"id": "amb-rain", "url": "/rain", "type": "ambient", "volume": 1, "loop": True},
]


ORIGIN = "http://audio.test"


def serve_static(route: Any) -> None:
    """The page at ORIGIN/ and the files of static/js/ under ORIGIN/static/js/."""
    path = route.request.url[len(ORIGIN) :]
    if path == "/":
        route.fulfill(body="<!doctype html><title>audio</title>", content_type="text/html")
    elif path.startswith("/static/js/") and path.endswith(".js") and ".." not in path:
        route.fulfill(path=str(ROOT / path.lstrip("/")), content_type="text/javascript")
    else:
        route.fulfill(status=404, body="")


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()  # in a context of its own, closed with the page
    # audio.js is an ES module that imports its parts: served from one origin, not inlined.
    page.route(f"{ORIGIN}/**", serve_static)
    page.goto(f"{ORIGIN}/")
    page.add_script_tag(url=f"{ORIGIN}/static/js/audio.js", type="module")
    page.add_script_tag(content=HARNESS)
    yield page
    page.context.close()


def run(page: Any, config: dict[str, Any], steps: str) -> Any:
    """Create an engine on ``config`` and run ``steps`` (JS using ``e`` and ``T``)."""
    body = f"const e = T.engine({json.dumps(config)}); const out = []; {steps}; return out;"
    return page.evaluate(f"() => {{ {body} }}")


def test_cues_play_stop_volume_crossfade_and_chain(page: Any) -> None:
    out = run(
        page,
        {"tracks": TRACKS},
        """
        e.setVolume("bgm", 1); e.setVolume("sfx", 1);
        e.handleCue({track_id: "bgm-a", action: "play", value: null, chain: null});
        out.push(e.snapshot().bgm);
        e.handleCue({track_id: "bgm-b", action: "crossfade", value: 2, chain: null});
        T.advance(1000);
        const half = e.snapshot().elementVolumes;
        out.push([Math.round(half["bgm-a"] * 10) / 10, Math.round(half["bgm-b"] * 10) / 10]);
        T.advance(1100);
        out.push(e.snapshot().playing);
        e.handleCue({track_id: "bgm-b", action: "volume", value: 0.3, chain: null});
        out.push(e.snapshot().elementVolumes["bgm-b"]);
        e.handleCue({track_id: "sfx-hit", action: "play", value: null, chain: "bgm-c"});
        T.end("/hit");
        out.push(e.snapshot().bgm);
        e.handleCue({track_id: "amb-rain", action: "play", value: null, chain: null});
        e.handleCue({track_id: "amb-rain", action: "stop", value: null, chain: null});
        out.push(e.snapshot().playing);
        e.handleCue({track_id: "nope", action: "play", value: null, chain: null});
        out.push(e.snapshot().playing);
        """,
    )
    assert out == [
        "bgm-a",
        [0.5, 0.5],
        ["bgm-b"],
        0.3,
        "bgm-c",
        ["bgm-c"],
        ["bgm-c"],
    ]


def test_stop_fades_out_with_the_tracks_fade_out(page: Any) -> None:
    out = run(
        page,
        {"tracks": TRACKS},
        """
        e.setVolume("sfx", 1);
        e.play("sfx-hit");
        e.stop("sfx-hit");
        T.advance(500);
        out.push(e.snapshot().elementVolumes["sfx-hit"]);
        T.advance(600);
        out.push(e.snapshot().playing);
        """,
    )
    assert out == [0.25, []]


def test_max_duration_stops_a_track(page: Any) -> None:
    tracks = [{**TRACKS[2], "maxDuration": 3}]
    out = run(
        page,
        {"tracks": tracks},
        """
        e.play("bgm-c"); T.advance(2900); out.push(e.snapshot().playing);
        T.advance(200); out.push(e.snapshot().playing);
    """,
    )
    assert out == [["bgm-c"], []]


def test_sequential_playlist_waits_its_gap_and_stops_at_the_end(page: Any) -> None:
    playlist = {"tracks": ["bgm-a", "bgm-b"], "playMode": "sequential", "gapSeconds": 2}
    out = run(
        page,
        {"tracks": TRACKS, "playlist": playlist},
        """
        e.start({values: {}, turn: 0});
        out.push(e.snapshot().bgm);
        T.end("/a"); T.advance(1900); out.push(e.snapshot().bgm);
        T.advance(200); out.push(e.snapshot().bgm);
        T.end("/b"); T.advance(5000); out.push([e.snapshot().bgm, e.snapshot().playlistActive]);
    """,
    )
    assert out == ["bgm-a", None, "bgm-b", [None, False]]


def test_loop_playlist_wraps_and_shuffle_never_repeats_back_to_back(page: Any) -> None:
    loop = run(
        page,
        {"tracks": TRACKS, "playlist": {"tracks": ["bgm-a", "bgm-b"]}},
        """
        e.start({values: {}, turn: 0});
        for (let i = 0; i < 4; i++) {
          const now = e.snapshot().bgm;
          out.push(now); T.end(now === "bgm-a" ? "/a" : "/b"); T.advance(10);
        }
    """,
    )
    assert loop == ["bgm-a", "bgm-b", "bgm-a", "bgm-b"]
    urls = {"bgm-a": "/a", "bgm-b": "/b", "bgm-c": "/c"}
    shuffle = run(
        page,
        {
            "tracks": [{**t, "loop": False} for t in TRACKS],
            "playlist": {"tracks": ["bgm-a", "bgm-b", "bgm-c"], "playMode": "shuffle"},
        },
        f"""
        const urls = {json.dumps(urls)};
        e.start({{values: {{}}, turn: 0}});
        for (let i = 0; i < 12; i++) {{
          const now = e.snapshot().bgm; out.push(now); T.end(urls[now]); T.advance(10);
        }}
        """,
    )
    assert all(a != b for a, b in itertools.pairwise(shuffle))
    for cycle in (shuffle[0:3], shuffle[3:6], shuffle[6:9]):
        assert sorted(cycle) == ["bgm-a", "bgm-b", "bgm-c"]


def test_playlist_can_wait_for_the_first_message(page: Any) -> None:
    playlist = {"tracks": ["bgm-a"], "waitForFirstMessage": True}
    out = run(
        page,
        {"tracks": TRACKS, "playlist": playlist},
        """
        e.start({values: {}, turn: 0, hasUserMessages: false}); out.push(e.snapshot().bgm);
        e.onUserText("hello"); out.push(e.snapshot().bgm);
    """,
    )
    assert out == [None, "bgm-a"]


def test_conditional_bgm_takes_over_and_falls_back(page: Any) -> None:
    def rule(fallback: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": "combat",
            "targetTrackId": "bgm-d",
            "triggerType": "variable",
            "conditions": [{"variableId": "in-combat", "operator": "eq", "value": True}],
            "fadeOutDuration": 1,
            "fallback": fallback,
            **extra,
        }

    steps = """
        e.start({values: {"in-combat": false}, turn: 0});
        e.play("bgm-c");
        out.push(e.snapshot().bgm);
        e.onState({"in-combat": true}, 1); T.advance(1100);
        out.push([e.snapshot().bgm, e.snapshot().rule]);
        e.onState({"in-combat": false}, 2); T.advance(1100);
        out.push([e.snapshot().bgm, e.snapshot().rule]);
    """
    playlist = {"tracks": ["bgm-a"]}
    previous = run(
        page, {"tracks": TRACKS, "playlist": playlist, "conditional": [rule("previous")]}, steps
    )
    assert previous == ["bgm-c", ["bgm-d", "combat"], ["bgm-c", None]]
    default = run(
        page, {"tracks": TRACKS, "playlist": playlist, "conditional": [rule("default")]}, steps
    )
    assert default[-1] == ["bgm-a", None]
    track = run(
        page, {"tracks": TRACKS, "playlist": playlist, "conditional": [rule("bgm-b")]}, steps
    )
    assert track[-1] == ["bgm-b", None]


def test_higher_priority_rule_wins(page: Any) -> None:
    rules = [
        {
            "id": "low",
            "targetTrackId": "bgm-c",
            "conditions": [{"variableId": "hp", "operator": "lt", "value": 50}],
            "priority": 1,
        },
        {
            "id": "high",
            "targetTrackId": "bgm-d",
            "conditions": [{"variableId": "hp", "operator": "lt", "value": 20}],
            "priority": 10,
        },
    ]
    out = run(
        page,
        {"tracks": TRACKS, "conditional": rules},
        """
        e.start({values: {hp: 100}, turn: 0});
        e.onState({hp: 40}, 1); out.push(e.snapshot().rule);
        e.onState({hp: 10}, 2); out.push(e.snapshot().rule);
        e.onState({hp: 30}, 3); out.push(e.snapshot().rule);
    """,
    )
    assert out == ["low", "high", "low"]


def test_keyword_turn_count_and_session_start_triggers(page: Any) -> None:
    rules = [
        {
            "id": "tavern",
            "targetTrackId": "bgm-c",
            "triggerType": "keyword",
            "keywords": ["tavern"],
            "matchWholeWords": True,
        },
        {
            "id": "dragon",
            "targetTrackId": "bgm-d",
            "triggerType": "ai-keyword",
            "keywords": ["dragon"],
        },
        {"id": "third", "targetTrackId": "bgm-b", "triggerType": "turn-count", "everyNTurns": 3},
        {"id": "opening", "targetTrackId": "bgm-a", "triggerType": "session-start"},
    ]
    out = run(
        page,
        {"tracks": TRACKS, "conditional": rules},
        """
        e.start({values: {}, turn: 0}); out.push(e.snapshot().rule);
        e.onUserText("the taverns are shut"); out.push(e.snapshot().rule);
        e.onUserText("I enter the tavern"); out.push(e.snapshot().rule);
        e.onAiText("A DRAGON lands."); out.push(e.snapshot().rule);
        e.onState({}, 3); out.push(e.snapshot().rule);
    """,
    )
    assert out == ["opening", "opening", "tavern", "dragon", "third"]


def test_volume_and_mute_scale_every_voice(page: Any) -> None:
    out = run(
        page,
        {"tracks": TRACKS},
        """
        e.setVolume("bgm", 0.5); e.setVolume("sfx", 1);
        e.play("bgm-c"); e.play("amb-rain"); e.play("sfx-hit");
        out.push(e.snapshot().elementVolumes);
        e.setMuted(true); out.push(e.snapshot().elementVolumes);
        e.setMuted(false); e.setVolume("sfx", 2); out.push(e.getVolume("sfx"));
    """,
    )
    assert out == [
        {"bgm-c": 0.5, "amb-rain": 0.5, "sfx-hit": 0.5},
        {"bgm-c": 0, "amb-rain": 0, "sfx-hit": 0},
        1,
    ]


CONDITION_CASES = [
    ("eq", 5, "5"),
    ("eq", "5", 5.0),
    ("eq", True, "true"),
    ("eq", "True", True),
    ("eq", "abc", "ABC"),
    ("eq", None, None),
    ("eq", [1, 2], [1, 2]),
    ("neq", 3, 4),
    ("neq", None, 0),
    ("gt", 10, 9),
    ("gt", "10", "9"),
    ("gt", "x", 1),
    ("gt", None, 1),
    ("lt", 1, 2),
    ("gte", 2, 2),
    ("lte", 3, 2),
    ("gt", True, 0),
    ("contains", "The Sword of Ash", "sword"),
    ("contains", ["sword", "shield"], "shield"),
    ("contains", [1, 2, 3], "2"),
    ("contains", {"key": 1}, "key"),
    ("contains", 42, "4"),
    ("dance", 1, 1),
]


def test_condition_operators_match_the_engine(page: Any) -> None:
    conditions = [
        {"variableId": "v", "operator": op, "value": expected}
        for op, _, expected in CONDITION_CASES
    ]
    actuals = [actual for _, actual, _ in CONDITION_CASES]
    results = page.evaluate(
        "([conds, actuals]) => conds.map((c, i) => FabulaAudio.checkCondition(c, {v: actuals[i]}))",
        [conditions, actuals],
    )
    expected = [check_condition(c, {"v": a}) for c, a in zip(conditions, actuals, strict=True)]
    assert results == expected
