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

    def __init__(self, data: object, num_actions: int | None = None) -> None:
        """Check every field strictly (types, ranges, distributions, the parts' tree), so that a file that loads
        plays: ``ValueError`` in one line naming the bad entry and what was expected. With ``num_actions`` (the
        game's), every action must be below it."""
        def fail(what: str) -> ValueError:
            return ValueError(f"team DAG equilibrium: {what}")

        def is_int(x: object) -> bool:
            return type(x) is int

        def action(x: object, where: str) -> int:
            if not is_int(x) or x < 0 or (num_actions is not None and x >= num_actions):
                bound = f"below {num_actions}" if num_actions is not None else "≥ 0"
                raise fail(f"{where}: action {_short(x)}; expected an int {bound}")
            return x

        def probability(x: object, where: str) -> float:
            if type(x) not in (int, float) or not 0 <= x <= 1:  # also refuses NaN, inf and ints past float's range
                raise fail(f"{where}: probability {_short(x)}; expected a number in [0, 1]")
            return float(x)

        def distribution(probs: list[float], where: str) -> np.ndarray:
            p = np.asarray(probs, dtype=float)
            if abs(p.sum() - 1) > 1e-6:
                raise fail(f"{where}: probabilities summing to {p.sum():g}; expected a distribution (sum 1)")
            return p / p.sum()

        if not isinstance(data, dict):
            raise fail(f"a JSON {type(data).__name__}; expected an object of format {FORMAT!r}")
        if data.get("format") != FORMAT or not is_int(data.get("version")) or data["version"] != VERSION:
            raise fail(f"format {_short(data.get('format'))} version {_short(data.get('version'))}; expected format "
                       f"{FORMAT!r} version {VERSION} (an int)")
        team, up, dag, other = data.get("team"), data.get("up"), data.get("dag"), data.get("other")
        if not (isinstance(team, dict) and isinstance(up, list) and isinstance(dag, list) and isinstance(other, dict)):
            raise fail("team and other must be objects, up and dag lists")
        if not isinstance(data.get("game"), str):
            raise fail(f"game {_short(data.get('game'))}; expected a string")
        summary = data.get("summary", {})
        if not isinstance(summary, dict):
            raise fail(f"summary {_short(summary)}; expected an object")
        # the parts' tree: the writer numbers a part after its parent (team_dp.Parts), so the root is part 0 and
        # up[p] < p elsewhere: every chain of parents ends at the root, checked in O(n)
        if not up or up[0] != -1 or not is_int(up[0]):
            raise fail(f"up[0] {_short(up[0]) if up else 'missing'}; expected -1 (the root part)")
        for p in range(1, len(up)):
            if not is_int(up[p]) or not 0 <= up[p] < p:
                raise fail(f"up[{p}] {_short(up[p])}; expected an int in [0, {p}) (a parent part numbered before it)")
        for key, p in team.items():
            if not is_int(p) or not 0 <= p < len(up):
                raise fail(f"team[{key!r}] {_short(p)}; expected a part, an int in [0, {len(up)})")
        if not dag:
            raise fail("dag is empty; expected the root's state at least")
        self.states = []
        for s, choices in enumerate(dag):
            if not isinstance(choices, list) or not choices:
                raise fail(f"dag[{s}] {_short(choices)}; expected a non-empty list of choices")
            probs, actions, children = [], [], []
            for c, choice in enumerate(choices):
                where = f"dag[{s}][{c}]"
                if not (isinstance(choice, list) and len(choice) == 3 and isinstance(choice[1], dict)
                        and isinstance(choice[2], list)):
                    raise fail(f"{where} {_short(choice)}; expected [probability, {{observation: action}}, "
                               "[[part, state], ...]]")
                probs.append(probability(choice[0], where))
                actions.append({key: action(a, f"{where} at {key!r}") for key, a in choice[1].items()})
                below: dict[int, int] = {}
                for pair in choice[2]:
                    if not (isinstance(pair, list) and len(pair) == 2 and is_int(pair[0]) and is_int(pair[1])
                            and 0 < pair[0] < len(up) and 0 <= pair[1] < len(dag) and pair[0] not in below):
                        raise fail(f"{where}'s child {_short(pair)}; expected [part, state]: ints, a part in "
                                   f"[1, {len(up)}) once, a state in [0, {len(dag)})")
                    below[pair[0]] = pair[1]
                children.append(below)
            self.states.append((distribution(probs, f"dag[{s}]"), actions, children))
        self.other = {}
        for key, entry in other.items():
            where = f"other[{key!r}]"
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)
                    and isinstance(entry[1], list) and entry[0] and len(entry[0]) == len(entry[1])):
                raise fail(f"{where} {_short(entry)}; expected [[action, ...], [probability, ...]] of one "
                           "non-empty length")
            acts = [action(a, where) for a in entry[0]]
            self.other[key] = (acts, distribution([probability(q, where) for q in entry[1]], where))
        self.team, self.up = team, up
        self.game = data["game"]
        self.summary = summary


def _short(value: object, limit: int = 60) -> str:
    """``value`` for an error line: its repr, cut short."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit (read_json_data refuses those; a caller's data may not)
        text = f"<a {type(value).__name__} too long to print>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_team_dag(path: str | os.PathLike) -> bool:
    """Whether the ``.team.json`` file is of this format (else :mod:`.team_plan`'s)."""
    try:
        data = read_json_data(Path(path), _MAX_BYTES)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def load_team_dag(path: str | os.PathLike, game=None) -> TeamDagPolicy:
    """Read a file :mod:`traitors_env.solve.team_lp` wrote (``ValueError`` in one line naming the file and the bad
    field); with ``game``, also refuse actions past its ``num_actions`` and a solution of another game."""
    try:
        policy = TeamDagPolicy(read_json_data(Path(path), _MAX_BYTES),
                               num_actions=None if game is None else game.type.num_actions)
    except ValueError as error:
        raise ValueError(f"team equilibrium {path}: {error}") from None
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
