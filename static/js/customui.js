/* Fabula custom UI host: frames the world's rootComponent and answers its RPC requests.
 *
 * The iframe is sandbox="allow-scripts" only (an opaque origin). Its messages are accepted only
 * from that frame's window, only as {fabula: "ui", id, method, args} with a method on the list
 * below, and every argument is checked before it becomes a websocket frame, a sound, a toast or
 * a navigation. Requests past a small rate are refused. A message from the frame that is not a
 * well-formed call on the list is answered with its refusal, which the frame's console shows,
 * and never applied. The frame gets the game state as snapshots holding only what seed 004's
 * useYumina() grants (variables, messages, streaming text, choices, checkpoints, volumes, the
 * entries tagged "public", the world's own assets, the UI's storage), and nothing else.
 *
 * What reaches the server goes through it, which checks everything again: setVariable and
 * injectContext become the play socket's set_variable / inject_context frames (their ui_done,
 * error or busy answer settles the call); ai.complete and storage are requests to
 * /play/<session>/ui/ (play/views/ui.py) with the page's CSRF token. fetch('/api/…') from the
 * frame is answered here from an allowlist (apiFetch); copyToClipboard needs a user gesture.
 *
 * The frame may still navigate itself (location=, <meta http-equiv=refresh>) to carry that state
 * off; only this page's CSP frame-src can refuse it (issue 9, §3). So before making the frame,
 * the page gets a policy that allows frames from the sandbox path only (play/csp.py sends the
 * same as a header from the play views; pages that receive the panel by htmx, like the studio
 * editor, rely on this one). Policies add up: this only ever narrows what a header allows.
 *
 * An ES module (templates/play/partials/assets.html), no bundler: customui_host.js (the frame and
 * its calls), customui_api.js (the server side of the API) and customui_checks.js (the checks on
 * arguments) are its parts; this entry sets window.FabulaCustomUiHost, which play_hooks.js uses.
 */
import { create } from "./customui_host.js";

if (!window.FabulaCustomUiHost) window.FabulaCustomUiHost = { create: create };
