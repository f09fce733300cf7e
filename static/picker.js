// The card grid (#card-picker): a tap puts the card into the field being tapped into (the next
// one with room once it is full), a tap on a card in use takes it back (and the next tap goes
// where it was), the cards in use are greyed out, and the last field to fill takes the deck's
// last cards when nothing else can.
(function (T) {
  "use strict";
  var canonical = T.cards.canonical, tokens = T.cards.tokens, seats = T.seats;

  // Tap into ``input`` (null: every card is entered), the next card going at ``at`` in it (at
  // its end if null or left out).
  function setActive(s, input, at) {
    s.active = input; s.insertAt = at === undefined ? null : at;
    s.fields.forEach(function (f) { f.classList.toggle("active", f === input); });
    if (s.activeName) s.activeName.value = input ? input.name : "";
    if (s.target) {
      s.target.textContent = input
        ? "Tapping into " + input.dataset.where + ", " + input.labels[0].textContent.toLowerCase() +
          " (" + tokens(input.value).length + " of " + seats.count(input) + ")" +
          (seats.mucked(seats.seatBox(input)) ? ": it shows no cards and is read as folded; a card here puts it back in" : "")
        : "Every card is entered; tap a greyed card to take it back.";
    }
  }
  // The field holding ``card`` and where in it, or null.
  function owner(s, card) {
    for (var i = 0; i < s.fields.length; i++) {
      var list = tokens(s.fields[i].value);
      for (var j = 0; j < list.length; j++) if (canonical(list[j]) === card) return { field: s.fields[i], index: j };
    }
    return null;
  }
  // Every card entered -> where it is ("Seat 2", "the board").
  function used(s) {
    var cards = {};
    s.fields.forEach(function (input) {
      tokens(input.value).forEach(function (t) { var c = canonical(t); if (c) cards[c] = input.dataset.where; });
    });
    return cards;
  }
  // The last field to fill takes the deck's last cards when nothing else can (Chinese poker: the
  // fourth seat's last row); never while a seat is skipped or a field is wrong.
  function fillLast(s) {
    var open = s.fields.filter(function (f) { return !seats.skipped(f) && !seats.full(f); });
    if (open.length !== 1) return null;
    var f = open[0], taken = used(s);
    var left = s.grid.map(function (b) { return b.dataset.card; }).filter(function (c) { return !taken[c]; });
    if (left.length !== seats.count(f) - tokens(f.value).length) return null;
    f.value = tokens(f.value).concat(left).join(" ");
    return f;
  }
  function tap(s, card) {
    var held = owner(s, card);
    if (held) {  // a card in use: take it back, and put the next tap where it was
      var list = tokens(held.field.value);
      list.splice(held.index, 1);
      held.field.value = list.join(" ");
      setActive(s, held.field, held.index);
      T.entry.changed(s, held.field);
      return;
    }
    if (!s.active || (seats.full(s.active) && s.insertAt === null)) setActive(s, seats.next(s, s.active));
    if (!s.active) return;
    var cards = tokens(s.active.value);
    if (s.insertAt !== null && s.insertAt <= cards.length) cards.splice(s.insertAt, 0, card); else cards.push(card);
    s.active.value = cards.join(" ");
    s.insertAt = null;
    var filled = s.active;
    if (seats.full(s.active)) setActive(s, seats.next(s, s.active)); else setActive(s, s.active);
    if (T.entry.check(s)) {
      var last = fillLast(s);
      if (last) { filled = last; setActive(s, seats.next(s, last)); }
    }
    T.entry.changed(s, filled);
  }
  // "Back": the last card of the field tapped into (or of the last field holding one) comes out.
  function takeBack(s) {
    var f = s.active && tokens(s.active.value).length ? s.active : null;
    if (!f) for (var i = s.fields.length - 1; i >= 0; i--) if (tokens(s.fields[i].value).length) { f = s.fields[i]; break; }
    if (!f) return;
    var list = tokens(f.value); list.pop(); f.value = list.join(" ");
    setActive(s, f);
    T.entry.changed(s, f);
  }
  // Grey out the cards in use; a tap on one takes it back.
  function mark(s) {
    var cards = used(s);
    s.grid.forEach(function (b) {
      var where = cards[b.dataset.card];
      b.classList.toggle("used", !!where);
      b.setAttribute("aria-pressed", where ? "true" : "false");
      b.title = where ? b.dataset.card + " is in " + where + ": tap to take it back" : "";
    });
  }

  T.picker = { setActive: setActive, tap: tap, takeBack: takeBack, mark: mark };
})(window.Terminal = window.Terminal || {});
