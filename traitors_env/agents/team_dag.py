"""Team equilibrium files over the team's belief DAG (``.team.json``, format ``traitors_env.team_dag``; issue 50).

Written by :mod:`traitors_env.solve.team_lp` (the TMECor of a small variant as one LP over the team's belief DAG).
Where the team's correlated strategy mixes over too many joint plans to list (OpenSpiel's ``social_deduction``
``mini3``: 1,024 plans of 21,942 states), it is stored as the DAG's flows instead: per DAG state, its choices with
their probabilities, each choice's actions (observation key → action) and the DAG state it leaves in each child part;
per team observation, its part; per part, its parent part. The agent draws a plan lazily: at a team decision it
walks the parts from the root to the decision's part, drawing each state's choice once per game (memoised: both
team seats are played by this one object, which the kit builds per side and game from the game's seed, so they
follow the same draws: the shared seed). The other side plays its behaviour probabilities. Data only: loading
reads JSON and checks its fields, and runs nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..files import read_json_data
from .tabular import observation_key

__all__ = ["FORMAT", "TeamDagAgent", "TeamDagPolicy", "is_team_dag", "load_team_dag"]

FORMAT = "traitors_env.team_dag"
VERSION = 1
_MAX_BYTES = 64 * 2**20


class TeamDagPolicy:
    """A loaded DAG team equilibrium (module doc): ``team`` (observation key → part), ``up`` (part → parent part,
    −1 at the root), ``dag`` (per state: ``(probabilities, actions, children)`` per choice), ``other`` (observation
    key → (actions, probabilities)), ``game``, ``summary``."""

    def __init__(self, data: object) -> None:
        def fail(what: str) -> ValueError:
            return ValueError(f"team DAG equilibrium: {what}")

        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
            raise fail(f"expected format {FORMAT!r} version {VERSION}")
        team, up, dag, other = data.get("team"), data.get("up"), data.get("dag"), data.get("other")
        if not (isinstance(team, dict) and isinstance(up, list) and isinstance(dag, list) and isinstance(other, dict)):
            raise fail("team and other must be objects, up and dag lists")
        if not all(type(p) is int and -1 <= p < len(up) for p in [*team.values(), *up]):
            raise fail("a part out of range in team or up")
        self.states = []
        for s, choices in enumerate(dag):
            if not isinstance(choices, list) or not choices:
                raise fail(f"state {s} has no choices")
            probs = np.asarray([c[0] for c in choices], dtype=float)
            if not np.isfinite(probs).all() or (probs < 0).any() or abs(probs.sum() - 1) > 1e-6:
                raise fail(f"state {s}'s probabilities {probs.tolist()}; expected a distribution")
            actions = [dict(c[1]) for c in choices]
            children = [{int(p): int(t) for p, t in c[2]} for c in choices]
            if any(not 0 <= t < len(dag) for ch in children for t in ch.values()):
                raise fail(f"state {s} leads to a state out of range")
            self.states.append((probs / probs.sum(), actions, children))
        self.other = {}
        for key, (actions, probs) in other.items():
            p = np.asarray(probs, dtype=float)
            if len(actions) != len(p) or not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1) > 1e-6:
                raise fail(f"the other side's probabilities at {key!r}; expected a distribution over its actions")
            self.other[key] = ([int(a) for a in actions], p / p.sum())
        self.team, self.up = team, up
        self.game = str(data.get("game"))
        self.summary = data.get("summary", {})


def is_team_dag(path: str | os.PathLike) -> bool:
    """Whether the ``.team.json`` file is of this format (else :mod:`.team_plan`'s)."""
    try:
        data = read_json_data(Path(path), _MAX_BYTES)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def load_team_dag(path: str | os.PathLike, game=None) -> TeamDagPolicy:
    """Read a file :mod:`traitors_env.solve.team_lp` wrote (``ValueError`` naming a bad field); with ``game``, also
    refuse a solution of another game."""
    policy = TeamDagPolicy(read_json_data(Path(path), _MAX_BYTES))
    if game is not None and policy.game != game.type.env_id:
        raise ValueError(f"team equilibrium {path}: game {policy.game!r}; expected a solution of {game.type.env_id}")
    return policy


class TeamDagAgent:
    """Plays a :class:`TeamDagPolicy` (module doc); build one per game (as the kit does) or call :meth:`new_game`."""

    def __init__(self, policy: TeamDagPolicy, seed: int | np.random.Generator | None = None) -> None:
        self.policy = policy
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.new_game()

    def new_game(self) -> None:
        """Forget this game's draws (the next decisions draw a new plan)."""
        self._drawn: dict[int, int] = {}

    def _choice(self, state: int) -> int:
        c = self._drawn.get(state)
        if c is None:
            probs = self.policy.states[state][0]
            c = self._drawn[state] = int(self.rng.choice(len(probs), p=probs))
        return c

    def act_key(self, key: str, action_mask: np.ndarray) -> int:
        """The action at the decision whose observation key is ``key``."""
        policy = self.policy
        if key in policy.other:
            actions, probs = policy.other[key]
            action = actions[int(self.rng.choice(len(probs), p=probs))]
        elif key in policy.team:
            path = [policy.team[key]]
            while policy.up[path[-1]] >= 0:
                path.append(policy.up[path[-1]])
            state = 0  # the root part's state; then, part by part, the state the drawn choices leave there
            for part in reversed(path[:-1]):
                state = policy.states[state][2][self._choice(state)].get(part)
                if state is None:
                    raise ValueError(f"observation {key}: the plan drawn this game never gets here; call new_game() "
                                     "between games (or build one agent per game)")
            action = policy.states[state][1][self._choice(state)].get(key)
            if action is None:
                raise ValueError(f"observation {key}: the plan drawn this game never gets here; call new_game() "
                                 "between games (or build one agent per game)")
        else:
            raise ValueError(f"the team equilibrium of {policy.game} has no state with observation {key}; it plays "
                             "only the decisions of the variant it was solved for")
        if not action_mask[action]:
            raise ValueError(f"the team equilibrium plays action {action} at observation {key} where the mask forbids it")
        return int(action)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.act_key(observation_key(observation), action_mask)
