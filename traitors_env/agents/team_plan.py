"""Team equilibrium files (``.team.json``): a correlated team strategy played as an agent (issue 50, item 6).

Written by the team-equilibrium solver (:mod:`traitors_env.solve.team_equilibrium`, TMECor on a small variant): the
Pirates' joint pure plans with their weights (the team draws one per game from a shared seed) and the Mutineer's
behaviour strategy, keyed by observation (as :mod:`.tabular`: on a small variant each decision's observation is one
information state). Data only: loading reads JSON and checks every field, and runs nothing. A spec ending in
``.team.json`` is an agent spec (:func:`traitors_env.agents.spec.agent_maker`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..files import read_json_data
from .tabular import observation_key
from .team_dag import FORMAT as _DAG_FORMAT

__all__ = ["FORMAT", "SUFFIX", "TeamEquilibriumAgent", "TeamPolicy", "TeamPolicyError", "load_solution",
           "observation_key"]

FORMAT = "traitors_env.team_equilibrium"
VERSION = 1
SUFFIX = ".team.json"
PIRATES, MUTINEERS = 0, 1
_MAX_BYTES = 64 * 2**20


class TeamPolicyError(ValueError):
    """A team equilibrium file that cannot be read (the message names the field and what was expected)."""


@dataclass(frozen=True)
class TeamPolicy:
    """A loaded team equilibrium: per observation key its state (seat, side, actions, parent, team mates), the
    Mutineer's probabilities, the Pirates' plans and weights. Data only; nothing in it is run."""

    game: str
    states: Mapping[str, dict]
    mutineers: Mapping[str, tuple[float, ...]]
    plans: tuple[Mapping[str, int], ...]
    weights: tuple[float, ...]
    summary: Mapping = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: object) -> TeamPolicy:
        """Check every field (each error names it and what was expected)."""
        def fail(what: str) -> TeamPolicyError:
            return TeamPolicyError(f"team equilibrium: {what}")

        if (not isinstance(data, dict) or data.get("format") != FORMAT or type(data.get("version")) is not int
                or data["version"] != VERSION):
            raise fail(f"format {data.get('format') if isinstance(data, dict) else type(data).__name__!r}, version "
                       f"{data.get('version') if isinstance(data, dict) else None!r}; expected {FORMAT!r} version {VERSION} "
                       f"(joint plans, solve.team_equilibrium) or {_DAG_FORMAT!r} (flows, solve.team_lp)")
        states, mutineers, pirates = data.get("states"), data.get("mutineers"), data.get("pirates")
        if not isinstance(states, dict) or not isinstance(mutineers, dict) or not isinstance(pirates, dict):
            raise fail("states, mutineers and pirates must be objects")
        if not states:
            raise fail("states is empty; expected the solution's information states")
        for key, entry in states.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("actions"), list) and entry["actions"]
                    and all(_is_int(a) and 0 <= a < 100_000 for a in entry["actions"])
                    and _is_int(entry.get("side")) and entry["side"] in (0, 1)
                    and _is_int(entry.get("seat")) and 0 <= entry["seat"] < 64):
                raise fail(f"state {key!r} is {entry!r}; expected seat, side 0/1 and a list of action indices")
            if entry["side"] == PIRATES and not (
                    isinstance(entry.get("teammates"), list)
                    and all(isinstance(m, list) and all(_is_sequence(q) for q in m) for m in entry["teammates"])
                    and (entry.get("parent") is None or _is_sequence(entry.get("parent")))):
                raise fail(f"Pirate state {key!r} has parent {entry.get('parent')!r}, teammates "
                           f"{entry.get('teammates')!r}; expected null or [key, action], and lists of [key, action]")
            if entry["side"] == MUTINEERS and key not in mutineers:
                raise fail(f"Mutineer state {key!r} has no probabilities in mutineers")
        for key, probs in mutineers.items():
            entry = states.get(key)
            if entry is None or entry["side"] != MUTINEERS or not isinstance(probs, list) \
                    or len(probs) != len(entry["actions"]) or not all(_is_number(p) and p >= 0 for p in probs) \
                    or not math.isclose(sum(probs), 1.0, abs_tol=1e-6):
                raise fail(f"Mutineer probabilities at {key!r} are {probs!r}; expected a distribution over that "
                           "Mutineer state's actions")
        weights, plans = pirates.get("weights"), pirates.get("plans")
        if not isinstance(weights, list) or not isinstance(plans, list) or len(weights) != len(plans) or not plans \
                or not all(_is_number(w) and w >= 0 for w in weights) \
                or not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
            raise fail(f"Pirate weights {weights!r} for {len(plans) if isinstance(plans, list) else plans!r} plans; "
                       "expected one non-negative weight per plan summing to 1")
        for k, plan in enumerate(plans):
            if not isinstance(plan, dict):
                raise fail(f"plan {k} is {type(plan).__name__}; expected an object key → action")
            for key, action in plan.items():
                entry = states.get(key)
                if entry is None or entry["side"] != PIRATES or not _is_int(action) or action not in entry["actions"]:
                    raise fail(f"plan {k} plays {action!r} at {key!r}; expected a legal action of a Pirate state")
            missing = [key for key, entry in states.items() if entry["side"] == PIRATES and key not in plan]
            if missing:
                raise fail(f"plan {k} has no action at the Pirate state {missing[0]!r}; expected one at every Pirate state")
        total = float(sum(weights))
        return cls(game=str(data.get("game")), states=states, mutineers={k: tuple(v) for k, v in mutineers.items()},
                   plans=tuple(plans), weights=tuple(w / total for w in weights), summary=data.get("summary", {}))


def load_solution(path: str | os.PathLike, game=None) -> TeamPolicy:
    """Read a file the solver wrote (JSON only; :class:`TeamPolicyError` naming a bad field); with ``game`` (a
    :class:`~traitors_env.core.game.Game`), also refuse a solution of another game."""
    path = Path(path)
    policy = _read(path)
    if game is not None and policy.game != game.type.env_id:  # a variant's solution plays that variant only
        raise TeamPolicyError(f"team equilibrium {path}: game {policy.game!r}; expected a solution of {game.type.env_id}")
    return policy


def _read(path: Path) -> TeamPolicy:
    try:
        data = read_json_data(path, _MAX_BYTES)
    except ValueError as error:
        raise TeamPolicyError(f"team equilibrium {path}: {error}") from None
    try:
        return TeamPolicy.from_data(data)
    except TeamPolicyError as error:
        raise TeamPolicyError(f"{path}: {error}") from None


def _is_int(x) -> bool:
    return type(x) is int


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _is_sequence(q) -> bool:
    """``[observation key, action]``: a seat's last decision."""
    return isinstance(q, list) and len(q) == 2 and isinstance(q[0], str) and _is_int(q[1])


