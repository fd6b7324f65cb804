"""A league's meta-game Nash mixture as one agent: the output of population training (PSRO's solution).

A population trained by ``traitors-train`` with a ``league:`` section (``training/jax_backend/league.py``) writes
``league.json``: each side's members and the Nash mixture of the last solved meta-game. PSRO's answer to "which
policy" is that mixture, not the newest member: a side's newest policy can be a best response to the other side's
previous ones and lose to a strategy the population already holds. :func:`league_maker` builds, for each game, one
member per side drawn by those Nash weights from the game's seed (so figures do not depend on how games are split
over workers), and plays each decision with the member of the observer's side (:class:`~.side.SideAgent`).

Members: ``policy`` (a checkpoint of the run folder, loaded once per process), ``heuristic`` / ``random`` (the
game's bots), ``probe`` (a scripted probe of the game's JAX twin, its ``probes`` submodule's ``PROBES``; needs the
``jax`` extra).
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.agent import Agent
from ..core.game import Game
from .policy import AgentSpecError, PolicyLoadError, generator, policy_agent
from .side import SideAgent

__all__ = ["LEAGUE_FILE", "ProbeAgent", "is_league_file", "league_maker", "nash_mixture"]

#: the file name of a league in its run folder
LEAGUE_FILE = "league.json"


def is_league_file(path: Path) -> bool:
    """Whether ``path`` is a league's file (a ``league.json``)."""
    return path.is_file() and path.name == LEAGUE_FILE


def nash_mixture(data: dict, side: str) -> list[tuple[dict, float]]:
    """``(member, weight)`` for the members of ``side`` with positive weight in the last solved meta-game of a
    league file's ``data``, weights summing to 1, in the population's order.

    Raises:
        AgentSpecError: for a file without that side or without a solved meta-game.
    """
    try:
        weights = data["iterations"][-1]["nash"][side]
        members = data["members"][side]
    except (KeyError, IndexError, TypeError):
        raise AgentSpecError(f"the league file has no solved meta-game for side {side!r}") from None
    chosen = [(m, float(weights.get(m["name"], 0.0))) for m in members if float(weights.get(m["name"], 0.0)) > 0]
    total = sum(w for _, w in chosen)
    if not chosen or total <= 0:
        raise AgentSpecError(f"the league file's Nash mixture of side {side!r} gives no member a positive weight")
    return [(m, w / total) for m, w in chosen]


class ProbeAgent:
    """A scripted probe of a game's JAX twin (``act(observation, action_mask, key) -> int32``) as an :class:`Agent`;
    its draws come from JAX keys taken from ``seed``'s stream."""

    def __init__(self, act: Callable, seed: int | np.random.Generator | None = None) -> None:
        self._act = act
        self._rng = generator(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        import jax

        key = jax.random.key(int(self._rng.integers(2**31)))
        return int(self._act(np.asarray(observation, np.float32), np.asarray(action_mask, bool), key))


def _probe(game: Game, name: str) -> Callable:
    return _compiled_probe(game.name, name)


@functools.lru_cache(maxsize=8)  # by game name: a Game holds dicts, and one compilation per process is enough
def _compiled_probe(game_name: str, name: str) -> Callable:
    from ..core.registry import load_game

    game = load_game(game_name)
    if game.jax is None:
        raise AgentSpecError(f"probe {name!r}: {game.type.env_id} has no JAX twin")
    try:
        import jax

        twin = game.jax()
        probes = importlib.import_module(f"{twin.__name__}.probes").PROBES
    except ImportError as error:
        raise AgentSpecError(f"probe {name!r} needs the JAX twin's probes (pip install -e '.[jax]'): {error}") from None
    if name not in probes:
        raise AgentSpecError(f"probe {name!r} is not one of the JAX twin's probes ({', '.join(probes)})")
    return jax.jit(probes[name][1])


def league_maker(spec: str, path: Path, game: Game) -> tuple[str, Callable[[int | np.random.Generator | None],
                                                                           Agent]]:
    """``(label, make)`` for the league file at ``path`` (see the module doc); ``make(seed)`` draws each side's
    member from ``seed``'s stream, then seeds that member from the same stream.

    Raises:
        AgentSpecError: for a file that is not a league of ``game``, a missing or broken member checkpoint, or a
            probe the game's JAX twin lacks.
    """
    from .checkpoint import load_frozen_policy

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise AgentSpecError(f"agent {spec!r}: cannot read the league file: {error}") from None
    if data.get("game") != game.name:
        raise AgentSpecError(f"agent {spec!r}: a league of {data.get('game')!r}, not of {game.name!r}; use --game "
                             f"{data.get('game')}")
    folder = path.parent

    def member_maker(member: dict) -> Callable:
        kind = member.get("kind")
        if kind == "policy":
            try:
                frozen = load_frozen_policy(folder / member["checkpoint"], game)
            except PolicyLoadError as error:
                raise AgentSpecError(f"agent {spec!r}: member {member['name']!r}: {error}") from None
            return lambda rng: policy_agent(frozen, seed=rng)
        if kind in ("heuristic", "random"):
            return lambda rng: game.make_bot(kind, rng)
        if kind == "probe":
            act = _probe(game, member["name"])
            return lambda rng: ProbeAgent(act, rng)
        raise AgentSpecError(f"agent {spec!r}: member {member.get('name')!r} has kind {kind!r}; expected policy, "
                             "heuristic, random or probe")

    sides = []
    for side in game.type.sides:
        try:
            mixture = nash_mixture(data, side)
        except AgentSpecError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None
        sides.append(([member_maker(m) for m, _ in mixture], np.array([w for _, w in mixture])))

    def make(seed) -> Agent:
        rng = generator(seed)
        agents = []
        for makers, weights in sides:
            index = int(rng.choice(len(makers), p=weights))
            agents.append(makers[index](rng))
        return SideAgent(*agents, game=game)

    return f"league:{path}", make
