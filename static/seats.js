// The showdown entry as it stands, read from the form's own inputs: its seats ([data-seat]),
// what each seat's boxes say, its card fields and how full they are. ``s`` is one form's entry
// (entry.js): the form, its card fields in order (``s.fields``) and what is being tapped into.
(function (T) {
  "use strict";
  var tokens = T.cards.tokens;

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function list(s) { return all(s.form, "[data-seat]"); }
  function seatBox(input) { return input.closest("[data-seat]"); }
  function flag(box, name) {
    var input = box && box.querySelector("input[name^=" + name + "_]");
    return !!(input && input.checked);
  }
  function putIn(box) { return box.querySelector("input[name^=put_in_]"); }
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
  // The seat's note "read as folded" shows while it is.
  function showMuck(box) {
    var note = box.querySelector(".muck");
    if (note) note.hidden = !mucked(box);
  }

  // --- The card fields.
  function skipped(input) {
    var box = seatBox(input);
    return (flag(box, "folded") && !mucked(box)) || flag(box, "surrender") || flag(box, "fouled");
  }
  function count(input) { return parseInt(input.dataset.count || "0", 10); }
  function full(input) { return tokens(input.value).length >= count(input); }
  // The next field to tap into after ``after`` (from the first if null), or null if none is left.
  function next(s, after) {
    var start = after ? s.fields.indexOf(after) + 1 : 0;
    for (var k = 0; k < s.fields.length; k++) {
      var f = s.fields[(start + k) % s.fields.length];
      if (!full(f) && !skipped(f)) return f;
    }
    return null;
  }
  function ownFields(s, box) { return s.fields.filter(function (f) { return seatBox(f) === box; }); }
  function showsNone(s, box) { return ownFields(s, box).every(function (f) { return !tokens(f.value).length; }); }

  T.seats = {
    all: all, list: list, seatBox: seatBox, flag: flag, putIn: putIn, foldBox: foldBox,
    mucked: mucked, setLive: setLive, isLive: isLive, showMuck: showMuck,
    skipped: skipped, count: count, full: full, next: next, ownFields: ownFields, showsNone: showsNone,
  };
})(window.Terminal = window.Terminal || {});
