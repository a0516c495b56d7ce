/* Fabula custom UI host: the sandboxed frame, the snapshots it gets and the calls it may make
 * (METHODS), each checked and rate-limited before it is applied. Part of customui.js. */
import {
  MAX_TEXT, RATE_PER_SECOND, isId, isText, isNumber, Refused, isUiError, showUiErrors, isJson,
  contextFrame, copyText,
} from "./customui_checks.js";
import { uiApi } from "./customui_api.js";

// Types the runtime (static/js/sandbox/) reads; anything else stays on this side.
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

export function create(client, box, url) {
  limitFrames(url);
  var frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", client.config.worldName || "World UI");
  frame.src = url;
  box.replaceChildren(frame);

  var api = uiApi(client);
  var tokens = RATE_PER_SECOND;
  var lastRefill = Date.now();
  var queued = false;
  var ready = false;
  var assetsSent = false;

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
      entries: api.info.entries || [],
      selectedModel: (api.info.model && api.info.model.name) || "",
      preferredProvider: api.info.preferredProvider === "private" ? "private" : "official",
      currentUser: api.info.currentUser || null,
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
        canUseSessionApis: !client.config.isGuest,
        requiresAuth: false,
      },
      bgmVolume: audio ? audio.getVolume("bgm") : 0,
      sfxVolume: audio ? audio.getVolume("sfx") : 0,
      language: api.info.language || document.documentElement.lang || "en",
    };
  }

  function sendSnapshot() {
    if (!ready) return;
    var message = { type: "snapshot", state: snapshot(), storage: api.storage };
    if (!assetsSent) message.assets = api.assets; // once: they do not change during play
    assetsSent = true;
    post(message);
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
      return api.load().then(function () {
        ready = true;
        sendSnapshot();
        return true;
      });
    },
    ping: function () { return true; },
    setVariable: function (id, value) {
      if (!isText(id, 300) || !id) throw new Refused("setVariable: bad variable id");
      if (!isJson(value, 60000)) throw new Refused("setVariable: the value must be JSON");
      return api.frame({ type: "set_variable", variable: id, value: value });
    },
    injectContext: function (text, opts) {
      if (!isText(text, MAX_TEXT) || !text.trim()) throw new Refused("injectContext: text must be 1..20000 characters");
      return api.frame(contextFrame(text, opts && typeof opts === "object" ? opts : {}));
    },
    aiComplete: function (params) {
      if (!isJson(params, 60000) || !params || typeof params !== "object") throw new Refused("ai.complete: bad parameters");
      return api.post("complete/", params);
    },
    apiFetch: function (method, path, body) {
      if (!isText(method, 10) || !isText(path, 500)) throw new Refused("fetch: bad request");
      return apiFetch(method, path, body);
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
    // The frame's compile or runtime errors (static/js/sandbox/boot.js): a notice with
    // path:line:column, and the built-in chat instead of a UI that is gone (fatal).
    uiError: function (report) {
      var errors = report && typeof report === "object" && Array.isArray(report.errors) ? report.errors : null;
      if (!errors || !errors.length || errors.length > 20 || !errors.every(isUiError)) throw new Refused("bad error report");
      if (report.fatal === true) client.showCustomUi(false);
      showUiErrors(client, box, errors, report.fatal === true);
      return true;
    },
    toggleImmersive: function () {
      client.showCustomUi(!client.customUiShown);
      return true;
    },
    copyToClipboard: function (text) {
      if (!isText(text, 10000)) throw new Refused("bad text");
      // Activation in the frame activates this page too (HTML user activation): a click there.
      if (navigator.userActivation && !navigator.userActivation.isActive) {
        throw new Refused("copyToClipboard needs a user gesture (a click in the UI)");
      }
      return copyText(text);
    },
    storageSet: function (key, value, scope) {
      if (!isText(key, 200) || !key || !isJson(value, 60000)) throw new Refused("storage.set: bad item");
      return api.store(scope, key, JSON.stringify(value));
    },
    // Session management and models (play/ui_sessions.py, play/ui_models.py): the player's own
    // sessions of this world and the models they may use; a guest preview is refused here
    // and again on the server.
    listSessions: function (worldId) {
      return sessionCall({ action: "list", worldId: worldIdArg(worldId) }).then(function (b) { return b.sessions || []; });
    },
    createSession: function (worldId) {
      return sessionCall({ action: "create", worldId: worldIdArg(worldId) }).then(function (b) { return b.id; });
    },
    deleteSession: function (sessionId) {
      if (!isText(sessionId, 64) || !sessionId) throw new Refused("deleteSession: bad session id");
      return sessionCall({ action: "delete", sessionId: sessionId }).then(function (b) {
        if (b.current && b.url) window.location.assign(b.url);
        return null;
      });
    },
    restartChat: function () {
      return sessionCall({ action: "restart" }).then(function (b) {
        window.location.assign(b.url);
        return b.id;
      });
    },
    getBranchContext: function () { return sessionCall({ action: "branch" }); },
    getModels: function () { return modelCall({ action: "list" }); },
    setModel: function (model) { return modelCall({ action: "set", model: modelArg(model) }).then(modelChanged); },
    pinModel: function (model) { return modelCall({ action: "pin", model: modelArg(model) }); },
    unpinModel: function (model) { return modelCall({ action: "unpin", model: modelArg(model) }); },
    setPreferredProvider: function (provider) {
      if (provider !== "official" && provider !== "private") throw new Refused("setPreferredProvider: 'official' or 'private'");
      return modelCall({ action: "provider", provider: provider }).then(function (b) {
        if (b.ok) modelChanged(b);
        return b.ok ? { ok: true, provider: b.provider } : { ok: false, error: String(b.error || "refused") };
      });
    },
    storageRemove: function (key, scope) {
      if (!isText(key, 200) || !key) throw new Refused("storage.remove: bad key");
      return api.store(scope, key, null);
    },
  };

  function sessionApis() {
    if (client.config.isGuest) throw new Refused("not available in a guest preview: sign in to keep sessions and models");
  }
  function sessionCall(body) { sessionApis(); return api.post("sessions/", body); }
  function modelCall(body) { sessionApis(); return api.post("models/", body); }
  function worldIdArg(v) {
    if (!isText(v, 100) || !v) throw new Refused("bad world id");
    return v;
  }
  function modelArg(v) {
    if (!isText(v, 200) || !v.trim()) throw new Refused("bad model id");
    return v;
  }
  function modelChanged(b) {
    api.info.model = { provider: b.providerKind, name: b.selectedModel };
    api.info.preferredProvider = b.preferredProvider;
    sendSnapshot();
    return null;
  }

  // Seed 004's fetch('/api/…') shim: the calls that make sense here, answered by the members
  // above; anything else is refused, and nothing reaches the network.
  function apiFetch(method, path, body) {
    var sid = client.config.sessionId;
    var m = /^\/api\/storage\/([^/?#]{1,200})$/.exec(path);
    if (m) {
      var key = decodeURIComponent(m[1]);
      if (method === "GET") return { key: key, value: Object.prototype.hasOwnProperty.call(api.storage.world, key) ? api.storage.world[key] : null };
      if (method === "PUT" || method === "POST") return METHODS.storageSet(key, body && "value" in body ? body.value : body, "world");
      if (method === "DELETE") return METHODS.storageRemove(key, "world");
    }
    if (method === "GET" && path === "/api/sessions/" + sid) {
      var s = snapshot();
      return { id: s.sessionId, worldId: s.worldId, worldName: s.worldName, mode: s.mode, variables: s.variables };
    }
    if (method === "GET" && path === "/api/sessions/" + sid + "/messages") return snapshot().messages;
    if (method === "GET" && path === "/api/worlds/" + snapshot().worldId + "/entries") return api.info.entries || [];
    if (method === "POST" && path === "/api/ai/complete") return METHODS.aiComplete(body);
    if (method === "POST" && path === "/api/sessions/" + sid + "/variables" && body && typeof body === "object") {
      return METHODS.setVariable(body.id, body.value);
    }
    throw new Refused("fetch: " + method + " " + path + " is not one of the /api/ calls a world's UI may make");
  }

  function allowed() {
    var now = Date.now();
    tokens = Math.min(RATE_PER_SECOND, tokens + ((now - lastRefill) / 1000) * RATE_PER_SECOND);
    lastRefill = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }

  function refuse(id, message) {
    post({ type: "reply", id: id, ok: false, error: message });
  }

  // A message from the frame that is not a well-formed call is answered with its refusal (the
  // frame's console shows it) and never applied; one from anywhere else is not answered at all.
  function onMessage(event) {
    if (event.source !== frame.contentWindow || event.origin !== "null") return;
    var data = event.data;
    if (!data || typeof data !== "object" || data.fabula !== "ui") return;
    var id = Number.isInteger(data.id) ? data.id : -1;
    if (typeof data.method !== "string" || !Object.prototype.hasOwnProperty.call(METHODS, data.method)) {
      refuse(id, "unknown method " + String(data.method).slice(0, 60));
      return;
    }
    if (!Array.isArray(data.args) || data.args.length > 4 || id < 0) {
      refuse(id, data.method + ": malformed call");
      return;
    }
    if (data.method !== "ready" && !allowed()) {
      refuse(id, "too many requests");
      return;
    }
    var value;
    try {
      value = METHODS[data.method].apply(null, data.args);
    } catch (e) {
      refuse(id, e instanceof Refused ? e.message : "refused");
      return;
    }
    Promise.resolve(value).then(function (result) {
      post({ type: "reply", id: id, ok: true, value: result === undefined ? null : result });
    }, function (e) {
      refuse(id, e instanceof Refused ? e.message : String((e && e.message) || "refused"));
    });
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
