/* Fabula play client: the message list (model, rendering, message tools, editing), the
 * choices, the checkpoints and the streaming state. */

import { PlayClient } from "./play_client.js";
import { el, button, faceOf, t, appendCaret, costLine, engineTrace, same } from "./play_dom.js";

var md = window.FabulaMarkdown;
var NEAR_BOTTOM_PX = 160;

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
