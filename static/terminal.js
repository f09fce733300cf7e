// Dealer terminal: check card entry as it is typed (unknown card, a card twice anywhere at the
// table, wrong count). The server checks everything again; this only shows mistakes early.
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
  function tokens(input) { return input.value.replace(/,/g, " ").split(/\s+/).filter(Boolean); }
  function check(form) {
    var inputs = form.querySelectorAll("input.cards"), seen = {}, i, j;
    for (i = 0; i < inputs.length; i++) {
      var input = inputs[i], errors = [], list = tokens(input), joker = form.dataset.joker === "1";
      for (j = 0; j < list.length; j++) {
        var card = canonical(list[j]);
        if (card === null || (card === "JK" && !joker)) { errors.push("unknown card " + list[j]); continue; }
        if (seen[card]) { errors.push(card + " is already in " + seen[card]); } else { seen[card] = input.dataset.where; }
      }
      var want = parseInt(input.dataset.count || "0", 10);
      if (want && list.length > want) errors.push("needs " + want + " cards, got " + list.length);
      if (want && list.length && list.length < want) errors.push("needs " + want + " cards");
      var box = document.getElementById(input.id + "-error");
      input.setAttribute("aria-invalid", errors.length ? "true" : "false");
      if (box) box.textContent = errors.join("; ");
    }
  }
  // The card picker: a button per card (and the joker in lowball) that adds it to the card
  // field last used; a card already entered anywhere at the table is greyed out.
  function picker(form) {
    var box = document.getElementById("card-picker");
    if (!box) return;
    var target = form.querySelector("input.cards"), glyph = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
    form.addEventListener("focusin", function (e) { if (e.target.classList.contains("cards")) target = e.target; });
    var cards = [];
    "shdc".split("").forEach(function (suit) { RANKS.split("").reverse().forEach(function (r) { cards.push(r + suit); }); });
    if (form.dataset.joker === "1") cards.push("JK");
    cards.forEach(function (card) {
      var b = document.createElement("button");
      b.type = "button"; b.className = "pick " + (card[1] === "h" || card[1] === "d" ? "red" : "black");
      b.textContent = card === "JK" ? "Joker" : card[0] + glyph[card[1]];
      b.setAttribute("aria-label", card); b.dataset.card = card;
      b.addEventListener("click", function () {
        if (!target) return;
        target.value = (target.value.trim() + " " + card).trim();
        target.dispatchEvent(new Event("input", { bubbles: true }));
        target.focus();
      });
      box.appendChild(b);
    });
  }
  function mark(form) {
    var used = {}, inputs = form.querySelectorAll("input.cards");
    for (var i = 0; i < inputs.length; i++) tokens(inputs[i]).forEach(function (t) { var c = canonical(t); if (c) used[c] = true; });
    var buttons = document.querySelectorAll("#card-picker button.pick");
    for (var j = 0; j < buttons.length; j++) buttons[j].disabled = !!used[buttons[j].dataset.card];
  }
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form[data-cards]");
    for (var k = 0; k < forms.length; k++) {
      (function (form) {
        picker(form);
        form.addEventListener("input", function () { check(form); mark(form); });
        check(form);
        mark(form);
      })(forms[k]);
    }
  });
})();
