"""Shared helpers of The Traitors' tests: explicit positions with chance fixed, and scripted play.

``CERTAIN`` fixes every chance event a test does not look at: no mission gold, an attempted
assignment always succeeds, Faithful never look suspicious, the Traitor always does when
attempting. ``play(state, choose)`` applies decisions from a function of the state (``None``
takes the default: no attempt, no claim, a vote for the next seat, no murder, no statement,
write Faithful) until ``until(state)`` holds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors.engine import GameConfig, GameState, Phase

CERTAIN = dict(
    mission_gold=(0, 0),
    assignment_success=1.0,
    signal_faithful=0.0,
    signal_traitor_idle=0.0,
    signal_traitor_attempt=1.0,
)
TABLE_SIZES = (3, 4, 5, 6)


def config(num_players: int = 5, claims: bool = False, **options) -> GameConfig:
    """A :class:`GameConfig` with :data:`CERTAIN` chance unless ``options`` override it."""
    return GameConfig(num_players=num_players, claims=claims, **(CERTAIN | options))


def position(num_players: int = 5, traitor: int = 4, claims: bool = False, seed: int = 0, options=None, **kwargs):
    """``GameState.from_position`` with :func:`config` options."""
    return GameState.from_position(
        num_players, traitor, config=config(num_players, claims, **(options or {})), seed=seed, **kwargs
    )


def default_action(state: GameState) -> int:
    """The plain choice of each phase (see the module doc)."""
    phase = state.phase
    if phase is Phase.MISSION:
        return A.NO_ATTEMPT
    if phase is Phase.CLAIM:
        return A.CLAIM_NONE
    if phase is Phase.VOTE:
        return A.vote_action(1)
    if phase is Phase.NIGHT:
        return A.NO_MURDER
    if phase is Phase.STATEMENT:
        return A.statement_action(A.STATEMENT_NONE)
    return A.write_action(False)


def play(
    state: GameState,
    choose: Callable[[GameState], int | None] = lambda s: None,
    until: Callable[[GameState], bool] = lambda s: s.is_terminal,
) -> GameState:
    """Apply ``choose(state)`` (or :func:`default_action` when it returns ``None``) until ``until(state)``."""
    while not until(state):
        assert not state.is_terminal, "the game ended before the condition held"
        action = choose(state)
        state.apply_action(default_action(state) if action is None else action)
    return state


def votes_by(targets: dict[int, int | tuple[int, bool]]):
    """A ``choose`` that votes ``seat → target`` (absolute seats; ``(target, True)`` with a Dagger)."""

    def choose(state: GameState) -> int | None:
        if state.phase is not Phase.VOTE or state.current_player not in targets:
            return None
        target = targets[state.current_player]
        target, dagger = target if isinstance(target, tuple) else (target, False)
        return A.vote_action((target - state.current_player) % state.num_players, dagger)

    return choose


def murder_by(victim: int | None, attempt: bool = True):
    """A ``choose`` in which the Traitor attempts the assignment and murders ``victim`` (absolute; None: no murder)."""

    def choose(state: GameState) -> int | None:
        if state.current_player != state.traitor:
            return None
        if state.phase is Phase.MISSION:
            return A.ATTEMPT if attempt else A.NO_ATTEMPT
        if state.phase is Phase.NIGHT and victim is not None and A.murder_action(0) in state.legal_actions():
            return A.murder_action((victim - state.traitor) % state.num_players)
        return None

    return choose


def after_phase(phase: Phase, round_: int | None = None):
    """An ``until`` that holds once the state is in ``phase`` (of round ``round_`` if given)."""
    return lambda s: s.phase is phase and (round_ is None or s.round == round_)


def random_game(num_players: int, seed: int, check: Callable[[GameState], None] | None = None, **options):
    """Play one seeded game with uniformly random legal actions, calling ``check(state)`` after every decision."""
    state = GameState.new(GameConfig(num_players=num_players, **options), seed=seed)
    rng = np.random.default_rng(seed + 1_000_003)
    if check:
        check(state)
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        if check:
            check(state)
    return state
