"""The opponents of training: :class:`OpponentPool`, the picklable :class:`AgentSpec` recipes, any game.

Every agent follows :class:`traitors_env.core.agent.Agent`: ``act(observation, action_mask) -> int`` with
``observation`` the raw ``float32`` vector of the game's ``observation_shape`` and ``action_mask`` the ``int8``
mask of shape ``(num_actions,)``. Trained snapshots are played through the agents by spec of
:func:`traitors_env.agents.spec.agent_maker` (the environment package plays checkpoints without importing
``training/``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME

__all__ = ["OPPONENT_KINDS", "AgentSpec", "OpponentPool", "SideAgent", "drawable_kinds", "observation_scale",
           "opponent_snapshots", "snapshot_agent_maker"]

OPPONENT_KINDS = ("latest", "past", "heuristic", "random")


def observation_scale(game: Game) -> np.ndarray:
    """The divisor of each feature of ``game``'s observation: its larger absolute bound in the declared layout, at
    least 1 (``float32``, shape ``observation_shape``), so every scaled feature lies in [-1, 1]. The learner's
    environment divides by it, as the checkpoint loaders do before a trained policy's forward pass."""
    low, high = game.layout.low, game.layout.high
    return np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0).astype(np.float32)


def snapshot_agent_maker(path: str, game: Game | str = DEFAULT_GAME) -> Callable:
    """``make(seed)`` building an agent that plays the checkpoint ``path`` of ``game`` (a ``.zip`` of the SB3 backend,
    a ``.msgpack`` of the JAX backend, …): :func:`traitors_env.agents.spec.agent_maker`'s. ``make`` given a
    ``numpy.random.Generator`` samples from that very generator.

    Raises:
        traitors_env.agents.spec.AgentSpecError: naming the path (missing, not a checkpoint of this game).
    """
    from traitors_env.agents.spec import agent_maker

    return agent_maker(str(path), game=load_game(game).name)[1]


@dataclass(frozen=True)
class AgentSpec:
    """A picklable recipe for an agent of ``game``: one of its bots by name, or a snapshot path (``kind == "policy"``).

    Attributes:
        kind: a bot name of the game (``"random"``, ``"heuristic"``, …) or ``"policy"``.
        path: the snapshot of ``"policy"``.
        deterministic: a policy plays its most probable legal action instead of sampling.
        game: the game's registry name.
    """

    kind: str
    path: str | None = None
    deterministic: bool = False
    game: str = DEFAULT_GAME

    def build(self, seed: int | np.random.Generator | None = None):
        """The agent.

        Raises:
            traitors_env.agents.spec.AgentSpecError: for a missing or broken snapshot.
            ValueError: for a kind that is neither a bot of the game nor ``"policy"``, or ``"policy"`` without a path.
        """
        game = load_game(self.game)
        if self.kind == "policy":
            if self.path is None:
                raise ValueError("AgentSpec(kind='policy') needs a snapshot path")
            agent = snapshot_agent_maker(self.path, game)(seed)
            if self.deterministic:
                agent.deterministic = True  # the checkpoint agents' switch (traitors_env.agents.checkpoint.PolicyAgent)
            return agent
        if self.kind in game.bots:
            if isinstance(seed, np.random.Generator):
                seed = int(seed.integers(2**63))
            return game.make_bot(self.kind, seed)
        raise ValueError(
            f"agent kind {self.kind!r} is not known for {game.type.env_id}; expected 'policy' or a bot: "
            f"{', '.join(game.bot_names)}"
        )


def drawable_kinds(weights: Mapping[str, float], snapshots: int) -> tuple[list[str], np.ndarray]:
    """The opponent kinds that can be drawn with ``snapshots`` snapshots of the other side, and their
    probabilities (``float64``, renormalised): kinds with nothing to draw (``latest`` needs one snapshot,
    ``past`` two) or weight 0 drop out.

    Raises:
        ValueError: for an unknown kind, a negative weight, or no kind left with positive weight.
    """
    for kind, weight in weights.items():
        if kind not in OPPONENT_KINDS:
            raise ValueError(f"opponent kind {kind!r} is not known; expected one of {OPPONENT_KINDS}")
        if weight < 0:
            raise ValueError(f"opponent weight {kind}={weight!r} is negative")
    available = {"latest": snapshots >= 1, "past": snapshots >= 2, "heuristic": True, "random": True}
    kinds = [k for k in OPPONENT_KINDS if available[k] and weights.get(k, 0) > 0]
    if not kinds:
        raise ValueError(f"no opponent kind can be drawn from weights={dict(weights)} with {snapshots} snapshots")
    total = sum(weights[k] for k in kinds)
    return kinds, np.array([weights[k] / total for k in kinds])


