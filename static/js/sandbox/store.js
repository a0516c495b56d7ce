/* Fabula custom UI runtime: the store (part of the sandbox runtime, static/js/sandbox/main.js).
 *
 * What the host page last sent by postMessage (the game state, the UI's storage, the world's
 * asset URLs) and who listens for its changes. Nothing here talks to the host: bridge.js
 * delivers the snapshots, api.js reads them out to the world's code.
 */

export var state = {
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
export var storageCache = { world: {}, session: {} };
var assets = {}; // "@asset:<uid>" -> URL of the world's own assets (resolveAssetUrl)
var listeners = [];
var version = 0;

export function applySnapshot(data) {
  Object.keys(data.state).forEach(function (k) { state[k] = data.state[k]; });
  if (data.storage && typeof data.storage === "object") {
    storageCache.world = data.storage.world || {};
    storageCache.session = data.storage.session || {};
  }
  if (data.assets && typeof data.assets === "object") assets = data.assets;
}

export function assetUrl(ref) {
  ref = String(ref || "");
  return Object.prototype.hasOwnProperty.call(assets, ref) ? assets[ref] : "";
}

// Listeners get `subject` (window.yumina) and the window a "yumina:statechange" event.
export function emit(subject) {
  version += 1;
  listeners.slice().forEach(function (cb) {
    try {
      cb(subject);
    } catch (e) {
      console.error(e);
    }
  });
  try {
    window.dispatchEvent(new CustomEvent("yumina:statechange"));
  } catch (e) { /* old browsers */ }
}

export function subscribe(cb) {
  listeners.push(cb);
  return function () { unsubscribe(cb); };
}

export function unsubscribe(cb) {
  listeners = listeners.filter(function (l) { return l !== cb; });
}

export function currentVersion() {
  return version;
}
