// Fabula's CodeMirror 6 bundle: the pieces static/js/studio_ui.js composes, as one global.
export { EditorState, StateField, StateEffect, Compartment } from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, Decoration, placeholder,
} from "@codemirror/view";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export {
  syntaxHighlighting, defaultHighlightStyle, bracketMatching, indentOnInput, syntaxTree,
  foldGutter, foldKeymap,
} from "@codemirror/language";
export { javascript } from "@codemirror/lang-javascript";
export { css } from "@codemirror/lang-css";
export { setDiagnostics, lintGutter } from "@codemirror/lint";
