"""Form input of the waiting-list pages: a player put on lists, and the room's list settings.
Input only: the services check every rule and refuse with a message the page shows."""

from __future__ import annotations

from typing import Any

from django import forms

from tables.models import EntryKind, EntrySource, Game, MissedCallPolicy, WaitingList, WaitingListSettings
from web.common.forms import WholeNumberField


class AddToListsForm(forms.Form):
    """A player (chosen, or a new name) onto the lists ticked, or onto every list at the stakes
    chosen ("any $4-$8 game")."""

    player = WholeNumberField(required=False, min_value=1, max_value=10**18)
    player_name = forms.CharField(required=False, max_length=100)
    board_alias = forms.CharField(required=False, max_length=30)
    lists = forms.TypedMultipleChoiceField(required=False, coerce=int)
    any_stakes = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    added_via = forms.ChoiceField(choices=EntrySource.choices, required=False)
    entry_kind = forms.ChoiceField(choices=EntryKind.choices, required=False)
    note = forms.CharField(required=False, max_length=100)

    def __init__(self, *args: Any, lists: list[WaitingList], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open_lists = lists
        self.fields["lists"].choices = [(w.pk, w.label) for w in lists]  # type: ignore[attr-defined]
        stakes = {w.stakes_id: w.stakes.label for w in lists}
        self.fields["any_stakes"].choices = [("", "no"), *sorted(stakes.items(), key=lambda s: s[1])]  # type: ignore[attr-defined]

    def clean_added_via(self) -> str:
        return str(self.cleaned_data.get("added_via") or EntrySource.IN_PERSON)

    def clean_entry_kind(self) -> str:
        return str(self.cleaned_data.get("entry_kind") or EntryKind.SEAT)

    def chosen_lists(self) -> list[WaitingList]:
        """The lists ticked, and every list at the stakes chosen, each once."""
        ticked = set(self.cleaned_data.get("lists") or [])
        stakes = self.cleaned_data.get("any_stakes")
        return [
            w for w in self.open_lists if w.pk in ticked or (stakes is not None and w.stakes_id == stakes)
        ]


class ListSettingsForm(forms.Form):
    """The room's list settings, and a number of players to open each game (blank: the room's)."""

    call_in_minutes = WholeNumberField(
        min_value=1, max_value=24 * 60, label="A call-in expires after (minutes)"
    )
    call_minutes = WholeNumberField(min_value=1, max_value=60, label="Time to take a called seat (minutes)")
    missed_call_policy = forms.ChoiceField(choices=MissedCallPolicy.choices, label="A missed call")
    move_down_places = WholeNumberField(min_value=1, max_value=50, label="Places a first miss moves down")
    table_changes_first = forms.BooleanField(required=False, label="Table changes before the list")
    interest_players = WholeNumberField(min_value=2, max_value=10, label="Players to open a game")
    reason = forms.CharField(max_length=500, required=False, label="Reason")

    def __init__(self, *args: Any, games: list[Game], current: WaitingListSettings, **kwargs: Any) -> None:
        kwargs.setdefault(
            "initial",
            {
                **{name: getattr(current, name) for name in self.base_fields if name != "reason"},
                **{f"open_{g.slug}": (current.interest_by_game or {}).get(g.slug) for g in games},
            },
        )
        super().__init__(*args, **kwargs)
        self.games = games
        for game in games:
            self.fields[f"open_{game.slug}"] = WholeNumberField(
                min_value=2, max_value=10, required=False, label=f"Players to open {game.name}"
            )

    def game_fields(self) -> list[forms.BoundField]:
        return [self[f"open_{game.slug}"] for game in self.games]

    def changes(self) -> dict[str, Any]:
        """The settings as the service takes them."""
        data = self.cleaned_data
        changes = {name: data[name] for name in self.base_fields if name != "reason"}
        changes["interest_by_game"] = {
            g.slug: data[f"open_{g.slug}"] for g in self.games if data.get(f"open_{g.slug}") is not None
        }
        return changes
