/* Fabula custom UI runtime: runs inside <iframe sandbox="allow-scripts"> (seed 004 "自定义 UI").
 *
 * Compiles the world's rootComponent files (static/js/compile.js), loads them as modules,
 * renders the entry file's default export with React 18, and gives it useYumina() /
 * window.yumina: the game state the host page sends by postMessage, and methods that post
 * small RPC requests back. The host validates every request; nothing here is trusted by it.
 * Built-ins in scope: Chat, MessageList, MessageInput, ChatCanvas, ModelPickerModal,
 * ModelTrigger, Icons, useAssetFont, useYumina, React.
 *
 * ES modules, no bundler, one concern each: store.js (the snapshot and its listeners),
 * bridge.js (the messages to and from the host), api.js (useYumina / window.yumina), guards.js
 * (the shims and blocked globals), components.js (the built-ins), loader.js (require() for the
 * world's modules), boot.js (compile, load, report). Being modules, they share nothing through
 * window that the world's code could swap out. The frame's origin is opaque, so fetching a
 * module is a cross-origin (CORS) request: play/views/sandbox.py serves these files with
 * Access-Control-Allow-Origin: * and names each in the page's CSP; the page preloads them side
 * by side. static/js/sandbox.js, a classic script, runs first: it removes WebRTC and holds the
 * page's boot() call until this entry takes window.FabulaSandbox over.
 */
import { changed } from "./api.js";
import { boot } from "./boot.js";
import { listen } from "./bridge.js";
import { define } from "./loader.js";
import { applySnapshot } from "./store.js";

listen(function (data) {
  applySnapshot(data);
  changed();
});

var booted = false;

function bootOnce() {
  if (booted) return;
  booted = true;
  boot();
}

var early = window.FabulaSandbox;
window.FabulaSandbox = { define: define, boot: bootOnce };
if (early && typeof early.bootRequested === "function" && early.bootRequested()) bootOnce();
