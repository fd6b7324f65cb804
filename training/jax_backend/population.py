"""A league's populations: each side's members, their cross-play cells and the meta-games solved over them.

:class:`Population` is the content of ``league.json`` (schema in :mod:`training.jax_backend.league`'s module doc):
it starts from the fixed members (:func:`fixed_members`), plays the cells of the cross-play matrix not played yet
(:func:`.cross_play.cross_play`; members are frozen, so a cell is played once), solves the meta-game with the
benchmark kit's LP, writes ``league.json`` and ``league.png``, and restores the completed iterations of a saved
file for ``--resume``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.metagame import solve_zero_sum
from traitors_env.evaluation.plots import plot_league
from traitors_env.files import atomic_write_text, confined_path

from ..config import ConfigError, RunConfig
from ..run import derive_seed
from ..storage import RunFolder
from .cross_play import HEURISTIC, POLICY, RANDOM, cross_play
from .engine import Engine

__all__ = ["BOTS", "LEAGUE_FILE", "Member", "Population", "check_fixed_shares", "fixed_members", "read_league"]

#: the league's file in the run folder
LEAGUE_FILE = "league.json"
#: fixed members every engine has (both sides)
BOTS = ("heuristic", "random")


@dataclass(frozen=True)
class Member:
    """A member of one side's population: ``kind`` ``"policy"`` (``checkpoint``: its file, relative to the run
    folder), ``"heuristic"``, ``"random"`` or ``"probe"``; ``iteration`` the one that added it (0 = fixed);
    ``exploiter``: a policy of ``league.exploiters`` (trained from fresh parameters against the other side's
    newest policy), not the side's own line of policies."""

    name: str
    kind: str
    iteration: int = 0
    checkpoint: str | None = None
    exploiter: bool = False


def fixed_members(names, engine: Engine, sides) -> dict[str, list[Member]]:
    """Each side's fixed members from ``league.fixed``, in the order given (a probe only on its own side).

    Raises:
        ValueError: for a name that is neither a bot (:data:`BOTS`) nor one of the engine's probes (naming both),
            or for a side left without any fixed member.
    """
    probes = {name: side for name, side, _ in engine.probes}
    out: dict[str, list[Member]] = {side: [] for side in sides}
    for name in names:
        if name in BOTS:
            for side in sides:
                out[side].append(Member(name, name))
        elif name in probes:
            out[sides[probes[name]]].append(Member(name, "probe"))
        else:
            known = ", ".join([*BOTS, *probes]) or "none"
            raise ValueError(
                f"league.fixed names {name!r}, which is neither a bot nor a probe of {engine.game}'s JAX twin; "
                f"expected one of {known}"
            )
    for side, members in out.items():
        if not members:
            raise ValueError(f"league.fixed gives the {side} no member; add random or heuristic")
    return out


def check_fixed_shares(shares: dict, members: dict[str, list[Member]], sides) -> None:
    """``league.fixed_share``'s entries under a side name members of the other side's population (:func:`fixed_members`):
    a flat entry may name a member one side lacks (the Pirates-only ``plank`` keeps nothing in the Pirates' training),
    a side's own entry may not.

    Raises:
        ConfigError: naming the side, the member and the members that side's training meets.
    """
    for side, other in (tuple(sides), tuple(sides)[::-1]):
        own = shares.get(side)
        missing = sorted(set(own) - {m.name for m in members[other]}) if isinstance(own, dict) else []
        if missing:
            raise ConfigError(f"league.fixed_share.{side} names {', '.join(missing)}, which the {other}' population "
                              f"lacks (a probe plays its own side only); the {side}' training meets "
                              f"{', '.join(m.name for m in members[other])}")


