/* What every page of Fabula does, whatever else it loads (issue 16 §4).
 *
 * 1. Tell the server the reader's time zone: the fabula_tz cookie, which config/timezones.py
 *    reads to show dates in local time (UTC until the browser has said).
 * 2. Never show a broken portrait: an <img class="face"> that fails to load (its file gone, the
 *    network down) is replaced by the initials it carries in data-initials.
 */
(function () {
  "use strict";

  var COOKIE = "fabula_tz";
  var YEAR_SECONDS = 365 * 24 * 3600;

  function rememberZone() {
    var zone = "";
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (e) {
      return;
    }
    if (!/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone)) return;
    var value = encodeURIComponent(zone);
    var current = document.cookie.match(/(?:^|;\s*)fabula_tz=([^;]*)/);
    if (current && current[1] === value) return;
    document.cookie = COOKIE + "=" + value + "; path=/; max-age=" + YEAR_SECONDS +
      "; samesite=lax" + (location.protocol === "https:" ? "; secure" : "");
  }

  function initialsFor(img) {
    var span = document.createElement("span");
    var hue = parseInt(img.getAttribute("data-hue") || "0", 10) || 0;
    span.className = img.className + " face--initials face--hue-" + (hue % 8);
    span.setAttribute("aria-hidden", "true");
    span.textContent = img.getAttribute("data-initials") || "?";
    return span;
  }

  function replaceBroken(img) {
    if (img && img.tagName === "IMG" && img.classList.contains("face") && img.parentNode) {
      img.parentNode.replaceChild(initialsFor(img), img);
    }
  }

  function sweep(root) {
    var images = (root || document).querySelectorAll("img.face");
    for (var i = 0; i < images.length; i++) {
      var img = images[i];
      if (img.complete && img.naturalWidth === 0) replaceBroken(img);
    }
  }

  rememberZone();
  // Errors do not bubble, so listen in the capture phase; the sweep covers images that failed
  // before this deferred script ran.
  document.addEventListener("error", function (event) { replaceBroken(event.target); }, true);
  sweep(document);
  window.FabulaFaces = { initialsFor: initialsFor, sweep: sweep };
})();
