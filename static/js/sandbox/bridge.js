/* Fabula custom UI runtime: the message bridge to the host page (part of static/js/sandbox/main.js).
 *
 * The only reference to the parent window lives here, taken before boot.js's lockDown empties
 * window.parent; the creator's code never gets it. Requests go out as small RPC messages
 * ({fabula: "ui", id, method, args}) that the host validates one by one (static/js/customui.js):
 * nothing here is trusted by it. Only messages from that window are read back.
 */

var host = window.parent;
var nextId = 1;
var pending = {};

export function call(method, args) {
  var id = nextId++;
  return new Promise(function (resolve, reject) {
    pending[id] = { resolve: resolve, reject: reject, method: method };
    host.postMessage({ fabula: "ui", id: id, method: method, args: args || [] }, "*");
  });
}

// A notice that expects no reply ("ready", "uiError").
export function notify(method, args) {
  host.postMessage({ fabula: "ui", id: 0, method: method, args: args || [] }, "*");
}

// The seed's void members: awaiting them still sees a refusal, ignoring them logs it once.
export function quiet(promise) {
  var done = promise.then(function () {});
  done.catch(function () { /* the reply handler logged it */ });
  return done;
}

export function fire(method, args) {
  call(method, args).catch(function () { /* the reply handler logged it */ });
}

function settle(data) {
  var p = pending[data.id];
  delete pending[data.id];
  // Every refusal lands in this console, also for a message the runtime did not send.
  if (!data.ok) console.error("[yumina] " + (p ? p.method : "message") + " refused: " + String(data.error || "refused"));
  if (!p) return;
  if (data.ok) p.resolve(data.value);
  else p.reject(new Error(String(data.error || "refused")));
}

// onSnapshot(data) gets each {type: "snapshot", state, storage?, assets?} the host sends.
export function listen(onSnapshot) {
  window.addEventListener("message", function (event) {
    if (event.source !== host) return;
    var data = event.data;
    if (!data || data.fabula !== "host") return;
    if (data.type === "snapshot" && data.state) onSnapshot(data);
    else if (data.type === "reply") settle(data);
  });
}
