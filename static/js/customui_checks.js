/* Fabula custom UI host: the checks on a call's arguments, the refusal it answers with, the
 * notice of the frame's errors and the clipboard. Part of customui.js. */

export var MAX_TEXT = 20000;
var POSITIONS = ["top", "before_char", "after_char", "auto", "depth", "bottom"];
export var RATE_PER_SECOND = 20;

export function isId(v) { return typeof v === "number" && Number.isInteger(v) && v > 0; }
export function isText(v, max) { return typeof v === "string" && v.length <= max; }
export function isNumber(v, min, max) { return typeof v === "number" && isFinite(v) && v >= min && v <= max; }

export function Refused(message) { this.message = message; }

export function isUiError(e) {
  return e && typeof e === "object" && isText(e.path, 300) && isText(e.message, 1000) &&
    Number.isInteger(e.line) && e.line >= 0 && Number.isInteger(e.column) && e.column >= 0;
}

// One notice above the story, replaced by each report; textContent only (the frame's words).
export function showUiErrors(client, box, errors, fatal) {
  var notice = box.parentNode && box.parentNode.querySelector("[data-ui-errors]");
  if (!notice) {
    notice = document.createElement("div");
    notice.className = "panel warn";
    notice.setAttribute("role", "alert");
    notice.setAttribute("data-ui-errors", "");
    box.parentNode.insertBefore(notice, box);
  }
  var strings = client.config.strings || {};
  var title = document.createElement("p");
  title.textContent = fatal ? strings.customUiBroken || "The world's UI has an error; the classic chat is shown."
    : strings.customUiError || "The world's UI reported an error:";
  var list = document.createElement("pre");
  list.textContent = errors.slice(0, 5).map(function (e) {
    return e.path + (e.line ? ":" + e.line + ":" + e.column : "") + ": " + e.message;
  }).join("\n");
  var close = document.createElement("button");
  close.type = "button";
  close.className = "small";
  close.textContent = "×";
  close.setAttribute("aria-label", strings.dismiss || "Dismiss");
  close.addEventListener("click", function () { notice.remove(); });
  notice.replaceChildren(title, list, close);
}

export function isJson(v, max) {
  try {
    var text = JSON.stringify(v);
    return typeof text === "string" && text.length <= max;
  } catch (e) {
    return false;
  }
}

export function contextFrame(text, opts) {
  var out = { type: "inject_context", text: text, role: opts.role === "user" ? "user" : "system" };
  if (opts.position !== undefined) {
    if (POSITIONS.indexOf(opts.position) < 0) throw new Refused("injectContext: position must be one of " + POSITIONS.join(", "));
    out.position = opts.position;
  }
  ["duration", "depth"].forEach(function (name) {
    if (opts[name] === undefined) return;
    if (!Number.isInteger(opts[name]) || opts[name] < (name === "depth" ? 0 : 1) || opts[name] > 1000) {
      throw new Refused("injectContext: " + name + " must be a whole number up to 1000");
    }
    out[name] = opts[name];
  });
  return out;
}

function legacyCopy(text) {
  var area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("style", "position:fixed;opacity:0;top:0;left:0");
  document.body.appendChild(area);
  area.select();
  var ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { /* refused */ }
  area.remove();
  if (!ok) throw new Refused("the browser refused the copy");
  return true;
}

export function copyText(text) {
  if (!navigator.clipboard || !navigator.clipboard.writeText) return legacyCopy(text);
  return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return legacyCopy(text); });
}
