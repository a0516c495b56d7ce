/* Fabula audio engine: the conditions of conditional BGM and keyword triggers, checked with the
 * engine's own operators (engine/conditions.py) against the `state` frames. Part of audio.js. */

// --- conditions: the engine's rules (engine/conditions.py), in JS -----------------------

function toNumber(value) {
  if (typeof value === "boolean" || value === null || value === undefined) return null;
  if (typeof value === "number") return isNaN(value) ? null : value;
  if (typeof value === "string" && value.trim() !== "") {
    var n = Number(value.trim());
    return isNaN(n) ? null : n;
  }
  return null;
}

function toBoolean(value) {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    var v = value.trim().toLowerCase();
    if (v === "true" || v === "false") return v === "true";
  }
  return null;
}

function equal(actual, expected) {
  if (typeof actual === "boolean" || typeof expected === "boolean") {
    var a = toBoolean(actual), b = toBoolean(expected);
    return a !== null && a === b;
  }
  if (typeof actual === "string" && typeof expected === "string") return actual === expected;
  var an = toNumber(actual), bn = toNumber(expected);
  if (an !== null && bn !== null) return an === bn;
  if (actual === expected) return true;
  if (actual && expected && typeof actual === "object" && typeof expected === "object") {
    return JSON.stringify(actual) === JSON.stringify(expected);
  }
  return false;
}

function contains(actual, expected) {
  if (typeof actual === "string") {
    var needle = typeof expected === "string" ? expected : JSON.stringify(expected);
    return actual.toLowerCase().indexOf(String(needle).toLowerCase()) !== -1;
  }
  if (Array.isArray(actual)) return actual.some(function (item) { return equal(item, expected); });
  if (actual && typeof actual === "object") {
    return Object.prototype.hasOwnProperty.call(actual, String(expected));
  }
  return false;
}

export function checkCondition(cond, values) {
  if (!cond || typeof cond !== "object") return false;
  var id = cond.variableId !== undefined ? cond.variableId : cond.variable_id;
  var actual = values ? values[id] : undefined;
  var expected = cond.value;
  switch (cond.operator) {
    case "eq": return equal(actual, expected);
    case "neq": return !equal(actual, expected);
    case "gt": case "lt": case "gte": case "lte": {
      var a = toNumber(actual), b = toNumber(expected);
      if (a === null || b === null) return false;
      if (cond.operator === "gt") return a > b;
      if (cond.operator === "lt") return a < b;
      if (cond.operator === "gte") return a >= b;
      return a <= b;
    }
    case "contains": return contains(actual, expected);
    default: return false;
  }
}

export function checkConditions(conditions, logic, values) {
  if (!conditions || !conditions.length) return true;
  if (logic === "any") return conditions.some(function (c) { return checkCondition(c, values); });
  return conditions.every(function (c) { return checkCondition(c, values); });
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function matchesKeywords(text, keywords, wholeWords) {
  var haystack = String(text || "").toLowerCase();
  return (keywords || []).some(function (keyword) {
    var k = String(keyword || "").trim().toLowerCase();
    if (!k) return false;
    if (!wholeWords) return haystack.indexOf(k) !== -1;
    return new RegExp("(^|[^\\p{L}\\p{N}_])" + escapeRegExp(k) + "(?=$|[^\\p{L}\\p{N}_])", "u")
      .test(haystack);
  });
}

export function clamp01(value) {
  var n = Number(value);
  if (!isFinite(n)) return 0;
  return Math.max(0, Math.min(1, n));
}
