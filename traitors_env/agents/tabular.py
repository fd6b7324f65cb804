"""Tabular policies: an action distribution per observation, saved as data (JSON), played as an agent.

What an exact solver writes (``traitors-exact --cfr N --out DIR`` writes ``DIR/cfr_plus.policy.json``, CFR+'s
average policy on a small variant): every observation the game can show a seat at a decision, keyed by its digest,
with the probabilities of its legal actions. On a small variant each decision's observation determines the
seat's information state (checked when the table is written), so the table is the solver's policy exactly.

The file is weights only: loading reads JSON and checks every field, and never runs code from it. A file whose
spec ends in ``.policy.json`` is an agent spec (:func:`traitors_env.agents.spec.agent_maker`).

Format (``format`` ``traitors_env.tabular_policy``, ``version`` 1)::

    {"format": "traitors_env.tabular_policy", "version": 1, "game": "traitors_aboard_v0:mini3",
     "observation_size": 1228, "num_actions": 196, "source": {...},
     "policy": {"<16 hex digits: blake2b-8 of the float32 observation>": [[action, probability], ...], ...}}
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..files import atomic_write_text, read_json_data

__all__ = ["FORMAT", "SUFFIX", "TabularAgent", "TabularPolicy", "TabularPolicyError", "load_tabular_policy",
           "observation_key", "save_tabular_policy"]

FORMAT = "traitors_env.tabular_policy"
VERSION = 1
SUFFIX = ".policy.json"
_MAX_BYTES = 64 * 2**20  # a table of a small variant is kilobytes; refuse a file that would fill memory


class TabularPolicyError(ValueError):
    """A tabular policy file that cannot be read or does not fit the game (the message names the field)."""


def observation_key(observation: np.ndarray) -> str:
    """The table's key of an observation: 16 hex digits of blake2b over its float32 bytes."""
    return hashlib.blake2b(np.ascontiguousarray(observation, dtype=np.float32).tobytes(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class TabularPolicy:
    """``table``: observation key → ``((action, probability), …)`` over that decision's legal actions."""

    game: str
    observation_size: int
    num_actions: int
    table: Mapping[str, tuple[tuple[int, float], ...]]
    source: Mapping = field(default_factory=dict)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The distribution over all actions at this observation. ``ValueError`` for an observation the table does
        not hold (another game or variant) or one whose entry puts mass on an action the mask forbids."""
        row = self.table.get(observation_key(observation))
        if row is None:
            raise ValueError(f"the tabular policy of {self.game} has no entry for this observation; it plays only the "
                             "decisions of the game it was solved for")
        p = np.zeros(self.num_actions)
        for action, prob in row:
            if not action_mask[action] and prob > 0:
                raise ValueError(f"the tabular policy of {self.game} plays action {action} where the mask forbids it")
            p[action] = prob
        return p


class TabularAgent:
    """Samples its action from a :class:`TabularPolicy` (``policy.probabilities`` gives the exact distribution)."""

    def __init__(self, policy: TabularPolicy, seed: int | np.random.Generator | None = None) -> None:
        self.policy = policy
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        p = self.policy.probabilities(observation, action_mask)
        return int(self.rng.choice(p.size, p=p / p.sum()))


def save_tabular_policy(path: str | Path, policy: TabularPolicy) -> Path:
    """Write ``policy`` to ``path`` (atomically: a file already there is replaced only by a complete one)."""
    path = Path(path)
    data = {"format": FORMAT, "version": VERSION, "game": policy.game, "observation_size": policy.observation_size,
            "num_actions": policy.num_actions, "source": dict(policy.source),
            "policy": {key: [[int(a), float(p)] for a, p in row] for key, row in sorted(policy.table.items())}}
    atomic_write_text(path, json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    return path


def load_tabular_policy(path: str | Path, game: Game) -> TabularPolicy:
    """The policy in ``path``, checked against ``game`` (its env id, so a policy of ``traitors_aboard_v0:mini3`` plays
    that variant only; its observation size and actions). ``TabularPolicyError`` naming the field for anything
    else."""
    path = Path(path)

    def fail(what: str) -> TabularPolicyError:
        return TabularPolicyError(f"tabular policy {str(path)!r}: {what}")

    try:
        data = read_json_data(path, _MAX_BYTES)
    except ValueError as error:
        raise fail(str(error)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise fail(f"format is {data.get('format') if isinstance(data, dict) else type(data).__name__!r}; expected {FORMAT!r}")
    if type(data.get("version")) is not int or data.get("version") != VERSION:
        raise fail(f"version {data.get('version')!r}; expected {VERSION}")
    kind = game.type
    named = data.get("game")
    if named != kind.env_id:  # a variant's policy plays that variant only: another's observations have no entry
        raise fail(f"game {data.get('game')!r}; expected a policy of {kind.env_id}")
    size, actions = data.get("observation_size"), data.get("num_actions")
    if type(size) is not int or type(actions) is not int or size != kind.observation_shape[0] or actions != kind.num_actions:
        raise fail(f"observation_size {size!r} and num_actions {actions!r}; {kind.env_id} has "
                   f"{kind.observation_shape[0]} and {kind.num_actions}")
    rows = data.get("policy")
    if not isinstance(rows, dict) or not rows:
        raise fail("policy is empty or not an object; expected observation key → [[action, probability], …]")
    table = {}
    for key, row in rows.items():
        if not (isinstance(key, str) and len(key) == 16 and all(c in "0123456789abcdef" for c in key)):
            raise fail(f"key {key!r}; expected 16 hex digits")
        ok = isinstance(row, list) and row and all(
            isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int) and not isinstance(pair[0], bool)
            and 0 <= pair[0] < actions and isinstance(pair[1], (int, float)) and not isinstance(pair[1], bool)
            and math.isfinite(pair[1]) and pair[1] >= 0 for pair in row)
        if not ok or abs(sum(p for _, p in row) - 1) > 1e-6 or len({a for a, _ in row}) != len(row):
            raise fail(f"entry {key}: {row!r}; expected distinct actions 0–{actions - 1} with probabilities ≥ 0 "
                       "summing to 1")
        table[key] = tuple((int(a), float(p)) for a, p in row)
    source = data.get("source", {})
    return TabularPolicy(str(data["game"]), size, actions, table, source if isinstance(source, dict) else {})
