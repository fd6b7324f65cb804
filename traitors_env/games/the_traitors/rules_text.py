"""The rules of *The Traitors* in short (as this package plays it, rulings T01–T16), for the ``?`` key of
``traitors-play``; the numbers come from :mod:`.cards` so they cannot drift."""

from __future__ import annotations

from . import cards as C

__all__ = ["rules_summary"]


def rules_summary(num_players: int | None = None) -> str:
    """The rules of *The Traitors* (as this package plays it, rulings T01–T16) in a screenful of plain text."""
    return f"""\
THE RULES IN SHORT (rulebook and rulings T01–T16 in docs/rules/the-traitors-RULINGS.md)
Roles. One secret Traitor, the rest Faithful (T02). Everyone starts with {C.START_GOLD} gold, which is public (T03).
Each of {C.NUM_ROUNDS} rounds:
  Mission: the prize pot gains some gold. The Traitor may secretly attempt the assignment (T06); everyone
    then shows a public signal, suspicious or clear: attempting makes the Traitor look suspicious more often (T07).
  Round Table: each player who takes part makes one public claim (none, "I suspect X", "X is Faithful",
    "I am Faithful"; lies allowed, T08), then names another player in a secret vote, revealed together;
    a Dagger makes a vote count twice. Most votes lose {C.BANISH_LOSS} gold; on a tie each tied player
    loses {C.TIE_LOSS} (T09). A player murdered last Night sits this one out (T10).
  Armoury: one player drawn at random draws a reward card: gold at once, or a Shield/Dagger kept secret (T11).
  Night: after a successful assignment the Traitor may murder: the victim loses {C.MURDER_LOSS} gold unless a
    Shield saves them; who murdered stays secret (T12).
End Game: the Traitor is revealed. Faithful gain {C.VOTE_REWARD} gold per vote that named the Traitor
  ({C.DAGGER_VOTE_REWARD} with a Dagger); the Traitor gains {C.MURDER_REWARD} per murder not prevented (T13).
Final: the two richest are finalists (T14). Each makes a public statement, then both secretly write
  Faithful or Traitor: both Faithful share the pot and their gold; one Traitor takes it all; both
  Traitor: the third-placed player wins (T15). Reward: +1 to each winner, 0 to the others (T16)."""
