/* Fabula custom UI runtime: compile, load, report (part of static/js/sandbox/main.js).
 *
 * boot() sets the world's globals (window.yumina, the built-ins), locks the window down, tells
 * the host it is ready, compiles the world's files with static/js/compile.js and renders the
 * entry file's default export under an error boundary. Compile and runtime errors of the
 * world's code go to the host as "uiError" (path, line, column), which shows them and, when the
 * UI is gone, falls back to the built-in chat.
 */
import { api } from "./api.js";
import { notify } from "./bridge.js";
import { builtins, word } from "./components.js";
import { lockDown } from "./guards.js";
import { load } from "./loader.js";

var React = window.React;
var ReactDOM = window.ReactDOM;
var h = React.createElement;

function showError(title, detail) {
  var root = document.getElementById("root");
  var box = document.createElement("pre");
  box.className = "fy-error";
  box.textContent = title + (detail ? "\n\n" + detail : "");
  root.replaceChildren(box);
}

var Boundary = function (props) { React.Component.call(this, props); this.state = { error: null }; };
Boundary.prototype = Object.create(React.Component.prototype);
Boundary.prototype.constructor = Boundary;
Boundary.getDerivedStateFromError = function (error) { return { error: error }; };
Boundary.prototype.componentDidCatch = function (error) { reportErrors([locate(error)], true); };
Boundary.prototype.render = function () {
  if (this.state.error) {
    return h("pre", { className: "fy-error" }, word("uiFailed", "The world's UI failed:") + "\n\n" + window.FabulaCompile.format(locate(this.state.error)));
  }
  return this.props.children;
};

// --- compile, load, report ------------------------------------------------------------------

// The world's files arrive as JSON data (play/views/sandbox.py); static/js/compile.js turns
// them into modules here, and they run as one blob: script, which the CSP admits (blob: is
// made only by code already running in this frame, so it opens no way in or out), while
// eval and new Function stay refused as seed 004 says.
var loaded = { url: null, locate: function () { return null; }, entry: "", sources: {} };

function readSources() {
  var node = document.getElementById("fabula-ui-files");
  try {
    var data = JSON.parse(node.textContent);
    return data && typeof data === "object" ? data : {};
  } catch (e) {
    return {};
  }
}

// path:line:column of an error thrown by the world's code: its first stack frame in the bundle.
function locate(error) {
  var message = String((error && error.message) || error);
  var stack = String((error && error.stack) || "");
  var frame = /(blob:[^\s()]+):(\d+):(\d+)/g;
  var match;
  while ((match = frame.exec(stack))) {
    if (match[1] !== loaded.url) continue;
    var at = loaded.locate(Number(match[2]), Number(match[3]));
    if (!at) continue;
    at = window.FabulaCompile.originalPosition(at.path, loaded.sources[at.path], at.line, at.column);
    return { path: at.path, line: at.line, column: at.column, message: message };
  }
  return { path: loaded.entry, line: 0, column: 0, message: message };
}

// The host shows the notice and, when the UI is gone (fatal), the built-in chat instead.
function reportErrors(errors, fatal) {
  var list = errors.slice(0, 20).map(function (e) {
    return { path: String(e.path).slice(0, 300), line: e.line | 0, column: e.column | 0, message: String(e.message).slice(0, 1000) };
  });
  list.forEach(function (e) { console.error("[yumina] " + window.FabulaCompile.format(e)); });
  notify("uiError", [{ errors: list, fatal: !!fatal }]);
}

function fail(title, errors) {
  showError(title, errors.map(window.FabulaCompile.format).join("\n"));
  reportErrors(errors, true);
}

function onUncaught(event) {
  if (!loaded.url || event.filename !== loaded.url) return;
  var error = event.error || { message: event.message, stack: loaded.url + ":" + event.lineno + ":" + event.colno };
  reportErrors([locate(error)], false);
}

function start(entry, warnings) {
  var App;
  try {
    var exported = load(entry);
    App = exported && (exported.default || exported.App);
  } catch (e) {
    fail(word("uiLoadFailed", "The world's UI failed to load:"), [locate(e)].concat(warnings));
    return;
  }
  if (typeof App !== "function") {
    fail(word("uiNoExport", "The entry file '{entry}' has no default export component.", entry),
      [{ path: entry, line: 0, column: 0, message: "no default export component" }]);
    return;
  }
  if (warnings.length) console.warn("[yumina] " + warnings.map(window.FabulaCompile.format).join("\n"));
  ReactDOM.createRoot(document.getElementById("root")).render(h(Boundary, null, h(App)));
}

export function boot() {
  Object.keys(builtins).forEach(function (name) { window[name] = builtins[name]; });
  window.yumina = api;
  var data = readSources();
  var entry = window.FabulaCompile.normalizePath(data.entry || "index.tsx");
  var warnings = Array.isArray(data.errors) ? data.errors : [];
  loaded.entry = entry;
  Object.keys(data.files || {}).forEach(function (path) {
    loaded.sources[window.FabulaCompile.normalizePath(path)] = data.files[path];
  });
  lockDown();
  window.addEventListener("error", onUncaught);
  window.addEventListener("unhandledrejection", function (event) {
    var at = locate(event.reason);
    if (at.line) reportErrors([at], false); // only what the world's own code left unhandled
  });
  notify("ready", []);
  var result = window.FabulaCompile.compile(data.files || {}, { entry: entry });
  if (result.css) {
    var style = document.createElement("style");
    style.textContent = result.css;
    document.head.appendChild(style);
  }
  if (!result.ok) {
    fail(word("uiCompileFailed", "The world's UI does not compile:"), result.errors.concat(warnings));
    return;
  }
  var bundle = window.FabulaCompile.bundle(result.modules);
  loaded.url = URL.createObjectURL(new Blob([bundle.code], { type: "text/javascript" }));
  loaded.locate = bundle.locate;
  var script = document.createElement("script");
  script.src = loaded.url;
  script.onload = function () { start(entry, warnings); };
  script.onerror = function () {
    fail(word("uiLoadFailed", "The world's UI failed to load:"), [{ path: entry, line: 0, column: 0, message: "the compiled script was refused" }]);
  };
  document.head.appendChild(script);
}

