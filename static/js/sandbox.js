/* Fabula custom UI runtime: runs inside <iframe sandbox="allow-scripts"> (seed 004 "自定义 UI").
 *
 * Loads the world's rootComponent modules (compiled by play/customui.py), renders the entry
 * file's default export with React 18, and gives it useYumina() / window.yumina: the game state
 * the host page sends by postMessage, and methods that post small RPC requests back. The host
 * validates every request; nothing here is trusted by it. Built-ins in scope: Chat,
 * MessageList, MessageInput, ChatCanvas, Icons, useAssetFont, useYumina, React.
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
  var storageCache = {};
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
      pending[id] = { resolve: resolve, reject: reject };
      host.postMessage({ fabula: "ui", id: id, method: method, args: args || [] }, "*");
    });
  }

  function fire(method, args) {
    call(method, args).catch(function (err) { console.warn("[yumina]", method, err.message); });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== host) return;
    var data = event.data;
    if (!data || data.fabula !== "host") return;
    if (data.type === "snapshot" && data.state) {
      Object.keys(data.state).forEach(function (k) { state[k] = data.state[k]; });
      if (data.storage && typeof data.storage === "object") storageCache = data.storage;
      emit();
    } else if (data.type === "reply" && pending[data.id]) {
      var p = pending[data.id];
      delete pending[data.id];
      if (data.ok) p.resolve(data.value);
      else p.reject(new Error(String(data.error || "refused")));
    }
  });

  // --- the API ---------------------------------------------------------------------------------

  function unsupported(name) {
    return function () {
      return Promise.reject(new Error(name + " is not available in Fabula's sandbox"));
    };
  }

  var api = {
    sendMessage: function (text) { fire("sendMessage", [String(text)]); },
    editMessage: function (id, content) { return call("editMessage", [Number(id), String(content)]); },
    deleteMessage: function (id) { return call("deleteMessage", [Number(id)]); },
    regenerateMessage: function (id) { fire("regenerateMessage", [id === undefined ? null : Number(id)]); },
    continueLastMessage: function () { fire("continueLastMessage", []); },
    stopGeneration: function () { fire("stopGeneration", []); },
    restartChat: function () { console.warn("[yumina] restartChat is not available"); },
    swipeMessage: function (id, direction) { return call("swipeMessage", [Number(id), direction]); },
    setComposerDraft: function (text) { state.composerDraft = String(text || ""); emit(); },
    clearPendingChoices: function () { state.pendingChoices = []; emit(); },
    revertToMessage: function (id) { return call("revertToMessage", [Number(id)]); },
    branchFromMessage: function (id) { return call("branchFromMessage", [Number(id)]); },
    getBranchContext: unsupported("getBranchContext"),
    createSession: unsupported("createSession"),
    deleteSession: unsupported("deleteSession"),
    listSessions: unsupported("listSessions"),
    navigate: function (path) { fire("navigate", [String(path)]); },
    saveCheckpoint: function (name) { return call("saveCheckpoint", [name === undefined ? "" : String(name)]); },
    loadCheckpoints: function () { return Promise.resolve(); },
    restoreCheckpoint: function (id) { return call("restoreCheckpoint", [Number(id)]); },
    deleteCheckpoint: function (id) { return call("deleteCheckpoint", [Number(id)]); },
    ai: { complete: unsupported("ai.complete") },
    setVariable: function (id) {
      console.warn("[yumina] setVariable(" + String(id) + ") is not available: the engine owns " +
        "the state. Use executeAction with a rule on an 'action' trigger instead.");
    },
    executeAction: function (actionId) { fire("executeAction", [String(actionId)]); },
    injectContext: function () { console.warn("[yumina] injectContext is not available"); },
    playAudio: function (trackId, opts) { fire("playAudio", [String(trackId), opts || {}]); },
    stopAudio: function (trackId, fade) {
      fire("stopAudio", [trackId === undefined ? null : String(trackId), fade === undefined ? null : fade]);
    },
    setAudioVolume: function (type, volume) { fire("setAudioVolume", [type, Number(volume)]); },
    getAudioVolume: function (type) { return type === "sfx" ? state.sfxVolume : state.bgmVolume; },
    storage: {
      get: function (key) {
        var k = String(key);
        return Promise.resolve(Object.prototype.hasOwnProperty.call(storageCache, k) ? storageCache[k] : null);
      },
      set: function (key, value) {
        storageCache[String(key)] = String(value);
        return call("storageSet", [String(key), String(value)]);
      },
      remove: function (key) {
        delete storageCache[String(key)];
        return call("storageRemove", [String(key)]);
      },
    },
    toggleImmersive: function () { fire("toggleImmersive", []); },
    switchGreeting: function (index) { fire("switchGreeting", [Number(index)]); },
    copyToClipboard: function (text) { fire("copyToClipboard", [String(text)]); },
    showToast: function (message, type) { fire("showToast", [String(message), type || "info"]); },
    resolveAssetUrl: function (ref) { return String(ref || ""); },
    renderMarkdown: function (text) { return md.render(text); },
    getEntry: function () { return null; },
    setModel: function () { console.warn("[yumina] setModel is not available"); },
    getModels: unsupported("getModels"),
    pinModel: function () {},
    unpinModel: function () {},
    setPreferredProvider: unsupported("setPreferredProvider"),
    onChange: function (cb) { return typeof cb === "function" ? subscribe(cb) : function () {}; },
    offChange: function (cb) {
      listeners = listeners.filter(function (l) { return l !== cb; });
    },
  };
  Object.keys(state).forEach(function (key) {
    Object.defineProperty(api, key, { enumerable: true, get: function () { return state[key]; } });
  });

  function useYumina() {
    React.useSyncExternalStore(subscribe, function () { return version; });
    return api;
  }

  // --- storage shims (seed: world-scoped, proxied to the host) --------------------------------

  function makeStorage() {
    return {
      getItem: function (k) {
        k = String(k);
        return Object.prototype.hasOwnProperty.call(storageCache, k) ? storageCache[k] : null;
      },
      setItem: function (k, v) { api.storage.set(k, v).catch(function () {}); },
      removeItem: function (k) { api.storage.remove(k).catch(function () {}); },
      clear: function () { Object.keys(storageCache).forEach(function (k) { api.storage.remove(k); }); },
      key: function (i) { return Object.keys(storageCache)[i] || null; },
      get length() { return Object.keys(storageCache).length; },
    };
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
        return h("li", { key: m.id, "data-message-id": m.id }, render ? render(bp) : h(DefaultBubble, bp));
      }));
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
        : h("button", { type: "submit" }, "➤"));
  }

  function Chat(props) {
    props = props || {};
    return h("div", { className: "fy-chat" + (props.className ? " " + props.className : "") },
      h(MessageList, { renderBubble: props.renderBubble }), props.children || null, h(MessageInput, null));
  }

  function Nothing() { return null; }

  var builtins = {
    Chat: Chat,
    ChatCanvas: Chat,
    MessageList: MessageList,
    MessageInput: MessageInput,
    ModelPickerModal: Nothing,
    ModelTrigger: Nothing,
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
    var storage = makeStorage();
    var no = blocked;
    factories[path].call(undefined, function (spec) { return requireFrom(path, spec); }, module,
      module.exports, no("fetch"), no("XMLHttpRequest"), no("WebSocket"), no("EventSource"),
      storage, storage, undefined, undefined, undefined, fakeLocation);
    return module.exports;
  }

  function requireFrom(from, spec) {
    spec = String(spec);
    if (spec === "react") return Object.assign({ default: React }, React);
    if (spec === "react-dom" || spec === "react-dom/client") return Object.assign({ default: ReactDOM }, ReactDOM);
    if (/^@?yumina(\/|$)/.test(spec)) return Object.assign({ default: builtins.Chat }, builtins);
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
  Boundary.prototype.render = function () {
    if (this.state.error) {
      return h("pre", { className: "fy-error" }, word("uiFailed", "The world's UI failed:") + "\n\n" + String(this.state.error && this.state.error.message || this.state.error));
    }
    return this.props.children;
  };

  function lockDown() {
    // Globals the seed keeps out of the sandbox; the CSP blocks the network regardless.
    ["fetch", "XMLHttpRequest", "WebSocket", "EventSource"].forEach(function (name) {
      try { window[name] = blocked(name); } catch (e) { /* not writable here */ }
    });
    try { window.parent = undefined; } catch (e) { /* [Replaceable] in every browser we know */ }
    try { window.opener = null; } catch (e) { /* idem */ }
  }

  function boot() {
    Object.keys(builtins).forEach(function (name) { window[name] = builtins[name]; });
    window.yumina = api;
    var errors = window.FabulaSandbox.compileErrors || [];
    var entry = window.FabulaSandbox.entry;
    lockDown();
    host.postMessage({ fabula: "ui", id: 0, method: "ready", args: [] }, "*");
    if (!factories[entry]) {
      showError(word("uiNoEntry", "The world's UI has no entry file '{entry}'.", entry), errors.join("\n"));
      return;
    }
    var App;
    try {
      var exported = load(entry);
      App = exported && (exported.default || exported.App);
    } catch (e) {
      showError(word("uiLoadFailed", "The world's UI failed to load:"), String(e && e.message || e) + (errors.length ? "\n\n" + errors.join("\n") : ""));
      return;
    }
    if (typeof App !== "function") {
      showError(word("uiNoExport", "The entry file '{entry}' has no default export component.", entry), errors.join("\n"));
      return;
    }
    if (errors.length) console.warn("[yumina] " + errors.join("\n"));
    ReactDOM.createRoot(document.getElementById("root")).render(h(Boundary, null, h(App)));
  }

  window.FabulaSandbox = { define: define, boot: boot, entry: null, compileErrors: [] };
})();
