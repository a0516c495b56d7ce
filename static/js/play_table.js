/* Fabula play client: a shared table's seats (play.tables). */

import { PlayClient } from "./play_client.js";
import { el, t } from "./play_dom.js";

// --- a shared table: who plays which character, and whose game is open (play.tables) --------

PlayClient.prototype.on_players = function (frame) {
  var list = this.root.querySelector("[data-table-players]");
  if (!list || !Array.isArray(frame.players)) return;
  if (!this.atTable) {
    this.atTable = true;
    // At a table every page names a seat by its character, his own messages too (issue 33 §5).
    if (this.config.gameMaster) this.config.playerName = this.config.gameMaster.characterName;
    this.renderMessages();
    if (this.dom.turn && this.ownTurn !== undefined) this.dom.turn.textContent = String(this.ownTurn);
  }
  var root = this.root;
  var gmConfig = this.config.gameMaster || {};
  list.textContent = "";
  frame.players.forEach(function (p) {
    var li = el("li", "table-player" + (p.online ? " is-online" : ""));
    li.setAttribute("data-character", String(p.character || ""));
    var dot = el("span", "presence");
    dot.setAttribute("aria-hidden", "true");
    li.appendChild(dot);
    li.appendChild(el("span", "table-character", String(p.characterName || "")));
    if (p.character && p.character === gmConfig.characterId) {  // the same name on every page
      li.appendChild(el("span", "table-you", " " + t(root, "tableYou", "(you)")));
    }
    li.appendChild(document.createTextNode(" "));
    var who = String(p.player || "") + (p.host ? " · " + t(root, "tableHost", "host") : "");
    li.appendChild(el("span", "muted small", who));
    var state = p.online ? t(root, "tableOnline", "online") : t(root, "tableAway", "away");
    li.appendChild(el("span", "visually-hidden", " " + state));
    if (!p.host) appendRemoveForm(root, li, String(p.character || ""));
    list.appendChild(li);
  });
};

// The host's "Remove" beside each other player: a copy of the server's form (play.table_host).
function appendRemoveForm(root, li, character) {
  var template = root.querySelector("template[data-remove-player-form]");
  if (!template || !template.content) return;
  var form = template.content.firstElementChild.cloneNode(true);
  var input = form.querySelector("input[name=character]");
  if (input) input.value = character;
  li.appendChild(document.createTextNode(" "));
  li.appendChild(form);
  if (window.htmx) window.htmx.process(form);
}
