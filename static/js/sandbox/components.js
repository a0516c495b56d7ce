/* Fabula custom UI runtime: the built-in components (part of static/js/sandbox/main.js).
 *
 * Chat, MessageList, MessageInput, ChatCanvas, ModelPickerModal, ModelTrigger: what a world's
 * UI may import from "yumina" (or find as globals) to keep the play page's chat inside its own
 * layout. They render the store's messages with React 18 and act through api.js.
 */
import { api, useYumina } from "./api.js";
import { state } from "./store.js";

var React = window.React;
var md = window.FabulaMarkdown;
var h = React.createElement;

function bubbleProps(m, index) {
  var content = m.status === "streaming" ? state.streamingContent : m.content;
  return {
    contentHtml: md.render(content),
    content: content,
    rawContent: content,
    role: m.role,
    messageIndex: index,
    isStreaming: m.status === "streaming",
    stateSnapshot: m.stateSnapshot || null,
    variables: state.variables,
    renderMarkdown: md.render,
  };
}

function DefaultBubble(props) {
  // md.render escapes first, so this HTML holds only its own <p>/<em>/<strong>/<code>/<br>.
  return h("div", {
    className: "fy-msg fy-msg--" + props.role,
    dangerouslySetInnerHTML: { __html: props.contentHtml || "&nbsp;" },
  });
}

function MessageList(props) {
  useYumina();
  var render = props && typeof props.renderBubble === "function" ? props.renderBubble : null;
  var ref = React.useRef(null);
  React.useEffect(function () {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  });
  return h("ol", { className: "fy-list" + (props && props.className ? " " + props.className : ""), ref: ref },
    state.messages.map(function (m, i) {
      var bp = bubbleProps(m, i);
      var last = i === state.messages.length - 1;
      return h("li", { key: m.id, "data-message-id": m.id }, render ? render(bp) : h(DefaultBubble, bp),
        last ? h(Swipes, { message: m, index: i }) : null);
    }));
}

// The play page's swipes, on the last reply (not the greeting): "›" past the last version
// writes a new one, as there.
function Swipes(props) {
  var m = props.message;
  if (m.role !== "assistant" || props.index === 0 || m.status === "streaming" || state.isStreaming) return null;
  var count = Math.max(1, (m.swipes || []).length);
  var at = (m.activeSwipeIndex || 0) + 1;
  function swipe(direction) {
    return function () { api.swipeMessage(m.id, direction).catch(function () {}); };
  }
  return h("div", { className: "fy-swipe" },
    h("button", { type: "button", className: "fy-swipe-left", disabled: at <= 1, onClick: swipe("left") }, "‹"),
    h("span", { className: "fy-swipe-count" }, at + "/" + count),
    h("button", { type: "button", className: "fy-swipe-right", onClick: swipe("right") }, "›"));
}

function MessageInput(props) {
  useYumina();
  var draft = React.useState(state.composerDraft || "");
  React.useEffect(function () {
    if (state.composerDraft) draft[1](state.composerDraft);
  }, [state.composerDraft]);
  function submit(e) {
    e.preventDefault();
    var text = draft[0].trim();
    if (!text) return;
    api.sendMessage(text);
    draft[1]("");
    state.composerDraft = "";
  }
  return h("form", { className: "fy-input" + (props && props.className ? " " + props.className : ""), onSubmit: submit },
    state.pendingChoices.length && !state.isStreaming ? h("div", { className: "fy-choices" },
      state.pendingChoices.map(function (c, i) {
        return h("button", { key: i, type: "button", onClick: function () { api.sendMessage(c); } }, c);
      })) : null,
    h("textarea", {
      rows: 1, value: draft[0], placeholder: (props && props.placeholder) || "…",
      onChange: function (e) { draft[1](e.target.value); },
      onKeyDown: function (e) { if (e.key === "Enter" && !e.shiftKey) submit(e); },
    }),
    state.isStreaming
      ? h("button", { type: "button", onClick: api.stopGeneration }, "■")
      // A click, not a form submission: a frame without allow-forms never fires "submit".
      : h("button", { type: "submit", onClick: submit }, "➤"));
}

function Chat(props) {
  props = props || {};
  return h("div", { className: "fy-chat" + (props.className ? " " + props.className : "") },
    h(MessageList, { renderBubble: props.renderBubble }), props.children || null, h(MessageInput, null));
}

// Seed 004's model picker: a trigger showing the selected model, and a modal listing
// getModels(); a choice calls setModel. Text only: model names are never HTML.
function ModelPickerModal(props) {
  props = props || {};
  var loaded = React.useState(null);
  var failed = React.useState("");
  var open = props.open !== false;
  React.useEffect(function () {
    if (!open) return;
    api.getModels().then(function (m) { loaded[1](m); }, function (e) { failed[1](String(e.message)); });
  }, [open]);
  if (!open) return null;
  function close() { if (typeof props.onClose === "function") props.onClose(); }
  function choose(id) {
    return function () {
      api.setModel(id).then(function () {
        if (typeof props.onSelect === "function") props.onSelect(id);
        close();
      }, function (e) { failed[1](String(e.message)); });
    };
  }
  var models = loaded[0] ? loaded[0].models || [] : [];
  var pinned = loaded[0] ? loaded[0].pinnedModels || [] : [];
  return h("div", { className: "fy-model-modal", role: "dialog", "aria-modal": "true" },
    h("div", { className: "fy-model-box" },
      h("button", { type: "button", className: "fy-model-close", "aria-label": word("close", "Close"), onClick: close }, "×"),
      failed[0] ? h("p", { className: "fy-model-error" }, failed[0]) : null,
      !loaded[0] && !failed[0] ? h("p", null, "…") : null,
      loaded[0] && !models.length ? h("p", null, word("noModels", "No models to choose from.")) : null,
      h("ul", { className: "fy-model-list" }, models.map(function (m) {
        var selected = m.id === state.selectedModel;
        return h("li", { key: m.provider + ":" + m.id },
          h("button", { type: "button", className: "fy-model-option" + (selected ? " is-selected" : ""),
            "data-model": m.id, "aria-pressed": selected ? "true" : "false", onClick: choose(m.id) },
            (pinned.indexOf(m.id) >= 0 ? "★ " : "") + m.name,
            h("small", null, " · " + m.provider)));
      }))));
}

function ModelTrigger(props) {
  useYumina();
  props = props || {};
  var open = React.useState(false);
  return h(React.Fragment, null,
    h("button", { type: "button", className: "fy-model-trigger" + (props.className ? " " + props.className : ""),
      onClick: function () { open[1](true); } }, state.selectedModel || word("chooseModel", "Choose a model")),
    open[0] ? h(ModelPickerModal, { open: true, onClose: function () { open[1](false); }, onSelect: props.onSelect }) : null);
}

export var builtins = {
  Chat: Chat,
  ChatCanvas: Chat,
  MessageList: MessageList,
  MessageInput: MessageInput,
  ModelPickerModal: ModelPickerModal,
  ModelTrigger: ModelTrigger,
  useAssetFont: function () {},
  useYumina: useYumina,
  Icons: {},
  React: React,
};

// The page's words, in the player's language (templates/play/sandbox.html puts them on #root).
export function word(key, fallback, entry) {
  var root = document.getElementById("root");
  var text = (root && root.dataset[key]) || fallback;
  return entry === undefined ? text : text.replace("{entry}", entry);
}
