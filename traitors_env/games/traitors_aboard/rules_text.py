"""The rules of *Traitors Aboard* in short, for the ``?`` key of ``traitors-play``: written from the English rulebook
(``docs/rules/traitors-aboard-rulebook-en.txt``) and the rulings (``docs/rules/RULINGS.md``) the engine
follows, with the numbers taken from :mod:`.cards` so they cannot drift. It lives in code, not in a data
file, so an installed package shows it too.
"""

from __future__ import annotations

from .cards import HAND_SIZE, PLANKS_TO_OVERBOARD, SETUP_TABLE

__all__ = ["rules_summary"]


def rules_summary(num_players: int | None = None) -> str:
    """The rules of *Traitors Aboard* in a screenful of plain text; ``num_players`` marks that table's row."""
    rows = "\n".join(
        f"  {'→' if row.num_players == num_players else ' '} {row.num_players} players: {row.pirates} Pirates, "
        f"{row.mutineers} Mutineer{'s' if row.mutineers > 1 else ''}, chest target {row.target}"
        for row in SETUP_TABLE.values()
    )
    return f"""\
THE RULES IN SHORT (rulebook and rulings in docs/rules/)
Teams. Each player has a secret role. Pirates want the chest to reach the target value; Mutineers
want the collection to fail. Nobody sees anyone's role until a player goes overboard or the game ends.
{rows}
Your turn: do one thing, then draw back up to {HAND_SIZE} cards (not after a Miraculous Catch).
  - Place a loot card (+1, 0 or -2) face down on the chest and announce its value: you may lie (R04).
  - Or play an action card; everybody sees which card and at whom, then it is discarded:
    Plank: put it in front of another player; {PLANKS_TO_OVERBOARD} Planks in front of a player send them
      overboard: their role is revealed, they play no more but share their team's result (R11).
    Good Riddance: the top 2 chest cards are discarded unseen (R08).
    Spyglass: take the top 3 chest cards, look at them (shuffled) and put them back in any order (R07).
    Miraculous Catch: draw 3 cards, then put 2 from your hand back on the draw pile (R09).
    Empty Your Pockets: another player discards their hand and draws {HAND_SIZE} new cards (R10).
  - Or, Pirates only and only as the first thing of their turn: open the chest. The game ends at once:
    the Pirates win if the true values in it add up to the target or more, else the Mutineers (R03).
After each turn the player may make one public claim, true or false: accuse, vouch, "my hand is …",
or after a Spyglass "the top of the chest is …" (R14-R16).
The game also ends when every Mutineer is overboard (Pirates win), when as many Mutineers as
Pirates are aboard (Mutineers win), or when the draw pile runs out (Mutineers win)."""
