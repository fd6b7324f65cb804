"""A league's meta-game Nash mixture as one agent: the output of population training (PSRO's solution).

A population trained by ``traitors-train`` with a ``league:`` section (``training/jax_backend/league.py``) writes
``league.json``: each side's members and the Nash mixture of the last solved meta-game. PSRO's answer to "which
policy" is that mixture, not the newest member: a side's newest policy can be a best response to the other side's
previous ones and lose to a strategy the population already holds. :func:`league_maker` builds, for each game, one
member per side drawn by those Nash weights from the game's seed (so figures do not depend on how games are split
over workers), and plays each decision with the member of the observer's side (:class:`~.side.SideAgent`).

Members: ``policy`` (a checkpoint relative to the league file, loaded once per process; it plays its most probable
action where the league's cross-play did, ``deterministic``), ``heuristic`` / ``random`` (the game's bots),
``probe`` (a scripted probe of the game's JAX twin, its ``probes`` submodule's ``PROBES``, on its own side only;
needs the ``jax`` extra). The file is checked whole before any game (:func:`read_league_file`). Beliefs
(``beliefs()``) are those of the member drawn: a game whose member has no belief head (a probe, the random bot)
gives none, so the kit's deduction metrics for a league cover the games of its members that have beliefs.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.agent import Agent
from ..core.game import Game
from .policy import AgentSpecError, PolicyLoadError, generator, policy_agent
from .side import SideAgent

__all__ = ["KINDS", "LEAGUE_FILE", "ProbeAgent", "is_league_file", "league_maker", "probes", "read_league_file"]

#: the file name of a league in its run folder
LEAGUE_FILE = "league.json"


def is_league_file(path: Path) -> bool:
    """Whether ``path`` is a league's file (a ``league.json``)."""
    return path.is_file() and path.name == LEAGUE_FILE


#: member kinds a league file may hold
KINDS = ("policy", "heuristic", "random", "probe")


def read_league_file(path: str | Path, game: Game, spec: str | None = None) -> dict:
    """A league file of ``game`` checked and reduced to what its Nash mixture needs.

    Returns:
        ``{"deterministic": bool, "mixtures": {side: [(member, weight), ...]}}``: for each of the game's sides the
        members with positive weight in the last solved meta-game (``member``: its dict, ``kind`` one of
        :data:`KINDS`, a ``policy``'s ``checkpoint`` resolved against the file's folder as ``path``), weights
        float summing to 1, in the population's order.

    Raises:
        AgentSpecError: naming ``spec`` (default: the path) and what is wrong: unreadable JSON, another game, a
            side without members or weights, a member without a name or of an unknown kind, a name given twice,
            a policy without a checkpoint, a weight that is not a finite number ≥ 0 or names no member, or a side
            whose weights are all 0.
    """
    path = Path(path)
    label = f"agent {spec or str(path)!r}"

    def fail(message: str):
        raise AgentSpecError(f"{label}: {message}")

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        fail(f"cannot read the league file: {error}")
    if not isinstance(data, dict):
        fail(f"the league file holds a {type(data).__name__}; expected the JSON object a league writes")
    if data.get("game") != game.name:
        fail(f"a league of {data.get('game')!r}, not of {game.name!r}"
             + (f"; use --game {data['game']}" if isinstance(data.get("game"), str) else ""))
    iterations = data.get("iterations")
    last = iterations[-1] if isinstance(iterations, list) and iterations else None
    nash = last.get("nash") if isinstance(last, dict) else None
    members = data.get("members")
    if not isinstance(nash, dict) or not isinstance(members, dict):
        fail("the league file has no members or no solved meta-game (expected 'members' and 'iterations' with "
             "'nash')")
    mixtures = {}
    for side in game.type.sides:
        side_members, weights = members.get(side), nash.get(side)
        if not isinstance(side_members, list) or not isinstance(weights, dict):
            fail(f"no members or Nash weights for side {side!r}")
        seen: dict[str, dict] = {}
        for member in side_members:
            name = member.get("name") if isinstance(member, dict) else None
            if not isinstance(name, str) or not name:
                fail(f"side {side!r} has a member {member!r} without a name")
            if name in seen:
                fail(f"side {side!r} names member {name!r} twice")
            kind = member.get("kind")
            if kind not in KINDS:
                fail(f"member {name!r} has kind {kind!r}; expected one of {', '.join(KINDS)}")
            if kind == "probe":
                twin = probes(game)
                if name not in twin:
                    fail(f"member {name!r} is not a probe of {game.type.env_id}'s JAX twin "
                         f"({', '.join(twin) or 'it has none'})")
                if game.type.sides[twin[name][0]] != side:
                    fail(f"probe {name!r} plays the {game.type.sides[twin[name][0]]}, not the {side}")
            if kind == "policy":
                if not isinstance(member.get("checkpoint"), str) or not member["checkpoint"]:
                    fail(f"policy member {name!r} has no checkpoint (a path relative to the league file)")
                member = {**member, "checkpoint": path.parent / member["checkpoint"]}
            seen[name] = member
        chosen = []
        for name, weight in weights.items():
            if name not in seen:
                fail(f"the Nash weights of side {side!r} name {name!r}, not a member ({', '.join(seen)})")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                    or weight < 0:
                fail(f"the Nash weight of {side} member {name!r} is {weight!r}; expected a finite number >= 0")
        for name, member in seen.items():
            if weights.get(name, 0) > 0:
                chosen.append((member, float(weights[name])))
        if not chosen:
            fail(f"the Nash mixture of side {side!r} gives no member a positive weight")
        total = sum(w for _, w in chosen)
        mixtures[side] = [(m, w / total) for m, w in chosen]
    return {"deterministic": bool(data.get("deterministic", False)), "mixtures": mixtures}


