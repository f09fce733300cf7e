// Dealer terminal: one screen per table, tap first. The server draws the screen and htmx swaps
// it in place after every action (deal, read, confirm, misdeal); the showdown entry lives in the
// form's own inputs and is posted whole, so a refusal or a reading draws it back as entered.
// The page's scripts fill those inputs from taps (the card grid, the put-in pad, "all in", "won
// without a showdown"), check them as they change (unknown card, a card twice, wrong count),
// grey out the cards in use, fill the last row when the deck's last cards can only go there,
// read a pot game's seat that shows no cards as folded once every seat showing cards has them
// all (the screen ticks its "Folded", and a card tapped into it clears that), and read the hand
// as soon as the entry is complete. The server checks everything again; nothing here decides a
// rule.
//
// Nothing is lost: the entry is kept on this tablet as it changes (localStorage, per hand) and
// sent to the server as a draft (PUT .../draft/, a moment after the last tap), so a reload, a
// crashed browser or another tablet draws it back. While the connection is down a tap is kept and
// shown as waiting: the draft, and a write tapped meanwhile (deal, confirm, misdeal, a sweep), are
// sent once the connection is back, each under the Idempotency-Key it was given when tapped (the
// terminals' API: a retry is answered without being done twice); a read is made again.
//
// Plain scripts, no build step: each adds its part to one namespace (window.Terminal), loaded
// in this order by templates/tables/terminal.html, this one last: money.js (amounts typed),
// cards.js (card text), store.js (what the tablet keeps), sync.js (the connection and the
// drafts), outbox.js (writes tapped offline), seats.js (the entry read from its inputs),
// picker.js (the card grid), pad.js (put-ins and their pad), muck.js (seats read as folded),
// entry.js (checks, the reading, the form's wiring). This one finds the screen and starts them.
(function (T) {
  "use strict";
  var store = T.store;
  var pageLoad = true;  // the screen drawn by a page load (not by a swap): this tablet's kept taps go back in

  // For the tests and anyone watching: nothing of this screen is waiting to be sent or in flight.
  window.terminalIdle = function () { return T.sync.idle() && !T.muck.waiting(); };

  // --- Misdeal "other": the words come first, before the "sure?" dialog. And htmx's requests wait
  // for this screen's own one in flight (sync.js).
  document.addEventListener("htmx:confirm", function (e) {
    if (T.sync.hold(e)) return;
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
  function misdealWords(words) {
    words.addEventListener("input", function () {
      var why = document.getElementById("misdeal-other-why");
      if (why) why.classList.toggle("alert", false);
      words.removeAttribute("aria-invalid");
    });
  }

  // Every piece of the screen drawn (the page, or a swap): its entry started, the kept entries
  // of hands no longer on it sent if waiting (a hand that is over answers 409 and is dropped),
  // else forgotten, and whatever waits sent.
  function setup(root) {
    var scope = root && root.querySelector ? root : document;
    var form = scope.id === "showdown-form" ? scope : scope.querySelector("#showdown-form");
    if (form && !form.dataset.ready) { form.dataset.ready = "1"; T.entry.start(form, pageLoad); }
    var words = scope.querySelector && scope.querySelector("#misdeal-reason");
    if (words) misdealWords(words);
    var current = form ? store.HAND_PREFIX + form.dataset.hand : null;
    store.hands().forEach(function (name) {
      var r = store.load(name);
      if (name !== current && !(r && r.pending)) store.save(name, null);
    });
    pageLoad = false;
    T.sync.saveDrafts();
    T.outbox.flush();
    T.sync.showSync();
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
    T.sync.setOffline(navigator.onLine === false);
    if (window.htmx) window.htmx.onLoad(setup); else setup(document);
  });
})(window.Terminal = window.Terminal || {});
