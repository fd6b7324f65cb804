"""The games the benchmark kit plays: one small descriptor per game (issue 15).

The kit's modules (:mod:`.crossplay`, :mod:`.ratings`, :mod:`.metagame`, :mod:`.report`, :mod:`.plots`,
:mod:`.cli`) are written once over a :class:`KitGame`: which environment, the two sides of a cell,
how agents are built from a spec, how one game is played and its winner read.

A cell pits a *row* agent against a *column* agent; the cell's win rate is the row side's:

- ``traitors_aboard``: rows play the Pirates, columns the Mutineers (two teams, one winner: constant-sum);
- ``the_traitors``: rows play the Traitor's seat, columns every Faithful seat. Rewards are individual
  (T16): the cell's win rate is the Traitor's, and each cell also counts the Faithful seats that won
  (``faithful_win_rate``); the two need not sum to 1 (a game may have several winners, or none of a side).

Hidden-role metrics (:mod:`.metrics`) exist for Traitors Aboard only (``has_metrics``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GAMES", "KitGame", "kit_game"]


@dataclass(frozen=True)
class KitGame:
    """What the kit needs to know about one game.

    Attributes:
        name: the ``--game`` value; env_name: the PettingZoo environment's name.
        teams: keys of the row and column sides in ``report.json`` (``("pirates", "mutineers")``).
        labels: the sides' names in text (``("Pirates", "Mutineers")``).
        wins_key: ``report.json``'s key for the row side's wins in a cell.
        min_players, max_players: the table sizes the game allows.
        has_metrics: whether :mod:`.metrics` (Traitors Aboard's hidden-role metrics) applies.
        mixed_motive: individual rewards (the meta-game's payoff is then a modelling choice, see the README).
    """

    name: str
    env_name: str
    teams: tuple[str, str]
    labels: tuple[str, str]
    wins_key: str
    min_players: int
    max_players: int
    has_metrics: bool
    mixed_motive: bool

    def agent_maker(self, spec: str) -> tuple[str, Callable]:
        """``(label, make(seed))`` for ``spec`` in this game; raises ``AgentSpecError`` naming the spec."""
        from ..agents.spec import agent_maker

        return agent_maker(spec, game=self.name)

    def team_sizes(self, num_players: int) -> tuple[int, int]:
        """Seats of the row side and of the column side at ``num_players``."""
        if self.name == "the_traitors":
            return 1, num_players - 1  # one Traitor (T02)
        from ..games.traitors_aboard.cards import table_setup

        setup = table_setup(num_players)
        return setup.pirates, setup.mutineers

    def make_env(self, num_players: int, claims: bool):
        if self.name == "the_traitors":
            from .. import the_traitors_v0

            return the_traitors_v0.raw_env(num_players=num_players, claims=claims)
        from .. import traitors_aboard_v0

        return traitors_aboard_v0.raw_env(num_players=num_players, claims=claims)

    def row_seats(self, env) -> list[bool]:
        """After ``reset``: for each seat, whether the row side plays it (the engine's deal, read as a game master)."""
        game = env.game
        if self.name == "the_traitors":
            return [s == game.traitor for s in range(game.num_players)]
        from ..games.traitors_aboard.cards import Role

        return [r == Role.PIRATE for r in game.roles]

    def outcome(self, env, num_players: int, claims: bool, deal: int) -> dict:
        """The finished game: ``row_won``, ``end_condition``, ``column_wins``/``column_seats`` and ``tallies``."""
        game = env.game
        if self.name == "the_traitors":
            result = game.result()
            winners = set(result["winners"])
            faithful = [s for s in range(num_players) if s != result["traitor"]]
            return {"row_won": result["traitor"] in winners, "end_condition": result["outcome"],
                    "column_wins": sum(s in winners for s in faithful), "column_seats": len(faithful),
                    "tallies": {}}
        from ..games.traitors_aboard.cards import ROLE_NAMES, Role
        from ..games.traitors_aboard.metrics import tally_game

        result = game.result()
        pirates_won = result["winner"] == ROLE_NAMES[Role.PIRATE]
        _, mutineers = self.team_sizes(num_players)
        return {"row_won": pirates_won, "end_condition": result["end_condition"],
                "column_wins": 0 if pirates_won else mutineers, "column_seats": mutineers,
                "tallies": tally_game(num_players, claims, deal, game.history)}


GAMES = {
    "traitors_aboard": KitGame("traitors_aboard", "traitors_aboard_v0", ("pirates", "mutineers"),
                               ("Pirates", "Mutineers"), "pirate_wins", 3, 8, True, False),
    "the_traitors": KitGame("the_traitors", "the_traitors_v0", ("traitor", "faithful"),
                            ("Traitor", "Faithful"), "traitor_wins", 3, 6, False, True),
}


def kit_game(name: str | KitGame) -> KitGame:
    """The descriptor of ``name`` (``traitors_aboard``, ``the_traitors``; the env names work too).

    Raises:
        ValueError: naming the unknown game and the known ones.
    """
    if isinstance(name, KitGame):
        return name
    for game in GAMES.values():
        if name in (game.name, game.env_name):
            return game
    raise ValueError(f"game {name!r} is not known to the benchmark kit; expected one of {', '.join(GAMES)}")

