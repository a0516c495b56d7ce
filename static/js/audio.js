/* Fabula audio engine (seed 004 "音频"): tracks, cues, the BGM playlist and conditional BGM.
 *
 * One BGM slot (type "bgm"), any number of ambient and SFX voices. Cues come from the server's
 * `audio` frames (AI directives, rules, `@audio.*` reactions) as play / stop / crossfade S /
 * volume V / chain. The playlist is the default BGM; conditional BGM takes the slot while its
 * rule holds and gives it back by its fallback (default / previous / a track id). Conditions are
 * checked here against the `state` frames with the engine's operators. The BGM slider scales
 * BGM and ambient tracks, the SFX slider sound effects; both persist in localStorage.
 *
 * FabulaAudio.create(config, options) -> engine. `options` may inject makeAudio, storage,
 * random, setTimeout/clearTimeout/setInterval/clearInterval and onBlocked, which the browser
 * tests use to watch the engine without real sound.
 *
 * An ES module (templates/play/partials/assets.html), no bundler: audio_conditions.js (the
 * engine's condition operators and keyword matching) and audio_bgm.js (the playlist and
 * conditional BGM) are its parts; this file keeps the voices, cues and the public engine.
 */
import { checkCondition, checkConditions, matchesKeywords, clamp01 } from "./audio_conditions.js";
import { createBgm } from "./audio_bgm.js";

var global = typeof window !== "undefined" ? window : globalThis;
var STORAGE_PREFIX = "fabula.audio.";
var FADE_STEP_MS = 50;
var DEFAULT_VOLUMES = { bgm: 0.6, sfx: 0.8 };

// --- the engine ----------------------------------------------------------------------------

