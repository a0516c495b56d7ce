/* Fabula play client: the PlayClient of one [data-play-root], its state and its listeners.
 * Its methods are added by the play_*.js modules that play.js imports. */

// --- the client ----------------------------------------------------------------------------

export function PlayClient(root) {
  this.root = root;
  var configNode = document.getElementById(root.dataset.config);
  this.config = configNode ? JSON.parse(configNode.textContent) : {};
  root.__fabulaStrings = this.config.strings || {};
  this.messages = [];
  this.values = {};
  this.turn = 0;
  this.checkpoints = [];
  this.choices = [];
  this.session = {};
  this.hasMore = false; // older messages exist before the first one held
  this.loadingOlder = false;
  this.streamingId = null;
  this.streamText = "";
  this.lastSeq = 0;
  this.ws = null;
  this.attempts = 0;
  this.retryTimer = null;
  this.destroyed = false;
  this.everConnected = false;
  this.awaitingSync = false;
  this.pendingSend = null;
  this.renderQueued = false;
  this.listeners = [];
  this.q = function (selector) { return root.querySelector(selector); };
  this.dom = {
    list: this.q("[data-messages]"),
    choices: this.q("[data-choices]"),
    composer: this.q("[data-composer]"),
    input: this.q("[data-input]"),
    send: this.q("[data-send]"),
    stop: this.q("[data-stop]"),
    conn: this.q("[data-conn]"),
    connText: this.q("[data-conn-text]"),
    status: this.q("[data-status]"),
    turn: this.q("[data-turn]"),
    checkpoints: this.q("[data-checkpoints]"),
    checkpointForm: this.q("[data-checkpoint-form]"),
    toasts: this.q("[data-toasts]"),
    side: this.q("[data-side]"),
    sideToggle: this.q("[data-toggle-side]"),
    audioCard: this.q("[data-audio-card]"),
    unlock: this.q("[data-unlock]"),
    custom: this.q("[data-custom-ui]"),
    chat: this.q("[data-chat]"),
    uiToggle: this.q("[data-toggle-ui]"),
    quotaNotice: this.q("[data-quota-notice]"),
    gmRolls: this.q("[data-gm-rolls]"),
    gmCheck: this.q("[data-gm-check]"),
    gmCheckText: this.q("[data-gm-check-text]"),
    gmRoll: this.q("[data-gm-roll]"),
    gmScene: this.q("[data-gm-scene]"),
    gmPlace: this.q("[data-gm-place]"),
    gmWays: this.q("[data-gm-ways]"),
    gmPoints: this.q("[data-gm-points]"),
    demoBar: this.q("[data-demo-bar]"),
    demoText: this.q("[data-demo-text]"),
    demoNext: this.q("[data-demo-next]"),
  };
  this.atTable = !!this.config.atTable;
  this.demo = this.config.demo || null; // a replayed demo: its steps and how many were played
  this.demoWaiting = false;
  this.gmPending = null; // the check a game-master turn waits on (check-pending / scene)
  this.gmRollFresh = false; // a roll-result came for the reply that is starting
  this.draftKey = "fabula.draft." + this.config.sessionId;
  this.setupAudio();
  this.bind();
  this.renderStatus();
  this.renderDemo();
  this.restoreDraft();
  this.setupCustomUi();
  this.connect();
}

PlayClient.prototype.on = function (target, type, handler, opts) {
  target.addEventListener(type, handler, opts);
  this.listeners.push([target, type, handler, opts]);
};

PlayClient.prototype.destroy = function () {
  this.destroyed = true;
  clearTimeout(this.retryTimer);
  if (this.ws) {
    this.ws.onclose = null;
    try { this.ws.close(1000); } catch (e) { /* already closed */ }
  }
  if (this.audio) this.audio.destroy();
  this.listeners.forEach(function (l) { l[0].removeEventListener(l[1], l[2], l[3]); });
  this.listeners = [];
};
