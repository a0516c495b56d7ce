/* Fabula play client: the hooks into audio.js (FabulaAudio) and customui.js
 * (FabulaCustomUiHost). */

import { PlayClient } from "./play_client.js";
import { t } from "./play_dom.js";

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