function create(config, options) {
  config = config || {};
  options = options || {};
  var makeAudio = options.makeAudio || function (url) { return new global.Audio(url); };
  var storage = options.storage !== undefined ? options.storage : safeStorage();
  var random = options.random || Math.random;
  var later = options.setTimeout || global.setTimeout.bind(global);
  var cancel = options.clearTimeout || global.clearTimeout.bind(global);
  var every = options.setInterval || global.setInterval.bind(global);
  var stopEvery = options.clearInterval || global.clearInterval.bind(global);
  var onBlocked = options.onBlocked || function () {};
  var onChange = options.onChange || function () {};

  var tracks = {};
  (config.tracks || []).forEach(function (t) {
    if (t && typeof t.id === "string" && typeof t.url === "string" && t.url) tracks[t.id] = t;
  });
  var playlist = normalizePlaylist(config.playlist);
  var rules = (config.conditional || []).filter(function (r) {
    return r && tracks[r.targetTrackId];
  });

  var volumes = {
    bgm: loadVolume("bgm", DEFAULT_VOLUMES.bgm),
    sfx: loadVolume("sfx", DEFAULT_VOLUMES.sfx),
  };
  var muted = load("muted") === "1";
  var voices = {}; // trackId -> voice
  var volumeOverrides = {};
  var bgm = null; // {trackId, source: "playlist" | "cue" | "rule", ruleId}
  var controller = null; // the conditional rule holding the BGM slot
  var values = {};
  var turn = 0;
  var started = false;
  var firstMessageSeen = false;
  var blocked = [];
  var pl = { order: [], index: -1, active: false, gapTimer: null };

  // The playlist and conditional BGM (audio_bgm.js) share the slot and the flags through these.
  var bgmState = {
    playlist: playlist, pl: pl, tracks: tracks, voices: voices, rules: rules,
    random: random, later: later, cancel: cancel, onChange: onChange, play: play, stop: stop,
    get bgm() { return bgm; },
    set bgm(v) { bgm = v; },
    get controller() { return controller; },
    set controller(v) { controller = v; },
    get values() { return values; },
    get started() { return started; },
    get firstMessageSeen() { return firstMessageSeen; },
  };
  var bgmParts = createBgm(bgmState);
  var startPlaylist = bgmParts.startPlaylist;
  var scheduleNext = bgmParts.scheduleNext;
  var pausePlaylist = bgmParts.pausePlaylist;
  var resumeDefault = bgmParts.resumeDefault;
  var maybeAutoPlay = bgmParts.maybeAutoPlay;
  var fallback = bgmParts.fallback;
  var evaluate = bgmParts.evaluate;
  var fire = bgmParts.fire;

  function safeStorage() {
    try {
      return global.localStorage || null;
    } catch (e) {
      return null;
    }
  }

  function load(key) {
    try {
      return storage ? storage.getItem(STORAGE_PREFIX + key) : null;
    } catch (e) {
      return null;
    }
  }

  function save(key, value) {
    try {
      if (storage) storage.setItem(STORAGE_PREFIX + key, String(value));
    } catch (e) { /* storage full or disabled: volumes just do not persist */ }
  }

  function loadVolume(kind, fallback) {
    var raw = load(kind + "Volume");
    if (raw === null || raw === "" || isNaN(Number(raw))) return fallback;
    return clamp01(raw);
  }

  function normalizePlaylist(p) {
    if (!p || !Array.isArray(p.tracks)) return null;
    var list = p.tracks.filter(function (id) { return tracks[id]; });
    if (!list.length) return null;
    var mode = p.playMode === "shuffle" || p.playMode === "sequential" ? p.playMode : "loop";
    return {
      tracks: list,
      playMode: mode,
      gapSeconds: Math.max(0, Math.min(30, Number(p.gapSeconds) || 0)),
      autoPlay: p.autoPlay !== false,
      waitForFirstMessage: !!p.waitForFirstMessage,
    };
  }

  function categoryOf(track) {
    return track.type === "sfx" ? "sfx" : "bgm";
  }

  function applyVolume(voice) {
    var gain = muted ? 0 : volumes[categoryOf(voice.track)];
    try {
      voice.el.volume = clamp01(voice.base * gain * voice.fade);
    } catch (e) { /* a detached element */ }
  }

  function clearFade(voice) {
    if (voice.fadeTimer !== null) {
      stopEvery(voice.fadeTimer);
      voice.fadeTimer = null;
    }
  }

  function fadeTo(voice, target, seconds, done) {
    clearFade(voice);
    var ms = Math.max(0, Number(seconds) || 0) * 1000;
    if (ms < FADE_STEP_MS) {
      voice.fade = target;
      applyVolume(voice);
      if (done) done();
      return;
    }
    var start = voice.fade;
    var steps = Math.ceil(ms / FADE_STEP_MS);
    var step = 0;
    voice.fadeTimer = every(function () {
      step += 1;
      voice.fade = start + (target - start) * Math.min(1, step / steps);
      applyVolume(voice);
      if (step >= steps) {
        clearFade(voice);
        if (done) done();
      }
    }, FADE_STEP_MS);
  }

  function startElement(voice) {
    var result;
    try {
      result = voice.el.play();
    } catch (e) {
      result = null;
    }
    if (result && typeof result.catch === "function") {
      result.catch(function (err) {
        if (err && err.name === "NotAllowedError" && voices[voice.track.id] === voice) {
          blocked.push(voice);
          onBlocked();
        }
      });
    }
  }

  function play(trackId, opts) {
    var track = tracks[trackId];
    if (!track) return false;
    opts = opts || {};
    var isBgm = track.type === "bgm";
    var existing = voices[trackId];
    if (existing && !existing.stopping) {
      existing.chain = opts.chain || existing.chain;
      if (isBgm) setBgm(trackId, opts);
      return true;
    }
    if (existing) removeVoice(existing);
    if (isBgm && bgm && bgm.trackId !== trackId) {
      var fadeOut = opts.crossfade !== undefined ? opts.crossfade : opts.fadeOutPrevious;
      stop(bgm.trackId, fadeOut);
    }
    var el = makeAudio(track.url);
    var voice = {
      track: track,
      el: el,
      base: volumeOverrides[trackId] !== undefined ? volumeOverrides[trackId] : clamp01(
        opts.volume !== undefined ? opts.volume : track.volume === undefined ? 1 : track.volume
      ),
      fade: 1,
      fadeTimer: null,
      stopTimer: null,
      chain: opts.chain || null,
      stopping: false,
      source: opts.source || "cue",
    };
    el.loop = !!track.loop && !voice.chain && !opts.noLoop;
    voices[trackId] = voice;
    if (isBgm) setBgm(trackId, opts);
    el.addEventListener("ended", function () { onEnded(voice); });
    var fadeIn = opts.crossfade !== undefined ? opts.crossfade
      : opts.fadeIn !== undefined ? opts.fadeIn : track.fadeIn;
    if (Number(fadeIn) > 0) voice.fade = 0;
    applyVolume(voice);
    startElement(voice);
    if (Number(fadeIn) > 0) fadeTo(voice, 1, fadeIn);
    var maxDuration = opts.maxDuration !== undefined ? opts.maxDuration : track.maxDuration;
    if (Number(maxDuration) > 0) {
      voice.stopTimer = later(function () { stop(trackId); }, Number(maxDuration) * 1000);
    }
    onChange();
    return true;
  }

  function setBgm(trackId, opts) {
    bgm = { trackId: trackId, source: opts.source || "cue", ruleId: opts.ruleId || null };
    if (bgm.source !== "playlist") pausePlaylist();
  }

  function onEnded(voice) {
    if (voices[voice.track.id] !== voice) return;
    var wasBgm = bgm && bgm.trackId === voice.track.id;
    var source = wasBgm ? bgm.source : null;
    removeVoice(voice);
    if (voice.chain && tracks[voice.chain]) {
      play(voice.chain, { source: source || "cue" });
      return;
    }
    if (!wasBgm) return;
    if (source === "playlist") {
      scheduleNext();
    } else if (source === "rule") {
      controller = null;
      fallback(null);
    } else {
      resumeDefault();
    }
  }

  function removeVoice(voice) {
    clearFade(voice);
    if (voice.stopTimer !== null) cancel(voice.stopTimer);
    try {
      voice.el.pause();
    } catch (e) { /* already gone */ }
    if (voices[voice.track.id] === voice) delete voices[voice.track.id];
    if (bgm && bgm.trackId === voice.track.id && !voices[voice.track.id]) bgm = null;
    blocked = blocked.filter(function (v) { return v !== voice; });
    onChange();
  }

  function stop(trackId, fadeSeconds) {
    if (trackId === undefined || trackId === null) {
      Object.keys(voices).forEach(function (id) { stop(id, fadeSeconds); });
      pausePlaylist();
      return;
    }
    var voice = voices[trackId];
    if (!voice) {
      if (bgm && bgm.trackId === trackId) bgm = null; // a track still waiting to start
      return;
    }
    if (voice.stopping) return;
    voice.stopping = true;
    if (bgm && bgm.trackId === trackId) bgm = null;
    var seconds = fadeSeconds !== undefined && fadeSeconds !== null ? fadeSeconds
      : voice.track.fadeOut;
    fadeTo(voice, 0, seconds, function () { removeVoice(voice); });
    onChange();
  }

  function setTrackVolume(trackId, value) {
    var v = clamp01(value);
    volumeOverrides[trackId] = v;
    var voice = voices[trackId];
    if (voice) {
      voice.base = v;
      applyVolume(voice);
    }
  }

  // --- cues ----------------------------------------------------------------------------------

  function handleCue(cue) {
    if (!cue || typeof cue.track_id !== "string") return;
    var value = cue.value === null || cue.value === undefined ? undefined : Number(cue.value);
    var chain = typeof cue.chain === "string" && cue.chain ? cue.chain : undefined;
    switch (cue.action) {
      case "play": play(cue.track_id, { chain: chain }); break;
      case "stop": stop(cue.track_id); break;
      case "crossfade":
        play(cue.track_id, { crossfade: isFinite(value) ? value : 2, chain: chain });
        break;
      case "volume": if (isFinite(value)) setTrackVolume(cue.track_id, value); break;
      default: break;
    }
  }

  // --- public --------------------------------------------------------------------------------

  var engine = {
    start: function (initial) {
      initial = initial || {};
      if (started) return;
      started = true;
      values = initial.values || values;
      turn = Number(initial.turn) || 0;
      firstMessageSeen = !!initial.hasUserMessages;
      evaluate();
      if (turn === 0) fire("session-start", function () { return true; });
      maybeAutoPlay();
    },
    onState: function (newValues, newTurn) {
      values = newValues || {};
      var t = Number(newTurn) || 0;
      var turnChanged = t !== turn;
      turn = t;
      evaluate();
      if (turnChanged) {
        fire("turn-count", function (r) {
          if (r.atTurn !== null && r.atTurn !== undefined && Number(r.atTurn) === t) return true;
          return Number(r.everyNTurns) > 0 && t > 0 && t % Number(r.everyNTurns) === 0;
        });
      }
    },
    onUserText: function (text) {
      if (!firstMessageSeen) {
        firstMessageSeen = true;
        maybeAutoPlay();
      }
      fire("keyword", function (r) { return matchesKeywords(text, r.keywords, r.matchWholeWords); });
    },
    onAiText: function (text) {
      fire("ai-keyword", function (r) {
        return matchesKeywords(text, r.keywords, r.matchWholeWords);
      });
    },
    handleCue: handleCue,
    play: play,
    stop: stop,
    setTrackVolume: setTrackVolume,
    startPlaylist: function () { startPlaylist(); },
    stopAll: function () {
      pl.active = false;
      controller = null;
      stop();
    },
    setVolume: function (kind, value) {
      if (kind !== "bgm" && kind !== "sfx") return;
      volumes[kind] = clamp01(value);
      save(kind + "Volume", volumes[kind]);
      Object.keys(voices).forEach(function (id) { applyVolume(voices[id]); });
      onChange();
    },
    getVolume: function (kind) { return volumes[kind] === undefined ? 0 : volumes[kind]; },
    setMuted: function (value) {
      muted = !!value;
      save("muted", muted ? "1" : "0");
      Object.keys(voices).forEach(function (id) { applyVolume(voices[id]); });
      onChange();
    },
    isMuted: function () { return muted; },
    unlock: function () {
      var pending = blocked;
      blocked = [];
      pending.forEach(function (voice) {
        if (voices[voice.track.id] === voice) startElement(voice);
      });
    },
    isBlocked: function () { return blocked.length > 0; },
    hasAudio: function () { return Object.keys(tracks).length > 0; },
    snapshot: function () {
      return {
        bgm: bgm ? bgm.trackId : null,
        bgmSource: bgm ? bgm.source : null,
        rule: controller ? controller.id : null,
        playing: Object.keys(voices).filter(function (id) { return !voices[id].stopping; }).sort(),
        playlistActive: pl.active,
        volumes: { bgm: volumes.bgm, sfx: volumes.sfx },
        muted: muted,
        elementVolumes: Object.keys(voices).reduce(function (acc, id) {
          acc[id] = voices[id].el.volume;
          return acc;
        }, {}),
      };
    },
    destroy: function () {
      pl.active = false;
      Object.keys(voices).forEach(function (id) { removeVoice(voices[id]); });
    },
  };
  return engine;
}

var api = {
  create: create,
  checkCondition: checkCondition,
  checkConditions: checkConditions,
  matchesKeywords: matchesKeywords,
};
global.FabulaAudio = api;
