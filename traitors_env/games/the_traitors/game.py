"""*The Traitors* board game as a plug-in: the one :data:`GAME` every generic layer reads (registry: ``the_traitors``)."""

from __future__ import annotations

import importlib

import numpy as np

from ...core.agent import RandomAgent
from ...core.game import Game, GameType
from . import actions as A
from .actions import describe_action
from .bots import TheTraitorsHeuristicAgent
from .cards import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS, Role
from .engine import GameConfig, GameState
from .env import env, raw_env
from .hidden import hidden_variant
from .observation import _LAYOUT, OBS_SIZE, encode, role_of_observation
from .rules_text import rules_summary

__all__ = ["GAME", "TYPE"]

TYPE = GameType(
    short_name="the_traitors",
    env_id="the_traitors_v0",
    long_name="The Traitors",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=DEFAULT_PLAYERS,
    num_actions=A.NUM_ACTIONS,
    observation_shape=(OBS_SIZE,),
    sides=("traitor", "faithful"),  # the row side of the kit's matrix is the Traitor's seat
    side_labels=("Traitor", "Faithful"),
    utility="general_sum",  # T16: individual rewards, several winners possible
    rules="docs/rules/the-traitors-board-game-2nd-ed-en.txt",
)


def new_initial_state(num_players: int, seed: int | np.random.Generator | None = None, claims: bool = True) -> GameState:
    """A dealt game (T02) of ``num_players``."""
    return GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)


def side_of_seat(state: GameState, seat: int) -> int:
    """0 for the Traitor, 1 for a Faithful seat (the deal, read as a game master)."""
    return 0 if seat == state.traitor else 1


def side_of_observation(observation: np.ndarray) -> int:
    """0 for the Traitor, 1 for a Faithful seat: the observer's own role."""
    return 0 if role_of_observation(observation) == Role.TRAITOR else 1


def side_sizes(num_players: int) -> tuple[int, int]:
    """(Traitor, Faithful) seats: one Traitor (T02)."""
    return 1, num_players - 1


def seat_won(state: GameState, seat: int) -> bool:
    """Whether ``seat`` is among the finished game's winners (T16)."""
    return bool(state.winners[seat])


def end_condition(state: GameState) -> str:
    return state.result()["outcome"]


def progress(state: GameState) -> float:
    """How far the game is, in [0, 1], by its rounds (rulebook "Gameplay": 4 rounds, then the End Game): a decision
    of round ``r`` is at ``(r − 0.5) / 4`` (0.125, 0.375, 0.625, 0.875), the End Game at 1. The deduction metrics'
    phases (thirds) are then early: round 1; mid: rounds 2–3; late: round 4 and the End Game."""
    if state.round > NUM_ROUNDS or state.is_terminal:
        return 1.0
    return (state.round - 0.5) / NUM_ROUNDS


def learner_seat(state: GameState, side: int, seed: int) -> int:
    """The seat an agent trained or evaluated in ``side`` plays: the Traitor's (side 0), or one Faithful seat (side 1)
    drawn from the game's ``seed`` (counted clockwise from the Traitor)."""
    if side == 0:
        return state.traitor
    offset = 1 + int(np.random.default_rng([seed, 15]).integers(state.num_players - 1))
    return (state.traitor + offset) % state.num_players


GAME = Game(
    type=TYPE,
    raw_env=raw_env,
    env=env,
    new_initial_state=new_initial_state,
    encode=encode,
    side_of_seat=side_of_seat,
    side_of_observation=side_of_observation,
    side_sizes=side_sizes,
    seat_won=seat_won,
    end_condition=end_condition,
    bots={"random": RandomAgent, "heuristic": TheTraitorsHeuristicAgent},
    rules_summary=rules_summary,
    layout=_LAYOUT,
    action_text=describe_action,
    hidden_variant=hidden_variant,
    terminal_view=lambda: importlib.import_module(f"{__package__}.view"),  # imports rich only when played
    text=lambda: importlib.import_module(f"{__package__}.text"),
    extras={"roles": Role, "observation_encoder": "pure Python"},
    learner_seat=learner_seat,
    hidden_side=0,  # the Traitor's role is secret (T02)
    progress=progress,
    # The env asks every seat the Night's questions, one-answer ones included, so that turns do not reveal the
    # Traitor; a game master need not ask those.
    skip_forced_moves=True,
    training_order=(1, 0),  # the Faithful first; the Traitor then meets this generation's Faithful
    action_table=A.action_table,
)