class TeamEquilibriumAgent:
    """Plays a :class:`TeamPolicy`: at a Pirate state the action of the game's joint plan, at a Mutineer state a draw
    from the Mutineer's probabilities.

    The joint plan is drawn from ``seed`` when the agent is built: the kit builds one agent per side and game from
    that game's seed (:mod:`traitors_env.evaluation.crossplay`), and that one object plays every seat of its side,
    so both Pirate seats follow the same plan, as the shared seed of the team's ex-ante correlation. An agent kept
    over several games redraws its plan where a Pirate observation cannot belong to the game in progress: its
    seat's previous decision this game is not the one that leads to it, or the team mates' decisions so far are not
    ones it can follow (a repeated observation is such a case). A new game whose first Pirate decision is consistent
    with the last game's (a seat that had not yet acted, after compatible team-mate moves) cannot be told apart
    from its observations; call :meth:`new_game` between games, or build one agent per game as the kit does.
    """

    def __init__(self, policy: TeamPolicy, seed: int | np.random.Generator | None = None) -> None:
        self.policy = policy
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._teammates = {key: {frozenset(tuple(q) for q in mates) for mates in entry.get("teammates", [])}
                           for key, entry in policy.states.items() if entry["side"] == PIRATES}
        self.new_game()

    def new_game(self) -> None:
        """Draw the next game's joint plan (from the agent's generator) and forget the game in progress."""
        self.plan_index = int(self.rng.choice(len(self.policy.weights), p=np.asarray(self.policy.weights)))
        self._last: dict[int, tuple[str, int]] = {}  # Pirate seat → its last (key, action) this game
        self.games = getattr(self, "games", 0) + 1

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The solution's action (see the class doc); ``ValueError`` for an observation it does not hold."""
        key = observation_key(observation)
        entry = self.policy.states.get(key)
        if entry is None:
            raise ValueError(f"the team equilibrium of {self.policy.game} has no state with observation {key}; it plays "
                             "only the decisions of the variant it was solved for")
        if entry["side"] == MUTINEERS:
            probs = self.policy.mutineers[key]
            action = entry["actions"][int(self.rng.choice(len(probs), p=np.asarray(probs) / sum(probs)))]
        else:
            seat = entry["seat"]
            parent = tuple(entry["parent"]) if entry["parent"] is not None else None
            mates = frozenset(v for s, v in self._last.items() if s != seat)
            if self._last.get(seat) != parent or mates not in self._teammates[key]:
                self.new_game()
            action = self.policy.plans[self.plan_index][key]
            self._last[seat] = (key, action)
        if not action_mask[action]:
            raise ValueError(f"the team equilibrium plays action {action} at observation {key} where the mask forbids "
                             f"it; expected one of {np.flatnonzero(action_mask).tolist()}")
        return int(action)
