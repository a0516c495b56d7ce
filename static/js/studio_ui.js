/* Fabula studio, custom UI editor (templates/studio/ui.html): code editor, errors, live preview.
 *
 * Everything here is an enhancement of plain forms: without it the source is a textarea that
 * saves by POST, the tree's forms rename/delete/choose the entry, and the preview frame loads.
 *
 * - The open file's textarea becomes a CodeMirror 6 editor (static/vendor/codemirror, built by
 *   `make vendor-codemirror`), kept in sync with the textarea so htmx posts what is typed.
 * - Compile errors: the world's files (the saved ones, with the open file as typed) go through
 *   window.FabulaCompile.compile (static/js/compile.js, the compiler the sandbox uses too) a
 *   moment after each keystroke; each error shows as path:line:column next to its file in the
 *   tree, in the list under the editor, and as a marked line in the editor. Without that
 *   compiler, the editor's own parser still finds syntax errors.
 * - The preview frame (the play sandbox's document for the draft, /play/ui/draft/<world>/) is
 *   answered like the play page's host answers it, but with sample state only: it asks for
 *   nothing of the server, and writes (sendMessage, storage) stay inside the preview. It
 *   reloads after every saved change (htmx's "worldChanged" event) and, as the creator types,
 *   shows the files as typed once they compile (a form posted into the frame: the preview
 *   view checks them like saved ones and saves nothing). Errors it reports at run time join
 *   the list.
 */
