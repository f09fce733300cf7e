// Dealer terminal: one screen per table, tap first. The server draws the screen and htmx swaps
// it in place after every action (deal, read, confirm, misdeal); the showdown entry lives in the
// form's own inputs and is posted whole, so a refusal or a reading draws it back as entered.
// This script fills those inputs from taps (the card grid, the put-in pad, "all in", "won
// without a showdown"), checks them as they change (unknown card, a card twice, wrong count),
// greys out the cards in use, fills the last row when the deck's last cards can only go there,
// reads a pot game's seat that shows no cards as folded once every seat showing cards has them
// all (the screen ticks its "Folded", and a card tapped into it clears that), and reads the hand
// as soon as the entry is complete. The server checks everything again; nothing here decides a
// rule.
//
// Nothing is lost: the entry is kept on this tablet as it changes (localStorage, per hand) and
// sent to the server as a draft (PUT .../draft/, a moment after the last tap), so a reload, a
// crashed browser or another tablet draws it back. While the connection is down a tap is kept and
// shown as waiting: the draft, and a write tapped meanwhile (deal, confirm, misdeal, a sweep), are
// sent once the connection is back, each under the Idempotency-Key it was given when tapped (the
// terminals' API: a retry is answered without being done twice); a read is made again.
(function () {
  "use strict";
  var RANKS = "23456789TJQKA", SUITS = "SHDC";
  var HAND_PREFIX = "terminal:hand:", WRITES = "terminal:writes";
  var pageLoad = true;  // the screen drawn by a page load (not by a swap): this tablet's kept taps go back in
  // How long the entry waits, complete but for seats showing no cards, before it reads them as
  // folded: a dealer still tapping the next seat's cards (a tap or two a second) isn't read early.
  var MUCK_DELAY = 800, muckTimer = null;

  function canonical(text) {
    var t = text.trim().toUpperCase();
    if (t === "JK") return "JK";
    if (t.length === 3 && t.slice(0, 2) === "10") t = "T" + t[2];
    if (t.length !== 2 || RANKS.indexOf(t[0]) < 0 || SUITS.indexOf(t[1]) < 0) return null;
    return t[0] + t[1].toLowerCase();
  }
  function tokens(value) { return value.replace(/,/g, " ").split(/\s+/).filter(Boolean); }
  function toCents(text) {
    var m = /^\$?\s*(\d{1,9})(?:\.(\d{1,2}))?$/.exec(String(text).trim().replace(/,/g, ""));
    if (!m) return null;
    return parseInt(m[1], 10) * 100 + parseInt((m[2] || "0") + "00".slice((m[2] || "0").length), 10);
  }
  function toDollars(cents) { return cents % 100 ? (cents / 100).toFixed(2) : String(cents / 100); }
  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }

  // --- What this tablet keeps (localStorage): each hand's entry, and the writes waiting to be sent.
  function load(name) {
    try { return JSON.parse(window.localStorage.getItem(name) || "null"); } catch (e) { return null; }
  }
  function store(name, value) {
    try {
      if (value === null) window.localStorage.removeItem(name);
      else window.localStorage.setItem(name, JSON.stringify(value));
    } catch (e) { /* storage full or off: the server's draft still keeps the entry */ }
  }
  function storedHands() {
    var names = [];
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(HAND_PREFIX) === 0) names.push(name);
      }
    } catch (e) { /* no storage */ }
    return names;
  }
  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var hex = "";
    for (var i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
    return "terminal-" + hex;
  }
  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }
  // One request at a time from this screen: a draft or a kept write waits for htmx's request in
  // flight, and htmx's next request waits for them (its "htmx:confirm" is held and issued after),
  // so no two of this tablet's requests ever race on the server.
  var fetching = 0, htmxBusy = 0, held = [], afterHtmx = [];
  function quiet(run) { if (htmxBusy) afterHtmx.push(run); else run(); }
  function release() {
    if (fetching) return;
    held.splice(0).forEach(function (issue) { issue(); });
  }
  document.addEventListener("htmx:beforeRequest", function () { htmxBusy++; });
  document.addEventListener("htmx:afterRequest", function () {
    htmxBusy = Math.max(0, htmxBusy - 1);
    if (!htmxBusy) afterHtmx.splice(0).forEach(function (run) { run(); });
  });
  // For the tests and anyone watching: nothing of this screen is waiting to be sent or in flight.
  window.terminalIdle = function () {
    return !fetching && !saveTimer && !muckTimer && !afterHtmx.length && !held.length;
  };
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
  var offline = false, readWaiting = false;
  function showSync() {
    var box = document.getElementById("sync");
    if (!box) return;
    var waiting = (load(WRITES) || []).map(function (w) { return w.label; });
    var kept = storedHands().some(function (name) { var r = load(name); return r && r.pending; });
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
  var saving = false, saveTimer = null;
  function keepEntry(hand, url, entry) {
    var name = HAND_PREFIX + hand, before = load(name);
    if (before && JSON.stringify(before.entry) === JSON.stringify(entry)) return;
    store(name, { entry: entry, url: url, pending: true, key: newKey(), at: Date.now() });
    window.clearTimeout(saveTimer);
    saveTimer = window.setTimeout(function () { saveTimer = null; quiet(saveDrafts); }, 250);
    showSync();
  }
  function saveDrafts() {
    if (saving || saveTimer) return;
    if (htmxBusy) { if (afterHtmx.indexOf(saveDrafts) < 0) afterHtmx.push(saveDrafts); return; }
    var name = storedHands().filter(function (n) { var r = load(n); return r && r.pending; })[0];
    if (!name) { showSync(); return; }
    var record = load(name);
    saving = true;
    send("PUT", record.url, record.key, { entry: record.entry }).then(function (response) {
      saving = false;
      var now = load(name);
      if (response.status === 409 || response.status === 404) store(name, null);  // the hand is over
      else if (now && now.key === record.key) { now.pending = false; store(name, now); }
      offline = false;
      showSync();
      saveDrafts();  // a newer entry, or another hand's
    }, function () {
      saving = false;  // no connection: kept, sent when it is back
      offline = true;
      showSync();
    });
  }

  // --- Writes tapped while the connection was down: kept with their key, sent once it is back
  // through the terminals' API, then the screen is drawn again.
  function apiWrite(path, data) {
    var m = /^\/tables\/(\d+)\/start\/$/.exec(path);
    if (m) {
      var fees = [];
      data.forEach(function (value, name) {
        if (name.indexOf("fee-") === 0) fees.push({ seat_number: +name.slice(4), fee_cents: +value });
      });
      return {
        url: "/api/terminal/tables/" + m[1] + "/hands/", label: "Deal", table: m[1],
        body: {
          expected_fees: fees, game: data.get("game") || null,
          sit_out_seat_numbers: data.getAll("sit_out").map(Number),
          boards: data.get("boards") ? +data.get("boards") : null,
        },
      };
    }
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
  function keepWrite(write) {
    var waiting = (load(WRITES) || []).filter(function (w) { return w.url !== write.url; });
    write.key = newKey();
    write.screen = window.location.pathname;
    waiting.push(write);
    store(WRITES, waiting);
    offline = true;
    showSync();
  }
  var flushing = false;
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
  function flushWrites() {
    var waiting = load(WRITES) || [];
    if (flushing || !waiting.length) return;
    if (htmxBusy) { if (afterHtmx.indexOf(flushWrites) < 0) afterHtmx.push(flushWrites); return; }
    var write = waiting[0];
    flushing = true;
    send("POST", write.url, write.key, write.body).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        flushing = false;
        store(WRITES, (load(WRITES) || []).filter(function (w) { return w.key !== write.key; }));
        offline = false;
        showSync();
        var said = response.ok ? "" : write.label + " (tapped while the connection was down) was refused: " + (body.message || body.detail || response.status);
        if ((load(WRITES) || []).length) flushWrites(); else redraw(said);
      });
    }, function () { flushing = false; offline = true; showSync(); });
  }
  function online() {
    offline = false;
    saveDrafts();
    flushWrites();
    var form = document.getElementById("showdown-form");
    if (readWaiting && form && form.readAgain) { readWaiting = false; form.readAgain(); }
    showSync();
  }
  window.addEventListener("online", online);
  window.addEventListener("offline", function () { offline = true; showSync(); });
  window.setInterval(function () {
    if ((load(WRITES) || []).length || storedHands().some(function (n) { var r = load(n); return r && r.pending; })) online();
  }, 5000);

  document.addEventListener("htmx:sendError", function (e) {
    var config = e.detail.requestConfig || {};
    if (config.verb !== "post") return;
    if (/^\/hands\/\d+\/showdown\/$/.test(config.path)) { readWaiting = true; offline = true; showSync(); return; }
    var write = apiWrite(config.path, config.formData || new FormData());
    if (write) keepWrite(write);
    else {
      offline = true;
      var notices = document.getElementById("notices");
      if (notices) notices.innerHTML = '<p class="alert">No connection: that was not sent. Tap it again once the connection is back.</p>';
      showSync();
    }
  });

  // --- Misdeal "other": the words come first, before the "sure?" dialog. And htmx's requests wait
  // for this screen's own one in flight (see quiet()).
  document.addEventListener("htmx:confirm", function (e) {
    if (fetching) { e.preventDefault(); held.push(function () { e.detail.issueRequest(); }); return; }
    var elt = e.detail.elt;
    if (!elt || elt.id !== "misdeal-other") return;
    var words = document.getElementById("misdeal-reason");
    if (words && !words.value.trim()) {
      e.preventDefault();
      var why = document.getElementById("misdeal-other-why");
      if (why) why.classList.add("alert");
      words.setAttribute("aria-invalid", "true");
      words.focus();
    }
  });

  function entry(form) {
    var joker = form.dataset.joker === "1";
    var fields = all(form, ".cards[data-count]").sort(function (a, b) { return a.dataset.order - b.dataset.order; });
    var activeName = form.querySelector("input[name=active]");
    var padName = form.querySelector("input[name=pad]");
    var grid = all(form, "#card-picker button.pick");
    var called = form.querySelector("#called");
    var padLabel = form.querySelector("#pad-target");
    var target = document.getElementById("picker-target");
    var active = null, insertAt = null, padTarget = null, sent = null;

    function seatBox(input) { return input.closest("[data-seat]"); }
    function flag(box, name) {
      var input = box && box.querySelector("input[name^=" + name + "_]");
      return !!(input && input.checked);
    }
    // "Folded" is the dealer's tap (value "on") or the screen's reading of a seat that shows no
    // cards (value "auto", a mucked hand): the next card still goes into such a seat, and puts it
    // back in the showdown.
    function foldBox(box) { return box ? box.querySelector("input[name^=folded_]") : null; }
    function mucked(box) { var f = foldBox(box); return !!(f && f.checked && f.value === "auto"); }
    // A seat the dealer put back in (unticked its "Folded", or tapped its "All in") is never read
    // as folded for showing no cards. It is a field (``live_<seat>``, sent only when on) so that
    // the draft keeps it through a reload.
    function setLive(box, on) { var l = box.querySelector("input[name^=live_]"); if (l) l.disabled = !on; }
    function isLive(box) { var l = box.querySelector("input[name^=live_]"); return !!(l && !l.disabled); }
    function skipped(input) {
      var box = seatBox(input);
      return (flag(box, "folded") && !mucked(box)) || flag(box, "surrender") || flag(box, "fouled");
    }
    function count(input) { return parseInt(input.dataset.count || "0", 10); }
    function full(input) { return tokens(input.value).length >= count(input); }
    function next(after) {
      var start = after ? fields.indexOf(after) + 1 : 0;
      for (var k = 0; k < fields.length; k++) {
        var f = fields[(start + k) % fields.length];
        if (!full(f) && !skipped(f)) return f;
      }
      return null;
    }
    function setActive(input, at) {
      active = input; insertAt = at === undefined ? null : at;
      fields.forEach(function (f) { f.classList.toggle("active", f === input); });
      if (activeName) activeName.value = input ? input.name : "";
      if (target) {
        target.textContent = input
          ? "Tapping into " + input.dataset.where + ", " + input.labels[0].textContent.toLowerCase() +
            " (" + tokens(input.value).length + " of " + count(input) + ")" +
            (mucked(seatBox(input)) ? ": it shows no cards and is read as folded; a card here puts it back in" : "")
          : "Every card is entered; tap a greyed card to take it back.";
      }
    }
    function owner(card) {
      for (var i = 0; i < fields.length; i++) {
        var list = tokens(fields[i].value);
        for (var j = 0; j < list.length; j++) if (canonical(list[j]) === card) return { field: fields[i], index: j };
      }
      return null;
    }
    function used() {
      var cards = {};
      fields.forEach(function (input) {
        tokens(input.value).forEach(function (t) { var c = canonical(t); if (c) cards[c] = input.dataset.where; });
      });
      return cards;
    }
    // The last field to fill takes the deck's last cards when nothing else can (Chinese poker: the
    // fourth seat's last row); never while a seat is skipped or a field is wrong.
    function fillLast() {
      var open = fields.filter(function (f) { return !skipped(f) && !full(f); });
      if (open.length !== 1) return null;
      var f = open[0], taken = used();
      var left = grid.map(function (b) { return b.dataset.card; }).filter(function (c) { return !taken[c]; });
      if (left.length !== count(f) - tokens(f.value).length) return null;
      f.value = tokens(f.value).concat(left).join(" ");
      return f;
    }
    function tap(card) {
      var held = owner(card);
      if (held) {  // a card in use: take it back, and put the next tap where it was
        var list = tokens(held.field.value);
        list.splice(held.index, 1);
        held.field.value = list.join(" ");
        setActive(held.field, held.index);
        changed(held.field);
        return;
      }
      if (!active || (full(active) && insertAt === null)) setActive(next(active));
      if (!active) return;
      var cards = tokens(active.value);
      if (insertAt !== null && insertAt <= cards.length) cards.splice(insertAt, 0, card); else cards.push(card);
      active.value = cards.join(" ");
      insertAt = null;
      var filled = active;
      if (full(active)) setActive(next(active)); else setActive(active);
      if (check()) {
        var last = fillLast();
        if (last) { filled = last; setActive(next(last)); }
      }
      changed(filled);
    }
    function takeBack() {
      var f = active && tokens(active.value).length ? active : null;
      if (!f) for (var i = fields.length - 1; i >= 0; i--) if (tokens(fields[i].value).length) { f = fields[i]; break; }
      if (!f) return;
      var list = tokens(f.value); list.pop(); f.value = list.join(" ");
      setActive(f);
      changed(f);
    }

    // --- Put-ins: every live seat starts from what the flow knows (the kill seat's kill blind) and
    // takes the amount the live players put in, capped at its chips (all in); a seat given its own
    // amount keeps it.
    function seats() { return all(form, "[data-seat]"); }
    function defaultFor(box) {
      var stack = parseInt(box.dataset.stack || "0", 10), base = parseInt(box.dataset.base || "0", 10);
      var each = called ? (toCents(called.value) || 0) : 0;
      var cents = flag(box, "folded") ? base : Math.max(base, each);
      return Math.min(cents, stack);
    }
    function putIn(box) { return box.querySelector("input[name^=put_in_]"); }
    function applyCalled() {
      seats().forEach(function (box) {
        var input = putIn(box);
        if (!input || input.dataset.own === "1") return;
        var cents = defaultFor(box);
        input.value = cents ? toDollars(cents) : "";
      });
    }
    function markOwn() {
      seats().forEach(function (box) {
        var input = putIn(box);
        if (!input) return;
        var cents = defaultFor(box), value = input.value.trim();
        input.dataset.own = (value === "" ? cents === 0 : toCents(value) === cents) ? "" : "1";
      });
    }
    function setPadTarget(input) {
      padTarget = input && input !== called ? input : null;
      if (padName) padName.value = padTarget ? padTarget.name : "";
      if (padLabel) {
        padLabel.textContent = "Keys add to: " + (padTarget
          ? seatBox(padTarget).querySelector("legend strong").textContent + ", " +
            padTarget.labels[0].textContent.replace(/\s*\$$/, "").toLowerCase()
          : "each live player");
      }
      refreshKeys();
    }
    // Every key does something visible, or is disabled and says why.
    function refreshKeys() {
      var allIn = form.querySelector("#all-in"), clear = form.querySelector("#clear-amount");
      var why = form.querySelector("#pad-why"), back = form.querySelector("#back-card");
      var reasons = [];
      if (allIn) {
        allIn.disabled = !(padTarget && padTarget.name.indexOf("put_in_") === 0);
        if (allIn.disabled) reasons.push('All in: tap a seat\'s put-in first, or that seat\'s own "All in".');
      }
      if (clear) {
        var input = padTarget || called;
        clear.disabled = !(input && input.value.trim());
        if (clear.disabled) reasons.push("Clear: nothing is entered there.");
      }
      if (why) { why.textContent = reasons.join(" "); why.hidden = !reasons.length; }
      if (back) {
        back.disabled = !fields.some(function (f) { return tokens(f.value).length; });
        back.title = back.disabled ? "No card is entered yet." : "";
      }
    }
    // A seat all in: its put-in is its chips; every live player put in at least as much (a player
    // still in called it, or is all in for less: capped at its own chips).
    function allIn(box) {
      var input = putIn(box), stack = parseInt(box.dataset.stack || "0", 10);
      if (!input) return;
      input.value = toDollars(stack);
      input.dataset.own = "1";
      var folded = foldBox(box);
      if (folded) { folded.checked = false; folded.value = "on"; setLive(box, true); showMuck(box); }
      if (called && (toCents(called.value) || 0) < stack) called.value = toDollars(stack);
      applyCalled();
      changed(input);
    }
    function pad(button) {
      if (button.dataset.allin) {
        if (padTarget && padTarget.name.indexOf("put_in_") === 0) allIn(seatBox(padTarget));
        return;
      }
      var input = padTarget || called;
      if (!input) return;
      var box = padTarget ? seatBox(padTarget) : null;
      if (button.dataset.clear) input.value = "";
      else input.value = toDollars((toCents(input.value) || 0) + parseInt(button.dataset.add, 10));
      if (box) input.dataset.own = "1"; else applyCalled();
      changed(input);
    }
    function won(seat) {
      seats().forEach(function (box) {
        var folded = foldBox(box);
        if (folded) { folded.checked = box.dataset.seat !== String(seat); folded.value = "on"; showMuck(box); }
      });
      applyCalled();
      changed();
    }

    // --- A seat that shows no cards (pot games): once the put-ins and the board are in and every
    // other seat has all its cards or folded, with two hands shown at least (a showdown: one
    // alone is "Won, no showdown"), it mucked: it is read as folded, as a card room reads it, and
    // the screen says so on the seat and beside the reading. Not a seat the dealer put back in
    // (unticked its "Folded", or all in: an all-in hand is shown). It stays folded until a card
    // goes into it (which puts it back in), so correcting another seat's card doesn't move it; a
    // tap on its "Folded" makes the fold the dealer's own (a fold tapped is never undone by it).
    function ownFields(box) { return fields.filter(function (f) { return seatBox(f) === box; }); }
    function showsNone(box) { return ownFields(box).every(function (f) { return !tokens(f.value).length; }); }
    function showMuck(box) {
      var note = box.querySelector(".muck");
      if (note) note.hidden = !mucked(box);
    }
    function potCents() {
      return seats().reduce(function (sum, box) { return sum + (toCents(putIn(box).value || "0") || 0); }, 0);
    }
    function mucks() {
      if (!called || !potCents()) return [];
      var boards = fields.filter(function (f) { return !seatBox(f); });
      if (!boards.every(full)) return [];
      var shown = 0, none = [];
      for (var i = 0, boxes = seats(); i < boxes.length; i++) {
        var box = boxes[i], own = ownFields(box), fold = foldBox(box);
        if (own.length && own.every(full)) { shown++; continue; }
        if (flag(box, "folded") && !mucked(box)) continue;  // folded by the dealer's tap
        if (!fold || isLive(box) || !showsNone(box)) return [];
        none.push(box);
      }
      return shown >= 2 ? none : [];
    }
    function setMuck(box, on) {
      var fold = foldBox(box);
      fold.checked = on;
      fold.value = on ? "auto" : "on";
      showMuck(box);
    }
    // Bring the seats read as folded in line with the entry: one a card went into is put back at
    // once; one newly mucked is read so after MUCK_DELAY (or ``now``). True if one changed.
    function settleMucks(now) {
      var moved = false;
      seats().forEach(function (box) {
        if (mucked(box) && !showsNone(box)) { setMuck(box, false); moved = true; }
      });
      window.clearTimeout(muckTimer);
      muckTimer = null;
      var pending = (check() ? mucks() : []).filter(function (box) { return !mucked(box); });
      if (pending.length && now) {
        pending.forEach(function (box) { setMuck(box, true); });
        moved = true;
      } else if (pending.length) {
        muckTimer = window.setTimeout(function () {
          muckTimer = null;
          if (!document.body.contains(form)) return;  // the screen was drawn again meanwhile
          settleMucks(true);
          changed();
        }, MUCK_DELAY);
      }
      if (moved) { applyCalled(); setActive(active, insertAt); }
      return moved;
    }

    // --- Checks as entered, the grid, and the reading as soon as the entry is complete.
    function check() {
      var seen = {}, bad = false;
      fields.forEach(function (input) {
        var errors = [], list = tokens(input.value);
        list.forEach(function (text) {
          var card = canonical(text);
          if (card === null || (card === "JK" && !joker)) { errors.push("unknown card " + text); return; }
          if (seen[card]) errors.push(card + " is already in " + seen[card]); else seen[card] = input.dataset.where;
        });
        var want = count(input);
        if (want && list.length > want) errors.push("needs " + want + " cards, got " + list.length);
        var box = document.getElementById(input.id + "-error");
        if (errors.length) bad = true;
        // The server's mark stays until the field is changed.
        input.setAttribute("aria-invalid", errors.length || input.dataset.serverBad ? "true" : "false");
        if (box) box.textContent = errors.join("; ");
      });
      return !bad;
    }
    function mark() {
      var cards = used();
      grid.forEach(function (b) {
        var where = cards[b.dataset.card];
        b.classList.toggle("used", !!where);
        b.setAttribute("aria-pressed", where ? "true" : "false");
        b.title = where ? b.dataset.card + " is in " + where + ": tap to take it back" : "";
      });
    }
    function complete() {
      var boxes = seats(), pot = !!called;
      if (pot) {
        var live = boxes.filter(function (box) { return !flag(box, "folded"); });
        if (!live.length || !potCents()) return false;
        if (live.length === 1) return true;  // won without a showdown: no cards needed
      }
      return fields.every(function (f) {
        return skipped(f) || mucked(seatBox(f)) || tokens(f.value).length === count(f);
      });
    }
    // The reading on the screen is of the entry as it was: it can't be confirmed once that changed.
    function stale(reading) {
      var confirm = document.getElementById("confirm");
      if (confirm) {
        confirm.disabled = true;
        confirm.textContent = reading ? "Reading again…" : "Entry changed: complete it to read";
      }
    }
    function touched(input) { if (input) delete input.dataset.serverBad; }
    function entryNow() {
      var data = {};
      new FormData(form).forEach(function (value, name) {
        if (name !== "csrfmiddlewaretoken") data[name] = String(value);
      });
      return data;
    }
    function keep() { if (form.dataset.hand && form.dataset.draft) keepEntry(form.dataset.hand, form.dataset.draft, entryNow()); }
    function read() {
      var ok = check(), ready = ok && complete();
      mark();
      refreshKeys();
      stale(ready || !!muckTimer);
      if (ready && window.htmx) window.htmx.trigger(form, "autoread");
    }
    function changed(input) {
      touched(input && input.target ? input.target : input);
      settleMucks(false);
      keep();
      read();
    }
    function snapshot() {
      var data = new FormData(form);
      data.delete("active");
      data.delete("pad");
      return new URLSearchParams(data).toString();
    }
    // The entry as this tablet kept it, over the one drawn (taps the server hasn't got yet).
    function restore(saved) {
      Object.keys(saved).forEach(function (name) {
        var input = form.querySelector("[name='" + name + "']");
        if (!input || input.type === "hidden" && name.indexOf("declare_") === 0) return;
        if (name.indexOf("live_") === 0) { input.disabled = false; return; }
        if (input.type === "checkbox") {
          input.checked = !!saved[name];
          if (name.indexOf("folded_") === 0) input.value = saved[name] === "auto" ? "auto" : "on";
        }
        else if (input.tagName !== "SELECT") input.value = saved[name];
      });
      all(form, "input[type=checkbox], input[name^=live_]").forEach(function (box) {
        if (box.name in saved) return;
        if (box.type === "checkbox") box.checked = false; else box.disabled = true;
      });
    }

    grid.forEach(function (b) { b.addEventListener("click", function () { tap(b.dataset.card); }); });
    fields.forEach(function (f) {
      f.addEventListener("focus", function () { setActive(f, null); });
      f.addEventListener("input", changed);
    });
    all(form, "input.amount").forEach(function (input) {
      input.addEventListener("focus", function () { setPadTarget(input); });
      input.addEventListener("input", function () {
        if (input === called) applyCalled(); else if (input.name.indexOf("put_in_") === 0) input.dataset.own = "1";
        changed(input);
      });
    });
    all(form, "#put-in-pad button").forEach(function (b) { b.addEventListener("click", function () { pad(b); }); });
    all(form, "button[data-allin]").forEach(function (b) {
      if (b.dataset.allin !== "pad") b.addEventListener("click", function () { allIn(seatBox(b)); });
    });
    all(form, "button[data-won]").forEach(function (b) { b.addEventListener("click", function () { won(b.dataset.won); }); });
    all(form, "input[type=checkbox]").forEach(function (box) {
      box.addEventListener("change", function () {
        if (box.name.indexOf("folded_") === 0) {
          // The dealer's own tap: a fold (on a seat read as folded, the fold is made the dealer's),
          // or a seat put back in the showdown (not read as mucked again).
          if (box.value === "auto" && !box.checked) box.checked = true;
          box.value = "on";
          setLive(seatBox(box), !box.checked);
          showMuck(seatBox(box));
          applyCalled();
        }
        if (active && skipped(active)) setActive(next(active));
        changed();
      });
    });
    var back = form.querySelector("[data-back]");
    if (back) back.addEventListener("click", takeBack);
    // A read in flight is dropped if the entry changed meanwhile (a newer read follows).
    form.addEventListener("htmx:beforeRequest", function (e) { if (e.detail.elt === form) sent = snapshot(); });
    form.changedSince = function () { return sent !== null && snapshot() !== sent; };
    form.readAgain = read;

    var record = form.dataset.hand ? load(HAND_PREFIX + form.dataset.hand) : null;
    var fresh = pageLoad;
    if (fresh && record && record.pending) restore(record.entry);  // a page load: this tablet's taps win
    all(form, "[aria-invalid=true]").forEach(function (input) { input.dataset.serverBad = "1"; });
    markOwn();
    if (padName && padName.value) setPadTarget(form.querySelector("input.amount[name='" + padName.value + "']"));
    var named = activeName && activeName.value && form.querySelector(".cards[data-count][name='" + activeName.value + "']");
    setActive(named && !full(named) ? named : next(null));
    seats().forEach(showMuck);
    var settled = settleMucks(false);  // in line with the entry drawn (this tablet's taps put back)
    check();
    mark();
    refreshKeys();
    keep();
    // The entry drawn isn't the one the reading on the screen was made from (a draft kept since),
    // or this tablet's taps were put back: read it again before it can be confirmed.
    if (form.dataset.changed === "1" || (fresh && record && record.pending) || settled) read();
  }

  function setup(root) {
    var scope = root && root.querySelector ? root : document;
    var form = scope.id === "showdown-form" ? scope : scope.querySelector("#showdown-form");
    if (form && !form.dataset.ready) { form.dataset.ready = "1"; entry(form); }
    var words = scope.querySelector && scope.querySelector("#misdeal-reason");
    if (words) {
      words.addEventListener("input", function () {
        var why = document.getElementById("misdeal-other-why");
        if (why) why.classList.toggle("alert", false);
        words.removeAttribute("aria-invalid");
      });
    }
    // The entries of hands no longer on the screen: sent if waiting (a hand that is over answers
    // 409 and is dropped), else forgotten.
    var current = form ? HAND_PREFIX + form.dataset.hand : null;
    storedHands().forEach(function (name) {
      var r = load(name);
      if (name !== current && !(r && r.pending)) store(name, null);
    });
    pageLoad = false;
    saveDrafts();
    flushWrites();
    showSync();
  }

  // Only the terminal's own body is swapped in, refusals (4xx) included; anything else (a login
  // page after the session ended, a server error) reloads the page or says so.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    if (!xhr.getResponseHeader("X-Terminal-Panel")) {
      e.detail.shouldSwap = false;
      if (xhr.status < 400) { window.location.reload(); return; }
      var notices = document.getElementById("notices");
      if (notices) notices.innerHTML = '<p class="alert">The server refused that (' + xhr.status + "). Nothing changed.</p>";
      return;
    }
    var elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (elt && elt.changedSince && elt.changedSince()) { e.detail.shouldSwap = false; return; }
    if (xhr.status >= 400) { e.detail.shouldSwap = true; e.detail.isError = false; }
  });
  document.addEventListener("DOMContentLoaded", function () {
    offline = navigator.onLine === false;
    if (window.htmx) window.htmx.onLoad(setup); else setup(document);
  });
})();
