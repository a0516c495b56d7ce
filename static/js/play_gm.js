/* Fabula play client: the side panels of the game: the Status panel, the game master's scene,
 * check and dice breakdown, and a replayed demo's bar. */

import { PlayClient } from "./play_client.js";
import { el, t, formatValue, renderJson, fill } from "./play_dom.js";

var BAR_TYPES = {
  "status-bar": 1, "stat-bar": 1, bar: 1, progress: 1, "progress-bar": 1, gauge: 1,
  "health-bar": 1, meter: 1,
};
var SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]{3,20}|(rgb|hsl)a?\([0-9.,%\s]+\))$/i;

// --- a replayed demo: the server plays its next step (play.demos) ------------------------

PlayClient.prototype.renderDemo = function () {
  var demo = this.demo;
  if (!demo || !this.dom.demoBar) return;
  var steps = Array.isArray(demo.steps) ? demo.steps : [];
  var played = Number(demo.played) || 0;
  var text = this.dom.demoText;
  var next = this.dom.demoNext;
  if (played >= steps.length) {
    text.textContent = t(this.root, "demoOver", "The demo is over. You can keep playing from here.");
    next.hidden = true;
    return;
  }
  var step = steps[played] || {};
  var label = step.text || (step.action === "roll" ? t(this.root, "demoRoll", "Roll the dice")
    : step.kind === "continue" ? t(this.root, "continue", "Continue")
    : step.kind === "regenerate" ? t(this.root, "regenerate", "Regenerate")
    : t(this.root, "demoClick", "A click on the board"));
  var head = fill(fill(t(this.root, "demoStep", "Demo · step {n} of {total}"), "n", played + 1), "total", steps.length);
  text.textContent = head + ": “" + label + "”";
  next.hidden = false;
  next.disabled = this.demoWaiting || this.streamingId !== null;
};

PlayClient.prototype.playDemoStep = function () {
  if (this.demoWaiting || this.streamingId !== null) return;
  if (this.sendFrame({ type: "demo_step" })) {
    this.demoWaiting = true;
    this.renderDemo();
  }
};

PlayClient.prototype.on_demo = function (frame) {
  if (!this.demo) return;
  this.demo.played = Number(frame.played) || 0;
  this.demoWaiting = false;
  this.renderDemo();
};

// --- rendering: the status panel -----------------------------------------------------------

PlayClient.prototype.statusItems = function () {
  var variables = {};
  (this.config.variables || []).forEach(function (v) { variables[v.id] = v; });
  var components = this.config.components || [];
  if (components.length) {
    return components.filter(function (c) { return c.variableId && variables[c.variableId]; })
      .map(function (c) {
        var v = variables[c.variableId];
        var props = c.props || {};
        var min = typeof props.min === "number" ? props.min : v.min;
        var max = typeof props.max === "number" ? props.max : v.max;
        var bar = BAR_TYPES[String(c.type).toLowerCase()] && typeof max === "number";
        return {
          id: c.variableId,
          label: c.name || props.label || v.name,
          kind: bar ? "bar" : "text",
          min: typeof min === "number" ? min : 0,
          max: max,
          color: typeof props.color === "string" && SAFE_COLOR.test(props.color) ? props.color : null,
        };
      });
  }
  return (this.config.variables || []).map(function (v) {
    var bar = v.type === "number" && typeof v.max === "number";
    return {
      id: v.id,
      label: v.name,
      kind: bar ? "bar" : v.type === "boolean" ? "flag" : v.type === "json" ? "json" : "text",
      min: typeof v.min === "number" ? v.min : 0,
      max: v.max,
      color: null,
    };
  });
};

