/* Fabula custom UI compiler (seed 004 "自定义 UI (rootComponent)"): the world's TSX/TS/JSX files
 * to CommonJS-style modules, in the browser, with the vendored sucrase
 * (static/vendor/sucrase/sucrase.min.js, loaded first).
 *
 * Why here and not on the server: the same code compiles for the sandbox (play, playtest) and
 * for the studio editor, which shows the errors as the creator types; no Node runs on the
 * server. Sucrase strips types (interfaces, generics, `as`, enums), turns JSX into
 * React.createElement and ES module syntax into require/exports, and keeps every line where it
 * was, so a runtime error's line in the compiled module is the line in the creator's file.
 *
 *   FabulaCompile.compile(files, {entry}) -> {ok, modules: {path: code}, css, errors}
 *     files: {path: source}; errors: [{path, line, column, message}] (1-based line and column;
 *     0/0 when the problem is the file itself, e.g. a missing entry file).
 *     A JSX element closed by another tag's name (<div>…</p>) is an error too: sucrase
 *     does not compare them, Babel and tsc do.
 *   FabulaCompile.format(error) -> "path:line:column: message"
 *   FabulaCompile.bundle(modules) -> {code, locate(line, column) -> {path, line, column} | null}
 *     one script of define(path, factory) calls for static/js/sandbox/loader.js.
 *   FabulaCompile.originalPosition(path, source, line, column) -> {path, line, column}
 *     a position in the compiled module (a runtime error's) as a position in the source.
 *
 * Nothing here runs the creator's code; running it is the sandbox's business (a blob: script
 * under the sandbox page's CSP).
 */
