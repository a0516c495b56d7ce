// Fabula studio: the few behaviours htmx attributes cannot express. Every page works without it.
(function () {
  "use strict";

  // The language switcher submits itself; the <noscript> button covers the no-JS case.
  document.addEventListener("change", function (event) {
    var select = event.target.closest("select[data-autosubmit]");
    if (select && select.form) select.form.requestSubmit();
  });

  // A form marked [data-confirm] asks first (the CSP allows no inline onsubmit handler).
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });

  // Drag and drop reordering. A list marked [data-sortable] lives inside a form whose hx-trigger
  // is "reorder"; each <li> carries a hidden input name="order". Moving the <li> moves its input,
  // so the form posts the new order as is. The up/down buttons are the keyboard fallback.
  var dragged = null;
  var startOrder = "";

  function orderOf(list) {
    return Array.prototype.map
      .call(list.querySelectorAll(":scope > li[data-id]"), function (li) {
        return li.dataset.id;
      })
      .join(",");
  }

  document.addEventListener("dragstart", function (event) {
    var li = event.target.closest && event.target.closest("[data-sortable] > li[data-id]");
    if (!li) return;
    dragged = li;
    startOrder = orderOf(li.parentNode);
    li.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", li.dataset.id);
  });

  document.addEventListener("dragover", function (event) {
    if (!dragged) return;
    var li = event.target.closest && event.target.closest("[data-sortable] > li[data-id]");
    if (!li || li === dragged || li.parentNode !== dragged.parentNode) return;
    event.preventDefault();
    var box = li.getBoundingClientRect();
    var after = event.clientY > box.top + box.height / 2;
    li.parentNode.insertBefore(dragged, after ? li.nextSibling : li);
  });

  document.addEventListener("drop", function (event) {
    if (dragged) event.preventDefault();
  });

  document.addEventListener("dragend", function () {
    if (!dragged) return;
    var list = dragged.parentNode;
    dragged.classList.remove("dragging");
    dragged = null;
    if (orderOf(list) !== startOrder && window.htmx) {
      window.htmx.trigger(list.closest("form"), "reorder");
    }
  });

  // Keep keyboard focus on the moved item after an up/down swap re-renders the list.
  document.addEventListener("htmx:afterSettle", function () {
    var pending = document.body.dataset.refocus;
    if (!pending) return;
    delete document.body.dataset.refocus;
    var button = document.querySelector(pending);
    if (button) button.focus();
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-refocus]");
    if (button) document.body.dataset.refocus = button.dataset.refocus;
  });

  // Rows of the structured editors (templates/studio/forms/*_rows.html): "+ Add" copies the blank
  // row of the list's <template> with the next formset index. Without JS the buttons stay hidden:
  // a blank row is always there, and each save brings a new one.
  function showAddButtons(root) {
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll("[data-rows] button[data-add-row][hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }
  showAddButtons(document);
  document.addEventListener("htmx:load", function (event) {
    showAddButtons(event.target);
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-add-row]");
    var rows = button && button.closest("[data-rows]");
    if (!rows) return;
    var total = rows.querySelector("input[name$='-TOTAL_FORMS']");
    var template = rows.querySelector("template[data-row-template]");
    var list = rows.querySelector("[data-row-list]");
    var index = parseInt(total.value, 10) || 0;
    list.insertAdjacentHTML("beforeend", template.innerHTML.replace(/__prefix__/g, String(index)));
    total.value = String(index + 1);
    var first = list.lastElementChild.querySelector("select, input:not([type=hidden]), textarea");
    if (first) first.focus();
  });
})();
