/* Fabula audio engine: the BGM playlist and conditional BGM. Part of audio.js (FabulaAudio).
 *
 * createBgm(s) works on the engine's state through `s`: its tracks, voices, playlist and rules,
 * play / stop / onChange and the timers, and accessors for the slot's holder (s.bgm), the rule
 * holding it (s.controller), the variables (s.values) and the start flags.
 */
import { checkConditions } from "./audio_conditions.js";

export function createBgm(s) {
  var playlist = s.playlist, pl = s.pl, tracks = s.tracks, voices = s.voices, rules = s.rules;
  var random = s.random, later = s.later, cancel = s.cancel, onChange = s.onChange;
  var play = s.play, stop = s.stop;
  var previousBgm = null;

  // --- the playlist --------------------------------------------------------------------------

  function shuffled(list, avoidFirst) {
    var copy = list.slice();
    for (var i = copy.length - 1; i > 0; i--) {
      var j = Math.floor(random() * (i + 1));
      var tmp = copy[i]; copy[i] = copy[j]; copy[j] = tmp;
    }
    if (copy.length > 1 && copy[0] === avoidFirst) {
      copy.push(copy.shift());
    }
    return copy;
  }

  function startPlaylist() {
    if (!playlist) return;
    pl.active = true;
    if (!pl.order.length) {
      pl.order = playlist.playMode === "shuffle" ? shuffled(playlist.tracks) : playlist.tracks.slice();
      pl.index = -1;
    }
    // A cue or a conditional track holds the slot: the playlist waits for it to end.
    if (s.bgm || s.controller) return;
    playNext();
  }

  function playNext() {
    if (!playlist || !pl.active) return;
    pl.index += 1;
    if (pl.index >= pl.order.length) {
      if (playlist.playMode === "sequential") {
        pl.active = false;
        pl.order = [];
        onChange();
        return;
      }
      var last = pl.order[pl.order.length - 1];
      pl.order = playlist.playMode === "shuffle" ? shuffled(playlist.tracks, last) : pl.order;
      pl.index = 0;
    }
    var single = playlist.tracks.length === 1 && playlist.playMode !== "sequential";
    play(pl.order[pl.index], { source: "playlist", noLoop: !single });
  }

  function scheduleNext() {
    if (!pl.active) return;
    if (pl.gapTimer !== null) cancel(pl.gapTimer);
    var gap = playlist ? playlist.gapSeconds : 0;
    pl.gapTimer = later(function () {
      pl.gapTimer = null;
      if (!s.bgm) playNext();
    }, gap * 1000);
  }

  function pausePlaylist() {
    if (pl.gapTimer !== null) {
      cancel(pl.gapTimer);
      pl.gapTimer = null;
    }
  }

  function resumeDefault() {
    if (playlist && pl.active && !s.bgm && !s.controller) {
      if (pl.index >= 0 && pl.index < pl.order.length) pl.index -= 1;
      playNext();
    }
  }

  function maybeAutoPlay() {
    if (!playlist || !playlist.autoPlay || !s.started) return;
    if (playlist.waitForFirstMessage && !s.firstMessageSeen) return;
    if (!pl.active) startPlaylist();
  }

  // --- conditional BGM ---------------------------------------------------------------------

  function byPriority(a, b) {
    return (Number(b.priority) || 0) - (Number(a.priority) || 0);
  }

  function takeOver(rule) {
    if (!s.controller) previousBgm = s.bgm ? { trackId: s.bgm.trackId, source: s.bgm.source } : null;
    var current = s.bgm ? s.bgm.trackId : null;
    s.controller = rule;
    if (current === rule.targetTrackId) {
      s.bgm.source = "rule";
      s.bgm.ruleId = rule.id;
      pausePlaylist();
      onChange();
      return;
    }
    var fadeOut = rule.fadeOutDuration;
    var fadeIn = rule.fadeInDuration;
    if (current && rule.stopPreviousBGM !== false) {
      // Stop first, then start: the new track waits for the old one's fade.
      stop(current, fadeOut);
      var wait = Math.max(0, Number(fadeOut) || 0) * 1000;
      var start = function () {
        if (s.controller === rule && !voices[rule.targetTrackId]) {
          play(rule.targetTrackId, { source: "rule", ruleId: rule.id, fadeIn: fadeIn });
        }
      };
      s.bgm = { trackId: rule.targetTrackId, source: "rule", ruleId: rule.id };
      if (wait > 0) later(start, wait); else start();
      pausePlaylist();
      onChange();
      return;
    }
    // Overlap: the old BGM fades out while the new one fades in.
    play(rule.targetTrackId, {
      source: "rule", ruleId: rule.id, fadeIn: fadeIn, fadeOutPrevious: fadeOut,
    });
  }

  function release(rule) {
    if (s.controller !== rule) return;
    s.controller = null;
    if (s.bgm && s.bgm.trackId === rule.targetTrackId) stop(rule.targetTrackId, rule.fadeOutDuration);
    else if (s.bgm && s.bgm.source === "rule") s.bgm = null;
    fallback(rule);
  }

  function fallback(rule) {
    var choice = rule ? rule.fallback || "default" : "default";
    var fadeIn = rule ? rule.fadeInDuration : undefined;
    var prev = previousBgm;
    previousBgm = null;
    if (choice === "previous" && prev && tracks[prev.trackId]) {
      if (prev.source === "playlist" && pl.active) {
        s.bgm = null;
        pl.index -= 1;
        playNext();
      } else {
        play(prev.trackId, { source: prev.source === "playlist" ? "cue" : prev.source, fadeIn: fadeIn });
      }
      return;
    }
    if (choice !== "default" && choice !== "previous" && tracks[choice]) {
      play(choice, { source: "cue", fadeIn: fadeIn });
      return;
    }
    s.bgm = s.bgm && voices[s.bgm.trackId] && !voices[s.bgm.trackId].stopping ? s.bgm : null;
    if (playlist && (pl.active || playlist.autoPlay)) {
      pl.active = true;
      if (!pl.order.length) {
        startPlaylist();
      } else {
        resumeDefault();
      }
    }
  }

  function evaluate() {
    var holding = rules
      .filter(function (r) { return (r.triggerType || "variable") === "variable"; })
      .filter(function (r) { return checkConditions(r.conditions, r.conditionLogic, s.values); })
      .sort(byPriority);
    var best = holding[0] || null;
    if (best) {
      if (s.controller === best) return;
      if (s.controller && (s.controller.triggerType || "variable") !== "variable" &&
          (Number(s.controller.priority) || 0) > (Number(best.priority) || 0)) return;
      takeOver(best);
    } else if (s.controller && (s.controller.triggerType || "variable") === "variable") {
      release(s.controller);
    }
  }

  function fire(kind, test) {
    var candidates = rules
      .filter(function (r) { return r.triggerType === kind && test(r); })
      .filter(function (r) { return checkConditions(r.conditions, r.conditionLogic, s.values); })
      .sort(byPriority);
    var rule = candidates[0];
    if (!rule) return;
    if (s.controller && (Number(s.controller.priority) || 0) > (Number(rule.priority) || 0)) return;
    takeOver(rule);
  }

  return {
    startPlaylist: startPlaylist,
    scheduleNext: scheduleNext,
    pausePlaylist: pausePlaylist,
    resumeDefault: resumeDefault,
    maybeAutoPlay: maybeAutoPlay,
    fallback: fallback,
    evaluate: evaluate,
    fire: fire,
  };
}
