/* Fabula play client: the page's wiring (listeners, side panel, height) and its toasts. */

import { PlayClient } from "./play_client.js";
import { el, t } from "./play_dom.js";

var TOAST_MS = 6000;
var TOAST_STYLES = { info: 1, achievement: 1, warning: 1, danger: 1, success: 1, error: 1 };

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