PlayClient.prototype.renderStatus = function () {
  var box = this.dom.status;
  if (!box) return;
  var items = this.statusItems();
  box.replaceChildren();
  box.hidden = false;
  if (!items.length) {
    // A game-master world shows its character's sheet above (play.status) instead.
    if (this.config.gameMaster) box.hidden = true;
    else box.appendChild(el("p", "muted small", t(this.root, "noVariables", "This world tracks no variables.")));
    return;
  }
  items.forEach(function (item) {
    var row = el("div", "stat stat--" + item.kind);
    row.dataset.variable = item.id;
    var head = el("div", "stat-head");
    head.appendChild(el("span", "stat-name", item.label));
    head.appendChild(el("span", "stat-value", "—"));
    row.appendChild(head);
    if (item.kind === "bar") {
      var bar = el("div", "bar");
      bar.setAttribute("role", "meter");
      bar.setAttribute("aria-label", item.label);
      bar.setAttribute("aria-valuemin", String(item.min));
      bar.setAttribute("aria-valuemax", String(item.max));
      if (item.color) bar.style.setProperty("--bar-color", item.color);
      bar.appendChild(el("div", "bar-fill"));
      row.appendChild(bar);
    }
    row.__item = item;
    box.appendChild(row);
  });
};

PlayClient.prototype.updateStatus = function (changed) {
  var box = this.dom.status;
  var shownTurn = this.atTable && this.ownTurn !== undefined ? this.ownTurn : this.turn;
  if (this.dom.turn) this.dom.turn.textContent = String(shownTurn);
  if (!box) return;
  var values = this.values;
  Array.prototype.forEach.call(box.querySelectorAll("[data-variable]"), function (row) {
    var item = row.__item;
    if (!item) return;
    var value = values[item.id];
    var valueNode = row.querySelector(".stat-value");
    if (item.kind === "bar") {
      var n = Number(value);
      var span = item.max - item.min;
      var pct = span > 0 && isFinite(n) ? Math.max(0, Math.min(100, ((n - item.min) / span) * 100)) : 0;
      valueNode.textContent = formatValue(value) + " / " + formatValue(item.max);
      var bar = row.querySelector(".bar");
      bar.setAttribute("aria-valuenow", isFinite(n) ? String(n) : "0");
      bar.querySelector(".bar-fill").style.width = pct.toFixed(1) + "%";
      row.classList.toggle("is-low", pct <= 25);
    } else if (value !== null && typeof value === "object") {
      valueNode.textContent = "";
      var holder = row.querySelector(".stat-json") || row.appendChild(el("div", "stat-json"));
      holder.replaceChildren(renderJson(value, 0));
      row.classList.add("stat--json");
    } else {
      valueNode.textContent = formatValue(value);
      var stale = row.querySelector(".stat-json");
      if (stale) stale.remove();
      row.classList.remove("stat--json");
    }
    if (changed[item.id]) {
      row.classList.remove("is-changed");
      void row.offsetWidth; // restart the flash
      row.classList.add("is-changed");
    }
  });
};

// --- game master: the Roll button, the dice breakdown, the place and its ways -----------------
// The server decides everything (play.gm); these only show it. World text goes in with
// textContent, never as HTML.

PlayClient.prototype.on_scene = function (frame) {
  var dom = this.dom;
  this.gmPending = frame.pending || null;
  this.renderGmCheck();
  this.announceScene();
  if (!dom.gmScene) return;
  var root = this.root;
  var place = frame.place || {};
  dom.gmPlace.textContent = String(place.name || "");
  dom.gmPlace.title = t(root, "gmWhere", "Where you are");
  var ways = Array.isArray(frame.ways) ? frame.ways : [];
  dom.gmWays.replaceChildren();
  ways.forEach(function (w) {
    var b = el("button", "play-gm-way" + (w.locked ? " is-locked" : ""), String(w.label || w.direction) + " → " + String(w.name || ""));
    b.type = "button";
    b.dataset.gmClick = "location:" + String(w.to);
    b.title = t(root, "gmWays", "Ways on") + (w.locked ? " (" + t(root, "gmLocked", "locked") + ")" : "");
    dom.gmWays.appendChild(b);
  });
  var points = Array.isArray(frame.points) ? frame.points : [];
  dom.gmPoints.replaceChildren();
  points.forEach(function (p) {
    var b = el("button", "play-gm-point", String(p.name || ""));
    b.type = "button";
    b.dataset.gmClick = "point:" + String(p.id);
    b.title = t(root, "gmLook", "Look at") + " " + String(p.name || "");
    dom.gmPoints.appendChild(b);
  });
  dom.gmScene.hidden = false;
};

