/* Fabula play client: small DOM and text helpers shared by the play_*.js modules. Whatever
 * comes from the model, the world or another player goes in as text (textContent). */

// --- small DOM helpers ---------------------------------------------------------------------

export function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// 24x24 stroke icons (fixed path data; nothing from the world goes in here).
var ICONS = {
  prev: "M15 6l-6 6 6 6",
  next: "M9 6l6 6-6 6",
  regenerate: "M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6",
  continue: "M5 12h12M13 6l6 6-6 6",
  edit: "M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4",
  delete: "M5 7h14M10 11v6M14 11v6M7 7l1 13h8l1-13M9 7V4h6v3",
  revert: "M9 14L4 9l5-5M4 9h10a6 6 0 0 1 0 12h-3",
  branch: "M6 3v12M18 9a3 3 0 1 0 0-.01M6 21a3 3 0 1 0 0-.01M18 12c0 4-6 3-12 6",
};
var SVG_NS = "http://www.w3.org/2000/svg";

function icon(name) {
  var svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  var path = document.createElementNS(SVG_NS, "path");
  path.setAttribute("d", ICONS[name]);
  svg.appendChild(path);
  return svg;
}

export function button(label, action, opts) {
  opts = opts || {};
  var b = el("button", "msg-tool" + (opts.className ? " " + opts.className : ""));
  if (opts.icon && ICONS[opts.icon]) b.appendChild(icon(opts.icon));
  else b.textContent = opts.text || label;
  b.type = "button";
  b.dataset.action = action;
  b.setAttribute("aria-label", label);
  b.title = label;
  if (opts.disabled) b.disabled = true;
  return b;
}

// A speaker's face (config.faces, from play/faces.py): the 64 px thumbnail, else initials.
// Like templates/studio faces: an image that fails is swapped for initials by site.js.
export function faceOf(info) {
  info = info || {};
  var initials = String(info.initials || "?");
  var hue = (parseInt(info.hue, 10) || 0) % 8;
  if (info.icon && /^(\/|https?:\/\/)/.test(info.icon)) {
    var img = el("img", "face face--sm");
    img.src = info.icon;
    img.alt = "";
    img.width = 28;
    img.height = 28;
    img.setAttribute("data-initials", initials);
    img.setAttribute("data-hue", String(hue));
    return img;
  }
  var span = el("span", "face face--sm face--initials face--hue-" + hue, initials);
  span.setAttribute("aria-hidden", "true");
  return span;
}

export function t(root, key, fallback) {
  var strings = root.__fabulaStrings || {};
  return strings[key] || fallback;
}

export function formatValue(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") {
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
  }
  if (typeof value === "boolean") return value ? "✓" : "✗";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value.map(function (v) { return typeof v === "object" ? JSON.stringify(v) : String(v); })
      .join(", ") || "—";
  }
  try {
    return JSON.stringify(value);
  } catch (e) {
    return String(value);
  }
}

// A JSON variable as a player reads it (issue 33 §4), never raw JSON: an object as a
// definition list, a list as a list, a list of objects as a table; nested values the same
// way, down to JSON_DEPTH. Keys and values go in as text.
var JSON_DEPTH = 4;

function isRecord(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function renderJson(value, depth) {
  if (value === null || value === undefined || typeof value !== "object") {
    return el("span", "json-scalar", formatValue(value));
  }
  var keys = Array.isArray(value) ? null : Object.keys(value);
  if (keys ? !keys.length : !value.length) return el("span", "json-scalar muted", "—");
  if (depth >= JSON_DEPTH) return el("span", "json-scalar muted", "…");
  if (keys) {
    var dl = el("dl", "json-dl");
    keys.forEach(function (key) {
      dl.appendChild(el("dt", null, key));
      var dd = el("dd");
      dd.appendChild(renderJson(value[key], depth + 1));
      dl.appendChild(dd);
    });
    return dl;
  }
  if (value.every(isRecord)) return jsonTable(value, depth);
  var list = el("ul", "json-list");
  value.forEach(function (item) {
    var li = el("li");
    li.appendChild(renderJson(item, depth + 1));
    list.appendChild(li);
  });
  return list;
}

function jsonTable(rows, depth) {
  var has = Object.prototype.hasOwnProperty;
  var columns = [];
  rows.forEach(function (row) {
    Object.keys(row).forEach(function (key) { if (columns.indexOf(key) < 0) columns.push(key); });
  });
  var table = el("table", "json-table");
  var head = el("tr");
  columns.forEach(function (key) {
    var th = el("th", null, key);
    th.scope = "col";
    head.appendChild(th);
  });
  table.appendChild(el("thead")).appendChild(head);
  var body = table.appendChild(el("tbody"));
  rows.forEach(function (row) {
    var tr = body.appendChild(el("tr"));
    columns.forEach(function (key) {
      var td = tr.appendChild(el("td"));
      if (has.call(row, key)) td.appendChild(renderJson(row[key], depth + 1));
    });
  });
  return table;
}

export function appendCaret(body) {
  var last = body.lastElementChild;
  (last && last.tagName === "P" ? last : body).appendChild(el("span", "caret"));
}

// The browser's time zone: a game-master character's daily quota ends at the player's midnight.
export function zoneQuery() {
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone ? "?tz=" + encodeURIComponent(zone) : "";
  } catch (e) {
    return "";
  }
}

// "{key}" in a translated string replaced by a value taken literally (no "$&" patterns).
export function fill(template, key, value) {
  return String(template).replace("{" + key + "}", function () { return String(value); });
}

// What a reply cost (a game-master action: summed over its tool loop), cache reads apart.
export function costLine(root, usage) {
  var line = t(root, "gmCost", "{input} in · {cached} cached · {output} out · ${cost}");
  line = fill(line, "input", Number(usage.input_tokens) || 0);
  line = fill(line, "cached", Number(usage.cache_read_tokens) || 0);
  line = fill(line, "output", Number(usage.output_tokens) || 0);
  return fill(line, "cost", money(usage.cost));
}

// USD: four decimals, six under a cent (a cached turn of a small model costs that little).
export function money(value) {
  var cost = Number(value) || 0;
  return cost >= 0.01 || cost === 0 ? cost.toFixed(4) : cost.toFixed(6);
}

function jsonText(value) {
  try { return JSON.stringify(value, null, 1); } catch (err) { return String(value); }
}

// "What the engine did": the tools the master called and their results. The server sends
// them only to the world's creator (play.gm.shows_engine_trace); all of it goes in as text.
export function engineTrace(root, tools) {
  var box = el("details", "msg-trace");
  box.appendChild(el("summary", null, t(root, "gmEngineDid", "What the engine did")));
  var list = el("ol", "msg-trace-list");
  tools.forEach(function (call) {
    if (!call || typeof call !== "object") return;
    var item = el("li", call.ok ? "trace-ok" : "trace-refused");
    var head = el("p", "trace-head");
    head.appendChild(el("code", "trace-name", call.name));
    if (!call.ok) {
      head.appendChild(el("span", "trace-flag", " " + t(root, "gmToolFailed", "refused") +
        (call.error ? ": " + call.error : "")));
    }
    item.appendChild(head);
    item.appendChild(el("pre", "trace-args", jsonText(call.arguments || {})));
    item.appendChild(el("pre", "trace-result", jsonText(call.result || {})));
    list.appendChild(item);
  });
  box.appendChild(list);
  return box;
}

export function same(a, b) {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch (e) {
    return a === b;
  }
}
