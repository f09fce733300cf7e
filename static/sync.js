// The connection: this screen's own requests go one at a time and never race htmx's; each
// hand's entry is sent to the server as a draft (PUT .../draft/, a moment after the last tap,
// under the Idempotency-Key it was kept with: a retry is answered without being done twice);
// the strip (#sync) says what waits for the connection; once it is back, what waits is sent
// and a reading that couldn't be made is made again. Writes tapped meanwhile: outbox.js.
(function (T) {
  "use strict";
  var store = T.store;
  // One request at a time from this screen: a draft or a kept write waits for htmx's request in
  // flight, and htmx's next request waits for them (its "htmx:confirm" is held and issued after),
  // so no two of this tablet's requests ever race on the server.
  var fetching = 0, htmxBusy = 0, held = [], afterHtmx = [];
  var offline = false, readWaiting = false, saving = false, saveTimer = null;

  function quiet(run) { if (htmxBusy) afterHtmx.push(run); else run(); }
  // While htmx has a request in flight, ``run`` is run once it is answered (once however often
  // it is asked): true if so, and the caller waits.
  function afterHtmxRequest(run) {
    if (!htmxBusy) return false;
    if (afterHtmx.indexOf(run) < 0) afterHtmx.push(run);
    return true;
  }
  function release() {
    if (fetching) return;
    held.splice(0).forEach(function (issue) { issue(); });
  }
  document.addEventListener("htmx:beforeRequest", function () { htmxBusy++; });
  document.addEventListener("htmx:afterRequest", function () {
    htmxBusy = Math.max(0, htmxBusy - 1);
    if (!htmxBusy) afterHtmx.splice(0).forEach(function (run) { run(); });
  });
  // htmx's request (its "htmx:confirm" event) waits while one of this screen's is in flight:
  // true if it was held, to be issued once that one is answered.
  function hold(e) {
    if (!fetching) return false;
    e.preventDefault();
    held.push(function () { e.detail.issueRequest(); });
    return true;
  }
  // Nothing of the connection's is waiting to be sent or in flight.
  function idle() { return !fetching && !saveTimer && !afterHtmx.length && !held.length; }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }
  function send(method, url, key, body) {
    fetching++;
    return window.fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json", "Accept": "application/json",
        "X-CSRFToken": csrfToken(), "Idempotency-Key": key,
      },
      body: JSON.stringify(body),
    }).then(function (response) {
      fetching--; release(); return response;
    }, function (error) {
      fetching--; release(); throw error;
    });
  }

  // --- The state of the connection, in the strip (#sync).
  function setOffline(on) { offline = on; }
  function showSync() {
    var box = document.getElementById("sync");
    if (!box) return;
    var waiting = store.writes().map(function (w) { return w.label; });
    var kept = store.pending().length > 0;
    var parts = [];
    if (waiting.length) parts.push("waiting to be sent: " + waiting.join(", "));
    if (readWaiting) parts.push("the reading waits for the connection");
    if (kept && (offline || parts.length)) parts.push("the entry is kept on this tablet");
    if (offline || parts.length) {
      box.textContent = (offline ? "No connection: " : "Sending: ") + (parts.join("; ") || "taps are kept on this tablet") + ".";
      box.className = "sync waiting";
    } else {
      // Saving as the entry changes says nothing: the strip doesn't move under the dealer's taps.
      box.textContent = "";
      box.className = "sync";
    }
  }

  // --- The draft: each hand's entry, kept here and sent to the server (the last one only).
  function keepEntry(hand, url, entry) {
    var name = store.HAND_PREFIX + hand, before = store.load(name);
    if (before && JSON.stringify(before.entry) === JSON.stringify(entry)) return;
    store.save(name, { entry: entry, url: url, pending: true, key: store.newKey(), at: Date.now() });
    window.clearTimeout(saveTimer);
    saveTimer = window.setTimeout(function () { saveTimer = null; quiet(saveDrafts); }, 250);
    showSync();
  }
  function saveDrafts() {
    if (saving || saveTimer) return;
    if (afterHtmxRequest(saveDrafts)) return;
    var name = store.pending()[0];
    if (!name) { showSync(); return; }
    var record = store.load(name);
    saving = true;
    send("PUT", record.url, record.key, { entry: record.entry }).then(function (response) {
      saving = false;
      var now = store.load(name);
      if (response.status === 409 || response.status === 404) store.save(name, null);  // the hand is over
      else if (now && now.key === record.key) { now.pending = false; store.save(name, now); }
      offline = false;
      showSync();
      saveDrafts();  // a newer entry, or another hand's
    }, function () {
      saving = false;  // no connection: kept, sent when it is back
      offline = true;
      showSync();
    });
  }

  // --- The connection back: what waits is sent, a reading that waited is made again.
  function online() {
    offline = false;
    saveDrafts();
    T.outbox.flush();
    var form = document.getElementById("showdown-form");
    if (readWaiting && form && form.readAgain) { readWaiting = false; form.readAgain(); }
    showSync();
  }
  window.addEventListener("online", online);
  window.addEventListener("offline", function () { offline = true; showSync(); });
  window.setInterval(function () {
    if (store.writes().length || store.pending().length) online();
  }, 5000);

  // A tap htmx couldn't send: a reading waits for the connection, a write is kept (outbox.js),
  // anything else is said to be lost.
  document.addEventListener("htmx:sendError", function (e) {
    var config = e.detail.requestConfig || {};
    if (config.verb !== "post") return;
    if (/^\/hands\/\d+\/showdown\/$/.test(config.path)) { readWaiting = true; offline = true; showSync(); return; }
    var write = T.outbox.fromPath(config.path, config.formData || new FormData());
    if (write) T.outbox.keep(write);
    else {
      offline = true;
      var notices = document.getElementById("notices");
      if (notices) notices.innerHTML = '<p class="alert">No connection: that was not sent. Tap it again once the connection is back.</p>';
      showSync();
    }
  });

  T.sync = {
    afterHtmxRequest: afterHtmxRequest, hold: hold, idle: idle, send: send,
    setOffline: setOffline, showSync: showSync, keepEntry: keepEntry, saveDrafts: saveDrafts,
  };
})(window.Terminal = window.Terminal || {});
