/* Fabula custom UI host: the server side of the UI's API (play/views/ui.py over fetch, the play
 * socket's set_variable / inject_context frames) and the world's assets inlined for the frame.
 * Part of customui.js. */
import { Refused } from "./customui_checks.js";

// The play socket's frames a UI call becomes; their ui_done / error / busy settle the call.
var UI_FRAMES = { set_variable: true, inject_context: true };

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
export function uiApi(client) {
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
