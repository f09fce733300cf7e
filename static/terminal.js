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
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form[data-cards]");
    for (var k = 0; k < forms.length; k++) {
      (function (form) {
        form.addEventListener("input", function () { check(form); });
        check(form);
      })(forms[k]);
    }
  });
})();
