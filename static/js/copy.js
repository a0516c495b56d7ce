/* A Copy button beside a text to hand on: the shared table's invitation link (issue 33 §5).
 *
 * <button type="button" data-copy="#invite-link" data-copied="Copied"> copies the value of the
 * element its selector names with the clipboard API. Where that API is missing or refused (a
 * page served over plain http, a browser that denies it), the text is selected instead, so the
 * player copies it with the keyboard; "Copied" shows only when a copy was made. One listener on
 * the document, so a link htmx swaps in later works too, and no inline script: the site's CSP
 * allows none.
 */
(function () {
  "use strict";

  var SHOWN_MS = 2000;

  function selectText(field) {
    field.focus();
    if (typeof field.select === "function") field.select();
    if (typeof field.setSelectionRange === "function") field.setSelectionRange(0, field.value.length);
  }

  function copied(button) {
    if (!button.hasAttribute("data-label")) button.setAttribute("data-label", button.textContent);
    button.textContent = button.getAttribute("data-copied") || button.getAttribute("data-label");
    button.classList.add("is-copied");
    window.clearTimeout(button._copyTimer);
    button._copyTimer = window.setTimeout(function () {
      button.textContent = button.getAttribute("data-label");
      button.classList.remove("is-copied");
    }, SHOWN_MS);
  }

  function fallback(button, field) {
    selectText(field);
    var done = false;
    try {
      done = typeof document.execCommand === "function" && document.execCommand("copy");
    } catch (e) {
      done = false;
    }
    if (done) copied(button);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    var field = document.querySelector(button.getAttribute("data-copy"));
    if (!field) return;
    var text = "value" in field ? field.value : field.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { copied(button); },
        function () { fallback(button, field); }
      );
    } else {
      fallback(button, field);
    }
  });
})();
