/* Fabula custom UI runtime: the guarded globals (part of static/js/sandbox/main.js).
 *
 * What the world's code gets instead of the network and the page around it: seed 004's
 * compatibility shims (fetch('/api/…'), localStorage / sessionStorage, navigator.clipboard,
 * location) all go through the host, which answers only what it allows; XMLHttpRequest,
 * WebSocket and EventSource throw. The CSP refuses the network regardless (play/views/sandbox.py),
 * and static/js/sandbox.js has already removed WebRTC, which no CSP directive closes.
 */
import { api, scopedStorage } from "./api.js";
import { call } from "./bridge.js";
import { storageCache } from "./store.js";

// --- storage shims (seed: world-scoped, proxied to the host) ----------------------------------

function makeStorage(scope) {
  var store = scopedStorage(scope);
  function items() { return storageCache[scope] || {}; }
  return {
    getItem: function (k) {
      k = String(k);
      var v = Object.prototype.hasOwnProperty.call(items(), k) ? items()[k] : null;
      return v === null || typeof v === "string" ? v : JSON.stringify(v);
    },
    setItem: function (k, v) { store.set(k, String(v)).catch(function () {}); },
    removeItem: function (k) { store.remove(k).catch(function () {}); },
    clear: function () { store.keys().forEach(function (k) { store.remove(k).catch(function () {}); }); },
    key: function (i) { return store.keys()[i] || null; },
    get length() { return store.keys().length; },
  };
}
export var localShim = makeStorage("world");
export var sessionShim = makeStorage("session");

// Seed 004 "兼容性垫片": fetch('/api/…') goes to the host, which answers the few calls on its
// allowlist (static/js/customui.js apiFetch); anything else is refused here, with no network.
export function shimFetch(input, init) {
  var url = typeof input === "string" ? input : input && input.url;
  init = init || {};
  if (typeof url !== "string" || !/^\/api\//.test(url)) {
    return Promise.reject(new TypeError("fetch is not available in the sandbox (only /api/… calls of seed 004)"));
  }
  var body = null;
  if (typeof init.body === "string") {
    try { body = JSON.parse(init.body); } catch (e) { return Promise.reject(new TypeError("fetch body must be JSON")); }
  }
  var method = String(init.method || "GET").toUpperCase();
  return call("apiFetch", [method, url, body]).then(function (result) {
    return new Response(JSON.stringify(result), { status: 200, headers: { "Content-Type": "application/json" } });
  }, function (err) {
    return new Response(JSON.stringify({ error: err.message }), { status: 403, headers: { "Content-Type": "application/json" } });
  });
}

// navigator.clipboard.writeText → copyToClipboard; the host needs a user gesture for it.
function shimClipboard() {
  var clipboard = { writeText: function (text) { return call("copyToClipboard", [String(text)]).then(function () {}); } };
  try { Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true }); } catch (e) { /* kept */ }
}

export function blocked(name) {
  return function () { throw new Error(name + " is not available in the sandbox"); };
}

export var fakeLocation = Object.freeze({
  href: "about:fabula-ui", pathname: "/", search: "", hash: "",
  assign: function (p) { api.navigate(p); },
  replace: function (p) { api.navigate(p); },
  reload: function () {},
});

// Before the world's code runs: the globals the seed keeps out of the sandbox, and the parent.
export function lockDown() {
  ["XMLHttpRequest", "WebSocket", "EventSource"].forEach(function (name) {
    try { window[name] = blocked(name); } catch (e) { /* not writable here */ }
  });
  try { window.fetch = shimFetch; } catch (e) { /* not writable here */ }
  shimClipboard();
  try { window.parent = undefined; } catch (e) { /* [Replaceable] in every browser we know */ }
  try { window.opener = null; } catch (e) { /* idem */ }
}