(function () {
  "use strict";

  var CODE = /\.(tsx|ts|jsx|js|mjs)$/;
  // The factory's parameters shadow what seed 004 keeps out of the UI's plain identifiers; the
  // iframe sandbox and the page's CSP enforce the limits for everything else.
  var MODULE_PARAMS = [
    "require", "module", "exports", "fetch", "XMLHttpRequest", "WebSocket", "EventSource",
    "localStorage", "sessionStorage", "parent", "top", "opener", "location",
  ];

  function normalizePath(path) {
    var parts = [];
    String(path).replace(/\\/g, "/").split("/").forEach(function (part) {
      if (part === "" || part === ".") return;
      if (part === "..") parts.pop();
      else parts.push(part);
    });
    return parts.join("/");
  }

  function transformsFor(path) {
    if (/\.tsx$/.test(path)) return ["typescript", "jsx", "imports"];
    if (/\.ts$/.test(path)) return ["typescript", "imports"];
    return ["jsx", "imports"];
  }

  function syntaxError(path, err) {
    var loc = err && err.loc;
    var message = String((err && err.message) || err)
      .replace(/^Error transforming [^:]*: /, "")
      .replace(/ \(\d+:\d+\)$/, "");
    return {
      path: path,
      line: loc && loc.line ? loc.line : 1,
      column: loc && loc.column ? loc.column : 1,
      message: message,
    };
  }

  function lineColumn(source, index) {
    var before = source.slice(0, index).split("\n");
    return { line: before.length, column: before[before.length - 1].length + 1 };
  }

  function jsonModule(path, source) {
    try {
      return { code: "module.exports = " + JSON.stringify(JSON.parse(source)) + ";" };
    } catch (err) {
      var at = /position (\d+)/.exec(String(err.message));
      var where = at ? lineColumn(source, Number(at[1])) : { line: 1, column: 1 };
      var message = String(err.message).replace(/ in JSON at position \d+.*$/, "");
      return { error: { path: path, line: where.line, column: where.column, message: message } };
    }
  }

  function compileOne(path, source) {
    if (!window.sucrase) {
      return { error: { path: path, line: 0, column: 0, message: "the compiler is not loaded" } };
    }
    try {
      var out = window.sucrase.transform(source, {
        transforms: transformsFor(path),
        filePath: path,
        production: true,
        jsxRuntime: "classic",
        disableESTransforms: true,
        // import() stays the browser's: the world's own files are all loaded up front, and a
        // URL is the CSP's to refuse (script-src), not a module name.
        preserveDynamicImport: true,
      });
      var mismatch = /\.ts$/.test(path) ? null : jsxError(path, source);
      return mismatch ? { error: mismatch } : { code: out.code };
    } catch (err) {
      return { error: syntaxError(path, err) };
    }
  }

  // --- JSX tag pairs: sucrase compiles <div>…</p> silently (it never compares the names) ------

  // The names of a JSX element's opening and closing tags must match, as Babel and tsc require.
  // A small scanner over code that sucrase already parsed: it follows strings, comments,
  // templates, regexes and braces, takes "<" as JSX only where an expression starts, and gives
  // up quietly (no error) on anything it does not understand, so it never refuses valid code.
  var JSX_NAME = /[A-Za-z_$][\w$.:-]*/y;
  var KEYWORDS = /^(?:return|typeof|case|yield|await|else|in|of|new|void|delete|throw|default|do)$/;

  function Mismatch(at, message) { this.at = at; this.message = message; }

  function skipString(src, i) {
    var quote = src.charAt(i);
    for (i += 1; i < src.length; i++) {
      var c = src.charAt(i);
      if (c === "\\") i += 1;
      else if (c === quote) return i + 1;
      else if (c === "\n" && quote !== "`") return -1;
      else if (quote === "`" && c === "$" && src.charAt(i + 1) === "{") {
        i = scanCode(src, i + 2, true);
        if (i < 0) return -1;
      }
    }
    return -1;
  }

  function skipRegex(src, i) {
    var inClass = false;
    for (i += 1; i < src.length; i++) {
      var c = src.charAt(i);
      if (c === "\\") i += 1;
      else if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) return i + 1;
      else if (c === "\n") return -1;
    }
    return -1;
  }

  // Code up to the "}" closing the braces it started in (toBrace) or the end; the index after it.
  function scanCode(src, i, toBrace) {
    var depth = 0;
    var value = false; // the last token ends a value: "<" and "/" are operators after it
    while (i < src.length) {
      var c = src.charAt(i);
      var next = src.charAt(i + 1);
      if (/\s/.test(c)) { i += 1; continue; }
      if (c === "/" && next === "/") { i = src.indexOf("\n", i); if (i < 0) return src.length; continue; }
      if (c === "/" && next === "*") { i = src.indexOf("*/", i + 2); if (i < 0) return -1; i += 2; continue; }
      if (c === "'" || c === '"' || c === "`") { i = skipString(src, i); if (i < 0) return -1; value = true; continue; }
      if (c === "/" && !value) { i = skipRegex(src, i); if (i < 0) return -1; value = true; continue; }
      if (c === "<" && !value) {
        var end = parseElement(src, i);
        if (end > 0) { i = end; value = true; continue; }
      }
      if (/[\w$]/.test(c)) {
        var word = /[\w$]+/y;
        word.lastIndex = i;
        var w = word.exec(src)[0];
        i += w.length;
        value = !KEYWORDS.test(w);
        continue;
      }
      if (c === "{" || c === "(" || c === "[") depth += 1;
      if (c === "}" || c === ")" || c === "]") {
        if (depth === 0) return toBrace && c === "}" ? i + 1 : -1;
        depth -= 1;
      }
      value = c === ")" || c === "]" || c === "}";
      i += 1;
    }
    return toBrace ? -1 : i;
  }

  function skipSpace(src, i) {
    while (i < src.length && /\s/.test(src.charAt(i))) i += 1;
    return i;
  }

  function tagName(src, i) {
    JSX_NAME.lastIndex = i;
    var m = JSX_NAME.exec(src);
    return m ? m[0] : "";
  }

  // The element starting at src[i] === "<": the index after it, or -1 when this is no JSX.
  function parseElement(src, i) {
    var name = tagName(src, i + 1);
    if (!name && src.charAt(i + 1) !== ">") return -1;
    var at = skipSpace(src, i + 1 + name.length);
    if (name && /^(,|extends\b)/.test(src.slice(at, at + 8))) return -1; // <T,>() => … in .tsx
    var afterEquals = false;
    while (at < src.length && src.charAt(at) !== ">" && src.slice(at, at + 2) !== "/>") {
      var c = src.charAt(at);
      if (c === "{") at = scanCode(src, at + 1, true);
      else if (c === '"' || c === "'") at = skipString(src, at);
      else if (c === "<" && afterEquals) at = parseElement(src, at); // <a icon=<b /> />
      else if (/[\w$:.-]/.test(c) || c === "=") at += 1;
      else return -1;
      if (at < 0) return -1;
      afterEquals = c === "=";
      at = skipSpace(src, at);
    }
    if (at >= src.length) return -1;
    if (src.charAt(at) === "/") return at + 2;
    return parseChildren(src, at + 1, name, i);
  }

  function parseChildren(src, at, name, start) {
    while (at < src.length) {
      var c = src.charAt(at);
      if (c === "{") {
        at = scanCode(src, at + 1, true);
        if (at < 0) return -1;
      } else if (c === "<" && src.charAt(at + 1) === "/") {
        var close = tagName(src, skipSpace(src, at + 2));
        var end = src.indexOf(">", at);
        if (end < 0) return -1;
        if (close !== name) {
          var open = "<" + name + ">";
          throw new Mismatch(at, "Expected corresponding JSX closing tag for " + open + " (opened at " +
            lineColumn(src, start).line + ":" + lineColumn(src, start).column + "), found </" + close + ">");
        }
        return end + 1;
      } else if (c === "<") {
        at = parseElement(src, at);
        if (at < 0) return -1;
      } else {
        at += 1;
      }
    }
    return -1;
  }

  function jsxError(path, source) {
    try {
      scanCode(source, 0, false);
    } catch (e) {
      if (!(e instanceof Mismatch)) return null;
      var where = lineColumn(source, e.at);
      return { path: path, line: where.line, column: where.column, message: e.message };
    }
    return null;
  }

  function compile(files, options) {
    options = options || {};
    var modules = {};
    var css = [];
    var errors = [];
    Object.keys(files || {}).forEach(function (raw) {
      var path = normalizePath(raw);
      var source = String(files[raw]);
      var result;
      if (/\.css$/.test(path)) {
        css.push("/* " + path + " */\n" + source);
        result = { code: "" };
      } else if (/\.json$/.test(path)) {
        result = jsonModule(path, source);
      } else if (CODE.test(path)) {
        result = compileOne(path, source);
      } else {
        return; // assets and notes: not modules
      }
      if (result.error) errors.push(result.error);
      else modules[path] = result.code;
    });
    var entry = options.entry ? normalizePath(options.entry) : null;
    if (entry && !Object.prototype.hasOwnProperty.call(modules, entry) &&
        !errors.some(function (e) { return e.path === entry; })) {
      errors.push({ path: entry, line: 0, column: 0, message: "the entry file is missing" });
    }
    return { ok: errors.length === 0, modules: modules, css: css.join("\n"), errors: errors };
  }

  // --- runtime positions: compiled line/column -> the creator's (source map, on demand) -----

  var BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  function decodeSegment(text) {
    var values = [];
    var value = 0;
    var shift = 0;
    for (var i = 0; i < text.length; i++) {
      var digit = BASE64.indexOf(text.charAt(i));
      value += (digit & 31) << shift;
      if (digit & 32) { shift += 5; continue; }
      values.push(value & 1 ? -(value >> 1) : value >> 1);
      value = 0;
      shift = 0;
    }
    return values;
  }

  // Sucrase keeps lines, not columns (types go, helpers come): the file is compiled again with
  // a source map only when an error needs its column, so compiling stays as fast as it can be.
  function originalPosition(path, source, line, column) {
    var fallback = { path: path, line: line, column: column };
    if (!window.sucrase || typeof source !== "string" || !CODE.test(path)) return fallback;
    var map;
    try {
      map = window.sucrase.transform(source, {
        transforms: transformsFor(path), filePath: path, production: true, jsxRuntime: "classic",
        disableESTransforms: true, preserveDynamicImport: true,
        sourceMapOptions: { compiledFilename: path },
      }).sourceMap;
    } catch (e) {
      return fallback;
    }
    var state = [0, 0, 0, 0]; // generated column, source, original line, original column
    var best = null;
    var lines = String(map.mappings).split(";");
    for (var l = 0; l < lines.length && l < line; l++) {
      state[0] = 0;
      lines[l].split(",").forEach(function (segment) {
        if (!segment) return;
        var v = decodeSegment(segment);
        for (var k = 0; k < v.length && k < 4; k++) state[k] += v[k];
        if (l === line - 1 && v.length >= 4 && state[0] <= column - 1) {
          best = { path: path, line: state[2] + 1, column: state[3] + 1 };
        }
      });
    }
    return best || fallback;
  }

  function format(error) {
    var where = error.line ? ":" + error.line + ":" + error.column : "";
    return error.path + where + ": " + error.message;
  }

  function bundle(modules) {
    var parts = ["(function (define) {"];
    var ranges = []; // [first line of the module's own code, its line count, path]
    var line = 2;
    Object.keys(modules).forEach(function (path) {
      var code = modules[path];
      var count = code.split("\n").length;
      parts.push("define(" + JSON.stringify(path) + ", function (" + MODULE_PARAMS.join(", ") + ") {");
      ranges.push([line + 1, count, path]);
      parts.push(code);
      parts.push("});");
      line += count + 2;
    });
    parts.push("})(window.FabulaSandbox.define);");
    function locate(at, column) {
      for (var i = 0; i < ranges.length; i++) {
        var r = ranges[i];
        if (at >= r[0] && at < r[0] + r[1]) return { path: r[2], line: at - r[0] + 1, column: column };
      }
      return null;
    }
    return { code: parts.join("\n") + "\n", locate: locate };
  }

  window.FabulaCompile = {
    compile: compile,
    format: format,
    bundle: bundle,
    normalizePath: normalizePath,
    originalPosition: originalPosition,
    MODULE_PARAMS: MODULE_PARAMS,
  };
})();
