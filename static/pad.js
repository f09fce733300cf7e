// Put-ins and the put-in pad (pot games): every live seat starts from what the flow knows (the
// kill seat's kill blind) and takes the amount the live players put in (#called), capped at its
// chips (all in); a seat given its own amount keeps it. The pad's keys add to the amount tapped
// into (the amount each live player put in, or a seat's put-in: its own amount, the first key
// entering it); "All in" and "Won, no showdown" (the others' put-ins kept, folded) set the seats
// at once. Every key does something visible, or is disabled and says why.
(function (T) {
  "use strict";
  var money = T.money, tokens = T.cards.tokens, seats = T.seats;

  function defaultFor(s, box) {
    var stack = parseInt(box.dataset.stack || "0", 10), base = parseInt(box.dataset.base || "0", 10);
    var each = s.called ? (money.toCents(s.called.value) || 0) : 0;
    var cents = seats.flag(box, "folded") ? base : Math.max(base, each);
    return Math.min(cents, stack);
  }
  // Every seat not given its own amount takes what it put in by default.
  function applyCalled(s) {
    seats.list(s).forEach(function (box) {
      var input = seats.putIn(box);
      if (!input || input.dataset.own === "1") return;
      var cents = defaultFor(s, box);
      input.value = cents ? money.toDollars(cents) : "";
    });
  }
  // The put-ins drawn that differ from their default are the seats' own amounts.
  function markOwn(s) {
    seats.list(s).forEach(function (box) {
      var input = seats.putIn(box);
      if (!input) return;
      var cents = defaultFor(s, box), value = input.value.trim();
      input.dataset.own = (value === "" ? cents === 0 : money.toCents(value) === cents) ? "" : "1";
    });
  }
  function potCents(s) {
    return seats.list(s).reduce(function (sum, box) { return sum + (money.toCents(seats.putIn(box).value || "0") || 0); }, 0);
  }
  function setPadTarget(s, input) {
    s.padTarget = input && input !== s.called ? input : null;
    if (s.padName) s.padName.value = s.padTarget ? s.padTarget.name : "";
    if (s.padLabel) {
      s.padLabel.textContent = "Keys add to: " + (s.padTarget
        ? seats.seatBox(s.padTarget).querySelector("legend strong").textContent + ", " +
          s.padTarget.labels[0].textContent.replace(/\s*\$$/, "").toLowerCase()
        : "each live player");
    }
    refreshKeys(s);
  }
  // Every key does something visible, or is disabled and says why.
  function refreshKeys(s) {
    var form = s.form, allIn = form.querySelector("#all-in"), clear = form.querySelector("#clear-amount");
    var why = form.querySelector("#pad-why"), back = form.querySelector("#back-card");
    var reasons = [];
    if (allIn) {
      allIn.disabled = !(s.padTarget && s.padTarget.name.indexOf("put_in_") === 0);
      if (allIn.disabled) reasons.push('All in: tap a seat\'s put-in first, or that seat\'s own "All in".');
    }
    if (clear) {
      var input = s.padTarget || s.called;
      clear.disabled = !(input && input.value.trim());
      if (clear.disabled) reasons.push("Clear: nothing is entered there.");
    }
    if (why) { why.textContent = reasons.join(" "); why.hidden = !reasons.length; }
    if (back) {
      back.disabled = !s.fields.some(function (f) { return tokens(f.value).length; });
      back.title = back.disabled ? "No card is entered yet." : "";
    }
  }
  // A seat all in: its put-in is its chips; every live player put in at least as much (a player
  // still in called it, or is all in for less: capped at its own chips).
  function allIn(s, box) {
    var input = seats.putIn(box), stack = parseInt(box.dataset.stack || "0", 10);
    if (!input) return;
    input.value = money.toDollars(stack);
    input.dataset.own = "1";
    var folded = seats.foldBox(box);
    if (folded) { folded.checked = false; folded.value = "on"; seats.setLive(box, true); seats.showMuck(box); }
    if (s.called && (money.toCents(s.called.value) || 0) < stack) s.called.value = money.toDollars(stack);
    applyCalled(s);
    T.entry.changed(s, input);
  }
  // What a key adds to. A seat's put-in not yet its own shows what the pad set for each live
  // player: the dealer tapped it to enter what that seat put in (Robert's Rules: each player's
  // own total), so the first key starts from what the flow knows it put in (the kill blind, else
  // nothing), never adding to the pad's amount; then each key adds to the seat's own amount.
  function startOf(input, box) {
    if (box && input.name.indexOf("put_in_") === 0 && input.dataset.own !== "1") {
      return Math.min(parseInt(box.dataset.base || "0", 10), parseInt(box.dataset.stack || "0", 10));
    }
    return money.toCents(input.value) || 0;
  }
  // A key of the pad: "All in", "Clear", or one that adds its amount.
  function press(s, button) {
    if (button.dataset.allin) {
      if (s.padTarget && s.padTarget.name.indexOf("put_in_") === 0) allIn(s, seats.seatBox(s.padTarget));
      return;
    }
    var input = s.padTarget || s.called;
    if (!input) return;
    var box = s.padTarget ? seats.seatBox(s.padTarget) : null;
    if (button.dataset.clear) input.value = "";
    else input.value = money.toDollars(startOf(input, box) + parseInt(button.dataset.add, 10));
    if (box) input.dataset.own = "1"; else applyCalled(s);
    T.entry.changed(s, input);
  }
  // "Won, no showdown": every other seat folded. What each put in stays as it shows (a folded
  // player's chips stay in the pot, which the winner takes): it becomes the seat's own amount, so
  // the fold doesn't empty it.
  function won(s, seat) {
    seats.list(s).forEach(function (box) {
      var folded = seats.foldBox(box), input = seats.putIn(box), other = box.dataset.seat !== String(seat);
      if (!folded) return;
      if (other && input && input.value.trim()) input.dataset.own = "1";
      folded.checked = other; folded.value = "on"; seats.showMuck(box);
    });
    applyCalled(s);
    T.entry.changed(s);
  }

  T.pad = {
    applyCalled: applyCalled, markOwn: markOwn, potCents: potCents, setPadTarget: setPadTarget,
    refreshKeys: refreshKeys, allIn: allIn, press: press, won: won,
  };
})(window.Terminal = window.Terminal || {});
