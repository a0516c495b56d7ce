/* Fabula custom UI host: frames the world's rootComponent and answers its RPC requests.
 *
 * The iframe is sandbox="allow-scripts" only (an opaque origin). Its messages are accepted only
 * from that frame's window, only as {fabula: "ui", id, method, args} with a method on the list
 * below, and every argument is checked before it becomes a websocket frame, a sound, a toast or
 * a navigation. Requests past a small rate are dropped. The frame gets the game state as
 * snapshots holding only what seed 004's useYumina() grants (variables, messages, streaming
 * text, choices, checkpoints, volumes, the world's storage), and nothing else is posted to it.
 *
 * The frame may still navigate itself (location=, <meta http-equiv=refresh>) to carry that state
 * off; only this page's CSP frame-src can refuse it (issue 9, §3). So before making the frame,
 * the page gets a policy that allows frames from the sandbox path only (play/csp.py sends the
 * same as a header from the play views; pages that receive the panel by htmx, like the studio
 * editor, rely on this one). Policies add up: this only ever narrows what a header allows.
 */
(function () {
  "use strict";

  if (window.FabulaCustomUiHost) return;

  var MAX_TEXT = 20000;
  var MAX_STORAGE_KEYS = 200;
  var MAX_STORAGE_VALUE = 10000;
  var RATE_PER_SECOND = 20;

  function isId(v) { return typeof v === "number" && Number.isInteger(v) && v > 0; }
  function isText(v, max) { return typeof v === "string" && v.length <= max; }
  function isNumber(v, min, max) { return typeof v === "number" && isFinite(v) && v >= min && v <= max; }

  function Refused(message) { this.message = message; }

  // Types the runtime (static/js/sandbox.js) reads; anything else stays on this side.
  var FRAME_MESSAGES = { snapshot: true, reply: true };

  // "/play/ui/<session>/" -> "http://host/play/ui/": every sandbox, and nothing else on any host.
  function sandboxPrefix(url) {
    var u = new URL(url, window.location.href);
    return u.origin + u.pathname.replace(/[^\/]+\/?$/, "");
  }

  function limitFrames(url) {
    if (document.querySelector("meta[data-fabula-frame-policy]")) return;
    var prefix = sandboxPrefix(url);
    var meta = document.createElement("meta");
    meta.setAttribute("http-equiv", "Content-Security-Policy");
    meta.setAttribute("content", "frame-src " + prefix + "; child-src " + prefix);
    meta.setAttribute("data-fabula-frame-policy", "");
    document.head.appendChild(meta);
  }

  function create(client, box, url) {
    limitFrames(url);
    var frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.setAttribute("title", client.config.worldName || "World UI");
    frame.src = url;
    box.replaceChildren(frame);

    var storageKey = "fabula.ui." + (client.config.worldId || "world");
    var tokens = RATE_PER_SECOND;
    var lastRefill = Date.now();
    var queued = false;
    var ready = false;

    function loadStorage() {
      try {
        var raw = window.localStorage.getItem(storageKey);
        var data = raw ? JSON.parse(raw) : {};
        return data && typeof data === "object" ? data : {};
      } catch (e) {
        return {};
      }
    }

    function saveStorage(data) {
      try {
        window.localStorage.setItem(storageKey, JSON.stringify(data));
      } catch (e) {
        throw new Refused("storage is full or disabled");
      }
    }

    function post(message) {
      if (!frame.contentWindow || !FRAME_MESSAGES[message.type]) return;
      // The frame's origin is opaque ("null"), so "*" is the only target that reaches it.
      frame.contentWindow.postMessage(Object.assign({ fabula: "host" }, message), "*");
    }

    function sandboxMessage(m) {
      var streaming = m.id === client.streamingId;
      return {
        id: String(m.id),
        sessionId: client.config.sessionId,
        role: m.role,
        content: streaming ? client.streamText : m.content,
        status: streaming ? "streaming" : m.status,
        errorMessage: m.error || null,
        stateChanges: m.changes || null,
        stateSnapshot: m.state || null,
        swipes: (m.swipes || []).map(function (s) {
          return { content: s.content, stateSnapshot: s.state || null };
        }),
        activeSwipeIndex: m.active_swipe || 0,
        model: m.model || null,
        createdAt: m.created_at || "",
      };
    }

    function snapshot() {
      var greeting = client.messages.find(function (m) { return m.is_greeting; });
      var audio = client.audio;
      return {
        variables: client.values,
        worldName: client.config.worldName || "",
        worldId: String(client.config.worldId || ""),
        sessionId: client.config.sessionId,
        user: { name: client.config.playerName || "", avatar: null },
        messages: client.messages.map(sandboxMessage),
        isStreaming: client.streamingId !== null,
        streamingContent: client.streamingId !== null ? client.streamText : "",
        pendingChoices: client.choices.slice(),
        checkpoints: client.checkpoints.map(function (c) {
          return { id: String(c.id), name: c.name, messageCount: c.message_count, createdAt: c.created_at };
        }),
        greetingContent: greeting ? greeting.content : null,
        mode: client.config.isGuest ? "guest-preview" : "session",
        capabilities: {
          canSendMessage: true,
          canPersistSession: !client.config.isGuest,
          canUseSessionApis: true,
          requiresAuth: false,
        },
        bgmVolume: audio ? audio.getVolume("bgm") : 0,
        sfxVolume: audio ? audio.getVolume("sfx") : 0,
        language: document.documentElement.lang || "en",
      };
    }

    function sendSnapshot() {
      if (!ready) return;
      post({ type: "snapshot", state: snapshot(), storage: loadStorage() });
    }

    function knownTrack(id) {
      var tracks = (client.config.audio && client.config.audio.tracks) || [];
      return typeof id === "string" && tracks.some(function (t) { return t.id === id; });
    }

    function frameOrRefuse(payload) {
      if (!client.sendFrame(payload)) throw new Refused("not connected");
      return true;
    }

    var METHODS = {
      ready: function () {
        ready = true;
        sendSnapshot();
        return true;
      },
      sendMessage: function (text) {
        if (!isText(text, MAX_TEXT) || !text.trim()) throw new Refused("text must be 1..20000 characters");
        client.submitText(text);
        return true;
      },
      regenerateMessage: function (id) {
        if (id !== null && !isId(id)) throw new Refused("bad message id");
        return frameOrRefuse(id ? { type: "regenerate", message_id: id } : { type: "regenerate" });
      },
      continueLastMessage: function () { return frameOrRefuse({ type: "continue" }); },
      stopGeneration: function () { return frameOrRefuse({ type: "stop" }); },
      editMessage: function (id, content) {
        if (!isId(id) || !isText(content, MAX_TEXT)) throw new Refused("bad edit");
        return frameOrRefuse({ type: "edit", message_id: id, content: content });
      },
      deleteMessage: function (id) {
        if (!isId(id)) throw new Refused("bad message id");
        return frameOrRefuse({ type: "delete", message_id: id });
      },
      swipeMessage: function (id, direction) {
        if (!isId(id) || (direction !== "left" && direction !== "right")) throw new Refused("bad swipe");
        frameOrRefuse({ type: "swipe", message_id: id, direction: direction });
        return {};
      },
      revertToMessage: function (id) {
        if (!isId(id)) throw new Refused("bad message id");
        frameOrRefuse({ type: "revert", message_id: id });
      },
      branchFromMessage: function (id) {
        if (!isId(id)) throw new Refused("bad message id");
        frameOrRefuse({ type: "branch", message_id: id });
        return null;
      },
      executeAction: function (actionId) {
        if (!isText(actionId, 200) || !actionId) throw new Refused("bad action id");
        return frameOrRefuse({ type: "action", action_id: actionId });
      },
      switchGreeting: function (index) {
        if (!Number.isInteger(index) || index < 0) throw new Refused("bad greeting index");
        return frameOrRefuse({ type: "switch_greeting", index: index });
      },
      saveCheckpoint: function (name) {
        if (!isText(name, 200)) throw new Refused("bad checkpoint name");
        frameOrRefuse({ type: "checkpoint_save", name: name });
      },
      restoreCheckpoint: function (id) {
        var n = Number(id);
        if (!isId(n)) throw new Refused("bad checkpoint id");
        frameOrRefuse({ type: "checkpoint_restore", checkpoint_id: n });
      },
      deleteCheckpoint: function (id) {
        var n = Number(id);
        if (!isId(n)) throw new Refused("bad checkpoint id");
        frameOrRefuse({ type: "checkpoint_delete", checkpoint_id: n });
      },
      playAudio: function (trackId, opts) {
        if (!client.audio || !knownTrack(trackId)) throw new Refused("unknown track");
        opts = opts && typeof opts === "object" ? opts : {};
        var options = {};
        if (isNumber(opts.volume, 0, 1)) options.volume = opts.volume;
        if (isNumber(opts.fadeDuration, 0, 30)) options.fadeIn = opts.fadeDuration;
        if (isNumber(opts.maxDuration, 0.1, 3600)) options.maxDuration = opts.maxDuration;
        if (knownTrack(opts.chainTo)) options.chain = opts.chainTo;
        client.audio.play(trackId, options);
        return true;
      },
      stopAudio: function (trackId, fade) {
        if (!client.audio) return true;
        if (trackId !== null && !knownTrack(trackId)) throw new Refused("unknown track");
        var seconds = isNumber(fade, 0, 30) ? fade : undefined;
        if (trackId === null) client.audio.stopAll();
        else client.audio.stop(trackId, seconds);
        return true;
      },
      setAudioVolume: function (type, volume) {
        if ((type !== "bgm" && type !== "sfx") || !isNumber(volume, 0, 1)) throw new Refused("bad volume");
        if (client.audio) client.audio.setVolume(type, volume);
        return true;
      },
      showToast: function (message, type) {
        if (!isText(message, 500) || !message) throw new Refused("bad toast");
        var style = { success: "achievement", error: "danger", info: "info" }[type] || "info";
        client.toast(message, style);
        return true;
      },
      navigate: function (path) {
        // Same-origin paths only: no scheme, no protocol-relative "//", no backslashes.
        if (!isText(path, 500) || !/^\/(?![\/\\])[^\s\\]*$/.test(path)) throw new Refused("bad path");
        window.location.assign(path);
        return true;
      },
      toggleImmersive: function () {
        client.showCustomUi(!client.customUiShown);
        return true;
      },
      copyToClipboard: function (text) {
        if (!isText(text, 10000)) throw new Refused("bad text");
        if (navigator.clipboard) navigator.clipboard.writeText(text).catch(function () {});
        return true;
      },
      storageSet: function (key, value) {
        if (!isText(key, 200) || !key || !isText(value, MAX_STORAGE_VALUE)) throw new Refused("bad storage item");
        var data = loadStorage();
        if (!(key in data) && Object.keys(data).length >= MAX_STORAGE_KEYS) throw new Refused("storage is full");
        data[key] = value;
        saveStorage(data);
        return true;
      },
      storageRemove: function (key) {
        if (!isText(key, 200)) throw new Refused("bad storage key");
        var data = loadStorage();
        delete data[key];
        saveStorage(data);
        return true;
      },
    };

    function allowed() {
      var now = Date.now();
      tokens = Math.min(RATE_PER_SECOND, tokens + ((now - lastRefill) / 1000) * RATE_PER_SECOND);
      lastRefill = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    }

    function onMessage(event) {
      if (event.source !== frame.contentWindow || event.origin !== "null") return;
      var data = event.data;
      if (!data || typeof data !== "object" || data.fabula !== "ui") return;
      if (typeof data.method !== "string" || !Object.prototype.hasOwnProperty.call(METHODS, data.method)) return;
      if (!Array.isArray(data.args) || data.args.length > 4 || !Number.isInteger(data.id)) return;
      if (data.method !== "ready" && !allowed()) {
        post({ type: "reply", id: data.id, ok: false, error: "too many requests" });
        return;
      }
      try {
        var value = METHODS[data.method].apply(null, data.args);
        post({ type: "reply", id: data.id, ok: true, value: value === undefined ? null : value });
      } catch (e) {
        var message = e instanceof Refused ? e.message : "refused";
        post({ type: "reply", id: data.id, ok: false, error: message });
      }
    }

    client.on(window, "message", onMessage);

    return {
      frame: frame,
      post: post,
      scheduleSnapshot: function () {
        if (queued || !ready) return;
        queued = true;
        window.requestAnimationFrame(function () {
          queued = false;
          sendSnapshot();
        });
      },
    };
  }

  window.FabulaCustomUiHost = { create: create };
})();