class Population:
    """The populations, their cross-play cells and the solved meta-games; ``league.json``'s content."""

    def __init__(self, config: RunConfig, engine: Engine, sides) -> None:
        self.config, self.engine, self.sides = config, engine, tuple(sides)
        league = config.league
        self.player_counts = list(league.player_counts or config.env.player_counts)
        self.members = fixed_members(league.fixed, engine, self.sides)
        self.cells: dict[tuple[str, str], list[int]] = {}
        #: the same cells per table size: (row name, column name) -> {size: [wins, games]}
        self.cells_by_size: dict[tuple[str, str], dict[int, list[int]]] = {}
        self.iterations: list[dict] = []
        self.params: dict[tuple[str, str], object] = {}  # (side, member name) -> parameters of a policy member

    # cross-play
    def code(self, member: Member) -> int:
        if member.kind == "policy":
            return POLICY
        if member.kind == "probe":
            return 3 + [name for name, _, _ in self.engine.probes].index(member.name)
        return {"heuristic": HEURISTIC, "random": RANDOM}[member.kind]

    def play_missing(self, any_params) -> float:
        """Play every cell not played yet; returns the seconds it took."""
        began = time.perf_counter()
        config, league = self.config, self.config.league
        model = (tuple(config.ppo.net_arch), config.game.type.num_actions, config.ppo.activation)
        row_side, column_side = self.sides
        for i, row in enumerate(self.members[row_side]):
            for j, column in enumerate(self.members[column_side]):
                if (row.name, column.name) in self.cells:
                    continue
                by_size = cross_play(
                    self.engine,
                    model,
                    (self.code(row), self.params.get((row_side, row.name), any_params)),
                    (self.code(column), self.params.get((column_side, column.name), any_params)),
                    league.games,
                    self.player_counts,
                    derive_seed(config.seed, 9, i, j),
                    league.deterministic,
                    by_size=True,
                )
                self.cells_by_size[(row.name, column.name)] = {n: list(c) for n, c in by_size.items()}
                self.cells[(row.name, column.name)] = [sum(w for w, _ in by_size.values()),
                                                       sum(g for _, g in by_size.values())]
        return time.perf_counter() - began

    def matrix(self, size: int | None = None) -> dict:
        """The current cross-play matrix (every table size, or ``size``'s games only)."""
        row_side, column_side = self.sides

        def cell(r: Member, c: Member) -> list[int]:
            if size is None:
                return self.cells[(r.name, c.name)]
            return self.cells_by_size.get((r.name, c.name), {}).get(size, [0, 0])

        wins = [[cell(r, c)[0] for c in self.members[column_side]] for r in self.members[row_side]]
        games = [[cell(r, c)[1] for c in self.members[column_side]] for r in self.members[row_side]]
        rate = [[w / g if g else 0.5 for w, g in zip(wr, gr)] for wr, gr in zip(wins, games)]
        intervals = [[wilson_interval(w, g) for w, g in zip(wr, gr)] for wr, gr in zip(wins, games)]
        return {
            "win_rate": [[round(x, 6) for x in r] for r in rate],
            "wins": wins,
            "games": games,
            "ci_low": [[round(lo, 6) for lo, _ in r] for r in intervals],
            "ci_high": [[round(hi, 6) for _, hi in r] for r in intervals],
        }

    def solve(self, iteration: int, extra: dict) -> dict:
        row_side, column_side = self.sides
        rows, columns = [x.name for x in self.members[row_side]], [x.name for x in self.members[column_side]]
        solved = solve_zero_sum(self.matrix()["win_rate"], rows, columns, sides=self.sides)
        entry = {
            "iteration": iteration,
            "value": solved["value"],
            "nash": {side: solved[side]["mixture"] for side in self.sides},
            "unused": {side: solved[side]["unused"] for side in self.sides},
        }
        if self.config.league.meta_game == "per_size":
            at = {n: solve_zero_sum(self.matrix(n)["win_rate"], rows, columns, sides=self.sides)
                  for n in self.player_counts}
            entry["nash_by_size"] = {str(n): {side: at[n][side]["mixture"] for side in self.sides} for n in at}
            entry["value_by_size"] = {str(n): at[n]["value"] for n in at}
        entry.update(extra)
        self.iterations.append(entry)
        return entry

    def to_json(self) -> dict:
        game = self.config.game
        return {
            "schema": 1,
            "game": game.name,
            "sides": list(self.sides),
            "side_labels": list(game.type.side_labels),
            "games_per_cell": self.config.league.games,
            "player_counts": self.player_counts,
            "deterministic": self.config.league.deterministic,
            "members": {side: [asdict(m) for m in self.members[side]] for side in self.sides},
            "matrix": self.matrix(),
            **({"matrix_by_size": {str(n): {k: self.matrix(n)[k] for k in ("wins", "games")}
                                   for n in self.player_counts}}
               if set(self.cells_by_size) == set(self.cells) else {}),  # not for cells of an older league.json
            "iterations": self.iterations,
        }

    def write(self, run: RunFolder) -> None:
        """``league.json`` and ``league.png`` (the Nash weights over iterations, the kit's :func:`plot_league`)."""
        data = self.to_json()
        atomic_write_text(run.path / LEAGUE_FILE, json.dumps(data, indent=1) + "\n")
        plot_league(data, run.path / "league.png")

    def restore(self, data: dict, completed: int) -> None:
        """The members, cells and meta-games of the first ``completed`` iterations of a saved ``league.json``."""
        row_side, column_side = self.sides
        self.members = {side: [Member(**m) for m in data["members"][side] if m["iteration"] <= completed]
                        for side in self.sides}
        for side, members in self.members.items():  # the paths a file holds stay in its folder (docs/security.md)
            for member in members:
                if member.checkpoint is not None:
                    try:
                        confined_path(self.config.run_dir, member.checkpoint)
                    except (ValueError, TypeError) as error:
                        raise ValueError(f"{side} member {member.name!r}: its checkpoint {error}") from None
        matrix = data["matrix"]
        saved = {side: [m["name"] for m in data["members"][side]] for side in self.sides}
        by_size = data.get("matrix_by_size", {})  # absent in a league.json written before it existed
        for i, r in enumerate(saved[row_side]):
            for j, c in enumerate(saved[column_side]):
                self.cells[(r, c)] = [matrix["wins"][i][j], matrix["games"][i][j]]
                if by_size:
                    self.cells_by_size[(r, c)] = {int(n): [m["wins"][i][j], m["games"][i][j]]
                                                  for n, m in by_size.items()}
        self.iterations = [it for it in data["iterations"] if it["iteration"] <= completed]


def read_league(path: str | Path) -> dict:
    """A run folder's (or a file's) ``league.json`` as a dict (schema in the module doc).

    Raises:
        FileNotFoundError: naming the path, if there is none.
    """
    path = Path(path)
    if path.is_dir():
        path = path / LEAGUE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no league file at {str(path)!r}; a run with a league: section writes one")
    return json.loads(path.read_text(encoding="utf-8"))
