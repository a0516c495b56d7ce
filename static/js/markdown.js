/* Fabula: a tiny, safe markdown renderer for narration (the subset of play/markdown.py).
 *
 * Escape first, then add our own few tags: paragraphs, line breaks, **bold**, *italic* /
 * _italic_, `code`. Nothing the model or the world writes ever reaches the page as HTML.
 */
(function (global) {
  "use strict";

  var ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

  function escapeHtml(text) {
    return String(text == null ? "" : text).replace(/[&<>"']/g, function (c) {
      return ESCAPES[c];
    });
  }

  // On escaped text only: the replacement inserts fixed tags around already-escaped runs.
  function emphasis(escaped) {
    return escaped
      .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*\*/g, "<strong><em>$1</em></strong>")
      .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
      .replace(/__(?=\S)([\s\S]*?\S)__/g, "<strong>$1</strong>")
      .replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, "<em>$1</em>")
      .replace(/\*(?=[^\s*])([^*\s])\*/g, "<em>$1</em>")
      .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_]|[^\s_])_(?![\w])/g, "$1<em>$2</em>");
  }

  function inline(text) {
    // Code spans first, so nothing inside them is emphasised.
    var parts = String(text).split(/(`[^`\n]+`)/);
    var out = "";
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      if (i % 2 === 1) {
        out += "<code>" + escapeHtml(part.slice(1, -1)) + "</code>";
      } else {
        out += emphasis(escapeHtml(part));
      }
    }
    return out;
  }

  function render(text) {
    var source = String(text == null ? "" : text).replace(/\r\n?/g, "\n").trim();
    if (!source) return "";
    return source
      .split(/\n[ \t]*\n+/)
      .map(function (paragraph) {
        var lines = paragraph.split("\n").map(function (line) {
          return inline(line.replace(/[ \t]+$/, ""));
        });
        return "<p>" + lines.join("<br>\n") + "</p>";
      })
      .join("\n");
  }

  var api = { render: render, escapeHtml: escapeHtml };
  global.FabulaMarkdown = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
