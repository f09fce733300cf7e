// A seat that shows no cards (pot games): once the put-ins and the board are in and every
// other seat has all its cards or folded, with two hands shown at least (a showdown: one
// alone is "Won, no showdown"), it mucked: it is read as folded, as a card room reads it, and
// the screen says so on the seat and beside the reading. Not a seat the dealer put back in
// (unticked its "Folded", or all in: an all-in hand is shown). It stays folded until a card
// goes into it (which puts it back in), so correcting another seat's card doesn't move it; a
// tap on its "Folded" makes the fold the dealer's own (a fold tapped is never undone by it).
(function (T) {
  "use strict";
  var seats = T.seats;
  // How long the entry waits, complete but for seats showing no cards, before it reads them as
  // folded: a dealer still tapping the next seat's cards (a tap or two a second) isn't read early.
  var MUCK_DELAY = 800, timer = null;

  // The seats that mucked, as the entry stands (none until it is a showdown).
  function mucks(s) {
    if (!s.called || !T.pad.potCents(s)) return [];
    var boards = s.fields.filter(function (f) { return !seats.seatBox(f); });
    if (!boards.every(seats.full)) return [];
    var shown = 0, none = [];
    for (var i = 0, boxes = seats.list(s); i < boxes.length; i++) {
      var box = boxes[i], own = seats.ownFields(s, box), fold = seats.foldBox(box);
      if (own.length && own.every(seats.full)) { shown++; continue; }
      if (seats.flag(box, "folded") && !seats.mucked(box)) continue;  // folded by the dealer's tap
      if (!fold || seats.isLive(box) || !seats.showsNone(s, box)) return [];
      none.push(box);
    }
    return shown >= 2 ? none : [];
  }
  function setMuck(box, on) {
    var fold = seats.foldBox(box);
    fold.checked = on;
    fold.value = on ? "auto" : "on";
    seats.showMuck(box);
  }
  // Bring the seats read as folded in line with the entry: one a card went into is put back at
  // once; one newly mucked is read so after MUCK_DELAY (or ``now``). True if one changed.
  function settle(s, now) {
    var moved = false;
    seats.list(s).forEach(function (box) {
      if (seats.mucked(box) && !seats.showsNone(s, box)) { setMuck(box, false); moved = true; }
    });
    window.clearTimeout(timer);
    timer = null;
    var pending = (T.entry.check(s) ? mucks(s) : []).filter(function (box) { return !seats.mucked(box); });
    if (pending.length && now) {
      pending.forEach(function (box) { setMuck(box, true); });
      moved = true;
    } else if (pending.length) {
      timer = window.setTimeout(function () {
        timer = null;
        if (!document.body.contains(s.form)) return;  // the screen was drawn again meanwhile
        settle(s, true);
        T.entry.changed(s);
      }, MUCK_DELAY);
    }
    if (moved) { T.pad.applyCalled(s); T.picker.setActive(s, s.active, s.insertAt); }
    return moved;
  }
  // A seat is about to be read as folded (the entry waits MUCK_DELAY for more taps).
  function waiting() { return !!timer; }

  T.muck = { settle: settle, waiting: waiting };
})(window.Terminal = window.Terminal || {});
