"""``traitors-exact``: exact best responses and NashConv of agents on a small variant (issue 50, item 4).

``traitors-exact --agents random heuristic --variant mini3 --out reports/exact`` walks the variant's whole tree
(:mod:`traitors_env.solve.traitors_aboard`, :mod:`traitors_env.solve.avalon`; an OpenSpiel game's:
:mod:`traitors_env.solve.openspiel_tree`), reads each agent's action probabilities at every information state and
writes ``exact.json`` and ``exact.md``: per seat its value and exact best-response value (OpenSpiel's NashConv of the
n-player game), per side its win rate and its exact **team** best response (the side's seats deviate together, each
on its own information state), and the project's NashConv (the two sides' team best-response win rates summed,
minus 1; :mod:`traitors_env.solve.exact` says how the team best response is computed). ``--openspiel`` also runs
OpenSpiel's own ``exploitability.nash_conv`` on the pyspiel game (the ``solve`` extra) as a cross-check.

Agents are specs of the game (``random``, ``heuristic``, checkpoints, ``pkg.mod:fn``); the variants are those the
game declares (:func:`traitors_env.solve.small_variants`: Traitors Aboard's
:data:`~traitors_env.solve.traitors_aboard.VARIANTS`, ``openspiel_social_deduction``'s ``SMALL_VARIANTS``; tree sizes:
docs/solve.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from traitors_env.agents.spec import AgentSpecError, agent_maker
from traitors_env.cli_args import folder
from traitors_env.files import output_problem
from traitors_env.solve import INSTALL_HINT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="traitors-exact", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=["random", "heuristic"], help="agent specs (default: random heuristic)")
    parser.add_argument("--game", default="traitors_aboard",
                        help="the game, by name or env id, or game:variant (small variants: traitors_aboard, avalon, "
                             "openspiel_social_deduction)")
    parser.add_argument("--variant", default=None,
                        help="the small variant the game declares (default: its first, e.g. mini3, avalon's mini5; "
                             "docs/solve.md lists them)")
    parser.add_argument("--samples", type=int, default=1024,
                        help="seeded copies whose actions give the probabilities of an agent that does not state them (default 1024)")
    parser.add_argument("--milp-time-limit", type=float, default=300.0, help="seconds for each exact team best response (default 300)")
    parser.add_argument("--openspiel", action="store_true", help="also OpenSpiel's exploitability.nash_conv (the solve extra)")
    parser.add_argument("--cfr", type=int, default=0, metavar="ITERATIONS",
                        help="also solve the variant with CFR+ for ITERATIONS iterations and report its average policy as "
                             "agent 'cfr+' (its exact NashConv and the equilibrium's values), saved with --out as "
                             "OUT/cfr_plus.policy.json (an agent spec); default 0: no")
    parser.add_argument("--out", type=folder, default=None,
                        help="folder for exact.json and exact.md, made when they are written (default: print only)")
    return parser


def run(agents: Sequence[str], variant_name: str | None = None, samples: int = 1024, openspiel: bool = False,
        milp_time_limit: float = 300.0, game: str = "traitors_aboard", cfr: int = 0) -> dict:
    """The report of :func:`main` as a dict."""
    return _work(_checked(agents, variant_name, samples, openspiel, milp_time_limit, game, cfr))


def _checked(agents: Sequence[str], variant_name: str, samples: int, openspiel: bool, milp_time_limit: float,
             game: str, cfr: int) -> dict:
    """:func:`run`'s arguments checked, with the game, its variant and the agents' makers: every refusal comes here,
    before any work (and before :func:`main` makes ``--out``).

    Raises:
        ValueError, AgentSpecError, ImportError: naming the argument and what was expected.
    """
    from traitors_env.core import load_game
    from traitors_env.core.registry import MissingExtraError
    from traitors_env.solve import small_variants

    if isinstance(game, str) and ":" in game:  # --game traitors_aboard:mini3 names the variant too
        game, _, named = game.partition(":")
        if variant_name is not None and named != variant_name:
            raise ValueError(f"--game {game}:{named} and --variant {variant_name} name two variants; give one")
        variant_name = named
    try:  # a name or an environment id (traitors_aboard_v0), as every other command takes
        registered = load_game(game)
    except MissingExtraError as error:
        raise ImportError(f"--game {game!r}: {INSTALL_HINT}") from error
    declared = small_variants(registered)
    if not declared:
        raise ValueError(f"--game {game!r} declares no small variant; expected one of {_games_with_variants()}")
    game = registered.name
    if len(set(agents)) < len(agents):
        twice = sorted({spec for spec in agents if list(agents).count(spec) > 1})
        raise ValueError(f"--agents names {twice} more than once; expected each agent once (the report is by spec)")
    if not (isinstance(milp_time_limit, (int, float)) and 0 < milp_time_limit < float("inf")):
        raise ValueError(f"--milp-time-limit {milp_time_limit!r}; expected a positive number of seconds")
    if samples < 1:
        raise ValueError(f"--samples {samples!r}; expected an int ≥ 1")
    if cfr < 0:
        raise ValueError(f"--cfr {cfr!r}; expected an int ≥ 0 (iterations)")
    if variant_name is None:  # the game's first declared variant (Traitors Aboard's mini3 is not its first)
        variant_name = "mini3" if "mini3" in declared else next(iter(declared))
    if variant_name not in declared:
        raise ValueError(f"{game} has no small variant {variant_name!r}; declared: {sorted(declared)}")
    v = declared[variant_name]
    if openspiel:
        from traitors_env.solve import check_installed

        check_installed()  # ImportError with the install hint, before the walk
    # The variant as a game of its own where the game declares it (traitors_aboard:mini3): a tabular policy of the
    # variant is checked against it
    played = f"{game}:{v.name}" if v.name in registered.variants else game
    makers = [agent_maker(spec, game=played) for spec in agents]  # bad specs fail before the walk
    for spec, (label, _) in zip(agents, makers):
        if label.startswith("team:"):  # its seats share one plan per game: no probabilities per information state
            raise ValueError(f"--agents {spec}: a team equilibrium (.team.json) is evaluated exactly by python -m "
                             "traitors_env.solve.team_equilibrium, not per information state (docs/notes/team-equilibrium.md)")
    return {"agents": agents, "samples": samples, "openspiel": openspiel, "milp_time_limit": milp_time_limit, "cfr": cfr,
            "game": game, "registered": registered, "variant": v, "played": played, "makers": makers}


def _work(checked: dict) -> dict:
    """The walk and the evaluations of :func:`run`, on :func:`_checked`'s arguments."""
    from traitors_env.core import load_game
    from traitors_env.solve import exact, openspiel_nash_conv

    agents, samples, openspiel, cfr = checked["agents"], checked["samples"], checked["openspiel"], checked["cfr"]
    milp_time_limit, game, registered = checked["milp_time_limit"], checked["game"], checked["registered"]
    v, played, makers = checked["variant"], checked["played"], checked["makers"]
    tree = exact.build_tree(v)
    sides = tuple(registered.type.sides)
    report = {"game": game, "variant": v.name, "description": v.description, "tree": tree.size,
              "tree_seconds": round(tree.seconds, 1), "sides": list(sides),
              "side_labels": list(registered.type.side_labels), "agents": {}}
    for spec, (label, make) in zip(agents, makers):
        start = time.perf_counter()
        probabilities, note = exact.agent_policy(tree, make, samples=samples)
        result = exact.evaluate(tree, probabilities, sides=sides, milp_time_limit=milp_time_limit)
        result["policy"] = note
        if openspiel:
            t0 = time.perf_counter()
            result["openspiel"] = openspiel_nash_conv(v, tree, probabilities)
            result["openspiel"]["seconds"] = round(time.perf_counter() - t0, 1)
        result["seconds_total"] = round(time.perf_counter() - start, 1)
        report["agents"][spec] = {"label": label, **result}
    if cfr:
        from traitors_env.solve.cfr import cfr_plus

        start = time.perf_counter()
        probabilities, info = cfr_plus(tree, cfr)
        result = exact.evaluate(tree, probabilities, sides=sides, milp_time_limit=milp_time_limit)
        result["policy"] = {"cfr_plus": info}
        result["seat_values"] = [row["value"] for row in result["seats"]]
        result["seconds_total"] = round(time.perf_counter() - start, 1)
        report["agents"]["cfr+"] = {"label": f"cfr+:{v.name}:{cfr}", **result}
        report["cfr_policy_file"] = _cfr_policy(report, tree, probabilities, load_game(played), v.name, cfr, result)
    return report


