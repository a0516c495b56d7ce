/* Fabula play client: the composer (send, drafts, unsent text). */

import { PlayClient } from "./play_client.js";

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
