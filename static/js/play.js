/* Fabula play client: the websocket chat of /ws/play/<session_id>/ (docs/PROTOCOL.md).
 *
 * Vanilla JS, no build step. One PlayClient per [data-play-root] element (the play page, or the
 * studio's playtest panel, swapped in by htmx). Everything that comes from the model, the world
 * or another player is inserted with textContent, or through FabulaMarkdown.render, which
 * escapes before it adds its own few tags.
 */
(function () {
  "use strict";

  if (window.FabulaPlay) {
    // Loaded again by an htmx swap: the listeners below already exist.
    window.FabulaPlay.boot(document);
    return;
  }
  var md = window.FabulaMarkdown;
  var MAX_BACKOFF_MS = 15000;
  var TOAST_MS = 6000;
  var NEAR_BOTTOM_PX = 160;
  var OLDER_AT_PX = 240; // this close to the top, the page before the oldest message loads
  var PAGE_SIZE = 50;
  var TOAST_STYLES = { info: 1, achievement: 1, warning: 1, danger: 1, success: 1, error: 1 };
  var BAR_TYPES = {
    "status-bar": 1, "stat-bar": 1, bar: 1, progress: 1, "progress-bar": 1, gauge: 1,
    "health-bar": 1, meter: 1,
  };
  var SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]{3,20}|(rgb|hsl)a?\([0-9.,%\s]+\))$/i;

  // --- small DOM helpers ---------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // 24x24 stroke icons (fixed path data; nothing from the world goes in here).
  var ICONS = {
    prev: "M15 6l-6 6 6 6",
    next: "M9 6l6 6-6 6",
    regenerate: "M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6",
    continue: "M5 12h12M13 6l6 6-6 6",
    edit: "M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4",
    delete: "M5 7h14M10 11v6M14 11v6M7 7l1 13h8l1-13M9 7V4h6v3",
    revert: "M9 14L4 9l5-5M4 9h10a6 6 0 0 1 0 12h-3",
    branch: "M6 3v12M18 9a3 3 0 1 0 0-.01M6 21a3 3 0 1 0 0-.01M18 12c0 4-6 3-12 6",
  };
  var SVG_NS = "http://www.w3.org/2000/svg";

  function icon(name) {
    var svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("width", "18");
    svg.setAttribute("height", "18");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("class", "icon");
    var path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", ICONS[name]);
    svg.appendChild(path);
    return svg;
  }

  function button(label, action, opts) {
    opts = opts || {};
    var b = el("button", "msg-tool" + (opts.className ? " " + opts.className : ""));
    if (opts.icon && ICONS[opts.icon]) b.appendChild(icon(opts.icon));
    else b.textContent = opts.text || label;
    b.type = "button";
    b.dataset.action = action;
    b.setAttribute("aria-label", label);
    b.title = label;
    if (opts.disabled) b.disabled = true;
    return b;
  }

  // A speaker's face (config.faces, from play/faces.py): the 64 px thumbnail, else initials.
  // Like templates/studio faces: an image that fails is swapped for initials by site.js.
  function faceOf(info) {
    info = info || {};
    var initials = String(info.initials || "?");
    var hue = (parseInt(info.hue, 10) || 0) % 8;
    if (info.icon && /^(\/|https?:\/\/)/.test(info.icon)) {
      var img = el("img", "face face--sm");
      img.src = info.icon;
      img.alt = "";
      img.width = 28;
      img.height = 28;
      img.setAttribute("data-initials", initials);
      img.setAttribute("data-hue", String(hue));
      return img;
    }
    var span = el("span", "face face--sm face--initials face--hue-" + hue, initials);
    span.setAttribute("aria-hidden", "true");
    return span;
  }

  function t(root, key, fallback) {
    var strings = root.__fabulaStrings || {};
    return strings[key] || fallback;
  }

  function formatValue(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "number") {
      return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
    }
    if (typeof value === "boolean") return value ? "✓" : "✗";
    if (typeof value === "string") return value;
    if (Array.isArray(value)) {
      return value.map(function (v) { return typeof v === "object" ? JSON.stringify(v) : String(v); })
        .join(", ") || "—";
    }
    try {
      return JSON.stringify(value);
    } catch (e) {
      return String(value);
    }
  }

  // A JSON variable as a player reads it (issue 33 §4), never raw JSON: an object as a
  // definition list, a list as a list, a list of objects as a table; nested values the same
  // way, down to JSON_DEPTH. Keys and values go in as text.
  var JSON_DEPTH = 4;

  function isRecord(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function renderJson(value, depth) {
    if (value === null || value === undefined || typeof value !== "object") {
      return el("span", "json-scalar", formatValue(value));
    }
    var keys = Array.isArray(value) ? null : Object.keys(value);
    if (keys ? !keys.length : !value.length) return el("span", "json-scalar muted", "—");
    if (depth >= JSON_DEPTH) return el("span", "json-scalar muted", "…");
    if (keys) {
      var dl = el("dl", "json-dl");
      keys.forEach(function (key) {
        dl.appendChild(el("dt", null, key));
        var dd = el("dd");
        dd.appendChild(renderJson(value[key], depth + 1));
        dl.appendChild(dd);
      });
      return dl;
    }
    if (value.every(isRecord)) return jsonTable(value, depth);
    var list = el("ul", "json-list");
    value.forEach(function (item) {
      var li = el("li");
      li.appendChild(renderJson(item, depth + 1));
      list.appendChild(li);
    });
    return list;
  }

  function jsonTable(rows, depth) {
    var has = Object.prototype.hasOwnProperty;
    var columns = [];
    rows.forEach(function (row) {
      Object.keys(row).forEach(function (key) { if (columns.indexOf(key) < 0) columns.push(key); });
    });
    var table = el("table", "json-table");
    var head = el("tr");
    columns.forEach(function (key) {
      var th = el("th", null, key);
      th.scope = "col";
      head.appendChild(th);
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var tr = body.appendChild(el("tr"));
      columns.forEach(function (key) {
        var td = tr.appendChild(el("td"));
        if (has.call(row, key)) td.appendChild(renderJson(row[key], depth + 1));
      });
    });
    return table;
  }

  function appendCaret(body) {
    var last = body.lastElementChild;
    (last && last.tagName === "P" ? last : body).appendChild(el("span", "caret"));
  }

  // The browser's time zone: a game-master character's daily quota ends at the player's midnight.
  function zoneQuery() {
    try {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      return zone ? "?tz=" + encodeURIComponent(zone) : "";
    } catch (e) {
      return "";
    }
  }

  // "{key}" in a translated string replaced by a value taken literally (no "$&" patterns).
  function fill(template, key, value) {
    return String(template).replace("{" + key + "}", function () { return String(value); });
  }

  // What a reply cost (a game-master action: summed over its tool loop), cache reads apart.
  function costLine(root, usage) {
    var line = t(root, "gmCost", "{input} in · {cached} cached · {output} out · ${cost}");
    line = fill(line, "input", Number(usage.input_tokens) || 0);
    line = fill(line, "cached", Number(usage.cache_read_tokens) || 0);
    line = fill(line, "output", Number(usage.output_tokens) || 0);
    return fill(line, "cost", money(usage.cost));
  }

  // USD: four decimals, six under a cent (a cached turn of a small model costs that little).
  function money(value) {
    var cost = Number(value) || 0;
    return cost >= 0.01 || cost === 0 ? cost.toFixed(4) : cost.toFixed(6);
  }

  function jsonText(value) {
    try { return JSON.stringify(value, null, 1); } catch (err) { return String(value); }
  }

  // "What the engine did": the tools the master called and their results. The server sends
  // them only to the world's creator (play.gm.shows_engine_trace); all of it goes in as text.
  function engineTrace(root, tools) {
    var box = el("details", "msg-trace");
    box.appendChild(el("summary", null, t(root, "gmEngineDid", "What the engine did")));
    var list = el("ol", "msg-trace-list");
    tools.forEach(function (call) {
      if (!call || typeof call !== "object") return;
      var item = el("li", call.ok ? "trace-ok" : "trace-refused");
      var head = el("p", "trace-head");
      head.appendChild(el("code", "trace-name", call.name));
      if (!call.ok) {
        head.appendChild(el("span", "trace-flag", " " + t(root, "gmToolFailed", "refused") +
          (call.error ? ": " + call.error : "")));
      }
      item.appendChild(head);
      item.appendChild(el("pre", "trace-args", jsonText(call.arguments || {})));
      item.appendChild(el("pre", "trace-result", jsonText(call.result || {})));
      list.appendChild(item);
    });
    box.appendChild(list);
    return box;
  }

  function same(a, b) {
    try {
      return JSON.stringify(a) === JSON.stringify(b);
    } catch (e) {
      return a === b;
    }
  }

  // --- the client ----------------------------------------------------------------------------

  function PlayClient(root) {
    this.root = root;
    var configNode = document.getElementById(root.dataset.config);
    this.config = configNode ? JSON.parse(configNode.textContent) : {};
    root.__fabulaStrings = this.config.strings || {};
    this.messages = [];
    this.values = {};
    this.turn = 0;
    this.checkpoints = [];
    this.choices = [];
    this.session = {};
    this.hasMore = false; // older messages exist before the first one held
    this.loadingOlder = false;
    this.streamingId = null;
    this.streamText = "";
    this.lastSeq = 0;
    this.ws = null;
    this.attempts = 0;
    this.retryTimer = null;
    this.destroyed = false;
    this.everConnected = false;
    this.awaitingSync = false;
    this.pendingSend = null;
    this.renderQueued = false;
    this.listeners = [];
    this.q = function (selector) { return root.querySelector(selector); };
    this.dom = {
      list: this.q("[data-messages]"),
      choices: this.q("[data-choices]"),
      composer: this.q("[data-composer]"),
      input: this.q("[data-input]"),
      send: this.q("[data-send]"),
      stop: this.q("[data-stop]"),
      conn: this.q("[data-conn]"),
      connText: this.q("[data-conn-text]"),
      status: this.q("[data-status]"),
      turn: this.q("[data-turn]"),
      checkpoints: this.q("[data-checkpoints]"),
      checkpointForm: this.q("[data-checkpoint-form]"),
      toasts: this.q("[data-toasts]"),
      side: this.q("[data-side]"),
      sideToggle: this.q("[data-toggle-side]"),
      audioCard: this.q("[data-audio-card]"),
      unlock: this.q("[data-unlock]"),
      custom: this.q("[data-custom-ui]"),
      chat: this.q("[data-chat]"),
      uiToggle: this.q("[data-toggle-ui]"),
      quotaNotice: this.q("[data-quota-notice]"),
      gmRolls: this.q("[data-gm-rolls]"),
      gmCheck: this.q("[data-gm-check]"),
      gmCheckText: this.q("[data-gm-check-text]"),
      gmRoll: this.q("[data-gm-roll]"),
      gmScene: this.q("[data-gm-scene]"),
      gmPlace: this.q("[data-gm-place]"),
      gmWays: this.q("[data-gm-ways]"),
      gmPoints: this.q("[data-gm-points]"),
      demoBar: this.q("[data-demo-bar]"),
      demoText: this.q("[data-demo-text]"),
      demoNext: this.q("[data-demo-next]"),
    };
    this.atTable = !!this.config.atTable;
    this.demo = this.config.demo || null; // a replayed demo: its steps and how many were played
    this.demoWaiting = false;
    this.gmPending = null; // the check a game-master turn waits on (check-pending / scene)
    this.gmRollFresh = false; // a roll-result came for the reply that is starting
    this.draftKey = "fabula.draft." + this.config.sessionId;
    this.setupAudio();
    this.bind();
    this.renderStatus();
    this.renderDemo();
    this.restoreDraft();
    this.setupCustomUi();
    this.connect();
  }

  PlayClient.prototype.on = function (target, type, handler, opts) {
    target.addEventListener(type, handler, opts);
    this.listeners.push([target, type, handler, opts]);
  };

  PlayClient.prototype.destroy = function () {
    this.destroyed = true;
    clearTimeout(this.retryTimer);
    if (this.ws) {
      this.ws.onclose = null;
      try { this.ws.close(1000); } catch (e) { /* already closed */ }
    }
    if (this.audio) this.audio.destroy();
    this.listeners.forEach(function (l) { l[0].removeEventListener(l[1], l[2], l[3]); });
    this.listeners = [];
  };

  // --- connection ----------------------------------------------------------------------------

  PlayClient.prototype.connect = function () {
    if (this.destroyed) return;
    var self = this;
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    this.setConn(this.everConnected ? "reconnecting" : "connecting");
    var ws;
    try {
      ws = new WebSocket(scheme + window.location.host + this.config.wsPath + zoneQuery());
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onmessage = function (event) { self.onFrameText(event.data); };
    ws.onclose = function (event) {
      if (self.ws !== ws) return;
      self.ws = null;
      if (event.code === 4403 || event.code === 4404) {
        self.setConn("gone");
        return;
      }
      if (event.code === 4410) {  // the host removed this player from the table (play.table_host)
        self.setConn("removed");
        return;
      }
      if (event.code === 4401) {  // signed out (here or elsewhere): reconnecting would not help
        self.setConn("signedOut");
        return;
      }
      self.scheduleReconnect();
    };
    ws.onerror = function () { /* onclose follows and retries */ };
  };

  PlayClient.prototype.scheduleReconnect = function () {
    if (this.destroyed) return;
    var self = this;
    var base = Math.min(MAX_BACKOFF_MS, 500 * Math.pow(2, this.attempts));
    var delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.attempts += 1;
    this.setConn("reconnecting", Math.ceil(delay / 1000));
    this.setStreaming(this.streamingId !== null);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(function () { self.connect(); }, delay);
  };

  PlayClient.prototype.reconnectNow = function () {
    if (this.ws || this.destroyed) return;
    clearTimeout(this.retryTimer);
    this.connect();
  };

  PlayClient.prototype.setConn = function (state, seconds) {
    var conn = this.dom.conn;
    if (!conn) return;
    conn.dataset.state = state;
    var root = this.root;
    var text = {
      connecting: t(root, "connecting", "Connecting…"),
      online: t(root, "online", "Connected"),
      reconnecting: seconds
        ? t(root, "reconnectingIn", "Reconnecting in {n}s…").replace("{n}", String(seconds))
        : t(root, "reconnecting", "Reconnecting…"),
      gone: t(root, "gone", "This session is not available."),
      signedOut: t(root, "signedOut", "You signed out. Log in again to keep playing."),
      removed: t(root, "removed", "The host removed you from this table."),
    }[state];
    if (this.dom.connText) this.dom.connText.textContent = text;
    this.root.classList.toggle("is-offline", state !== "online");
  };

  PlayClient.prototype.sendFrame = function (frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      this.toast(t(this.root, "notConnected", "Not connected yet; try again in a moment."), "warning");
      return false;
    }
    this.ws.send(JSON.stringify(frame));
    return true;
  };

  PlayClient.prototype.onFrameText = function (text) {
    var frame;
    try {
      frame = JSON.parse(text);
    } catch (e) {
      return;
    }
    if (!frame || typeof frame.type !== "string") return;
    var handler = this["on_" + frame.type];
    if (typeof handler === "function") handler.call(this, frame);
    this.notifyCustomUi();
  };

  // --- frames --------------------------------------------------------------------------------

  PlayClient.prototype.on_history = function (frame) {
    var wasConnected = this.everConnected;
    this.everConnected = true;
    this.attempts = 0;
    this.awaitingSync = false;
    this.setConn("online");
    this.session = frame.session || this.session;
    var incoming = Array.isArray(frame.messages) ? frame.messages : [];
    if (frame.since) {
      var anchor = this.find(frame.since);
      var cut = anchor ? anchor.position : -1;
      this.messages = this.messages.filter(function (m) { return m.position <= cut; })
        .concat(incoming);
    } else {
      this.messages = incoming.slice();
      this.hasMore = !!frame.has_more;
      this.loadingOlder = false;
    }
    this.messages.sort(function (a, b) { return a.position - b.position; });
    this.streamingId = null;
    this.streamText = "";
    this.lastSeq = 0;
    var running = frame.running;
    if (running && this.find(running.message_id)) {
      this.streamingId = running.message_id;
      this.streamText = running.text || "";
      this.lastSeq = Number(running.seq) || 0;
    } else {
      // Still being written elsewhere, its text so far unknown here (e.g. Redis restarted): keep
      // showing it as streaming; the first delta's gap asks for the text so far.
      var last = this.messages[this.messages.length - 1];
      if (last && last.status === "streaming") {
        this.streamingId = last.id;
        this.streamText = last.content || "";
      }
    }
    if (frame.state) this.applyState(frame.state, false);
    this.showSessionCost(this.session && this.session.usage);
    if (Array.isArray(frame.checkpoints)) this.checkpoints = frame.checkpoints;
    this.choices = Array.isArray(frame.choices) ? frame.choices : [];
    this.renderAll();
    this.maybeLoadOlder();
    this.confirmPendingSend();
    if (!wasConnected && this.audio) {
      this.resumeCuedAudio(frame.state && frame.state.audio);
      this.audio.start({
        values: this.values,
        turn: this.turn,
        hasUserMessages: this.messages.some(function (m) { return m.role === "user"; }),
      });
    }
  };

  // The engine remembers the track playing on each lasting channel ({"bgm": "track-id"}); a
  // reloaded page picks them up where the directives left them.
  PlayClient.prototype.resumeCuedAudio = function (channels) {
    if (!channels || typeof channels !== "object") return;
    var audio = this.audio;
    Object.keys(channels).forEach(function (key) {
      var value = channels[key];
      if (typeof value === "string" && value !== "playing") audio.play(value);
      else if (value === "playing") audio.play(key);
    });
  };

  // The page before the oldest message held, asked for by requestOlder: put it on top and keep
  // what the reader was looking at where it was.
  PlayClient.prototype.on_history_page = function (frame) {
    this.loadingOlder = false;
    var first = this.messages[0];
    if (!first || frame.before !== first.id) {
      this.renderMessages(); // the list changed meanwhile (a revert, a fresh history)
      return;
    }
    var held = {};
    this.messages.forEach(function (m) { held[m.id] = true; });
    var older = (Array.isArray(frame.messages) ? frame.messages : []).filter(function (m) {
      return m && m.id && !held[m.id] && m.position < first.position;
    });
    this.messages = older.concat(this.messages);
    this.hasMore = !!frame.has_more && older.length > 0;
    var self = this;
    this.keepScroll(function () { self.renderMessages(); });
    this.maybeLoadOlder();
  };

  PlayClient.prototype.requestOlder = function () {
    if (!this.hasMore || this.loadingOlder || !this.messages.length) return;
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return; // the next history repairs it
    this.loadingOlder = true;
    this.sendFrame({ type: "history", before: this.messages[0].id, limit: PAGE_SIZE });
    this.renderOlder();
  };

  PlayClient.prototype.maybeLoadOlder = function () {
    var list = this.dom.list;
    if (!list || !list.clientHeight || list.scrollTop > OLDER_AT_PX) return; // hidden, or far
    this.requestOlder();
  };

  PlayClient.prototype.keepScroll = function (render) {
    var list = this.dom.list;
    if (!list) return render();
    var fromBottom = list.scrollHeight - list.scrollTop;
    render();
    list.scrollTop = list.scrollHeight - fromBottom;
  };

  // A message sent shortened (too large for one frame) is fetched whole over HTTP on request.
  PlayClient.prototype.fetchWhole = function (id) {
    var self = this;
    var path = this.config.messagesPath;
    if (!path || !window.fetch) return;
    window.fetch(path + String(Number(id)) + "/", {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.json();
    }).then(function (whole) {
      if (!whole || whole.id !== id || !self.find(id)) return;
      self.upsert(whole);
      self.renderMessage(id);
    }).catch(function () {
      self.toast(t(self.root, "error", "Something went wrong."), "danger");
    });
  };

  PlayClient.prototype.on_message_start = function (frame) {
    var message = frame.message;
    if (!message || !message.id) return;
    this.upsert(message);
    this.streamingId = message.id;
    this.streamText = message.content || "";
    this.gmStatus = ""; // the master's current step (a status frame), until text arrives
    this.lastSeq = 0;
    this.choices = [];
    this.renderChoices();
    this.gmTurnStarted();
    this.renderMessage(message.id);
    this.setStreaming(true);
    this.scrollToBottom(true);
  };

  PlayClient.prototype.on_delta = function (frame) {
    if (frame.message_id !== this.streamingId) {
      if (!this.find(frame.message_id)) this.requestSync();
      return;
    }
    var seq = Number(frame.seq) || 0;
    var first = frame.first_seq !== undefined ? Number(frame.first_seq) : seq;
    if (seq <= this.lastSeq) return; // already shown
    if (first > this.lastSeq + 1) {
      this.requestSync(); // a gap: ask for the text so far
      return;
    }
    this.streamText += frame.text || "";
    this.lastSeq = seq;
    this.queueStreamRender();
  };

  // A step of the master's turn (play.gm_steps, issue 37): shown in the reply being written,
  // in the player's words, until its narration starts; text only, never HTML.
  PlayClient.prototype.on_status = function (frame) {
    if (this.streamingId === null) return;
    if (frame.message_id && frame.message_id !== this.streamingId) return;
    this.gmStatus = String(frame.text || "");
    this.queueStreamRender();
  };

  PlayClient.prototype.on_message_done = function (frame) {
    var message = frame.message;
    if (!message || !message.id) return;
    this.upsert(message);
    if (frame.session_usage) this.showSessionCost(frame.session_usage);
    if (this.streamingId === message.id) {
      this.streamingId = null;
      this.streamText = "";
      this.gmStatus = "";
      this.setStreaming(false);
    }
    if (message.role === "assistant" && Array.isArray(message.choices) && this.isLast(message.id)) {
      this.choices = message.choices;
    }
    if (message.role === "assistant" && message.model === "offline") this.showOfflineNarrator();
    if (message.role === "user") {
      this.confirmPendingSend(message);
      if (this.audio) this.audio.onUserText(message.content);
    } else if (message.role === "assistant" && message.status === "complete" && this.audio) {
      this.audio.onAiText(message.content);
    }
    this.renderMessages();
    this.renderChoices();
    this.scrollToBottom(false);
  };

  // The story's running total in the header (docs/PROTOCOL.md: history's session.usage, then
  // message_done's session_usage); hidden while nothing has been spent or read from cache.
  PlayClient.prototype.showSessionCost = function (usage) {
    var slot = this.q("[data-session-cost]");
    if (!slot || !usage) return;
    var line = t(this.root, "sessionCost", "Story: ${cost} · {cached} cached");
    line = fill(line, "cost", money(usage.cost));
    slot.textContent = fill(line, "cached", Number(usage.cache_read_tokens) || 0);
    slot.hidden = !(Number(usage.cost) || Number(usage.input_tokens) || Number(usage.output_tokens) ||
      Number(usage.cache_read_tokens));
  };

  // "Live" only while a real model answers: an offline reply (a used-up quota) says so.
  PlayClient.prototype.showOfflineNarrator = function () {
    var badge = this.q("[data-narrator]");
    if (!badge || !badge.classList.contains("is-live")) return;
    badge.classList.remove("is-live");
    var label = badge.querySelector("[data-narrator-label]");
    if (label) label.textContent = t(this.root, "offlineNarrator", "Offline narrator — no model");
    var narrator = this.config.narrator || {};
    if (narrator.setModelUrl) {
      badge.appendChild(document.createTextNode(" · "));
      badge.appendChild(el("a", "", t(this.root, "setModel", "Set a model"))).href = narrator.setModelUrl;
    }
  };

  PlayClient.prototype.on_message_failed = function (frame) {
    var message = frame.message && frame.message.id ? frame.message : this.find(frame.message_id);
    if (message) {
      message.status = "failed";
      message.error = frame.error || message.error;
      this.upsert(message);
    }
    if (this.streamingId === frame.message_id) {
      this.streamingId = null;
      this.streamText = "";
      this.setStreaming(false);
    }
    this.renderMessages();
    this.toast(frame.error || t(this.root, "failed", "The narrator failed."), "danger");
  };

  PlayClient.prototype.on_state = function (frame) {
    this.applyState(frame, true);
  };

  PlayClient.prototype.on_notification = function (frame) {
    if (frame.style === "quota") {
      // The day's live actions are used up: say so until the page is reloaded after midnight UTC.
      if (this.dom.quotaNotice) {
        this.dom.quotaNotice.textContent = String(frame.message || this.dom.quotaNotice.textContent);
        this.dom.quotaNotice.hidden = false;
      }
      this.toast(frame.message, "warning");
      return;
    }
    this.toast(frame.message, frame.style);
  };

  PlayClient.prototype.on_audio = function (frame) {
    if (this.audio) this.audio.handleCue(frame);
    if (this.customUi) this.customUi.post({ type: "audio", cue: frame });
  };

  PlayClient.prototype.on_choices = function (frame) {
    this.choices = Array.isArray(frame.choices) ? frame.choices : [];
    this.renderChoices();
  };

  PlayClient.prototype.on_busy = function (frame) {
    this.restoreUnsent(frame.frame);
    this.toast(frame.error || t(this.root, "busy", "A turn is already running."), "warning");
  };

  // --- a replayed demo: the server plays its next step (play.demos) ------------------------

  PlayClient.prototype.renderDemo = function () {
    var demo = this.demo;
    if (!demo || !this.dom.demoBar) return;
    var steps = Array.isArray(demo.steps) ? demo.steps : [];
    var played = Number(demo.played) || 0;
    var text = this.dom.demoText;
    var next = this.dom.demoNext;
    if (played >= steps.length) {
      text.textContent = t(this.root, "demoOver", "The demo is over. You can keep playing from here.");
      next.hidden = true;
      return;
    }
    var step = steps[played] || {};
    var label = step.text || (step.action === "roll" ? t(this.root, "demoRoll", "Roll the dice")
      : step.kind === "continue" ? t(this.root, "continue", "Continue")
      : step.kind === "regenerate" ? t(this.root, "regenerate", "Regenerate")
      : t(this.root, "demoClick", "A click on the board"));
    var head = fill(fill(t(this.root, "demoStep", "Demo · step {n} of {total}"), "n", played + 1), "total", steps.length);
    text.textContent = head + ": “" + label + "”";
    next.hidden = false;
    next.disabled = this.demoWaiting || this.streamingId !== null;
  };

  PlayClient.prototype.playDemoStep = function () {
    if (this.demoWaiting || this.streamingId !== null) return;
    if (this.sendFrame({ type: "demo_step" })) {
      this.demoWaiting = true;
      this.renderDemo();
    }
  };

  PlayClient.prototype.on_demo = function (frame) {
    if (!this.demo) return;
    this.demo.played = Number(frame.played) || 0;
    this.demoWaiting = false;
    this.renderDemo();
  };

  PlayClient.prototype.on_error = function (frame) {
    if (frame.frame && frame.frame.type === "demo_step") {
      this.demoWaiting = false;
      this.renderDemo();
    }
    if (frame.frame && frame.frame.type === "history") {
      // The oldest message held is gone (deleted elsewhere): start again from the newest page.
      this.loadingOlder = false;
      this.sendFrame({ type: "sync" });
      return;
    }
    this.restoreUnsent(frame.frame);
    this.toast(frame.error || t(this.root, "error", "Something went wrong."), "danger");
  };

  PlayClient.prototype.on_checkpoints = function (frame) {
    this.checkpoints = Array.isArray(frame.checkpoints) ? frame.checkpoints : [];
    this.renderCheckpoints();
  };

  PlayClient.prototype.on_branched = function (frame) {
    var url = String(frame.url || "");
    if (/^\/play\/[0-9a-f-]{36}\/$/i.test(url)) window.location.assign(url);
  };

  PlayClient.prototype.requestSync = function () {
    if (this.awaitingSync) return;
    this.awaitingSync = true;
    var anchor = null;
    for (var i = this.messages.length - 1; i >= 0; i--) {
      var m = this.messages[i];
      if (m.status !== "streaming" && m.id !== this.streamingId) {
        anchor = m.id;
        break;
      }
    }
    this.sendFrame({ type: "sync", last_message_id: anchor });
  };

  // --- model ---------------------------------------------------------------------------------

  PlayClient.prototype.find = function (id) {
    for (var i = 0; i < this.messages.length; i++) {
      if (this.messages[i].id === id) return this.messages[i];
    }
    return null;
  };

  PlayClient.prototype.upsert = function (message) {
    for (var i = 0; i < this.messages.length; i++) {
      if (this.messages[i].id === message.id) {
        this.messages[i] = message;
        return;
      }
    }
    this.messages.push(message);
    this.messages.sort(function (a, b) { return a.position - b.position; });
  };

  PlayClient.prototype.isLast = function (id) {
    var last = this.messages[this.messages.length - 1];
    return !!last && last.id === id;
  };

  PlayClient.prototype.applyState = function (frame, announce) {
    var before = this.values;
    var values = frame.values && typeof frame.values === "object" ? frame.values : {};
    // A state too large for one frame comes in parts: each holds some of the variables.
    this.values = frame.partial ? Object.assign({}, before, values) : values;
    this.turn = Number(frame.turn) || 0;
    // At a table the shared turn counts every player's actions: show this one's (issue 33 §5).
    if (frame.own_turn !== undefined) this.ownTurn = Number(frame.own_turn) || 0;
    var changed = {};
    var self = this;
    Object.keys(this.values).forEach(function (key) {
      if (!same(before[key], self.values[key])) changed[key] = true;
    });
    this.updateStatus(announce ? changed : {});
    if (this.audio && announce) this.audio.onState(this.values, this.turn);
    if (announce) {
      document.body.dispatchEvent(new CustomEvent("fabula:state", {
        detail: { sessionId: this.config.sessionId },
      }));
    }
  };

  // --- rendering: messages -------------------------------------------------------------------

  PlayClient.prototype.renderAll = function () {
    this.renderMessages();
    this.renderChoices();
    this.renderCheckpoints();
    this.setStreaming(this.streamingId !== null);
    this.scrollToBottom(true);
  };

  PlayClient.prototype.renderMessages = function () {
    var list = this.dom.list;
    if (!list) return;
    var editing = list.querySelector(".msg.is-editing");
    if (editing) return; // do not throw away what the player is typing; redrawn on save/cancel
    var fragment = document.createDocumentFragment();
    var self = this;
    this.messages.forEach(function (m, index) {
      fragment.appendChild(self.buildMessage(m, index === self.messages.length - 1));
    });
    list.replaceChildren(fragment);
    this.renderOlder();
    if (!this.messages.length) {
      list.appendChild(el("li", "msg-empty", t(this.root, "empty", "The story has not begun. Say something.")));
    }
  };

  // The top of the list: a button for the page before (scrolling up presses it too).
  PlayClient.prototype.renderOlder = function () {
    var list = this.dom.list;
    if (!list) return;
    var marker = list.querySelector(".msgs-older");
    if (!this.hasMore) {
      if (marker) marker.remove();
      return;
    }
    if (!marker) {
      marker = el("li", "msgs-older");
      list.insertBefore(marker, list.firstChild);
    }
    var label = this.loadingOlder ? t(this.root, "loadingOlder", "Loading earlier messages…")
      : t(this.root, "older", "Show earlier messages");
    var b = el("button", "small secondary", label);
    b.type = "button";
    b.dataset.action = "older";
    b.disabled = this.loadingOlder;
    marker.replaceChildren(b);
  };

  PlayClient.prototype.renderMessage = function (id) {
    var list = this.dom.list;
    var message = this.find(id);
    if (!list || !message) return;
    var existing = list.querySelector('[data-message-id="' + String(id) + '"]');
    var node = this.buildMessage(message, this.isLast(id));
    if (existing) {
      existing.replaceWith(node);
    } else {
      this.renderMessages();
    }
  };

  PlayClient.prototype.queueStreamRender = function () {
    if (this.renderQueued) return;
    this.renderQueued = true;
    var self = this;
    window.requestAnimationFrame(function () {
      self.renderQueued = false;
      self.renderStream();
    });
  };

  PlayClient.prototype.renderStream = function () {
    if (this.streamingId === null || !this.dom.list) return;
    var body = this.dom.list.querySelector('[data-message-id="' + String(this.streamingId) + '"] .msg-body');
    if (!body) {
      this.renderMessage(this.streamingId);
      return;
    }
    var near = this.nearBottom();
    body.innerHTML = md.render(this.streamText);
    if (!this.streamText && this.gmStatus) {
      var step = el("p", "msg-status", this.gmStatus);
      step.setAttribute("data-gm-step", "");
      step.setAttribute("aria-live", "polite");
      body.appendChild(step);
    }
    appendCaret(body);
    if (near) this.scrollToBottom(true);
  };

  // A talk turn (engine.gm.speech): each speaker in a bubble of its own, the gesture in italics
  // above the words, and the narrator's aside, if any, under them. Text only, never HTML.
  function buildSpeech(body, speech) {
    if (speech.narration) {
      // A full narration (a chat begins, a roll waits): the narrator's prose, then who spoke.
      var lead = el("div", "speech-narration");
      lead.innerHTML = md.render(String(speech.narration));
      body.appendChild(lead);
    }
    speech.bubbles.forEach(function (b) {
      var box = el("div", "speech");
      box.appendChild(el("div", "speech-name", String(b.name || "")));
      if (b.gesture) box.appendChild(el("p", "speech-gesture", String(b.gesture)));
      box.appendChild(el("p", "speech-text", String(b.text || "")));
      body.appendChild(box);
    });
    if (speech.aside) body.appendChild(el("p", "speech-aside", String(speech.aside)));
  }

  PlayClient.prototype.buildMessage = function (m, isLast) {
    var root = this.root;
    var streaming = m.id === this.streamingId;
    var li = el("li", "msg msg--" + m.role);
    li.dataset.messageId = String(m.id);
    li.id = "msg-" + this.config.sessionId.slice(0, 8) + "-" + m.id;
    if (m.status === "failed") li.classList.add("is-failed");
    if (streaming) li.classList.add("is-streaming");
    if (m.is_greeting) li.classList.add("is-greeting");
    var who = m.role === "user" ? this.config.playerName || t(root, "you", "You")
      : m.role === "assistant" ? t(root, "narrator", "Narrator") : t(root, "system", "System");
    var whoLine = el("div", "msg-who");
    var faces = this.config.faces || {};
    if (m.role === "user" || m.role === "assistant") whoLine.appendChild(faceOf(faces[m.role]));
    whoLine.appendChild(el("span", null, who));
    li.appendChild(whoLine);
    var bubble = el("div", "msg-bubble");
    var body = el("div", "msg-body");
    var text = streaming ? this.streamText : m.content;
    if (streaming && !text) {
      body.appendChild(el("span", "typing", t(root, "writing", "The narrator is writing…")));
    } else if (!streaming && m.speech && Array.isArray(m.speech.bubbles) && m.speech.bubbles.length) {
      buildSpeech(body, m.speech);
      li.classList.add("is-speech");
    } else {
      body.innerHTML = md.render(text);
      if (streaming) appendCaret(body);
    }
    bubble.appendChild(body);
    if (m.status === "failed") {
      bubble.appendChild(el("p", "msg-error", m.error || t(root, "failed", "The narrator failed.")));
    }
    if (m.stopped && !streaming) bubble.appendChild(el("p", "msg-note", t(root, "stopped", "(stopped)")));
    if (!streaming && m.usage && m.usage.source === "engine") {
      bubble.appendChild(el("p", "msg-engine", t(root, "gmEngine", "engine · free")));
    } else if (!streaming && m.role === "assistant" && m.usage &&
               (m.usage.input_tokens || m.usage.output_tokens || m.usage.cache_read_tokens)) {
      bubble.appendChild(el("p", "msg-cost", costLine(root, m.usage)));
    }
    if (!streaming && Array.isArray(m.tools) && m.tools.length) {
      bubble.appendChild(engineTrace(root, m.tools));
    }
    if (m.truncated && !streaming) {
      var note = el("p", "msg-note", t(root, "truncated", "This message is long: only its beginning is shown.") + " ");
      note.appendChild(button(t(root, "showAll", "Show all of it"), "show-all", { className: "linklike" }));
      bubble.appendChild(note);
    }
    li.appendChild(bubble);
    if (!streaming) li.appendChild(this.buildTools(m, isLast));
    return li;
  };

  PlayClient.prototype.buildTools = function (m, isLast) {
    var root = this.root;
    var tools = el("div", "msg-tools");
    var busy = this.streamingId !== null;
    // At a shared table the story is everybody's: nothing of it is rewritten (play.tables).
    if (this.atTable) return tools;
    if (m.role === "assistant" && isLast) {
      var swipes = Array.isArray(m.swipes) ? m.swipes.length : 0;
      var index = Number(m.active_swipe) || 0;
      if (m.is_greeting) {
        var count = Number(this.session.greeting_count) || swipes;
        if (count > 1) {
          var nav = el("span", "swipe-nav");
          nav.appendChild(button(t(root, "prevGreeting", "Previous greeting"), "greeting-prev",
            { icon: "prev", disabled: index <= 0 || busy }));
          nav.appendChild(el("span", "swipe-count", (index + 1) + "/" + count));
          nav.appendChild(button(t(root, "nextGreeting", "Next greeting"), "greeting-next",
            { icon: "next", disabled: index >= count - 1 || busy }));
          tools.appendChild(nav);
        }
      } else if (!(m.usage && m.usage.source === "engine")) {
        // (A game-master engine's reply is decided, not written: nothing to regenerate.)
        var nav2 = el("span", "swipe-nav");
        nav2.appendChild(button(t(root, "swipeLeft", "Previous version"), "swipe-left",
          { icon: "prev", disabled: index <= 0 || busy }));
        nav2.appendChild(el("span", "swipe-count", (index + 1) + "/" + Math.max(1, swipes)));
        nav2.appendChild(button(t(root, "swipeRight", "Next version (writes a new one at the end)"),
          "swipe-right", { icon: "next", disabled: busy }));
        tools.appendChild(nav2);
        tools.appendChild(button(t(root, "regenerate", "Regenerate"), "regenerate", { icon: "regenerate", disabled: busy }));
        if (m.content) {
          tools.appendChild(button(t(root, "continue", "Continue"), "continue", { icon: "continue", disabled: busy }));
        }
      }
    }
    if (m.role === "user" && isLast && !busy) {
      tools.appendChild(button(t(root, "regenerate", "Regenerate"), "regenerate", { icon: "regenerate" }));
    }
    tools.appendChild(button(t(root, "edit", "Edit"), "edit", { icon: "edit", disabled: busy || !!m.truncated }));
    tools.appendChild(button(t(root, "delete", "Delete"), "delete", { icon: "delete", disabled: busy }));
    if (!isLast) {
      tools.appendChild(button(t(root, "revert", "Rewind to here"), "revert", { icon: "revert", disabled: busy }));
    }
    tools.appendChild(button(t(root, "branch", "Branch from here"), "branch", { icon: "branch", disabled: busy }));
    return tools;
  };

  PlayClient.prototype.onToolClick = function (event) {
    var target = event.target.closest("button[data-action]");
    if (!target || !this.dom.list.contains(target)) return;
    if (target.dataset.action === "older") {
      this.requestOlder();
      return;
    }
    var li = target.closest("[data-message-id]");
    var id = li ? Number(li.dataset.messageId) : null;
    var message = id ? this.find(id) : null;
    var root = this.root;
    switch (target.dataset.action) {
      case "swipe-left": this.sendFrame({ type: "swipe", message_id: id, direction: "left" }); break;
      case "swipe-right": this.sendFrame({ type: "swipe", message_id: id, direction: "right" }); break;
      case "greeting-prev":
        this.sendFrame({ type: "switch_greeting", index: (Number(message.active_swipe) || 0) - 1 });
        break;
      case "greeting-next":
        this.sendFrame({ type: "switch_greeting", index: (Number(message.active_swipe) || 0) + 1 });
        break;
      case "regenerate": this.sendFrame({ type: "regenerate", message_id: id }); break;
      case "continue": this.sendFrame({ type: "continue" }); break;
      case "edit": this.startEdit(li, message); break;
      case "delete":
        if (window.confirm(t(root, "confirmDelete", "Delete this message?"))) {
          this.sendFrame({ type: "delete", message_id: id });
        }
        break;
      case "revert":
        if (window.confirm(t(root, "confirmRevert", "Rewind the story to this message? Every later message is deleted."))) {
          this.sendFrame({ type: "revert", message_id: id });
        }
        break;
      case "branch": this.sendFrame({ type: "branch", message_id: id }); break;
      case "show-all": this.fetchWhole(id); break;
      default: break;
    }
  };

  PlayClient.prototype.startEdit = function (li, message) {
    if (!li || !message) return;
    var self = this;
    var root = this.root;
    li.classList.add("is-editing");
    var bubble = li.querySelector(".msg-bubble");
    var form = el("form", "msg-edit");
    var area = el("textarea", "msg-edit-input");
    area.value = message.content;
    area.rows = Math.min(12, Math.max(3, message.content.split("\n").length + 1));
    area.setAttribute("aria-label", t(root, "editLabel", "Edit the message"));
    var save = el("button", "small", t(root, "save", "Save"));
    save.type = "submit";
    var cancel = el("button", "small secondary", t(root, "cancel", "Cancel"));
    cancel.type = "button";
    var row = el("div", "msg-edit-actions");
    row.appendChild(save);
    row.appendChild(cancel);
    var note = el("p", "msg-edit-note", t(root, "editNote", "Editing changes only the words shown; the story's state stays as it is."));
    form.appendChild(area);
    form.appendChild(note);
    form.appendChild(row);
    bubble.replaceChildren(form);
    area.focus();
    function done() {
      li.classList.remove("is-editing");
      self.renderMessages();
    }
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (self.sendFrame({ type: "edit", message_id: message.id, content: area.value })) done();
    });
    cancel.addEventListener("click", done);
  };

  // --- rendering: choices, checkpoints, streaming state ------------------------------------

  PlayClient.prototype.renderChoices = function () {
    var box = this.dom.choices;
    if (!box) return;
    box.replaceChildren();
    var self = this;
    if (this.streamingId !== null) return;
    this.choices.slice(0, 6).forEach(function (choice) {
      if (typeof choice !== "string" || !choice.trim()) return;
      var b = el("button", "choice", choice);
      b.type = "button";
      b.addEventListener("click", function () { self.submitText(choice); });
      box.appendChild(b);
    });
    box.hidden = !box.children.length;
  };

  PlayClient.prototype.renderCheckpoints = function () {
    var list = this.dom.checkpoints;
    if (!list) return;
    var root = this.root;
    var self = this;
    list.replaceChildren();
    if (!this.checkpoints.length) {
      list.appendChild(el("li", "muted", t(root, "noCheckpoints", "No checkpoints yet.")));
      return;
    }
    this.checkpoints.forEach(function (c) {
      var li = el("li", "checkpoint");
      var label = el("span", "checkpoint-name", c.name);
      label.title = c.created_at || "";
      li.appendChild(label);
      li.appendChild(el("span", "muted small", "· " + c.message_count));
      var restore = el("button", "small secondary", t(root, "restore", "Restore"));
      restore.type = "button";
      restore.addEventListener("click", function () {
        if (window.confirm(t(root, "confirmRestore", "Restore this checkpoint? Later messages are replaced."))) {
          self.sendFrame({ type: "checkpoint_restore", checkpoint_id: c.id });
        }
      });
      var remove = el("button", "small linklike", t(root, "delete", "Delete"));
      remove.type = "button";
      remove.addEventListener("click", function () {
        self.sendFrame({ type: "checkpoint_delete", checkpoint_id: c.id });
      });
      li.appendChild(restore);
      li.appendChild(remove);
      list.appendChild(li);
    });
  };

  PlayClient.prototype.setStreaming = function (on) {
    this.root.classList.toggle("is-streaming", !!on);
    if (this.dom.demoNext) this.dom.demoNext.disabled = !!on || this.demoWaiting;
    if (this.dom.stop) this.dom.stop.hidden = !on;
    if (this.dom.send) this.dom.send.hidden = !!on;
  };

  PlayClient.prototype.nearBottom = function () {
    var list = this.dom.list;
    if (!list) return true;
    return list.scrollHeight - list.scrollTop - list.clientHeight < NEAR_BOTTOM_PX;
  };

  PlayClient.prototype.scrollToBottom = function (force) {
    var list = this.dom.list;
    if (!list) return;
    if (force || this.nearBottom()) list.scrollTop = list.scrollHeight;
  };

  // --- rendering: the status panel -----------------------------------------------------------

  PlayClient.prototype.statusItems = function () {
    var variables = {};
    (this.config.variables || []).forEach(function (v) { variables[v.id] = v; });
    var components = this.config.components || [];
    if (components.length) {
      return components.filter(function (c) { return c.variableId && variables[c.variableId]; })
        .map(function (c) {
          var v = variables[c.variableId];
          var props = c.props || {};
          var min = typeof props.min === "number" ? props.min : v.min;
          var max = typeof props.max === "number" ? props.max : v.max;
          var bar = BAR_TYPES[String(c.type).toLowerCase()] && typeof max === "number";
          return {
            id: c.variableId,
            label: c.name || props.label || v.name,
            kind: bar ? "bar" : "text",
            min: typeof min === "number" ? min : 0,
            max: max,
            color: typeof props.color === "string" && SAFE_COLOR.test(props.color) ? props.color : null,
          };
        });
    }
    return (this.config.variables || []).map(function (v) {
      var bar = v.type === "number" && typeof v.max === "number";
      return {
        id: v.id,
        label: v.name,
        kind: bar ? "bar" : v.type === "boolean" ? "flag" : v.type === "json" ? "json" : "text",
        min: typeof v.min === "number" ? v.min : 0,
        max: v.max,
        color: null,
      };
    });
  };

  PlayClient.prototype.renderStatus = function () {
    var box = this.dom.status;
    if (!box) return;
    var items = this.statusItems();
    box.replaceChildren();
    box.hidden = false;
    if (!items.length) {
      // A game-master world shows its character's sheet above (play.status) instead.
      if (this.config.gameMaster) box.hidden = true;
      else box.appendChild(el("p", "muted small", t(this.root, "noVariables", "This world tracks no variables.")));
      return;
    }
    items.forEach(function (item) {
      var row = el("div", "stat stat--" + item.kind);
      row.dataset.variable = item.id;
      var head = el("div", "stat-head");
      head.appendChild(el("span", "stat-name", item.label));
      head.appendChild(el("span", "stat-value", "—"));
      row.appendChild(head);
      if (item.kind === "bar") {
        var bar = el("div", "bar");
        bar.setAttribute("role", "meter");
        bar.setAttribute("aria-label", item.label);
        bar.setAttribute("aria-valuemin", String(item.min));
        bar.setAttribute("aria-valuemax", String(item.max));
        if (item.color) bar.style.setProperty("--bar-color", item.color);
        bar.appendChild(el("div", "bar-fill"));
        row.appendChild(bar);
      }
      row.__item = item;
      box.appendChild(row);
    });
  };

  PlayClient.prototype.updateStatus = function (changed) {
    var box = this.dom.status;
    var shownTurn = this.atTable && this.ownTurn !== undefined ? this.ownTurn : this.turn;
    if (this.dom.turn) this.dom.turn.textContent = String(shownTurn);
    if (!box) return;
    var values = this.values;
    Array.prototype.forEach.call(box.querySelectorAll("[data-variable]"), function (row) {
      var item = row.__item;
      if (!item) return;
      var value = values[item.id];
      var valueNode = row.querySelector(".stat-value");
      if (item.kind === "bar") {
        var n = Number(value);
        var span = item.max - item.min;
        var pct = span > 0 && isFinite(n) ? Math.max(0, Math.min(100, ((n - item.min) / span) * 100)) : 0;
        valueNode.textContent = formatValue(value) + " / " + formatValue(item.max);
        var bar = row.querySelector(".bar");
        bar.setAttribute("aria-valuenow", isFinite(n) ? String(n) : "0");
        bar.querySelector(".bar-fill").style.width = pct.toFixed(1) + "%";
        row.classList.toggle("is-low", pct <= 25);
      } else if (value !== null && typeof value === "object") {
        valueNode.textContent = "";
        var holder = row.querySelector(".stat-json") || row.appendChild(el("div", "stat-json"));
        holder.replaceChildren(renderJson(value, 0));
        row.classList.add("stat--json");
      } else {
        valueNode.textContent = formatValue(value);
        var stale = row.querySelector(".stat-json");
        if (stale) stale.remove();
        row.classList.remove("stat--json");
      }
      if (changed[item.id]) {
        row.classList.remove("is-changed");
        void row.offsetWidth; // restart the flash
        row.classList.add("is-changed");
      }
    });
  };

  // --- a shared table: who plays which character, and whose game is open (play.tables) --------

  PlayClient.prototype.on_players = function (frame) {
    var list = this.root.querySelector("[data-table-players]");
    if (!list || !Array.isArray(frame.players)) return;
    if (!this.atTable) {
      this.atTable = true;
      // At a table every page names a seat by its character, his own messages too (issue 33 §5).
      if (this.config.gameMaster) this.config.playerName = this.config.gameMaster.characterName;
      this.renderMessages();
      if (this.dom.turn && this.ownTurn !== undefined) this.dom.turn.textContent = String(this.ownTurn);
    }
    var root = this.root;
    var gmConfig = this.config.gameMaster || {};
    list.textContent = "";
    frame.players.forEach(function (p) {
      var li = el("li", "table-player" + (p.online ? " is-online" : ""));
      li.setAttribute("data-character", String(p.character || ""));
      var dot = el("span", "presence");
      dot.setAttribute("aria-hidden", "true");
      li.appendChild(dot);
      li.appendChild(el("span", "table-character", String(p.characterName || "")));
      if (p.character && p.character === gmConfig.characterId) {  // the same name on every page
        li.appendChild(el("span", "table-you", " " + t(root, "tableYou", "(you)")));
      }
      li.appendChild(document.createTextNode(" "));
      var who = String(p.player || "") + (p.host ? " · " + t(root, "tableHost", "host") : "");
      li.appendChild(el("span", "muted small", who));
      var state = p.online ? t(root, "tableOnline", "online") : t(root, "tableAway", "away");
      li.appendChild(el("span", "visually-hidden", " " + state));
      if (!p.host) appendRemoveForm(root, li, String(p.character || ""));
      list.appendChild(li);
    });
  };

  // The host's "Remove" beside each other player: a copy of the server's form (play.table_host).
  function appendRemoveForm(root, li, character) {
    var template = root.querySelector("template[data-remove-player-form]");
    if (!template || !template.content) return;
    var form = template.content.firstElementChild.cloneNode(true);
    var input = form.querySelector("input[name=character]");
    if (input) input.value = character;
    li.appendChild(document.createTextNode(" "));
    li.appendChild(form);
    if (window.htmx) window.htmx.process(form);
  }

  // --- game master: the Roll button, the dice breakdown, the place and its ways -----------------
  // The server decides everything (play.gm); these only show it. World text goes in with
  // textContent, never as HTML.

  PlayClient.prototype.on_scene = function (frame) {
    var dom = this.dom;
    this.gmPending = frame.pending || null;
    this.renderGmCheck();
    this.announceScene();
    if (!dom.gmScene) return;
    var root = this.root;
    var place = frame.place || {};
    dom.gmPlace.textContent = String(place.name || "");
    dom.gmPlace.title = t(root, "gmWhere", "Where you are");
    var ways = Array.isArray(frame.ways) ? frame.ways : [];
    dom.gmWays.replaceChildren();
    ways.forEach(function (w) {
      var b = el("button", "play-gm-way" + (w.locked ? " is-locked" : ""), String(w.label || w.direction) + " → " + String(w.name || ""));
      b.type = "button";
      b.dataset.gmClick = "location:" + String(w.to);
      b.title = t(root, "gmWays", "Ways on") + (w.locked ? " (" + t(root, "gmLocked", "locked") + ")" : "");
      dom.gmWays.appendChild(b);
    });
    var points = Array.isArray(frame.points) ? frame.points : [];
    dom.gmPoints.replaceChildren();
    points.forEach(function (p) {
      var b = el("button", "play-gm-point", String(p.name || ""));
      b.type = "button";
      b.dataset.gmClick = "point:" + String(p.id);
      b.title = t(root, "gmLook", "Look at") + " " + String(p.name || "");
      dom.gmPoints.appendChild(b);
    });
    dom.gmScene.hidden = false;
  };

  // The scene changed (a turn, another player's at the table, a rewind): the character's
  // sheet in the Status panel is fetched again (templates/play/partials/chat.html).
  PlayClient.prototype.announceScene = function () {
    document.body.dispatchEvent(new CustomEvent("fabula:scene", {
      detail: { sessionId: this.config.sessionId },
    }));
  };

  PlayClient.prototype["on_check-pending"] = function (frame) {
    this.gmPending = frame;
    this.renderGmCheck();
  };

  PlayClient.prototype["on_roll-result"] = function (frame) {
    this.gmPending = null;
    this.renderGmCheck();
    this.gmRollFresh = true;
    this.renderGmRolls(Array.isArray(frame.rolls) ? frame.rolls : []);
  };

  // A reply starts: the check it answers is gone; the breakdown stays only for its own roll.
  PlayClient.prototype.gmTurnStarted = function () {
    this.gmPending = null;
    this.renderGmCheck();
    if (!this.gmRollFresh && this.dom.gmRolls) this.dom.gmRolls.hidden = true;
    this.gmRollFresh = false;
  };

  PlayClient.prototype.renderGmCheck = function () {
    var dom = this.dom;
    if (!dom.gmCheck) return;
    var p = this.gmPending;
    dom.gmCheck.hidden = !p;
    if (!p) return;
    var root = this.root;
    var parts = [fill(t(root, "gmRollFor", "Roll for {check}"), "check", p.label || p.check || p.verb || "")];
    if (typeof p.dc === "number") parts.push(fill(t(root, "gmDc", "DC {dc}"), "dc", p.dc));
    if (p.target) parts.push(fill(t(root, "gmAgainst", "against {target}"), "target", p.target));
    dom.gmCheckText.textContent = parts.join(" · ");
  };

  PlayClient.prototype.renderGmRolls = function (rolls) {
    var box = this.dom.gmRolls;
    if (!box) return;
    var root = this.root;
    box.replaceChildren();
    rolls.forEach(function (r) {
      var outcome = /^[a-z-]{1,40}$/.test(String(r.outcome)) ? String(r.outcome) : "unknown";
      var line = el("div", "play-gm-roll-line play-gm-roll--" + outcome);
      line.dataset.gmOutcome = outcome;
      line.dataset.gmTotal = String(Number(r.total));
      function add(node) { // spaced, so a screen reader (and textContent) reads words
        if (line.childNodes.length) line.appendChild(document.createTextNode(" "));
        line.appendChild(node);
      }
      add(el("span", "play-gm-roll-label", r.label || r.die));
      var faces = Array.isArray(r.faces) ? r.faces.map(function (f) { return String(Number(f)); }) : [];
      add(el("span", "play-gm-dice", String(r.die || "") + " [" + faces.join(", ") + "]"));
      (Array.isArray(r.modifiers) ? r.modifiers : []).forEach(function (m) {
        var value = Number(m.value) || 0;
        add(el("span", "play-gm-mod", (value < 0 ? "− " : "+ ") + Math.abs(value) + " " + String(m.label || m.source || "")));
      });
      add(el("span", "play-gm-total", "= " + String(Number(r.total))));
      if (typeof r.dc === "number") add(el("span", "play-gm-vs", "vs " + fill(t(root, "gmDc", "DC {dc}"), "dc", r.dc)));
      add(el("strong", "play-gm-outcome", r.outcome_label || outcome));
      box.appendChild(line);
    });
    box.hidden = !rolls.length;
  };

  // A click on a way (go there) or a point (look at it): the engine's board click.
  PlayClient.prototype.onGmClick = function (event) {
    var target = event.target.closest("button[data-gm-click]");
    if (!target || this.streamingId !== null) return;
    this.sendFrame({ type: "action", action_id: "click:" + target.dataset.gmClick });
  };

  // --- toasts ----------------------------------------------------------------------------------

  PlayClient.prototype.toast = function (message, style) {
    var box = this.dom.toasts;
    if (!box || !message) return;
    var kind = TOAST_STYLES[style] ? style : "info";
    if (kind === "success") kind = "achievement";
    if (kind === "error") kind = "danger";
    var node = el("div", "toast toast--" + kind);
    node.setAttribute("role", kind === "danger" || kind === "warning" ? "alert" : "status");
    var icon = { info: "ℹ", achievement: "★", warning: "⚠", danger: "✖" }[kind];
    node.appendChild(el("span", "toast-icon", icon));
    node.appendChild(el("span", "toast-text", String(message)));
    var close = el("button", "toast-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", t(this.root, "dismiss", "Dismiss"));
    close.addEventListener("click", function () { node.remove(); });
    node.appendChild(close);
    box.appendChild(node);
    while (box.children.length > 4) box.firstChild.remove();
    setTimeout(function () {
      node.classList.add("is-leaving");
      setTimeout(function () { node.remove(); }, 400);
    }, TOAST_MS);
  };

  // --- composer ----------------------------------------------------------------------------

  PlayClient.prototype.submitText = function (text) {
    var value = String(text || "").trim();
    if (!value) return;
    if (this.sendFrame({ type: "send", text: value })) {
      this.pendingSend = value;
      this.choices = [];
      this.renderChoices();
      if (this.dom.input && this.dom.input.value.trim() === value) {
        this.dom.input.value = "";
        this.autosize();
        this.saveDraft();
      }
    }
  };

  PlayClient.prototype.confirmPendingSend = function (message) {
    if (!message || this.pendingSend === null) return;
    if (message.content === this.pendingSend) this.pendingSend = null;
  };

  PlayClient.prototype.restoreUnsent = function (frame) {
    if (!frame || frame.type !== "send" || typeof frame.text !== "string") return;
    var input = this.dom.input;
    if (input && !input.value.trim()) {
      input.value = frame.text;
      this.autosize();
      this.saveDraft();
    }
    this.pendingSend = null;
  };

  PlayClient.prototype.autosize = function () {
    var input = this.dom.input;
    if (!input) return;
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 180) + "px";
  };

  PlayClient.prototype.saveDraft = function () {
    try {
      var value = this.dom.input ? this.dom.input.value : "";
      if (value) window.sessionStorage.setItem(this.draftKey, value);
      else window.sessionStorage.removeItem(this.draftKey);
    } catch (e) { /* private mode: drafts just do not survive a reload */ }
  };

  PlayClient.prototype.restoreDraft = function () {
    try {
      var draft = window.sessionStorage.getItem(this.draftKey);
      if (draft && this.dom.input && !this.dom.input.value) {
        this.dom.input.value = draft;
        this.autosize();
      }
    } catch (e) { /* see saveDraft */ }
  };

  // --- audio -----------------------------------------------------------------------------------

  PlayClient.prototype.setupAudio = function () {
    var audioConfig = this.config.audio || {};
    var self = this;
    if (!window.FabulaAudio || !(audioConfig.tracks || []).length) {
      if (this.dom.audioCard) this.dom.audioCard.hidden = true;
      return;
    }
    this.audio = window.FabulaAudio.create(audioConfig, {
      onBlocked: function () { if (self.dom.unlock) self.dom.unlock.hidden = false; },
    });
    if (this.dom.audioCard) this.dom.audioCard.hidden = false;
    Array.prototype.forEach.call(this.root.querySelectorAll("[data-volume]"), function (input) {
      var kind = input.dataset.volume;
      input.value = String(self.audio.getVolume(kind));
      self.on(input, "input", function () { self.audio.setVolume(kind, Number(input.value)); });
    });
    var mute = this.q("[data-mute]");
    if (mute) {
      mute.setAttribute("aria-pressed", String(this.audio.isMuted()));
      this.on(mute, "click", function () {
        self.audio.setMuted(!self.audio.isMuted());
        mute.setAttribute("aria-pressed", String(self.audio.isMuted()));
      });
    }
    var music = this.q("[data-music]");
    if (music) {
      this.on(music, "click", function () {
        self.audio.unlock();
        self.audio.startPlaylist();
      });
    }
    var unlock = function () {
      if (self.audio && self.audio.isBlocked()) self.audio.unlock();
      if (self.dom.unlock) self.dom.unlock.hidden = true;
    };
    if (this.dom.unlock) this.on(this.dom.unlock, "click", unlock);
    this.on(document, "pointerdown", unlock, { passive: true });
    this.on(document, "keydown", unlock);
  };

  // --- custom UI (rootComponent in a sandboxed iframe) ------------------------------------------

  PlayClient.prototype.setupCustomUi = function () {
    var url = this.config.customUiUrl;
    var box = this.dom.custom;
    if (!url || !box || !window.FabulaCustomUiHost) return;
    this.customUi = window.FabulaCustomUiHost.create(this, box, url);
    var self = this;
    this.showCustomUi(true);
    if (this.dom.uiToggle) {
      this.dom.uiToggle.hidden = false;
      this.on(this.dom.uiToggle, "click", function () { self.showCustomUi(!self.customUiShown); });
    }
  };

  PlayClient.prototype.showCustomUi = function (on) {
    this.customUiShown = !!on;
    if (this.dom.custom) this.dom.custom.hidden = !on;
    if (this.dom.chat) this.dom.chat.hidden = !!on;
    if (this.dom.uiToggle) {
      this.dom.uiToggle.setAttribute("aria-pressed", String(!!on));
      this.dom.uiToggle.textContent = on ? t(this.root, "classicChat", "Classic chat")
        : t(this.root, "customUi", "World UI");
    }
    if (!on) this.scrollToBottom(true);
  };

  PlayClient.prototype.notifyCustomUi = function () {
    if (this.customUi) this.customUi.scheduleSnapshot();
  };

  // --- wiring ----------------------------------------------------------------------------------

  PlayClient.prototype.bind = function () {
    var self = this;
    var dom = this.dom;
    if (dom.list) {
      this.on(dom.list, "click", function (e) { self.onToolClick(e); });
      this.on(dom.list, "scroll", function () { self.maybeLoadOlder(); }, { passive: true });
    }
    if (dom.composer) {
      this.on(dom.composer, "submit", function (e) {
        e.preventDefault();
        self.submitText(dom.input.value);
      });
    }
    if (dom.input) {
      this.on(dom.input, "keydown", function (e) {
        if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !window.matchMedia("(pointer: coarse)").matches) {
          e.preventDefault();
          self.submitText(dom.input.value);
        }
      });
      this.on(dom.input, "input", function () {
        self.autosize();
        self.saveDraft();
      });
    }
    if (dom.stop) this.on(dom.stop, "click", function () { self.sendFrame({ type: "stop" }); });
    if (dom.gmRoll) this.on(dom.gmRoll, "click", function () { self.sendFrame({ type: "roll" }); });
    if (dom.demoNext) this.on(dom.demoNext, "click", function () { self.playDemoStep(); });
    if (dom.gmScene) this.on(dom.gmScene, "click", function (e) { self.onGmClick(e); });
    if (dom.checkpointForm) {
      this.on(dom.checkpointForm, "submit", function (e) {
        e.preventDefault();
        var name = dom.checkpointForm.querySelector("input[name=name]");
        if (self.sendFrame({ type: "checkpoint_save", name: name ? name.value.trim() : "" }) && name) {
          name.value = "";
        }
      });
    }
    if (dom.sideToggle && dom.side) {
      this.on(dom.sideToggle, "click", function () { self.toggleSide(); });
      Array.prototype.forEach.call(this.root.querySelectorAll("[data-close-side]"), function (b) {
        self.on(b, "click", function () { self.toggleSide(false); });
      });
    }
    this.on(window, "online", function () { self.reconnectNow(); });
    this.on(document, "visibilitychange", function () {
      if (document.visibilityState === "visible") self.reconnectNow();
    });
    this.on(window, "resize", function () { self.fitHeight(); });
    this.fitHeight();
  };

  PlayClient.prototype.toggleSide = function (force) {
    var open = force === undefined ? !this.root.classList.contains("side-open") : !!force;
    this.root.classList.toggle("side-open", open);
    if (this.dom.sideToggle) this.dom.sideToggle.setAttribute("aria-expanded", String(open));
  };

  PlayClient.prototype.fitHeight = function () {
    if (!this.root.classList.contains("play--page")) return;
    var top = this.root.getBoundingClientRect().top + window.scrollY;
    this.root.style.setProperty("--play-top", Math.max(0, Math.round(top)) + "px");
  };

  // --- boot ------------------------------------------------------------------------------------

  function boot(scope) {
    var roots = [];
    if (scope.matches && scope.matches("[data-play-root]")) roots.push(scope);
    if (scope.querySelectorAll) {
      Array.prototype.push.apply(roots, scope.querySelectorAll("[data-play-root]"));
    }
    roots.forEach(function (root) {
      if (!root.__fabulaPlay) root.__fabulaPlay = new PlayClient(root);
    });
  }

  function teardown(node) {
    if (!node || !node.querySelectorAll) return;
    var roots = [];
    if (node.__fabulaPlay) roots.push(node);
    Array.prototype.push.apply(roots, node.querySelectorAll("[data-play-root]"));
    roots.forEach(function (root) {
      if (root.__fabulaPlay) {
        root.__fabulaPlay.destroy();
        root.__fabulaPlay = null;
      }
    });
  }

  window.FabulaPlay = { boot: boot, teardown: teardown, PlayClient: PlayClient };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { boot(document); });
  } else {
    boot(document);
  }
  document.addEventListener("htmx:load", function (e) { boot(e.target); });
  document.addEventListener("htmx:beforeCleanupElement", function (e) { teardown(e.target); });
})();
