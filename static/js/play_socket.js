/* Fabula play client: the websocket (connect, reconnect, send) and the server's frames
 * (docs/PROTOCOL.md). */

import { PlayClient } from "./play_client.js";
import { el, t, zoneQuery, fill, money } from "./play_dom.js";

var MAX_BACKOFF_MS = 15000;
var OLDER_AT_PX = 240; // this close to the top, the page before the oldest message loads
var PAGE_SIZE = 50;

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
