// The showdown entry form (#showdown-form): its fields checked as they change (unknown card, a
// card twice, wrong count; the server's own mark stays until the field is changed), the entry
// kept (store.js, sync.js) and read as soon as it is complete, this tablet's taps put back over
// the entry drawn after a page load. The taps themselves: picker.js (cards), pad.js (put-ins),
// muck.js (seats read as folded).
(function (T) {
  "use strict";
  var canonical = T.cards.canonical, tokens = T.cards.tokens, seats = T.seats, all = T.seats.all;

  // --- Checks as entered, and the reading as soon as the entry is complete.
  function check(s) {
    var seen = {}, bad = false;
    s.fields.forEach(function (input) {
      var errors = [], list = tokens(input.value);
      list.forEach(function (text) {
        var card = canonical(text);
        if (card === null || (card === "JK" && !s.joker)) { errors.push("unknown card " + text); return; }
        if (seen[card]) errors.push(card + " is already in " + seen[card]); else seen[card] = input.dataset.where;
      });
      var want = seats.count(input);
      if (want && list.length > want) errors.push("needs " + want + " cards, got " + list.length);
      var box = document.getElementById(input.id + "-error");
      if (errors.length) bad = true;
      // The server's mark stays until the field is changed.
      input.setAttribute("aria-invalid", errors.length || input.dataset.serverBad ? "true" : "false");
      if (box) box.textContent = errors.join("; ");
    });
    return !bad;
  }
  function complete(s) {
    var boxes = seats.list(s), pot = !!s.called;
    if (pot) {
      var live = boxes.filter(function (box) { return !seats.flag(box, "folded"); });
      if (!live.length || !T.pad.potCents(s)) return false;
      if (live.length === 1) return true;  // won without a showdown: no cards needed
    }
    return s.fields.every(function (f) {
      return seats.skipped(f) || seats.mucked(seats.seatBox(f)) || tokens(f.value).length === seats.count(f);
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
  function read(s) {
    var ok = check(s), ready = ok && complete(s);
    T.picker.mark(s);
    T.pad.refreshKeys(s);
    stale(ready || T.muck.waiting());
    if (ready && window.htmx) window.htmx.trigger(s.form, "autoread");
  }

  // --- The entry as it changes: kept, and read again.
  function entryNow(s) {
    var data = {};
    new FormData(s.form).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") data[name] = String(value);
    });
    return data;
  }
  function keep(s) {
    var form = s.form;
    if (form.dataset.hand && form.dataset.draft) T.sync.keepEntry(form.dataset.hand, form.dataset.draft, entryNow(s));
  }
  // ``input`` (if any) was changed: the server's mark on it goes.
  function changed(s, input) {
    if (input) delete input.dataset.serverBad;
    T.muck.settle(s, false);
    keep(s);
    read(s);
  }
  // The entry as a reading sends it (what is tapped into left out).
  function snapshot(s) {
    var data = new FormData(s.form);
    data.delete("active");
    data.delete("pad");
    return new URLSearchParams(data).toString();
  }
  // The entry as this tablet kept it, over the one drawn (taps the server hasn't got yet).
  function restore(s, saved) {
    Object.keys(saved).forEach(function (name) {
      var input = s.form.querySelector("[name='" + name + "']");
      if (!input || input.type === "hidden" && name.indexOf("declare_") === 0) return;
      if (name.indexOf("live_") === 0) { input.disabled = false; return; }
      if (input.type === "checkbox") {
        input.checked = !!saved[name];
        if (name.indexOf("folded_") === 0) input.value = saved[name] === "auto" ? "auto" : "on";
      }
      else if (input.tagName !== "SELECT") input.value = saved[name];
    });
    all(s.form, "input[type=checkbox], input[name^=live_]").forEach(function (box) {
      if (box.name in saved) return;
      if (box.type === "checkbox") box.checked = false; else box.disabled = true;
    });
  }

  // --- Wiring: the form's taps and fields.
  function onFolded(s, box) {
    // The dealer's own tap: a fold (on a seat read as folded, the fold is made the dealer's),
    // or a seat put back in the showdown (not read as mucked again).
    if (box.value === "auto" && !box.checked) box.checked = true;
    box.value = "on";
    seats.setLive(seats.seatBox(box), !box.checked);
    seats.showMuck(seats.seatBox(box));
    T.pad.applyCalled(s);
  }
  function listen(s) {
    var form = s.form;
    s.grid.forEach(function (b) { b.addEventListener("click", function () { T.picker.tap(s, b.dataset.card); }); });
    s.fields.forEach(function (f) {
      f.addEventListener("focus", function () { T.picker.setActive(s, f, null); });
      f.addEventListener("input", function () { changed(s, f); });
    });
    all(form, "input.amount").forEach(function (input) {
      input.addEventListener("focus", function () { T.pad.setPadTarget(s, input); });
      input.addEventListener("input", function () {
        if (input === s.called) T.pad.applyCalled(s); else if (input.name.indexOf("put_in_") === 0) input.dataset.own = "1";
        changed(s, input);
      });
    });
    all(form, "#put-in-pad button").forEach(function (b) { b.addEventListener("click", function () { T.pad.press(s, b); }); });
    all(form, "button[data-allin]").forEach(function (b) {
      if (b.dataset.allin !== "pad") b.addEventListener("click", function () { T.pad.allIn(s, seats.seatBox(b)); });
    });
    all(form, "button[data-won]").forEach(function (b) { b.addEventListener("click", function () { T.pad.won(s, b.dataset.won); }); });
    all(form, "input[type=checkbox]").forEach(function (box) {
      box.addEventListener("change", function () {
        if (box.name.indexOf("folded_") === 0) onFolded(s, box);
        if (s.active && seats.skipped(s.active)) T.picker.setActive(s, seats.next(s, s.active));
        changed(s);
      });
    });
    var back = form.querySelector("[data-back]");
    if (back) back.addEventListener("click", function () { T.picker.takeBack(s); });
    // A read in flight is dropped if the entry changed meanwhile (a newer read follows).
    form.addEventListener("htmx:beforeRequest", function (e) { if (e.detail.elt === form) s.sent = snapshot(s); });
    form.changedSince = function () { return s.sent !== null && snapshot(s) !== s.sent; };
    form.readAgain = function () { read(s); };
  }

  // The form drawn (by a page load if ``fresh``, else by a swap): taps wired, the entry as this
  // tablet kept it put back (a page load: this tablet's taps win), checked, kept and read.
  function start(form, fresh) {
    var s = {
      form: form, joker: form.dataset.joker === "1",
      fields: all(form, ".cards[data-count]").sort(function (a, b) { return a.dataset.order - b.dataset.order; }),
      activeName: form.querySelector("input[name=active]"), padName: form.querySelector("input[name=pad]"),
      grid: all(form, "#card-picker button.pick"), called: form.querySelector("#called"),
      padLabel: form.querySelector("#pad-target"), target: document.getElementById("picker-target"),
      active: null, insertAt: null, padTarget: null, sent: null,
    };
    listen(s);
    var record = form.dataset.hand ? T.store.load(T.store.HAND_PREFIX + form.dataset.hand) : null;
    var restored = !!(fresh && record && record.pending);
    if (restored) restore(s, record.entry);
    all(form, "[aria-invalid=true]").forEach(function (input) { input.dataset.serverBad = "1"; });
    T.pad.markOwn(s);
    if (s.padName && s.padName.value) T.pad.setPadTarget(s, form.querySelector("input.amount[name='" + s.padName.value + "']"));
    var named = s.activeName && s.activeName.value && form.querySelector(".cards[data-count][name='" + s.activeName.value + "']");
    T.picker.setActive(s, named && !seats.full(named) ? named : seats.next(s, null));
    seats.list(s).forEach(seats.showMuck);
    var settled = T.muck.settle(s, false);  // in line with the entry drawn (this tablet's taps put back)
    check(s);
    T.picker.mark(s);
    T.pad.refreshKeys(s);
    keep(s);
    // The entry drawn isn't the one the reading on the screen was made from (a draft kept since),
    // or this tablet's taps were put back: read it again before it can be confirmed.
    if (form.dataset.changed === "1" || restored || settled) read(s);
  }

  T.entry = { check: check, changed: changed, start: start };
})(window.Terminal = window.Terminal || {});
