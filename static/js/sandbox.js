/* Fabula custom UI runtime: runs inside <iframe sandbox="allow-scripts"> (seed 004 "自定义 UI").
 *
 * Compiles the world's rootComponent files (static/js/compile.js), loads them as modules,
 * renders the entry file's default export with React 18, and gives it useYumina() /
 * window.yumina: the game state the host page sends by postMessage, and methods that post
 * small RPC requests back. The host validates every request; nothing here is trusted by it.
 * Built-ins in scope: Chat, MessageList, MessageInput, ChatCanvas, ModelPickerModal,
 * ModelTrigger, Icons, useAssetFont,
 * useYumina, React. Compile and runtime errors of the world's code go to the host as
 * "uiError" (path, line, column), which shows them and falls back to the built-in chat.
 */
(function () {
  "use strict";

  var React = window.React;
  var ReactDOM = window.ReactDOM;
  var md = window.FabulaMarkdown;
  var host = window.parent; // kept here; the creator's code gets no reference to it
  var h = React.createElement;

  // WebRTC is the one way out that no CSP directive closes in Chromium: a STUN or TURN server is
  // any host and port, and a TURN username is the page's to choose (issue 9, §3). The seed gives
  // a world's UI no network, so the constructors go now, before any of the world's code runs
  // (this file loads first). There is no other realm to fetch them back from: a frame nested
  // in the sandbox gets an opaque origin of its own, workers are refused by the CSP.
  Object.getOwnPropertyNames(window).forEach(function (name) {
    if (!/^(webkit)?RTC/.test(name)) return;
    try { delete window[name]; } catch (e) { /* not configurable here */ }
    if (window[name]) Object.defineProperty(window, name, { value: undefined });
  });

  // --- the store: the snapshot the host sends -------------------------------------------------

  var state = {
    variables: {},
    globalVariables: {},
    worldName: "",
    worldId: "",
    sessionId: "",
    currentUser: null,
    user: { name: "", avatar: null },
    messages: [],
    isStreaming: false,
    streamingContent: "",
    streamingReasoning: "",
    pendingChoices: [],
    error: null,
    readOnly: false,
    entries: [],
    checkpoints: [],
    greetingContent: null,
    mode: "session",
    capabilities: { canSendMessage: true, canPersistSession: true, canUseSessionApis: true, requiresAuth: false },
    canvasMode: "custom",
    selectedModel: "",
    userPlan: "",
    preferredProvider: "official",
    language: "en",
    bgmVolume: 0.6,
    sfxVolume: 0.8,
    composerDraft: "",
  };
  // The UI's storage on the server (play/ui_storage.py), as the host last sent it: "world" for
  // storage.* and the localStorage shim, "session" for the sessionStorage shim.
  var storageCache = { world: {}, session: {} };
  var assets = {}; // "@asset:<uid>" -> URL of the world's own assets (resolveAssetUrl)
  var listeners = [];
  var version = 0;

  function emit() {
    version += 1;
    listeners.slice().forEach(function (cb) {
      try {
        cb(api);
      } catch (e) {
        console.error(e);
      }
    });
    try {
      window.dispatchEvent(new CustomEvent("yumina:statechange"));
    } catch (e) { /* old browsers */ }
  }

  function subscribe(cb) {
    listeners.push(cb);
    return function () {
      listeners = listeners.filter(function (l) { return l !== cb; });
    };
  }

  // --- RPC to the host -------------------------------------------------------------------------

  var nextId = 1;
  var pending = {};

  function call(method, args) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject, method: method };
      host.postMessage({ fabula: "ui", id: id, method: method, args: args || [] }, "*");
    });
  }

  // The seed's void members: awaiting them still sees a refusal, ignoring them logs it once.
  function quiet(promise) {
    var done = promise.then(function () {});
    done.catch(function () { /* the reply handler logged it */ });
    return done;
  }

  function fire(method, args) {
    call(method, args).catch(function () { /* the reply handler logged it */ });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== host) return;
    var data = event.data;
    if (!data || data.fabula !== "host") return;
    if (data.type === "snapshot" && data.state) {
      Object.keys(data.state).forEach(function (k) { state[k] = data.state[k]; });
      if (data.storage && typeof data.storage === "object") {
        storageCache = { world: data.storage.world || {}, session: data.storage.session || {} };
      }
      if (data.assets && typeof data.assets === "object") assets = data.assets;
      emit();
    } else if (data.type === "reply") {
      var p = pending[data.id];
      delete pending[data.id];
      // Every refusal lands in this console, also for a message the runtime did not send.
      if (!data.ok) console.error("[yumina] " + (p ? p.method : "message") + " refused: " + String(data.error || "refused"));
      if (!p) return;
      if (data.ok) p.resolve(data.value);
      else p.reject(new Error(String(data.error || "refused")));
    }
  });

  // --- the API ---------------------------------------------------------------------------------

  var api = {
    sendMessage: function (text) { fire("sendMessage", [String(text)]); },
    editMessage: function (id, content) { return call("editMessage", [Number(id), String(content)]); },
    deleteMessage: function (id) { return call("deleteMessage", [Number(id)]); },
    regenerateMessage: function (id) { fire("regenerateMessage", [id === undefined ? null : Number(id)]); },
    continueLastMessage: function () { fire("continueLastMessage", []); },
    stopGeneration: function () { fire("stopGeneration", []); },
    restartChat: function () { fire("restartChat", []); },
    swipeMessage: function (id, direction) { return call("swipeMessage", [Number(id), direction]); },
    setComposerDraft: function (text) { state.composerDraft = String(text || ""); emit(); },
    clearPendingChoices: function () { state.pendingChoices = []; emit(); },
    revertToMessage: function (id) { return call("revertToMessage", [Number(id)]); },
    branchFromMessage: function (id) { return call("branchFromMessage", [Number(id)]); },
    // The player's own sessions of this world only (the host and play/ui_sessions.py check).
    getBranchContext: function () { return call("getBranchContext", []); },
    createSession: function (worldId) { return call("createSession", [String(worldId)]); },
    deleteSession: function (sessionId) { return call("deleteSession", [String(sessionId)]).then(function () {}); },
    listSessions: function (worldId) { return call("listSessions", [String(worldId)]); },
    navigate: function (path) { fire("navigate", [String(path)]); },
    saveCheckpoint: function (name) { return call("saveCheckpoint", [name === undefined ? "" : String(name)]); },
    loadCheckpoints: function () { return Promise.resolve(); },
    restoreCheckpoint: function (id) { return call("restoreCheckpoint", [Number(id)]); },
    deleteCheckpoint: function (id) { return call("deleteCheckpoint", [Number(id)]); },
    ai: { complete: aiComplete },
    setVariable: function (id, value) { return quiet(call("setVariable", [String(id), jsonValue(value)])); },
    executeAction: function (actionId) { fire("executeAction", [String(actionId)]); },
    injectContext: function (text, opts) { return quiet(call("injectContext", [String(text), jsonValue(opts || {})])); },
    playAudio: function (trackId, opts) { fire("playAudio", [String(trackId), opts || {}]); },
    stopAudio: function (trackId, fade) {
      fire("stopAudio", [trackId === undefined ? null : String(trackId), fade === undefined ? null : fade]);
    },
    setAudioVolume: function (type, volume) { fire("setAudioVolume", [type, Number(volume)]); },
    getAudioVolume: function (type) { return type === "sfx" ? state.sfxVolume : state.bgmVolume; },
    storage: scopedStorage("world"),
    toggleImmersive: function () { fire("toggleImmersive", []); },
    switchGreeting: function (index) { fire("switchGreeting", [Number(index)]); },
    copyToClipboard: function (text) { fire("copyToClipboard", [String(text)]); },
    showToast: function (message, type) { fire("showToast", [String(message), type || "info"]); },
    resolveAssetUrl: function (ref) {
      ref = String(ref || "");
      return Object.prototype.hasOwnProperty.call(assets, ref) ? assets[ref] : "";
    },
    renderMarkdown: function (text) { return md.render(text); },
    getEntry: function (name) {
      name = String(name);
      return state.entries.find(function (e) { return e.id === name; }) ||
        state.entries.find(function (e) { return e.name === name; }) || null;
    },
    // Only models the player may use: the site's or their own provider's (play/ui_models.py).
    setModel: function (modelId) { return quiet(call("setModel", [String(modelId)])); },
    getModels: function () { return call("getModels", []); },
    pinModel: function (modelId) { return quiet(call("pinModel", [String(modelId)])); },
    unpinModel: function (modelId) { return quiet(call("unpinModel", [String(modelId)])); },
    setPreferredProvider: function (provider) { return call("setPreferredProvider", [String(provider)]); },
    onChange: function (cb) { return typeof cb === "function" ? subscribe(cb) : function () {}; },
    offChange: function (cb) {
      listeners = listeners.filter(function (l) { return l !== cb; });
    },
  };
  Object.keys(state).forEach(function (key) {
    Object.defineProperty(api, key, { enumerable: true, get: function () { return state[key]; } });
  });

  // Values go to the host as JSON: undefined, functions and cycles are refused here already.
  function jsonValue(value) {
    var text = JSON.stringify(value === undefined ? null : value);
    return text === undefined ? null : JSON.parse(text);
  }

  // ai.complete({messages, maxTokens, temperature, onDelta}) or ai.complete(prompt, options).
  function aiComplete(params, options) {
    var p = typeof params === "string"
      ? Object.assign({}, options || {}, { messages: [{ role: "user", content: params }] })
      : Object.assign({}, params || {});
    var onDelta = typeof p.onDelta === "function" ? p.onDelta : null;
    var ask = { messages: p.messages, maxTokens: p.maxTokens, temperature: p.temperature };
    return call("aiComplete", [jsonValue(ask)]).then(function (result) {
      var text = result && typeof result.text === "string" ? result.text : "";
      if (onDelta) onDelta(text); // the bridge does not stream: the whole text, once
      return text;
    });
  }

  // storage.* of the seed: get answers from the copy the host sent; set/remove go to the server.
  function scopedStorage(scope) {
    function items() { return storageCache[scope] || (storageCache[scope] = {}); }
    return {
      get: function (key) {
        var k = String(key);
        return Promise.resolve(Object.prototype.hasOwnProperty.call(items(), k) ? items()[k] : null);
      },
      set: function (key, value) {
        var v = jsonValue(value);
        items()[String(key)] = v;
        return call("storageSet", [String(key), v, scope]).then(function () {});
      },
      remove: function (key) {
        delete items()[String(key)];
        return call("storageRemove", [String(key), scope]).then(function () {});
      },
      keys: function () { return Object.keys(items()); },
    };
  }

  function useYumina() {
    React.useSyncExternalStore(subscribe, function () { return version; });
    return api;
  }

  // --- storage shims (seed: world-scoped, proxied to the host) --------------------------------

  function makeStorage(scope) {
    var store = scopedStorage(scope);
    function items() { return storageCache[scope] || {}; }
    return {
      getItem: function (k) {
        k = String(k);
        var v = Object.prototype.hasOwnProperty.call(items(), k) ? items()[k] : null;
        return v === null || typeof v === "string" ? v : JSON.stringify(v);
      },
      setItem: function (k, v) { store.set(k, String(v)).catch(function () {}); },
      removeItem: function (k) { store.remove(k).catch(function () {}); },
      clear: function () { store.keys().forEach(function (k) { store.remove(k).catch(function () {}); }); },
      key: function (i) { return store.keys()[i] || null; },
      get length() { return store.keys().length; },
    };
  }
  var localShim = makeStorage("world");
  var sessionShim = makeStorage("session");

  // Seed 004 "兼容性垫片": fetch('/api/…') goes to the host, which answers the few calls on its
  // allowlist (static/js/customui.js apiFetch); anything else is refused here, with no network.
  function shimFetch(input, init) {
    var url = typeof input === "string" ? input : input && input.url;
    init = init || {};
    if (typeof url !== "string" || !/^\/api\//.test(url)) {
      return Promise.reject(new TypeError("fetch is not available in the sandbox (only /api/… calls of seed 004)"));
    }
    var body = null;
    if (typeof init.body === "string") {
      try { body = JSON.parse(init.body); } catch (e) { return Promise.reject(new TypeError("fetch body must be JSON")); }
    }
    var method = String(init.method || "GET").toUpperCase();
    return call("apiFetch", [method, url, body]).then(function (result) {
      return new Response(JSON.stringify(result), { status: 200, headers: { "Content-Type": "application/json" } });
    }, function (err) {
      return new Response(JSON.stringify({ error: err.message }), { status: 403, headers: { "Content-Type": "application/json" } });
    });
  }

  // navigator.clipboard.writeText → copyToClipboard; the host needs a user gesture for it.
  function shimClipboard() {
    var clipboard = { writeText: function (text) { return call("copyToClipboard", [String(text)]).then(function () {}); } };
    try { Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true }); } catch (e) { /* kept */ }
  }

  function blocked(name) {
    return function () { throw new Error(name + " is not available in the sandbox"); };
  }

  var fakeLocation = Object.freeze({
    href: "about:fabula-ui", pathname: "/", search: "", hash: "",
    assign: function (p) { api.navigate(p); },
    replace: function (p) { api.navigate(p); },
    reload: function () {},
  });

  // --- built-in components ---------------------------------------------------------------------

  function bubbleProps(m, index) {
    var content = m.status === "streaming" ? state.streamingContent : m.content;
    return {
      contentHtml: md.render(content),
      content: content,
      rawContent: content,
      role: m.role,
      messageIndex: index,
      isStreaming: m.status === "streaming",
      stateSnapshot: m.stateSnapshot || null,
      variables: state.variables,
      renderMarkdown: md.render,
    };
  }

  function DefaultBubble(props) {
    // md.render escapes first, so this HTML holds only its own <p>/<em>/<strong>/<code>/<br>.
    return h("div", {
      className: "fy-msg fy-msg--" + props.role,
      dangerouslySetInnerHTML: { __html: props.contentHtml || "&nbsp;" },
    });
  }

  function MessageList(props) {
    useYumina();
    var render = props && typeof props.renderBubble === "function" ? props.renderBubble : null;
    var ref = React.useRef(null);
    React.useEffect(function () {
      if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
    });
    return h("ol", { className: "fy-list" + (props && props.className ? " " + props.className : ""), ref: ref },
      state.messages.map(function (m, i) {
        var bp = bubbleProps(m, i);
        var last = i === state.messages.length - 1;
        return h("li", { key: m.id, "data-message-id": m.id }, render ? render(bp) : h(DefaultBubble, bp),
          last ? h(Swipes, { message: m, index: i }) : null);
      }));
  }

  // The play page's swipes, on the last reply (not the greeting): "›" past the last version
  // writes a new one, as there.
  function Swipes(props) {
    var m = props.message;
    if (m.role !== "assistant" || props.index === 0 || m.status === "streaming" || state.isStreaming) return null;
    var count = Math.max(1, (m.swipes || []).length);
    var at = (m.activeSwipeIndex || 0) + 1;
    function swipe(direction) {
      return function () { api.swipeMessage(m.id, direction).catch(function () {}); };
    }
    return h("div", { className: "fy-swipe" },
      h("button", { type: "button", className: "fy-swipe-left", disabled: at <= 1, onClick: swipe("left") }, "‹"),
      h("span", { className: "fy-swipe-count" }, at + "/" + count),
      h("button", { type: "button", className: "fy-swipe-right", onClick: swipe("right") }, "›"));
  }

  function MessageInput(props) {
    useYumina();
    var draft = React.useState(state.composerDraft || "");
    React.useEffect(function () {
      if (state.composerDraft) draft[1](state.composerDraft);
    }, [state.composerDraft]);
    function submit(e) {
      e.preventDefault();
      var text = draft[0].trim();
      if (!text) return;
      api.sendMessage(text);
      draft[1]("");
      state.composerDraft = "";
    }
    return h("form", { className: "fy-input" + (props && props.className ? " " + props.className : ""), onSubmit: submit },
      state.pendingChoices.length && !state.isStreaming ? h("div", { className: "fy-choices" },
        state.pendingChoices.map(function (c, i) {
          return h("button", { key: i, type: "button", onClick: function () { api.sendMessage(c); } }, c);
        })) : null,
      h("textarea", {
        rows: 1, value: draft[0], placeholder: (props && props.placeholder) || "…",
        onChange: function (e) { draft[1](e.target.value); },
        onKeyDown: function (e) { if (e.key === "Enter" && !e.shiftKey) submit(e); },
      }),
      state.isStreaming
        ? h("button", { type: "button", onClick: api.stopGeneration }, "■")
        // A click, not a form submission: a frame without allow-forms never fires "submit".
        : h("button", { type: "submit", onClick: submit }, "➤"));
  }

  function Chat(props) {
    props = props || {};
    return h("div", { className: "fy-chat" + (props.className ? " " + props.className : "") },
      h(MessageList, { renderBubble: props.renderBubble }), props.children || null, h(MessageInput, null));
  }

  // Seed 004's model picker: a trigger showing the selected model, and a modal listing
  // getModels(); a choice calls setModel. Text only: model names are never HTML.
  function ModelPickerModal(props) {
    props = props || {};
    var loaded = React.useState(null);
    var failed = React.useState("");
    var open = props.open !== false;
    React.useEffect(function () {
      if (!open) return;
      api.getModels().then(function (m) { loaded[1](m); }, function (e) { failed[1](String(e.message)); });
    }, [open]);
    if (!open) return null;
    function close() { if (typeof props.onClose === "function") props.onClose(); }
    function choose(id) {
      return function () {
        api.setModel(id).then(function () {
          if (typeof props.onSelect === "function") props.onSelect(id);
          close();
        }, function (e) { failed[1](String(e.message)); });
      };
    }
    var models = loaded[0] ? loaded[0].models || [] : [];
    var pinned = loaded[0] ? loaded[0].pinnedModels || [] : [];
    return h("div", { className: "fy-model-modal", role: "dialog", "aria-modal": "true" },
      h("div", { className: "fy-model-box" },
        h("button", { type: "button", className: "fy-model-close", "aria-label": word("close", "Close"), onClick: close }, "×"),
        failed[0] ? h("p", { className: "fy-model-error" }, failed[0]) : null,
        !loaded[0] && !failed[0] ? h("p", null, "…") : null,
        loaded[0] && !models.length ? h("p", null, word("noModels", "No models to choose from.")) : null,
        h("ul", { className: "fy-model-list" }, models.map(function (m) {
          var selected = m.id === state.selectedModel;
          return h("li", { key: m.provider + ":" + m.id },
            h("button", { type: "button", className: "fy-model-option" + (selected ? " is-selected" : ""),
              "data-model": m.id, "aria-pressed": selected ? "true" : "false", onClick: choose(m.id) },
              (pinned.indexOf(m.id) >= 0 ? "★ " : "") + m.name,
              h("small", null, " · " + m.provider)));
        }))));
  }

  function ModelTrigger(props) {
    useYumina();
    props = props || {};
    var open = React.useState(false);
    return h(React.Fragment, null,
      h("button", { type: "button", className: "fy-model-trigger" + (props.className ? " " + props.className : ""),
        onClick: function () { open[1](true); } }, state.selectedModel || word("chooseModel", "Choose a model")),
      open[0] ? h(ModelPickerModal, { open: true, onClose: function () { open[1](false); }, onSelect: props.onSelect }) : null);
  }

  var builtins = {
    Chat: Chat,
    ChatCanvas: Chat,
    MessageList: MessageList,
    MessageInput: MessageInput,
    ModelPickerModal: ModelPickerModal,
    ModelTrigger: ModelTrigger,
    useAssetFont: function () {},
    useYumina: useYumina,
    Icons: {},
    React: React,
  };

  // --- the module loader -----------------------------------------------------------------------

  var factories = {};
  var cache = {};
  var EXTENSIONS = ["", ".tsx", ".ts", ".jsx", ".js", ".mjs", ".json", ".css"];

  function define(path, factory) { factories[path] = factory; }

  function join(from, spec) {
    var parts = from.split("/");
    parts.pop();
    spec.split("/").forEach(function (p) {
      if (p === "..") parts.pop();
      else if (p !== "." && p !== "") parts.push(p);
    });
    return parts.join("/");
  }

  function resolve(from, spec) {
    var base = spec.charAt(0) === "." ? join(from, spec) : spec.replace(/^\/+/, "");
    for (var i = 0; i < EXTENSIONS.length; i++) {
      if (factories[base + EXTENSIONS[i]]) return base + EXTENSIONS[i];
    }
    for (var j = 1; j < EXTENSIONS.length; j++) {
      if (factories[base + "/index" + EXTENSIONS[j]]) return base + "/index" + EXTENSIONS[j];
    }
    return null;
  }

  function load(path) {
    if (cache[path]) return cache[path].exports;
    var module = { exports: {} };
    cache[path] = module;
    var no = blocked;
    factories[path].call(undefined, function (spec) { return requireFrom(path, spec); }, module,
      module.exports, shimFetch, no("XMLHttpRequest"), no("WebSocket"), no("EventSource"),
      localShim, sessionShim, undefined, undefined, undefined, fakeLocation);
    return module.exports;
  }

  function requireFrom(from, spec) {
    spec = String(spec);
    // __esModule: the compiler's interop then takes `default` as it is (import React from …).
    if (spec === "react") return Object.assign({ __esModule: true, default: React }, React);
    if (spec === "react-dom" || spec === "react-dom/client") {
      return Object.assign({ __esModule: true, default: ReactDOM }, ReactDOM);
    }
    if (/^@?yumina(\/|$)/.test(spec)) return Object.assign({ __esModule: true, default: builtins.Chat }, builtins);
    var path = resolve(from, spec);
    if (!path) throw new Error("Cannot find module '" + spec + "' from " + from);
    return load(path);
  }

  // --- boot --------------------------------------------------------------------------------------

  // The page's words, in the player's language (templates/play/sandbox.html puts them on #root).
  function word(key, fallback, entry) {
    var root = document.getElementById("root");
    var text = (root && root.dataset[key]) || fallback;
    return entry === undefined ? text : text.replace("{entry}", entry);
  }

  function showError(title, detail) {
    var root = document.getElementById("root");
    var box = document.createElement("pre");
    box.className = "fy-error";
    box.textContent = title + (detail ? "\n\n" + detail : "");
    root.replaceChildren(box);
  }

  var Boundary = function (props) { React.Component.call(this, props); this.state = { error: null }; };
  Boundary.prototype = Object.create(React.Component.prototype);
  Boundary.prototype.constructor = Boundary;
  Boundary.getDerivedStateFromError = function (error) { return { error: error }; };
  Boundary.prototype.componentDidCatch = function (error) { reportErrors([locate(error)], true); };
  Boundary.prototype.render = function () {
    if (this.state.error) {
      return h("pre", { className: "fy-error" }, word("uiFailed", "The world's UI failed:") + "\n\n" + window.FabulaCompile.format(locate(this.state.error)));
    }
    return this.props.children;
  };

  function lockDown() {
    // Globals the seed keeps out of the sandbox; the CSP blocks the network regardless.
    ["XMLHttpRequest", "WebSocket", "EventSource"].forEach(function (name) {
      try { window[name] = blocked(name); } catch (e) { /* not writable here */ }
    });
    try { window.fetch = shimFetch; } catch (e) { /* not writable here */ }
    shimClipboard();
    try { window.parent = undefined; } catch (e) { /* [Replaceable] in every browser we know */ }
    try { window.opener = null; } catch (e) { /* idem */ }
  }

  // --- compile, load, report ------------------------------------------------------------------

  // The world's files arrive as JSON data (play/views/sandbox.py); static/js/compile.js turns
  // them into modules here, and they run as one blob: script, which the CSP admits (blob: is
  // made only by code already running in this frame, so it opens no way in or out), while
  // eval and new Function stay refused as seed 004 says.
  var loaded = { url: null, locate: function () { return null; }, entry: "", sources: {} };

  function readSources() {
    var node = document.getElementById("fabula-ui-files");
    try {
      var data = JSON.parse(node.textContent);
      return data && typeof data === "object" ? data : {};
    } catch (e) {
      return {};
    }
  }

  // path:line:column of an error thrown by the world's code: its first stack frame in the bundle.
  function locate(error) {
    var message = String((error && error.message) || error);
    var stack = String((error && error.stack) || "");
    var frame = /(blob:[^\s()]+):(\d+):(\d+)/g;
    var match;
    while ((match = frame.exec(stack))) {
      if (match[1] !== loaded.url) continue;
      var at = loaded.locate(Number(match[2]), Number(match[3]));
      if (!at) continue;
      at = window.FabulaCompile.originalPosition(at.path, loaded.sources[at.path], at.line, at.column);
      return { path: at.path, line: at.line, column: at.column, message: message };
    }
    return { path: loaded.entry, line: 0, column: 0, message: message };
  }

  // The host shows the notice and, when the UI is gone (fatal), the built-in chat instead.
  function reportErrors(errors, fatal) {
    var list = errors.slice(0, 20).map(function (e) {
      return { path: String(e.path).slice(0, 300), line: e.line | 0, column: e.column | 0, message: String(e.message).slice(0, 1000) };
    });
    list.forEach(function (e) { console.error("[yumina] " + window.FabulaCompile.format(e)); });
    host.postMessage({ fabula: "ui", id: 0, method: "uiError", args: [{ errors: list, fatal: !!fatal }] }, "*");
  }

  function fail(title, errors) {
    showError(title, errors.map(window.FabulaCompile.format).join("\n"));
    reportErrors(errors, true);
  }

  function onUncaught(event) {
    if (!loaded.url || event.filename !== loaded.url) return;
    var error = event.error || { message: event.message, stack: loaded.url + ":" + event.lineno + ":" + event.colno };
    reportErrors([locate(error)], false);
  }

  function start(entry, warnings) {
    var App;
    try {
      var exported = load(entry);
      App = exported && (exported.default || exported.App);
    } catch (e) {
      fail(word("uiLoadFailed", "The world's UI failed to load:"), [locate(e)].concat(warnings));
      return;
    }
    if (typeof App !== "function") {
      fail(word("uiNoExport", "The entry file '{entry}' has no default export component.", entry),
        [{ path: entry, line: 0, column: 0, message: "no default export component" }]);
      return;
    }
    if (warnings.length) console.warn("[yumina] " + warnings.map(window.FabulaCompile.format).join("\n"));
    ReactDOM.createRoot(document.getElementById("root")).render(h(Boundary, null, h(App)));
  }

  function boot() {
    Object.keys(builtins).forEach(function (name) { window[name] = builtins[name]; });
    window.yumina = api;
    var data = readSources();
    var entry = window.FabulaCompile.normalizePath(data.entry || "index.tsx");
    var warnings = Array.isArray(data.errors) ? data.errors : [];
    loaded.entry = entry;
    Object.keys(data.files || {}).forEach(function (path) {
      loaded.sources[window.FabulaCompile.normalizePath(path)] = data.files[path];
    });
    lockDown();
    window.addEventListener("error", onUncaught);
    window.addEventListener("unhandledrejection", function (event) {
      var at = locate(event.reason);
      if (at.line) reportErrors([at], false); // only what the world's own code left unhandled
    });
    host.postMessage({ fabula: "ui", id: 0, method: "ready", args: [] }, "*");
    var result = window.FabulaCompile.compile(data.files || {}, { entry: entry });
    if (result.css) {
      var style = document.createElement("style");
      style.textContent = result.css;
      document.head.appendChild(style);
    }
    if (!result.ok) {
      fail(word("uiCompileFailed", "The world's UI does not compile:"), result.errors.concat(warnings));
      return;
    }
    var bundle = window.FabulaCompile.bundle(result.modules);
    loaded.url = URL.createObjectURL(new Blob([bundle.code], { type: "text/javascript" }));
    loaded.locate = bundle.locate;
    var script = document.createElement("script");
    script.src = loaded.url;
    script.onload = function () { start(entry, warnings); };
    script.onerror = function () {
      fail(word("uiLoadFailed", "The world's UI failed to load:"), [{ path: entry, line: 0, column: 0, message: "the compiled script was refused" }]);
    };
    document.head.appendChild(script);
  }

  window.FabulaSandbox = { define: define, boot: boot };
})();
