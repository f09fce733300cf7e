// What this tablet keeps (localStorage), so that a reload or a crashed browser loses no tap:
// each hand's entry ("terminal:hand:<id>": the entry, its draft's URL, whether the server has
// it yet, the Idempotency-Key it is sent under) and the writes tapped while the connection was
// down ("terminal:writes", see outbox.js).
(function (T) {
  "use strict";
  var HAND_PREFIX = "terminal:hand:", WRITES = "terminal:writes";

  function load(name) {
    try { return JSON.parse(window.localStorage.getItem(name) || "null"); } catch (e) { return null; }
  }
  // Keeps ``value`` under ``name`` (null: forgets it).
  function save(name, value) {
    try {
      if (value === null) window.localStorage.removeItem(name);
      else window.localStorage.setItem(name, JSON.stringify(value));
    } catch (e) { /* storage full or off: the server's draft still keeps the entry */ }
  }
  // The names of the hands' entries kept here.
  function hands() {
    var names = [];
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(HAND_PREFIX) === 0) names.push(name);
      }
    } catch (e) { /* no storage */ }
    return names;
  }
  // The names of the entries the server doesn't have yet.
  function pending() {
    return hands().filter(function (name) { var r = load(name); return r && r.pending; });
  }
  // The writes waiting to be sent, oldest first.
  function writes() { return load(WRITES) || []; }
  // An Idempotency-Key, given once when a tap is kept and sent with every retry of it.
  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var hex = "";
    for (var i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
    return "terminal-" + hex;
  }

  T.store = {
    HAND_PREFIX: HAND_PREFIX, WRITES: WRITES,
    load: load, save: save, hands: hands, pending: pending, writes: writes, newKey: newKey,
  };
})(window.Terminal = window.Terminal || {});
