/* Fabula custom UI runtime, its classic part: runs inside <iframe sandbox="allow-scripts"> before
 * anything else of the runtime (seed 004 "自定义 UI").
 *
 * The runtime is ES modules (static/js/sandbox/main.js and its parts). Module scripts run once
 * the page is parsed, but the page's one inline script (the CSP admits it by its hash,
 * play/views/sandbox.py) calls window.FabulaSandbox.boot() where it stands, while it is parsed.
 * So this script answers that call by noting it, and main.js, when it runs, takes
 * window.FabulaSandbox over and boots. Should the modules not load, the host hears a fatal
 * "uiError" and shows its built-in chat instead of an empty frame.
 */
(function () {
  "use strict";

  var host = window.parent; // the runtime's lockDown empties window.parent once it boots

  // WebRTC is the one way out that no CSP directive closes in Chromium: a STUN or TURN server is
  // any host and port, and a TURN username is the page's to choose (issue 9, §3). The seed gives
  // a world's UI no network, so the constructors go now, before any of the world's code runs
  // (this file loads first). There is no other realm to fetch them back from: a frame nested
  // in the sandbox gets an opaque origin of its own, workers are refused by the CSP.
  Object.getOwnPropertyNames(window).forEach(function (name) {
    if (!/^(webkit)?RTC/.test(name)) return;
    try { delete window[name]; } catch (e) { /* not configurable here */ }
    if (window[name]) Object.defineProperty(window, name, { value: undefined });
  });

  var asked = false;
  var waiting = {
    boot: function () { asked = true; },
    bootRequested: function () { return asked; },
  };
  window.FabulaSandbox = waiting;

  // Module scripts have all run before DOMContentLoaded: still waiting means they did not load.
  document.addEventListener("DOMContentLoaded", function () {
    if (window.FabulaSandbox !== waiting) return;
    var error = { path: "(runtime)", line: 0, column: 0, message: "the sandbox runtime did not load" };
    console.error("[yumina] " + error.message);
    host.postMessage({ fabula: "ui", id: 0, method: "uiError", args: [{ errors: [error], fatal: true }] }, "*");
  });
})();
