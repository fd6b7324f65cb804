"""Team ratings from cross-play games with ``openskill`` (Plackett–Luce, teams of unequal size).

Each agent has one rating per team it plays (``"pirates"``, ``"mutineers"``): an agent's Pirates and
its Mutineers are different players. A game is a match of two teams whose members are the seats:
``k`` Pirate seats make a team of ``k`` copies of the Pirates agent's rating (the Pirates and
Mutineers of a table differ in number, which openskill's team model handles), and every copy gets
the same update, applied once. Games are rated in a fixed order (game index, table size, cell), so
ratings do not depend on the number of workers.

The Traitors (``game="the_traitors"``): the Traitor's seat (one) against the Faithful seats (the rest),
ranked by whether the Traitor won. Rewards there are individual (T16): rating it as a two-team match
treats "the Traitor did not win" as a Faithful win, even when no Faithful seat won either.
"""

from __future__ import annotations

from collections.abc import Iterable

from .kit_games import KitGame, kit_game

__all__ = ["rate_games"]


def rate_games(games: Iterable[tuple[int, str, str, bool]],
               game: str | KitGame = "traitors_aboard") -> dict[str, dict[str, dict]]:
    """Ratings per agent and team from games ``(num_players, row agent, column agent, row_won)``.

    The row side is the Pirates (Traitors Aboard) or the Traitor (The Traitors), see :mod:`.kit_games`;
    teams are named by ``game``'s ``teams`` (``"pirates"``/``"mutineers"``, ``"traitor"``/``"faithful"``).

    Returns:
        ``{agent: {team: {"mu", "sigma", "ordinal", "games"}}}`` (``ordinal`` = mu − 3·sigma, openskill's
        conservative estimate), for every agent and team that played.
    """
    from openskill.models import PlackettLuce

    game = kit_game(game)
    row_team, column_team = game.teams
    model = PlackettLuce()
    ratings: dict[tuple[str, str], object] = {}
    played: dict[tuple[str, str], int] = {}

    def rating(key):
        if key not in ratings:
            ratings[key] = model.rating(name=f"{key[0]} ({key[1]})")
            played[key] = 0
        return ratings[key]

    for num_players, pirates, mutineers, pirates_won in games:
        row_seats, column_seats = game.team_sizes(num_players)
        p_key, m_key = (pirates, row_team), (mutineers, column_team)
        p, m = rating(p_key), rating(m_key)
        teams = [[p] * row_seats, [m] * column_seats]
        new = model.rate(teams, ranks=[0, 1] if pirates_won else [1, 0])
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
