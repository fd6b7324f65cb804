"""What every checkpoint loader shares: errors, the loader cache, masked probabilities, observation scaling.

A leaf of :mod:`traitors_env.agents`: it imports only numpy and :mod:`traitors_env.core`, and the three
checkpoint loaders (:mod:`.checkpoint` for SB3, :mod:`.jax_checkpoint`, :mod:`.rllib_checkpoint`) and the spec
resolver (:mod:`.spec`) import it, never the reverse, so no import circle runs through the loaders.

A policy of any backend sees ``observation / scale`` where ``scale`` is :func:`observation_scale_of` its game:
each feature's larger absolute ``Box`` bound (from the game's declared ``layout``), at least 1, so every
scaled feature lies in [-1, 1].
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game

__all__ = [
    "AgentSpecError",
    "BeliefPolicyAgent",
    "PolicyAgent",
    "PolicyLoadError",
    "cached_loader",
    "generator",
    "masked_probabilities",
    "observation_scale",
    "observation_scale_of",
    "policy_agent",
]


class PolicyLoadError(FileNotFoundError):
    """A checkpoint that is missing, is not of its backend's format, or was trained on another game's spaces."""


def checkpoint_file(path: str | Path, suffix: str) -> Path:
    """``path`` as a ``Path`` if it names an existing file; else :class:`PolicyLoadError` saying it is a folder or
    missing (``suffix``: the backend's file ending, named in the folder's message)."""
    path = Path(path)
    if path.is_dir():
        raise PolicyLoadError(f"checkpoint {str(path)!r} is a folder, not a checkpoint file (expected a {suffix})")
    if not path.is_file():
        raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist")
    return path


class AgentSpecError(ValueError):
    """A spec that names no agent that can be built (unknown name, missing checkpoint, broken factory)."""


def generator(seed: int | np.random.Generator | None) -> np.random.Generator:
    """``seed`` itself if it is a ``numpy.random.Generator`` (so several agents can share one stream), else a new one."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def observation_scale(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The divisor of each feature of an observation ``Box(low, high)``: its larger absolute bound, at least 1
    (``float32``, the shape of ``low``), so every scaled feature lies in [-1, 1]."""
    return np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0).astype(np.float32)


_scales: dict[Any, np.ndarray] = {}


def observation_scale_of(game: str | Game = DEFAULT_GAME) -> np.ndarray:
    """:func:`observation_scale` of ``game``'s declared observation bounds (``game.layout.low/high``):
    ``float32``, shape ``game.type.observation_shape``; computed once per game. Do not write to it.

    Raises:
        traitors_env.core.UnknownGameError: for a game name that is not registered.
    """
    game = load_game(game)
    scale = _scales.get(game.type)
    if scale is None:
        scale = _scales[game.type] = observation_scale(game.layout.low, game.layout.high)
    return scale


def masked_probabilities(logits: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the legal actions: ``float64``, the shape of ``logits``, zero outside
    ``action_mask`` (which must allow at least one action)."""
    logits = np.where(np.asarray(action_mask, dtype=bool), np.asarray(logits, dtype=np.float64), -np.inf)
    logits -= logits.max()
    weights = np.exp(logits)
    return weights / weights.sum()


def cached_loader(load: Callable[..., Any]) -> Callable[..., Any]:
    """``load`` (``load(path, *args)`` → policy) cached per process, file version and ``args`` (hashable, e.g. a
    game name): a rewritten file is reloaded.

    The returned function ``loader(path, *args)`` raises :class:`PolicyLoadError` for a path that does not exist.
    """

    @functools.lru_cache(maxsize=64)
    def cached(path: str, mtime_ns: int, size: int, *args):
        return load(path, *args)

    def loader(path: str | Path, *args):
        try:
            stat = os.stat(path)
        except OSError:
            raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist") from None
        return cached(str(path), stat.st_mtime_ns, stat.st_size, *args)

    loader.cache_clear = cached.cache_clear
    return loader


class PolicyAgent:
    """An agent that samples (or, ``deterministic``, takes the most probable) legal action of a loaded policy.

    Args:
        policy: anything with ``probabilities(observation, action_mask) -> float64 (num_actions,)`` (a checkpoint of
            any backend: :class:`~.checkpoint.FrozenPolicy`, :class:`~.jax_checkpoint.JaxPolicy`,
            :class:`~.rllib_checkpoint.ModulePolicy`).
        seed: an int, ``None`` or a ``numpy.random.Generator`` (used as is: agents may share one stream).
        deterministic: take the most probable action instead of sampling.
    """

    def __init__(self, policy, seed: int | np.random.Generator | None = None, deterministic: bool = False):
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probabilities = self.policy.probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probabilities))
        return int(self.rng.choice(probabilities.size, p=probabilities))


class BeliefPolicyAgent(PolicyAgent):
    """A :class:`PolicyAgent` whose policy has a belief head (``policy.has_beliefs``): also a
    :class:`~traitors_env.core.agent.BeliefAgent`, ``beliefs(observation) -> float32 (game.belief_size,)``
    (the policy's, which draws nothing from the agent's RNG)."""

    def beliefs(self, observation: np.ndarray) -> np.ndarray | None:
        return self.policy.beliefs(observation)


def policy_agent(policy, seed: int | np.random.Generator | None = None, deterministic: bool = False) -> PolicyAgent:
    """A :class:`BeliefPolicyAgent` for a policy with a belief head (``policy.has_beliefs`` true), else a
    :class:`PolicyAgent` (which has no ``beliefs``, so the kit and ``traitors-play --show-beliefs`` see none)."""
    kind = BeliefPolicyAgent if getattr(policy, "has_beliefs", False) else PolicyAgent
    return kind(policy, seed=seed, deterministic=deterministic)
