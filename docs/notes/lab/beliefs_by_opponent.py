"""Deduction of one agent's role beliefs against each opponent separately (the kit's report pools its opponents).

The agent ``--observer`` plays every seat of the side that does not know the roles (the side other than
``Game.hidden_side``: Traitors Aboard's Pirates); each ``--against`` agent in turn plays every seat of the hidden side.
The observer's beliefs are scored as in ``traitors-eval``'s deduction section
(:class:`traitors_env.evaluation.deduction.Deduction`: Brier against the true roles, the base rate's, the heuristic's
on the same observations), per table size, for the late phase and the whole game::

    PYTHONPATH=. python docs/notes/lab/beliefs_by_opponent.py --observer runs/jax_belief-on \\
        --against heuristic runs/jax_belief-on runs/jax_belief-off --games 40

Prints one line per (opponent, table size, phase): decisions, Brier, base rate, heuristic, Brier / base.
"""

from __future__ import annotations

import argparse

from traitors_env.agents.spec import agent_maker
from traitors_env.core import load_game
from traitors_env.evaluation.deduction import Deduction, summarize_deduction
from traitors_env.evaluation.games import play_game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="traitors_aboard")
    parser.add_argument("--observer", required=True, help="agent spec of the side that deduces (its beliefs are scored)")
    parser.add_argument("--against", nargs="+", required=True, help="agent specs of the hidden side, one at a time")
    parser.add_argument("--players", nargs="+", type=int, default=None, help="table sizes (default: all)")
    parser.add_argument("--games", type=int, default=40, help="seeded games per opponent and table size")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    game = load_game(args.game)
    hidden = game.require("hidden_side")
    observer_side = 1 - hidden
    sizes = args.players or list(game.type.player_counts)
    label, make_observer = agent_maker(args.observer, game=game)
    print("against | players | phase | decisions | Brier | base rate | heuristic | Brier / base")
    for spec in args.against:
        _, make_other = agent_maker(spec, game=game)
        deduction = Deduction(game)
        for n in sizes:
            env = game.raw_env(num_players=n)
            for i in range(args.games):
                seed = args.seed + i

                def seated(state, seed=seed, n=n, make_other=make_other):
                    observer, other = make_observer(seed), make_other(seed + 1)
                    return [observer if game.side_of_seat(state, s) == observer_side else other for s in range(n)]

                def hook(seat, observation, mask, values, state, agent, deduction=deduction):
                    if game.side_of_seat(state, seat) == observer_side:
                        deduction.observe(label, state, seat, observation, values, mask, agent)

                play_game(env, seated, seed, beliefs=hook)
        tally = deduction.tallies.get((label, game.type.sides[observer_side]))
        if tally is None:
            print(f"{spec} | – | – | 0 | {label} has no beliefs")
            continue
        for row in summarize_deduction(tally, sizes)["rows"]:
            if row["phase"] in ("late", "all"):
                print(f"{spec} | {row['num_players']} | {row['phase']} | {row['decisions']} | {row['brier']:.3f} | "
                      f"{row['base_brier']:.3f} | {row['heuristic_brier']:.3f} | {row['brier_over_base']}", flush=True)


if __name__ == "__main__":
    main()
