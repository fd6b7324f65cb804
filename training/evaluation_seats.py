"""The evaluation of a run of a game with individual rewards (:mod:`training.evaluate`): per side and policy, the
policy at the one seat an agent of that side plays, every other seat played by the heuristic, per table size and
pooled; the learning check (trained's interval above random's) and the report.

Game ``g`` at ``n`` players is dealt from ``seed + 1000 n + g``: the same deals for every policy (:func:`evaluate_seats`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME
from traitors_env.core.stats import wilson_interval

from .agents import AgentSpec
from .config import RunConfig

__all__ = ["evaluate_seats", "play_seat_games", "seat_csv", "seat_learning_checks", "seat_markdown_report"]


def play_seat_games(game: Game | str, agent, opponents, side: int, num_players: int, games: int, seed: int,
                    claims: bool = True) -> int:
    """Play ``games`` games of ``num_players`` with ``agent`` at the seat an agent of ``side`` plays
    (:meth:`~traitors_env.core.Game.seat_for_agent`) and ``opponents`` at every other seat, game ``g`` dealt from
    ``seed + g``; every decision is asked of its player through the AEC loop. Returns the evaluated seat's wins.

    Raises:
        ValueError: for a table size the game does not have (from its env).
    """
    game = load_game(game)
    env = game.raw_env(num_players=num_players, claims=claims)
    seat_of = {name: i for i, name in enumerate(env.possible_agents)}
    wins = 0
    for g in range(games):
        env.reset(seed=seed + g)
        seat = game.seat_for_agent(env.game, side, seed + g)
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            player = agent if seat_of[name] == seat else opponents
            env.step(player.act(observation["observation"], observation["action_mask"]))
        wins += bool(game.seat_won(env.game, seat))
    return wins


def _rate(wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {"win_rate": wins / games, "ci_low": low, "ci_high": high, "games": games}


def evaluate_seats(config: RunConfig, snapshots: dict[str, str] | None, policies: Sequence[str], games: int,
                   seed: int) -> dict:
    """Per side (training order) and policy: its win rate (95% Wilson) at the side's seat against heuristic opponents.

    ``games`` are spread over the evaluation table sizes (``games // len(sizes)`` each, at least 1); every policy
    meets the same deals (game ``g`` at ``n`` players from ``seed + 1000 n + g``). A policy is built once per
    table size from ``seed`` (the heuristic opponents from ``seed + 1``); ``trained`` plays ``snapshots[side]``.

    Returns:
        ``{side: {policy: {"win_rate", "ci_low", "ci_high", "games", "per_table": {"n": {...}}}}}``.
    """
    game = config.game
    counts = config.eval_player_counts
    per_count = max(1, games // len(counts))
    result: dict = {}
    for side in game.sides_in_training_order:
        key = game.type.sides[side]
        result[key] = {}
        for policy in policies:
            wins = total = 0
            per_table = {}
            for n in counts:
                if policy == "trained":
                    agent = AgentSpec("policy", snapshots[key], config.deterministic(key), game.name).build(seed)
                else:
                    agent = game.make_bot(policy, seed)
                won = play_seat_games(game, agent, game.make_bot("heuristic", seed + 1), side, n, per_count,
                                      seed + 1000 * n, claims=config.env.claims)
                per_table[str(n)] = _rate(won, per_count)
                wins += won
                total += per_count
            result[key][policy] = {**_rate(wins, total), "per_table": per_table}
    return result


def seat_learning_checks(report: dict) -> dict:
    """Per side: does the trained policy beat random against heuristic opponents with the intervals apart?"""
    return {
        side: bool(report[side]["trained"]["ci_low"] > report[side]["random"]["ci_high"])
        for side in report
        if "trained" in report[side] and "random" in report[side]
    }


def seat_markdown_report(report: dict, title: str, game: Game | str = DEFAULT_GAME) -> str:
    """Per side and table size: the win rate of each policy against heuristic opponents, with 95% intervals."""
    game = load_game(game)
    lines = [
        f"# {title}",
        "",
        "Win rate of the policy in the side's seat, every other seat played by the heuristic (95 % Wilson).",
        "",
    ]
    for side, entries in report.items():
        policies = list(entries)
        tables = list(next(iter(entries.values()))["per_table"])
        lines += [
            f"## {game.type.side_labels[game.type.side_index(side)]}",
            "",
            "| players | " + " | ".join(policies) + " |",
            "|---" * (len(policies) + 1) + "|",
        ]
        for n in tables + ["all"]:
            cells = []
            for policy in policies:
                entry = entries[policy] if n == "all" else entries[policy]["per_table"][n]
                cells.append(
                    f"{entry['win_rate']:.3f} ({entry['ci_low']:.3f}–{entry['ci_high']:.3f}, {entry['games']} games)"
                )
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    checks = seat_learning_checks(report)
    if checks:
        lines.append(
            "Learning check (trained's interval above random's): "
            + ", ".join(f"{side}: {'yes' if ok else 'no'}" for side, ok in checks.items())
        )
    return "\n".join(lines) + "\n"


def seat_csv(report: dict) -> str:
    rows = []
    for side, entries in report.items():
        for policy, entry in entries.items():
            for n, values in [*entry["per_table"].items(), ("all", entry)]:
                rows.append({"side": side, "policy": policy, "num_players": n,
                             **{k: values[k] for k in ("games", "win_rate", "ci_low", "ci_high")}})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
