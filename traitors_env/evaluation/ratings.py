"""Team ratings from cross-play games with ``openskill`` (Plackett–Luce, teams of unequal size), for any game.

Each agent has one rating per side it plays (the game's ``type.sides``, e.g. ``"pirates"`` and
``"mutineers"``): an agent's row side and its column side are different players. A game is a match of
two teams whose members are the seats: ``k`` seats of the row side (``game.side_sizes``) make a team of
``k`` copies of the row agent's rating (the sides of a table may differ in number, which openskill's
team model handles), and every copy gets the same update, applied once. Games are rated in a fixed order
(game index, table size, cell), so ratings do not depend on the number of workers.

In a general-sum game (``type.mixed_motive``, e.g. The Traitors) the match is ranked by whether the row
side won: rating it as a two-team match treats "the row side did not win" as a column-side win, even
when no column seat won either.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game

__all__ = ["rate_games"]


def rate_games(games: Iterable[tuple[int, str, str, bool]],
               game: str | Game = DEFAULT_GAME) -> dict[str, dict[str, dict]]:
    """Ratings per agent and side from games ``(num_players, row agent, column agent, row_won)``.

    The row side is ``game.type.sides[0]`` (Traitors Aboard's Pirates, The Traitors' Traitor); sides are
    named by their keys (``"pirates"``/``"mutineers"``, ``"traitor"``/``"faithful"``).

    Returns:
        ``{agent: {team: {"mu", "sigma", "ordinal", "games"}}}`` (``ordinal`` = mu − 3·sigma, openskill's
        conservative estimate), for every agent and team that played.
    """
    from openskill.models import PlackettLuce

    game = load_game(game)
    row_team, column_team = game.type.sides
    model = PlackettLuce()
    ratings: dict[tuple[str, str], object] = {}
    played: dict[tuple[str, str], int] = {}

    def rating(key):
        if key not in ratings:
            ratings[key] = model.rating(name=f"{key[0]} ({key[1]})")
            played[key] = 0
        return ratings[key]

    for num_players, row_agent, column_agent, row_won in games:
        row_seats, column_seats = game.side_sizes(num_players)
        p_key, m_key = (row_agent, row_team), (column_agent, column_team)
        p, m = rating(p_key), rating(m_key)
        teams = [[p] * row_seats, [m] * column_seats]
        new = model.rate(teams, ranks=[0, 1] if row_won else [1, 0])
        ratings[p_key], ratings[m_key] = new[0][0], new[1][0]
        played[p_key] += 1
        played[m_key] += 1
    out: dict[str, dict[str, dict]] = {}
    for (agent, team), r in ratings.items():
        out.setdefault(agent, {})[team] = {
            "mu": round(float(r.mu), 4),
            "sigma": round(float(r.sigma), 4),
            "ordinal": round(float(r.mu - 3 * r.sigma), 4),
            "games": played[(agent, team)],
        }
    return out
