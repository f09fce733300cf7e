// Cards as typed or tapped into a field: "As", "10h", "td" and "JK" (a joker) read as one card
// each, written "As Th Td JK"; a field's text is split into its cards on spaces and commas.
(function (T) {
  "use strict";
  var RANKS = "23456789TJQKA", SUITS = "SHDC";

  // The card's one spelling ("Th"), "JK" for a joker, or null for text that is no card.
  function canonical(text) {
    var t = text.trim().toUpperCase();
    if (t === "JK") return "JK";
    if (t.length === 3 && t.slice(0, 2) === "10") t = "T" + t[2];
    if (t.length !== 2 || RANKS.indexOf(t[0]) < 0 || SUITS.indexOf(t[1]) < 0) return null;
    return t[0] + t[1].toLowerCase();
  }
  function tokens(value) { return value.replace(/,/g, " ").split(/\s+/).filter(Boolean); }

  T.cards = { canonical: canonical, tokens: tokens };
})(window.Terminal = window.Terminal || {});
