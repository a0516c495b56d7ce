/* Fabula custom UI runtime: useYumina() / window.yumina, seed 004's API (part of
 * static/js/sandbox/main.js).
 *
 * Reads come from the store (the snapshot the host sent); everything that changes something
 * is a request through bridge.js, which the host checks before it becomes a socket frame, a
 * sound, a toast or a navigation. Values leave as JSON only.
 */
import { call, fire, quiet } from "./bridge.js";
import { assetUrl, currentVersion, emit, state, storageCache, subscribe, unsubscribe } from "./store.js";

var React = window.React;
var md = window.FabulaMarkdown;

export var api = {
  sendMessage: function (text) { fire("sendMessage", [String(text)]); },
  editMessage: function (id, content) { return call("editMessage", [Number(id), String(content)]); },
  deleteMessage: function (id) { return call("deleteMessage", [Number(id)]); },
  regenerateMessage: function (id) { fire("regenerateMessage", [id === undefined ? null : Number(id)]); },
  continueLastMessage: function () { fire("continueLastMessage", []); },
  stopGeneration: function () { fire("stopGeneration", []); },
  restartChat: function () { fire("restartChat", []); },
  swipeMessage: function (id, direction) { return call("swipeMessage", [Number(id), direction]); },
  setComposerDraft: function (text) { state.composerDraft = String(text || ""); changed(); },
  clearPendingChoices: function () { state.pendingChoices = []; changed(); },
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
  resolveAssetUrl: assetUrl,
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
  offChange: function (cb) { unsubscribe(cb); },
};
Object.keys(state).forEach(function (key) {
  Object.defineProperty(api, key, { enumerable: true, get: function () { return state[key]; } });
});

// The store changed: re-render useYumina() users, tell onChange listeners.
export function changed() {
  emit(api);
}

// Values go to the host as JSON: undefined, functions and cycles are refused here already.
export function jsonValue(value) {
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
export function scopedStorage(scope) {
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

export function useYumina() {
  React.useSyncExternalStore(subscribe, currentVersion);
  return api;
}