// The scene changed (a turn, another player's at the table, a rewind): the character's
// sheet in the Status panel is fetched again (templates/play/partials/chat.html).
PlayClient.prototype.announceScene = function () {
  document.body.dispatchEvent(new CustomEvent("fabula:scene", {
    detail: { sessionId: this.config.sessionId },
  }));
};

PlayClient.prototype["on_check-pending"] = function (frame) {
  this.gmPending = frame;
  this.renderGmCheck();
};

PlayClient.prototype["on_roll-result"] = function (frame) {
  this.gmPending = null;
  this.renderGmCheck();
  this.gmRollFresh = true;
  this.renderGmRolls(Array.isArray(frame.rolls) ? frame.rolls : []);
};

// A reply starts: the check it answers is gone; the breakdown stays only for its own roll.
PlayClient.prototype.gmTurnStarted = function () {
  this.gmPending = null;
  this.renderGmCheck();
  if (!this.gmRollFresh && this.dom.gmRolls) this.dom.gmRolls.hidden = true;
  this.gmRollFresh = false;
};

PlayClient.prototype.renderGmCheck = function () {
  var dom = this.dom;
  if (!dom.gmCheck) return;
  var p = this.gmPending;
  dom.gmCheck.hidden = !p;
  if (!p) return;
  var root = this.root;
  var parts = [fill(t(root, "gmRollFor", "Roll for {check}"), "check", p.label || p.check || p.verb || "")];
  if (typeof p.dc === "number") parts.push(fill(t(root, "gmDc", "DC {dc}"), "dc", p.dc));
  if (p.target) parts.push(fill(t(root, "gmAgainst", "against {target}"), "target", p.target));
  dom.gmCheckText.textContent = parts.join(" · ");
};

PlayClient.prototype.renderGmRolls = function (rolls) {
  var box = this.dom.gmRolls;
  if (!box) return;
  var root = this.root;
  box.replaceChildren();
  rolls.forEach(function (r) {
    var outcome = /^[a-z-]{1,40}$/.test(String(r.outcome)) ? String(r.outcome) : "unknown";
    var line = el("div", "play-gm-roll-line play-gm-roll--" + outcome);
    line.dataset.gmOutcome = outcome;
    line.dataset.gmTotal = String(Number(r.total));
    function add(node) { // spaced, so a screen reader (and textContent) reads words
      if (line.childNodes.length) line.appendChild(document.createTextNode(" "));
      line.appendChild(node);
    }
    add(el("span", "play-gm-roll-label", r.label || r.die));
    var faces = Array.isArray(r.faces) ? r.faces.map(function (f) { return String(Number(f)); }) : [];
    add(el("span", "play-gm-dice", String(r.die || "") + " [" + faces.join(", ") + "]"));
    (Array.isArray(r.modifiers) ? r.modifiers : []).forEach(function (m) {
      var value = Number(m.value) || 0;
      add(el("span", "play-gm-mod", (value < 0 ? "− " : "+ ") + Math.abs(value) + " " + String(m.label || m.source || "")));
    });
    add(el("span", "play-gm-total", "= " + String(Number(r.total))));
    if (typeof r.dc === "number") add(el("span", "play-gm-vs", "vs " + fill(t(root, "gmDc", "DC {dc}"), "dc", r.dc)));
    add(el("strong", "play-gm-outcome", r.outcome_label || outcome));
    box.appendChild(line);
  });
  box.hidden = !rolls.length;
};

// A click on a way (go there) or a point (look at it): the engine's board click.
PlayClient.prototype.onGmClick = function (event) {
  var target = event.target.closest("button[data-gm-click]");
  if (!target || this.streamingId !== null) return;
  this.sendFrame({ type: "action", action_id: "click:" + target.dataset.gmClick });
};