def _cfr_policy(report: dict, tree, probabilities, kind, variant: str, iterations: int, result: dict):
    """CFR+'s average policy as a tabular policy of the variant's game, or why it cannot be one (``report["cfr_policy"]``
    holds the policy for :func:`main` to save)."""
    from traitors_env.solve.policy_file import tabular_policy

    if ":" not in kind.type.env_id:
        return f"not written: {kind.type.env_id} declares no game variant {variant!r} whose env could play it"
    source = {"solver": "cfr_plus", "iterations": iterations, "variant": variant,
              "nash_conv_seats": result["nash_conv_seats"], "nash_conv_points": result["nash_conv_sides"]["points_lower"]}
    try:
        report["cfr_policy"] = tabular_policy(tree, probabilities, kind.type.env_id, kind.type.num_actions, source)
    except ValueError as error:  # two information states behind one observation
        return f"not written: {error}"
    return "cfr_plus.policy.json"


def markdown(report: dict) -> str:
    first, second = report["sides"]
    label0, label1 = report["side_labels"]
    lines = [f"# Exact exploitability: {report['game']} `{report['variant']}`", "", report["description"], "",
             "Tree: " + ", ".join(f"{k} {v:,}" for k, v in report["tree"].items()) + f" (walk {report['tree_seconds']} s)", "",
             f"| agent | seat NashConv | {label0}: win rate → team BR | {label1}: win rate → team BR | NashConv (points) | "
             "exact | probabilities | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for spec, r in report["agents"].items():
        conv = r["nash_conv_sides"]
        points = (f"{conv['points_lower']:.2f}" if conv["exact"]
                  else f"{conv['points_lower']:.2f}–{conv['points_upper']:.2f}")
        lines.append(f"| {spec} | {r['nash_conv_seats'] + 0.0:.4f} | {_side(r['sides'][first])} | "
                     f"{_side(r['sides'][second])} | {points} | {conv['exact']} | {_read_how(r['policy'])} | {r['seconds_total']} |")
    return "\n".join(lines) + "\n"


def _side(row: dict) -> str:
    """A side's win rate under the profile → its team best response (a bracket where that is not exact)."""
    lower, upper = row["win_rate_lower"], row["win_rate_upper"]
    team = f"{lower:.3f}" if row["exact"] else f"{lower:.3f}–{upper:.3f}"
    return f"{row['win_rate']:.3f} → {team}"


def _games_with_variants() -> list[str]:
    """The registered games that declare small variants (for an error message: loads each game)."""
    from traitors_env.core import load_game
    from traitors_env.core.registry import registered_games
    from traitors_env.solve import small_variants

    names = []
    for name in registered_games():
        try:
            if small_variants(load_game(name)):
                names.append(name)
        except (ImportError, ValueError):  # a game that cannot load here (a missing extra) is not offered
            continue
    return names


def _read_how(note: dict) -> str:
    """How an agent's probabilities were read: stated by the agent (exact), or counted over seeded copies."""
    if "cfr_plus" in note:
        return "CFR+ average"
    if note.get("observations_sampled"):
        return f"sampled at {note['observations_sampled']} of {note['observations_sampled'] + note['observations_exact']} ({note['samples']} copies)"
    return "exact"


def main(argv: Sequence[str] | None = None) -> int:
    """``traitors-exact``: exact best responses and NashConv on a small variant."""
    args = build_parser().parse_args(argv)
    try:  # every argument is checked before minutes of work, and before anything is made on disk
        checked = _checked(args.agents, args.variant, args.samples, args.openspiel, args.milp_time_limit, args.game,
                           args.cfr)
        if args.out is not None and (problem := output_problem(args.out)):
            raise ValueError(f"--out {problem}")
        report = _work(checked)
    except (AgentSpecError, ValueError, ImportError) as error:
        print(f"traitors-exact: error: {error}", file=sys.stderr)
        return 2
    policy = report.pop("cfr_policy", None)
    text = markdown(report)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "exact.json").write_text(json.dumps(report, indent=1, default=float) + "\n")
        (args.out / "exact.md").write_text(text)
        print(f"wrote {args.out / 'exact.json'} and {args.out / 'exact.md'}")
        if policy is not None:
            from traitors_env.agents.tabular import save_tabular_policy

            path = save_tabular_policy(args.out / "cfr_plus.policy.json", policy)
            print(f"wrote {path}: CFR+'s average policy, an agent spec of {policy.game} (e.g. traitors-eval --game {policy.game} --agents {path} heuristic)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