(function () {
  "use strict";

  var CM = null;
  // CodeMirror writes its theme into a <style> element; the page's CSP admits it by this
  // script's nonce (the page has no 'unsafe-inline').
  var NONCE = (document.currentScript && document.currentScript.nonce) || "";
  var editor = null;
  var compileErrors = [];
  var runtimeErrors = [];
  var checkTimer = null;
  var previewRound = 0;
  var previewMessages = null;
  var previewStorage = {};
  var reloadAfterSwap = false;
  var livePending = false;

  // The page's data: JSON in a data attribute (escaped like any attribute, never run).
  function readJson(id) {
    var node = document.getElementById(id);
    if (!node) return null;
    try {
      return JSON.parse(node.dataset.json);
    } catch (e) {
      return null;
    }
  }

  function workspace() { return document.querySelector("[data-ui-workspace]"); }

  // --- the code editor ---------------------------------------------------------------------

  function languageFor(path) {
    if (/\.css$/i.test(path)) return CM.css();
    return CM.javascript({ jsx: !/\.ts$/i.test(path), typescript: /\.tsx?$/i.test(path) });
  }

  var setErrorLines = null;
  var errorLines = null;

  function defineErrorLines() {
    setErrorLines = CM.StateEffect.define();
    errorLines = CM.StateField.define({
      create: function () { return CM.Decoration.none; },
      update: function (lines, tr) {
        lines = lines.map(tr.changes);
        tr.effects.forEach(function (effect) { if (effect.is(setErrorLines)) lines = effect.value; });
        return lines;
      },
      provide: function (field) { return CM.EditorView.decorations.from(field); },
    });
  }

  function mountEditor() {
    var textarea = document.querySelector(".ui-code textarea[data-code-editor]");
    if (!CM || !textarea || textarea.dataset.mounted) return;
    textarea.dataset.mounted = "1";
    var box = textarea.closest(".ui-code");
    var form = textarea.form;
    var path = box.dataset.path || "";
    var save = function () {
      if (form) form.requestSubmit();
      return true;
    };
    var view = new CM.EditorView({
      state: CM.EditorState.create({
        doc: textarea.value,
        extensions: [
          CM.lineNumbers(),
          CM.highlightActiveLineGutter(),
          CM.history(),
          CM.drawSelection(),
          CM.indentOnInput(),
          CM.bracketMatching(),
          CM.highlightActiveLine(),
          CM.syntaxHighlighting(CM.defaultHighlightStyle, { fallback: true }),
          languageFor(path),
          CM.lintGutter(),
          errorLines,
          CM.keymap.of([{ key: "Mod-s", run: save, preventDefault: true }, CM.indentWithTab]
            .concat(CM.defaultKeymap, CM.historyKeymap)),
          CM.EditorView.cspNonce.of(NONCE),
          CM.EditorView.contentAttributes.of({ "aria-label": path, "data-ui-editor": "" }),
          CM.EditorView.updateListener.of(function (update) {
            if (!update.docChanged) return;
            textarea.value = update.state.doc.toString();
            var dirty = document.querySelector("[data-ui-dirty]");
            if (dirty) dirty.hidden = false;
            livePending = true;
            scheduleCheck();
          }),
        ],
      }),
    });
    textarea.hidden = true;
    box.appendChild(view.dom);
    editor = { view: view, path: path };
  }

  function unmountEditor() {
    if (editor) editor.view.destroy();
    editor = null;
  }

  // --- compile errors ----------------------------------------------------------------------

  function currentFiles() {
    var files = Object.assign({}, readJson("ui-sources") || {});
    if (editor) files[editor.path] = editor.view.state.doc.toString();
    return files;
  }

  function lineColumn(text, index) {
    var before = text.slice(0, index).split("\n");
    return { line: before.length, column: before[before.length - 1].length + 1 };
  }

  // The editor's own parser (lezer): its first error node in each file. Only a fallback.
  function parseErrors(files) {
    var list = document.querySelector("[data-ui-errors]");
    var message = (list && list.dataset.labelSyntax) || "Syntax error";
    var errors = [];
    Object.keys(files).forEach(function (path) {
      if (!/\.(tsx|ts|jsx|js|mjs|css)$/i.test(path)) return;
      var tree = languageFor(path).language.parser.parse(files[path]);
      var at = -1;
      tree.iterate({
        enter: function (node) {
          if (at >= 0) return false;
          if (node.type.isError) at = node.from;
          return undefined;
        },
      });
      if (at >= 0) errors.push(Object.assign({ path: path, message: message }, lineColumn(files[path], at)));
    });
    return errors;
  }

  function compileAll() {
    var files = currentFiles();
    var ws = workspace();
    var entry = (ws && ws.dataset.entry) || "index.tsx";
    var compiler = window.FabulaCompile;
    if (!Object.keys(files).length) return [];
    if (compiler && typeof compiler.compile === "function") {
      try {
        var result = compiler.compile(files, { entry: entry });
        return (result && (Array.isArray(result) ? result : result.errors)) || [];
      } catch (e) {
        console.warn("[studio] the compiler failed:", e);
      }
    }
    return CM ? parseErrors(files) : [];
  }

  function format(error) {
    var where = error.line ? error.path + ":" + error.line + ":" + error.column : error.path;
    return where + ": " + error.message;
  }

  function scheduleCheck() {
    window.clearTimeout(checkTimer);
    checkTimer = window.setTimeout(check, 350);
  }

  // A good compile of what was typed starts a new preview: the errors the old one reported at
  // run time are stale from then on (they come back if the new one reports them again).
  function check() {
    compileErrors = compileAll();
    var live = livePending && !compileErrors.length;
    livePending = false;
    if (live) runtimeErrors = [];
    show();
    if (live) livePreview();
  }

  function showInTree(all) {
    document.querySelectorAll("[data-error-for]").forEach(function (node) {
      if (node.dataset.server === undefined) node.dataset.server = node.textContent.trim();
      var mine = all.filter(function (e) { return e.path === node.dataset.errorFor; });
      var text = mine.map(format).concat(node.dataset.server ? [node.dataset.server] : []).join("\n");
      node.textContent = text;
      node.closest(".ui-file").classList.toggle("has-error", !!text);
    });
  }

  function showList(all) {
    var list = document.querySelector("[data-ui-errors]");
    if (!list) return;
    var runtime = list.dataset.labelRuntime || "In the preview";
    list.replaceChildren();
    all.forEach(function (error) {
      var item = document.createElement("li");
      item.textContent = (error.runtime ? runtime + " · " : "") + format(error);
      item.className = error.path === (editor && editor.path) ? "here" : "";
      list.appendChild(item);
    });
  }

  function showInEditor(all) {
    if (!editor) return;
    var state = editor.view.state;
    var doc = state.doc;
    var diagnostics = [];
    var lines = [];
    all.forEach(function (error) {
      if (error.path !== editor.path || !error.line || error.line > doc.lines) return;
      var line = doc.line(error.line);
      var from = Math.min(line.from + Math.max(0, (error.column || 1) - 1), line.to);
      diagnostics.push({ from: from, to: Math.min(from + 1, line.to) || from, severity: "error", message: error.message });
      lines.push(line.from);
    });
    lines = lines.filter(function (v, i) { return lines.indexOf(v) === i; }).sort(function (a, b) { return a - b; });
    var deco = CM.Decoration.set(lines.map(function (pos) {
      return CM.Decoration.line({ class: "cm-error-line" }).range(pos);
    }));
    editor.view.dispatch(CM.setDiagnostics(state, diagnostics));
    editor.view.dispatch({ effects: setErrorLines.of(deco) });
  }

  function show() {
    var all = compileErrors.concat(runtimeErrors);
    showInTree(all);
    showList(all);
    showInEditor(all);
  }

  // --- the preview ---------------------------------------------------------------------------

  function frame() { return document.querySelector(".ui-preview-frame"); }

  function sample() {
    var state = readJson("ui-sample-state") || {};
    if (previewMessages) state.messages = previewMessages;
    return state;
  }

  function post(message) {
    var f = frame();
    if (f && f.contentWindow) f.contentWindow.postMessage(Object.assign({ fabula: "host" }, message), "*");
  }

  function reply(id, ok, value) {
    post(ok ? { type: "reply", id: id, ok: true, value: value === undefined ? null : value }
      : { type: "reply", id: id, ok: false, error: value });
  }

  var PREVIEW = {
    ready: function () {
      post({ type: "snapshot", state: sample(), storage: previewStorage });
      return true;
    },
    uiError: function (report) {
      var errors = report && Array.isArray(report.errors) ? report.errors : [];
      runtimeErrors = errors.slice(0, 20).map(function (e) {
        return { path: String(e.path || ""), line: e.line | 0, column: e.column | 0, message: String(e.message || ""), runtime: true };
      });
      show();
      return true;
    },
    sendMessage: function (text) {
      var state = sample();
      previewMessages = (state.messages || []).concat([
        { id: "p" + Date.now(), sessionId: "preview", role: "user", content: String(text).slice(0, 2000), status: "complete", createdAt: "" },
      ]);
      post({ type: "snapshot", state: sample(), storage: previewStorage });
      return true;
    },
    storageSet: function (key, value) {
      previewStorage[String(key).slice(0, 200)] = String(value).slice(0, 10000);
      return true;
    },
    storageRemove: function (key) {
      delete previewStorage[String(key)];
      return true;
    },
  };

  function onFrameMessage(event) {
    var f = frame();
    if (!f || event.source !== f.contentWindow || event.origin !== "null") return;
    var data = event.data;
    if (!data || typeof data !== "object" || data.fabula !== "ui" || typeof data.method !== "string") return;
    var args = Array.isArray(data.args) ? data.args.slice(0, 4) : [];
    if (!Object.prototype.hasOwnProperty.call(PREVIEW, data.method)) {
      reply(data.id, false, data.method + " does nothing in the studio preview");
      return;
    }
    reply(data.id, true, PREVIEW[data.method].apply(null, args));
  }

  // The files as typed, posted into the frame (the preview view checks them, saves nothing).
  function livePreview() {
    var form = document.querySelector("[data-ui-live-form]");
    var f = frame();
    var ws = workspace();
    if (!form || !f || f.hidden || !ws) return;
    form.elements.files.value = JSON.stringify(currentFiles());
    form.elements.entry.value = ws.dataset.entry || "";
    runtimeErrors = [];
    form.submit();
  }

  function reloadPreview() {
    var f = frame();
    if (!f) return;
    var files = readJson("ui-sources") || {};
    var has = Object.keys(files).length > 0;
    var empty = document.querySelector("[data-ui-no-preview]");
    if (empty) empty.hidden = has;
    f.hidden = !has;
    runtimeErrors = [];
    previewMessages = null;
    if (has) {
      previewRound += 1;
      f.src = f.dataset.previewSrc + "?v=" + previewRound;
    }
  }

  // --- wiring -----------------------------------------------------------------------------------

  function start() {
    CM = window.FabulaCodeMirror || null;
    if (CM) defineErrorLines();
    mountEditor();
    check();
    var reload = document.querySelector("[data-ui-reload]");
    if (reload) {
      reload.hidden = false;
      reload.addEventListener("click", reloadPreview);
    }
  }

  window.addEventListener("message", onFrameMessage);
  // Leaving the open file (another file, a tree action) would drop what was typed: ask first.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var dirty = document.querySelector("[data-ui-dirty]:not([hidden])");
    var elt = event.detail.elt;
    if (!dirty || !elt || elt.closest("[data-ui-editor-form]") || !elt.closest("[data-ui-workspace]")) return;
    if (!window.confirm(dirty.dataset.leave || dirty.textContent)) event.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "workspace") unmountEditor();
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (reloadAfterSwap) {
      reloadAfterSwap = false;
      reloadPreview();
    }
    if (!event.detail.target || event.detail.target.id !== "workspace") return;
    mountEditor();
    check();
  });
  // htmx fires it as the response arrives, before the swap brings the saved files' list.
  document.addEventListener("worldChanged", function () { reloadAfterSwap = true; });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
