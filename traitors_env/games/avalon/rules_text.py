"""The rules of *Avalon* in short (as this package plays it, rulings A01–A18), for the ``?`` key of ``traitors-play``;
the numbers come from :mod:`.roles` so they cannot drift."""

from __future__ import annotations

from . import roles as R

__all__ = ["rules_summary"]


def rules_summary(num_players: int | None = None) -> str:
    """The rules of *The Resistance: Avalon* (rulings A01–A18) in a screenful of plain text; with ``num_players``,
    that table's Evil count and team sizes."""
    if num_players is None:
        table = "Evil players by table size 5–10: " + ", ".join(f"{n}: {e}" for n, e in R.EVIL_COUNT.items())
    else:
        n = R.check_num_players(num_players)
        table = (f"At {n} players: {R.EVIL_COUNT[n]} Evil, {n - R.EVIL_COUNT[n]} Good; team sizes "
                 + " ".join(str(s) for s in R.TEAM_SIZES[n]) + (" (quest 4 needs two Fails)" if n >= 7 else ""))
    return f"""\
THE RULES IN SHORT (rulings A01–A18 in docs/rules/avalon-RULINGS.md)
Sides. Good (Merlin, Loyal Servants, optionally Percival) against Evil (the Assassin, Minions, optionally
  Morgana, Mordred, Oberon). {table} (A01, A02, A05).
Knowledge (A03). Evil players see each other (not Oberon); Merlin sees Evil (not Mordred); Percival sees
  Merlin and Morgana without knowing which is which.
Each quest: the leader picks a team of the quest's size, one member at a time (A06); with claims on, everyone
  makes one public claim (A16); everyone votes approve or reject, revealed together (A07); a strict majority
  approves (A08). A rejection passes leadership left; the fifth rejection in a row on a quest: Evil wins (A09).
  The team plays Success or Fail in secret (Good must play Success, A10); only the number of Fails is shown;
  one Fail fails the quest, two on quest 4 at 7+ players (A11). Leadership passes left (A12).
End. Three failed quests: Evil wins (A13). Three successes: the Assassin names a player; Merlin named: Evil
  wins, else Good wins (A14). Reward +1 to every player of the winning side, −1 to the others (A15)."""
