// Money as a dealer types it and reads it: the page's one parser and its formatter. The same
// rules and the same cap as the kernel's parse_dollars and amount_text (casino/core/money.py),
// answering the same cases (tests/data/money_cases.json, run in Chromium by
// tests/web/browser/test_money_js_in_chromium.py). Amounts are integer cents.
(function (T) {
  "use strict";
  // The most whole dollars a field takes (12 digits, the kernel's MAX_DOLLARS): its cents stay
  // far below 2**53, so every amount is an exact integer here.
  var MAX_DOLLARS = 999999999999;
  // What Python's str.strip() takes off both ends (str.isspace()): not String.prototype.trim's
  // set (trim keeps \x1c-\x1f and \x85, takes \ufeff), so the two parsers read the same text.
  var SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var EDGES = new RegExp("^[" + SPACE + "]+|[" + SPACE + "]+$", "g");
  // ASCII digits only ([0-9], not \d): "²", "٣" or "１２" is no amount a dealer means. A leading
  // "$" (then ASCII spaces), no sign, at most two decimals; thousands' commas are taken out first.
  var DOLLARS = /^\$?[ \t\n\r\f\v]*([0-9]+)(?:\.([0-9]{1,2}))?$/;

  // "12", "12.5", "$1,212.50" -> cents (121250); anything else, or more than MAX_DOLLARS, -> null.
  function toCents(text) {
    var m = DOLLARS.exec(String(text).replace(EDGES, "").replace(/,/g, ""));
    if (!m) return null;
    var whole = m[1].replace(/^0+/, "");
    if (whole.length > String(MAX_DOLLARS).length) return null;  // too large
    return Number(whole || "0") * 100 + Number(((m[2] || "") + "00").slice(0, 2));
  }
  // What an amount field shows, read again by toCents: 1200 -> "12", 1250 -> "12.50" (no "$",
  // no commas), -150 -> "-1.50". Integer arithmetic: exact for every amount a field takes.
  function toDollars(cents) {
    var size = Math.abs(cents), rest = size % 100, whole = (size - rest) / 100;
    return (cents < 0 ? "-" : "") + whole + (rest ? (rest < 10 ? ".0" : ".") + rest : "");
  }

  T.money = { MAX_DOLLARS: MAX_DOLLARS, toCents: toCents, toDollars: toDollars };
})(window.Terminal = window.Terminal || {});