class SideAgent:
    """Plays each seat by the agent of the seat's side, read from the seat's own observation
    (:attr:`~traitors_env.core.Game.side_of_observation`).

    Args:
        game: the game.
        agents: the agent of side 0 and the agent of side 1.
    """

    def __init__(self, game: Game, agents: Sequence[object]) -> None:
        self.game = game
        self.agents = tuple(agents)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.agents[self.game.side_of_observation(observation)].act(observation, action_mask)


def opponent_snapshots(game: Game, side: int, pairs: Sequence[tuple[str | None, str | None]]) -> list:
    """The snapshots an :class:`OpponentPool` of the learner of ``side`` holds, from the snapshot pairs
    ``(side 0's, side 1's)`` it meets: in a zero-sum team game the opponents play the other side's seats only, so
    its paths alone (a pair's other half is never played, and never loaded); else the pairs themselves (the
    opponents play the learner's own side too)."""
    if game.team_play:
        return [pair[1 - side] for pair in pairs]
    return [tuple(pair) for pair in pairs]


class OpponentPool:
    """The opponents of one side's training: weighted kinds over snapshots and the game's bots, one drawn per game.

    Args:
        weights: relative weight per kind: ``"latest"`` (the newest snapshot), ``"past"`` (an older snapshot,
            uniformly), ``"heuristic"``, ``"random"``.
        snapshots: oldest first; each a path (its policy plays every seat it is asked for) or a pair of paths
            ``(side 0's, side 1's)`` (each seat played by its side's policy; a ``None`` path by the heuristic).
        seed: seeds the agents built here: the bots, and the sampling of every snapshot's policy (one stream).
        game: the game (registry name or :class:`~traitors_env.core.Game`).

    Kinds with nothing to draw (no snapshot yet; no older snapshot) drop out and the remaining weights are
    renormalised. A bot is built on its first draw, with a seed drawn then; in a game with individual rewards
    (:attr:`~traitors_env.core.Game.team_play` false) the opponents also play the learner's own side, where a
    missing snapshot is the heuristic's, so there the bots are built at once (heuristic, then random).
    The policies of a drawn snapshot (both of a pair) are built when it is drawn: building one draws nothing from
    ``seed``'s stream, and loading its checkpoint leaves the global generators alone (the learner's sampling), so
    a resumed run, which loads at other moments, plays as an uninterrupted one. :meth:`reseed` starts the stream
    again.

    Raises:
        ValueError: for an unknown kind, a negative weight, or no kind left with positive weight.
    """

    KINDS = OPPONENT_KINDS

    def __init__(
        self,
        weights: Mapping[str, float],
        snapshots: Sequence[str | tuple[str | None, str | None]] = (),
        seed: int | None = None,
        game: Game | str = DEFAULT_GAME,
    ) -> None:
        self.game = load_game(game)
        self.snapshots = [tuple(s) if isinstance(s, (tuple, list)) else str(s) for s in snapshots]
        self.kinds, self.probabilities = drawable_kinds(weights, len(self.snapshots))
        self.rng = np.random.default_rng(seed)
        self._bots: dict[str, object] = {}
        self._makers: dict[str, Callable] = {}
        if not self.game.team_play:
            for name in ("heuristic", "random"):
                self._bot(name)

    def reseed(self, seed) -> None:
        """Start the pool's stream again from ``seed`` (anything ``numpy.random.default_rng`` takes), as if the pool
        had been built with it: the generator is reseeded in place (the snapshot agents already handed out share
        it) and the bots are built again, with seeds drawn from the new stream (:class:`training.team_env.TeamEnv`
        calls this from ``reset(seed=…)``, so that the seed fixes the opponents' play too)."""
        self.rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state
        self._bots.clear()
        if not self.game.team_play:
            for name in ("heuristic", "random"):
                self._bot(name)

    def _bot(self, name: str):
        if name not in self._bots:
            self._bots[name] = self.game.make_bot(name, int(self.rng.integers(2**63)))
        return self._bots[name]

    def _policy(self, path: str):
        if path not in self._makers:
            self._makers[path] = snapshot_agent_maker(path, self.game)
        return self._makers[path](self.rng)

    def _snapshot(self, snapshot):
        if isinstance(snapshot, str):
            return self._policy(snapshot)
        return SideAgent(self.game, [self._bot("heuristic") if path is None else self._policy(path) for path in snapshot])

    def draw(self, rng: np.random.Generator) -> tuple[str, object]:
        """Draw one opponent for a game: ``(kind, agent)``; ``rng`` (the game master's) draws the kind and, for
        ``past``, which older snapshot."""
        kind = self.kinds[int(rng.choice(len(self.kinds), p=self.probabilities))]
        if kind == "latest":
            return kind, self._snapshot(self.snapshots[-1])
        if kind == "past":
            return kind, self._snapshot(self.snapshots[int(rng.integers(len(self.snapshots) - 1))])
        return kind, self._bot(kind)
