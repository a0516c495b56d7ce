/* Fabula custom UI host: frames the world's rootComponent and answers its RPC requests.
 *
 * The iframe is sandbox="allow-scripts" only (an opaque origin). Its messages are accepted only
 * from that frame's window, only as {fabula: "ui", id, method, args} with a method on the list
 * below, and every argument is checked before it becomes a websocket frame, a sound, a toast or
 * a navigation. Requests past a small rate are refused. A message from the frame that is not a
 * well-formed call on the list is answered with its refusal, which the frame's console shows,
 * and never applied. The frame gets the game state as snapshots holding only what seed 004's
 * useYumina() grants (variables, messages, streaming text, choices, checkpoints, volumes, the
 * entries tagged "public", the world's own assets, the UI's storage), and nothing else.
 *
 * What reaches the server goes through it, which checks everything again: setVariable and
 * injectContext become the play socket's set_variable / inject_context frames (their ui_done,
 * error or busy answer settles the call); ai.complete and storage are requests to
 * /play/<session>/ui/ (play/views/ui.py) with the page's CSRF token. fetch('/api/…') from the
 * frame is answered here from an allowlist (apiFetch); copyToClipboard needs a user gesture.
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
  var POSITIONS = ["top", "before_char", "after_char", "auto", "depth", "bottom"];
  // The play socket's frames a UI call becomes; their ui_done / error / busy settle the call.
  var UI_FRAMES = { set_variable: true, inject_context: true };
  var RATE_PER_SECOND = 20;

  function isId(v) { return typeof v === "number" && Number.isInteger(v) && v > 0; }
  function isText(v, max) { return typeof v === "string" && v.length <= max; }
  function isNumber(v, min, max) { return typeof v === "number" && isFinite(v) && v >= min && v <= max; }

  function Refused(message) { this.message = message; }

  function isUiError(e) {
    return e && typeof e === "object" && isText(e.path, 300) && isText(e.message, 1000) &&
      Number.isInteger(e.line) && e.line >= 0 && Number.isInteger(e.column) && e.column >= 0;
  }

  // One notice above the story, replaced by each report; textContent only (the frame's words).
  function showUiErrors(client, box, errors, fatal) {
    var notice = box.parentNode && box.parentNode.querySelector("[data-ui-errors]");
    if (!notice) {
      notice = document.createElement("div");
      notice.className = "panel warn";
      notice.setAttribute("role", "alert");
      notice.setAttribute("data-ui-errors", "");
      box.parentNode.insertBefore(notice, box);
    }
    var strings = client.config.strings || {};
    var title = document.createElement("p");
    title.textContent = fatal ? strings.customUiBroken || "The world's UI has an error; the classic chat is shown."
      : strings.customUiError || "The world's UI reported an error:";
    var list = document.createElement("pre");
    list.textContent = errors.slice(0, 5).map(function (e) {
      return e.path + (e.line ? ":" + e.line + ":" + e.column : "") + ": " + e.message;
    }).join("\n");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "small";
    close.textContent = "×";
    close.setAttribute("aria-label", strings.dismiss || "Dismiss");
    close.addEventListener("click", function () { notice.remove(); });
    notice.replaceChildren(title, list, close);
  }

  function isJson(v, max) {
    try {
      var text = JSON.stringify(v);
      return typeof text === "string" && text.length <= max;
    } catch (e) {
      return false;
    }
  }

  function contextFrame(text, opts) {
    var out = { type: "inject_context", text: text, role: opts.role === "user" ? "user" : "system" };
    if (opts.position !== undefined) {
      if (POSITIONS.indexOf(opts.position) < 0) throw new Refused("injectContext: position must be one of " + POSITIONS.join(", "));
      out.position = opts.position;
    }
    ["duration", "depth"].forEach(function (name) {
      if (opts[name] === undefined) return;
      if (!Number.isInteger(opts[name]) || opts[name] < (name === "depth" ? 0 : 1) || opts[name] > 1000) {
        throw new Refused("injectContext: " + name + " must be a whole number up to 1000");
      }
      out[name] = opts[name];
    });
    return out;
  }

  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("style", "position:fixed;opacity:0;top:0;left:0");
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { /* refused */ }
    area.remove();
    if (!ok) throw new Refused("the browser refused the copy");
    return true;
  }

  function copyText(text) {
    if (!navigator.clipboard || !navigator.clipboard.writeText) return legacyCopy(text);
    return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return legacyCopy(text); });
  }

  // The frame may load data: URLs only (play/views/sandbox.py): the world's own assets go to it
  // as data: URLs, up to MAX_INLINE_ASSETS bytes in all; a larger one keeps its plain URL, which
  // playAudio (played by this page) still takes.
  var MAX_INLINE_ASSETS = 4 * 1024 * 1024;

  function inlineAssets(urls) {
    var budget = MAX_INLINE_ASSETS;
    var out = {};
    return Object.keys(urls).reduce(function (chain, ref) {
      return chain.then(function () {
        out[ref] = urls[ref];
        return fetch(urls[ref], { credentials: "same-origin" }).then(function (response) {
          return response.ok ? response.blob() : null;
        }).then(function (blob) {
          if (!blob || blob.size > budget) return;
          budget -= blob.size;
          return new Promise(function (resolve) {
            var reader = new FileReader();
            reader.onload = function () { out[ref] = String(reader.result); resolve(); };
            reader.onerror = function () { resolve(); };
            reader.readAsDataURL(blob);
          });
        }).catch(function () { /* keeps the plain URL */ });
      });
    }, Promise.resolve()).then(function () { return out; });
  }

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (e) {
      return "";
    }
  }

  // The server side of the API: play/views/ui.py over fetch, and the play socket's UI frames.
  function uiApi(client) {
    var base = "/play/" + client.config.sessionId + "/ui/";
    var queue = []; // UI frames sent, each waiting for its ui_done, error or busy
    var self = { info: {}, assets: {}, storage: { world: {}, session: {} } };

    function json(response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        var error = String(body.error || "refused (" + response.status + ")");
        if (body.field && error.indexOf(body.field + ":") !== 0) error = body.field + ": " + error;
        if (!response.ok) throw new Refused(error);
        return body;
      });
    }
    self.load = function () {
      return fetch(base + "info/", { credentials: "same-origin" }).then(json).then(function (info) {
        self.info = info;
        self.storage = info.storage || self.storage;
        return inlineAssets(info.assets || {});
      }).then(function (assets) {
        self.assets = assets;
      }).catch(function () { /* the UI still runs, without entries, assets or storage */ });
    };
    self.post = function (path, body) {
      return fetch(base + path, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
      }).then(json);
    };
    self.store = function (scope, key, raw) {
      scope = scope === "session" ? "session" : "world";
      return self.post("storage/", { scope: scope, key: key, value: raw }).then(function (body) {
        self.storage[scope] = body.data || {};
        return true;
      });
    };
    self.frame = function (payload) {
      return new Promise(function (resolve, reject) {
        if (!client.sendFrame(payload)) {
          reject(new Refused("not connected"));
          return;
        }
        queue.push({ type: payload.type, resolve: resolve, reject: reject });
      });
    };
    function settle(type, error) {
      var index = queue.findIndex(function (q) { return q.type === type; });
      if (index < 0) return false;
      var entry = queue.splice(index, 1)[0];
      if (error) entry.reject(new Refused(error));
      else entry.resolve(true);
      return true;
    }
    // The refusals of a UI's frames go back to the frame's console, not to the player's toasts.
    var onError = client.on_error;
    var onBusy = client.on_busy;
    client.on_ui_done = function (f) { settle(f.frame, null); };
    client.on_error = function (f) {
      var type = f && f.frame && f.frame.type;
      var text = String(f.error || "refused");
      if (f.field && text.indexOf(f.field + ":") !== 0) text = f.field + ": " + text;
      if (UI_FRAMES[type] && settle(type, text)) return;
      onError.call(client, f);
    };
    client.on_busy = function (f) {
      var type = f && f.frame && f.frame.type;
      if (UI_FRAMES[type] && settle(type, "busy: a turn is running; try again when it ends")) return;
      onBusy.call(client, f);
    };
    return self;
  }

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
      // The frame's compile or runtime errors (static/js/sandbox.js): a notice with
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

  window.FabulaCustomUiHost = { create: create };
})();
