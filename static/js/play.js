/* Fabula play client: the websocket chat of /ws/play/<session_id>/ (docs/PROTOCOL.md).
 *
 * Vanilla JS, no build step. One PlayClient per [data-play-root] element (the play page, or the
 * studio's playtest panel, swapped in by htmx). Everything that comes from the model, the world
 * or another player is inserted with textContent, or through FabulaMarkdown.render, which
 * escapes before it adds its own few tags.
 *
 * An ES module (templates/play/partials/assets.html), no bundler. The client is split by
 * concern: play_client.js (the PlayClient and its state), play_socket.js (the websocket and
 * its frames), play_messages.js (the message list, choices, checkpoints), play_composer.js,
 * play_gm.js (the Status panel, the game master's scene, check and dice, a demo's bar),
 * play_table.js (a shared table's seats), play_hooks.js (audio.js and customui.js),
 * play_page.js (the page's wiring and its toasts), play_dom.js (small helpers).
 */
import { PlayClient } from "./play_client.js";
import "./play_socket.js";
import "./play_messages.js";
import "./play_gm.js";
import "./play_table.js";
import "./play_composer.js";
import "./play_hooks.js";
import "./play_page.js";

// --- boot ------------------------------------------------------------------------------------

function boot(scope) {
  var roots = [];
  if (scope.matches && scope.matches("[data-play-root]")) roots.push(scope);
  if (scope.querySelectorAll) {
    Array.prototype.push.apply(roots, scope.querySelectorAll("[data-play-root]"));
  }
  roots.forEach(function (root) {
    if (!root.__fabulaPlay) root.__fabulaPlay = new PlayClient(root);
  });
}

function teardown(node) {
  if (!node || !node.querySelectorAll) return;
  var roots = [];
  if (node.__fabulaPlay) roots.push(node);
  Array.prototype.push.apply(roots, node.querySelectorAll("[data-play-root]"));
  roots.forEach(function (root) {
    if (root.__fabulaPlay) {
      root.__fabulaPlay.destroy();
      root.__fabulaPlay = null;
    }
  });
}

// A module runs once per page: an htmx swap that brings the script tag again boots through the
// htmx:load listener below.
if (window.FabulaPlay) {
  window.FabulaPlay.boot(document);
} else {
  window.FabulaPlay = { boot: boot, teardown: teardown, PlayClient: PlayClient };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { boot(document); });
  } else {
    boot(document);
  }
  document.addEventListener("htmx:load", function (e) { boot(e.target); });
  document.addEventListener("htmx:beforeCleanupElement", function (e) { teardown(e.target); });
}
