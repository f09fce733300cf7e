// Writes tapped while the connection was down (deal, confirm, misdeal, a sweep): kept on this
// tablet with the Idempotency-Key given when tapped, sent once the connection is back through
// the terminals' API (a retry is answered without being done twice), then the screen is drawn
// again, saying so if one was refused.
(function (T) {
  "use strict";
  var store = T.store, flushing = false;

  // The deal's write (the screen's form, as the API takes it).
  function dealWrite(table, data) {
    var fees = [];
    data.forEach(function (value, name) {
      if (name.indexOf("fee-") === 0) fees.push({ seat_number: +name.slice(4), fee_cents: +value });
    });
    return {
      url: "/api/terminal/tables/" + table + "/hands/", label: "Deal", table: table,
      body: {
        expected_fees: fees, game: data.get("game") || null,
        sit_out_seat_numbers: data.getAll("sit_out").map(Number),
        boards: data.get("boards") ? +data.get("boards") : null,
      },
    };
  }
  // The API's write for a screen's form posted to ``path``, or null if it has none.
  function fromPath(path, data) {
    var m = /^\/tables\/(\d+)\/start\/$/.exec(path);
    if (m) return dealWrite(m[1], data);
    m = /^\/hands\/(\d+)\/(confirm|misdeal|sweep)\/$/.exec(path);
    if (!m) return null;
    var url = "/api/terminal/hands/" + m[1] + "/" + (m[2] === "sweep" ? "declare-sweep" : m[2]) + "/";
    if (m[2] === "confirm") return { url: url, label: "Confirm and pay", body: { revision: +data.get("revision") || null } };
    if (m[2] === "misdeal") {
      return { url: url, label: "Misdeal", body: { reason_code: data.get("reason_code") || "", reason: data.get("reason") || "" } };
    }
    var seat = data.get("sweep_seat");
    return { url: url, label: "Sweep declared", body: { seat_number: +seat, sweep: data.get("declare_" + seat) || "" } };
  }
  function keep(write) {
    var waiting = store.writes().filter(function (w) { return w.url !== write.url; });
    write.key = store.newKey();
    write.screen = window.location.pathname;
    waiting.push(write);
    store.save(store.WRITES, waiting);
    T.sync.setOffline(true);
    T.sync.showSync();
  }
  function redraw(message) {
    if (!window.htmx || !document.getElementById("terminal")) return;
    window.htmx.ajax("GET", window.location.pathname, { target: "#terminal", swap: "outerHTML" }).then(function () {
      if (!message) return;
      var notices = document.getElementById("notices");
      if (notices) {
        var p = document.createElement("p");
        p.className = "alert";
        p.textContent = message;
        notices.appendChild(p);
      }
    });
  }
  function flush() {
    var waiting = store.writes();
    if (flushing || !waiting.length) return;
    if (T.sync.afterHtmxRequest(flush)) return;
    var write = waiting[0];
    flushing = true;
    T.sync.send("POST", write.url, write.key, write.body).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        flushing = false;
        store.save(store.WRITES, store.writes().filter(function (w) { return w.key !== write.key; }));
        T.sync.setOffline(false);
        T.sync.showSync();
        var said = response.ok ? "" : write.label + " (tapped while the connection was down) was refused: " + (body.message || body.detail || response.status);
        if (store.writes().length) flush(); else redraw(said);
      });
    }, function () { flushing = false; T.sync.setOffline(true); T.sync.showSync(); });
  }

  T.outbox = { fromPath: fromPath, keep: keep, flush: flush };
})(window.Terminal = window.Terminal || {});