class ProbeAgent:
    """The scripted probe ``name`` of ``game``'s JAX twin (its ``probes`` submodule's ``PROBES``: ``act(observation,
    action_mask, key) -> int32``) as an :class:`Agent`; its draws come from JAX keys taken from ``seed``'s stream.
    It has no beliefs. Needs the ``jax`` extra."""

    def __init__(self, game: str, name: str, seed: int | np.random.Generator | None = None) -> None:
        self.game, self.name = game, name
        self._rng = generator(seed)
        self._act = _compiled_probe(game, name)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        import jax

        key = jax.random.key(int(self._rng.integers(2**31)))
        return int(self._act(np.asarray(observation, np.float32), np.asarray(action_mask, bool), key))

    def __reduce__(self):  # the compiled function is rebuilt where it is unpickled
        return ProbeAgent, (self.game, self.name, self._rng)


def probes(game: Game) -> dict:
    """``{name: (side index, act)}``: the scripted probes of ``game``'s JAX twin (none without a twin or a
    ``probes`` submodule).

    Raises:
        AgentSpecError: when the twin cannot be imported (the ``jax`` extra is missing).
    """
    if game.jax is None:
        return {}
    try:
        twin = game.jax()
        return dict(importlib.import_module(f"{twin.__name__}.probes").PROBES)
    except ModuleNotFoundError as error:
        if error.name and error.name.endswith(".probes"):
            return {}
        raise AgentSpecError(f"{game.type.env_id}'s probes need the JAX twin (pip install -e '.[jax]'): {error}") \
            from None
    except ImportError as error:
        raise AgentSpecError(f"{game.type.env_id}'s probes need the JAX twin (pip install -e '.[jax]'): {error}") \
            from None


@functools.lru_cache(maxsize=8)  # by game name: a Game holds dicts, and one compilation per process is enough
def _compiled_probe(game_name: str, name: str) -> Callable:
    import jax

    from ..core.registry import load_game

    return jax.jit(probes(load_game(game_name))[name][1])


def league_maker(spec: str, path: Path, game: Game) -> tuple[str, Callable[[int | np.random.Generator | None],
                                                                           Agent]]:
    """``(label, make)`` for the league file at ``path`` (see the module doc); ``make(seed)`` draws each side's
    member from ``seed``'s stream, then seeds that member from the same stream. Policies play their most probable
    action where the league's cross-play did (``deterministic``).

    Raises:
        AgentSpecError: see :func:`read_league_file`; also for a missing or broken member checkpoint.
    """
    from .checkpoint import load_frozen_policy

    league = read_league_file(path, game, spec)
    deterministic = league["deterministic"]

    def member_maker(member: dict) -> Callable:
        kind, name = member["kind"], member["name"]
        if kind == "policy":
            try:
                frozen = load_frozen_policy(member["checkpoint"], game)
            except PolicyLoadError as error:
                raise AgentSpecError(f"agent {spec!r}: member {name!r}: {error}") from None
            return lambda rng: policy_agent(frozen, seed=rng, deterministic=deterministic)
        if kind == "probe":
            return lambda rng: ProbeAgent(game.name, name, rng)
        return lambda rng: game.make_bot(kind, rng)

    sides = [([member_maker(m) for m, _ in league["mixtures"][side]],
              np.array([w for _, w in league["mixtures"][side]])) for side in game.type.sides]

    def make(seed) -> Agent:
        rng = generator(seed)
        agents = []
        for makers, weights in sides:
            index = int(rng.choice(len(makers), p=weights))
            agents.append(makers[index](rng))
        return SideAgent(*agents, game=game)

    return f"league:{path}", make
