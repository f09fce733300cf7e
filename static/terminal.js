// Dealer terminal: one screen per table, tap first. The server draws the screen and htmx swaps
// it in place after every action (deal, read, confirm, misdeal); the showdown entry lives in the
// form's own inputs and is posted whole, so a refusal or a reading draws it back as entered.
// This script only fills those inputs from taps (the card grid, the put-in pad, "won without a
// showdown"), checks them as they change (unknown card, a card twice, wrong count), greys out
// the cards in use, and reads the hand as soon as the entry is complete. The server checks
// everything again; nothing here decides a rule.
(function () {
  "use strict";
  var RANKS = "23456789TJQKA", SUITS = "SHDC";

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

  function entry(form) {
    var joker = form.dataset.joker === "1";
    var fields = all(form, "input.cards").sort(function (a, b) { return a.dataset.order - b.dataset.order; });
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
    function skipped(input) {
      var box = seatBox(input);
      return flag(box, "folded") || flag(box, "surrender") || flag(box, "fouled");
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
            " (" + tokens(input.value).length + " of " + count(input) + ")"
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
    }
    function pad(button) {
      var input = padTarget || called;
      if (!input) return;
      var box = padTarget ? seatBox(padTarget) : null;
      if (button.dataset.clear) input.value = "";
      else if (button.dataset.allin) {
        if (!box) return;
        input.value = toDollars(parseInt(box.dataset.stack || "0", 10));
      } else {
        input.value = toDollars((toCents(input.value) || 0) + parseInt(button.dataset.add, 10));
      }
      if (box) input.dataset.own = "1"; else applyCalled();
      changed(input);
    }
    function won(seat) {
      seats().forEach(function (box) {
        var folded = box.querySelector("input[name^=folded_]");
        if (folded) folded.checked = box.dataset.seat !== String(seat);
      });
      applyCalled();
      changed();
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
      var used = {};
      fields.forEach(function (input) {
        tokens(input.value).forEach(function (t) { var c = canonical(t); if (c) used[c] = input.dataset.where; });
      });
      grid.forEach(function (b) {
        var where = used[b.dataset.card];
        b.classList.toggle("used", !!where);
        b.setAttribute("aria-pressed", where ? "true" : "false");
        b.title = where ? b.dataset.card + " is in " + where + ": tap to take it back" : "";
      });
    }
    function complete() {
      var boxes = seats(), pot = !!called;
      if (pot) {
        var live = boxes.filter(function (box) { return !flag(box, "folded"); });
        var total = boxes.reduce(function (sum, box) { return sum + (toCents(putIn(box).value || "0") || 0); }, 0);
        if (!live.length || !total) return false;
        if (live.length === 1) return true;  // won without a showdown: no cards needed
      }
      return fields.every(function (f) { return skipped(f) || tokens(f.value).length === count(f); });
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
    function changed(input) {
      touched(input && input.target ? input.target : input);
      var ok = check(), ready = ok && complete();
      mark();
      stale(ready);
      if (ready && window.htmx) window.htmx.trigger(form, "autoread");
    }
    function snapshot() {
      var data = new FormData(form);
      data.delete("active");
      data.delete("pad");
      return new URLSearchParams(data).toString();
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
    all(form, "button[data-won]").forEach(function (b) { b.addEventListener("click", function () { won(b.dataset.won); }); });
    all(form, "input[type=checkbox]").forEach(function (box) {
      box.addEventListener("change", function () {
        if (box.name.indexOf("folded_") === 0) applyCalled();
        if (active && skipped(active)) setActive(next(active));
        changed();
      });
    });
    var back = form.querySelector("[data-back]");
    if (back) back.addEventListener("click", takeBack);
    // A read in flight is dropped if the entry changed meanwhile (a newer read follows).
    form.addEventListener("htmx:beforeRequest", function (e) { if (e.detail.elt === form) sent = snapshot(); });
    form.changedSince = function () { return sent !== null && snapshot() !== sent; };

    all(form, "[aria-invalid=true]").forEach(function (input) { input.dataset.serverBad = "1"; });
    markOwn();
    if (padName && padName.value) setPadTarget(form.querySelector("input.amount[name='" + padName.value + "']"));
    var named = activeName && activeName.value && form.querySelector("input.cards[name='" + activeName.value + "']");
    setActive(named && !full(named) ? named : next(null));
    check();
    mark();
  }

  function setup(root) {
    var scope = root && root.querySelector ? root : document;
    var form = scope.id === "showdown-form" ? scope : scope.querySelector("#showdown-form");
    if (form && !form.dataset.ready) { form.dataset.ready = "1"; entry(form); }
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
    if (window.htmx) window.htmx.onLoad(setup); else setup(document);
  });
})();
