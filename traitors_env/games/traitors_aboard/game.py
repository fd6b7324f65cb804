"""*Traitors Aboard* as a plug-in: the one :data:`GAME` every generic layer reads (registry: ``traitors_aboard``)."""

from __future__ import annotations

import functools
import importlib
import re

import numpy as np

from ...core.agent import RandomAgent
from ...core.game import Game, GameType, Variant
from . import actions as A
from . import metrics, records
from .actions import describe_action
from .bots import HeuristicAgent
from .cards import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, Role, table_setup
from .engine import GameConfig, GameState, Phase
from .env import env, raw_env
from .hidden import hidden_variant
from .observation import _LAYOUT, COMPILED_ENCODER, OBS_SIZE, encode, role_of_observation
from .rules_text import rules_summary
from .small import VARIANTS as SMALL_VARIANTS

__all__ = ["GAME", "TYPE"]

TYPE = GameType(
    short_name="traitors_aboard",
    env_id="traitors_aboard_v0",
    long_name="Traitors Aboard",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=5,
    num_actions=A.NUM_ACTIONS,
    observation_shape=(OBS_SIZE,),
    sides=("pirates", "mutineers"),  # Role.PIRATE = 0, Role.MUTINEER = 1
    side_labels=("Pirates", "Mutineers"),
    utility="zero_sum_teams",
    rules="docs/rules/traitors-aboard-rulebook-en.txt",
)


def new_initial_state(num_players: int, seed: int | np.random.Generator | None = None, claims: bool = True) -> GameState:
    """A dealt game (R01) of ``num_players``."""
    return GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)


def side_of_seat(state: GameState, seat: int) -> int:
    """0 for a Pirate, 1 for a Mutineer (the deal, read as a game master)."""
    return int(state.roles[seat])


def side_of_observation(observation: np.ndarray) -> int:
    """0 for a Pirate, 1 for a Mutineer: the observer's own role (its observation shows it)."""
    return int(role_of_observation(observation))


def side_sizes(num_players: int) -> tuple[int, int]:
    """(Pirates, Mutineers) at ``num_players`` (rulebook "Setup")."""
    setup = table_setup(num_players)
    return setup.pirates, setup.mutineers


def seat_won(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s team won the finished game (R17: overboard seats share it)."""
    return state.returns()[seat] > 0


def end_condition(state: GameState) -> str:
    return state.result()["end_condition"]


def progress(state: GameState) -> float:
    """How far the game is, in [0, 1]: the share of the starting draw pile drawn (the deck less the hands dealt,
    rulebook "Setup"; R06: the game ends when it is empty). The deduction metrics' phases read it. The cards a
    Miraculous Catch still has to put back (R09) count as in the pile, so that the measure never goes back."""
    if state.small_variant is not None:  # a small variant's pile (S01) is all there is to draw
        start = SMALL_VARIANTS[state.small_variant].pile
    else:
        start = sum(state.setup.deck_counts()) - HAND_SIZE * state.num_players
    pending = {Phase.CATCH_RETURN_1: 2, Phase.CATCH_RETURN_2: 1}.get(state.phase, 0)
    return float(min(1.0, max(0.0, 1.0 - (len(state.draw_pile) + pending) / start)))


def variant_twin(name: str):
    """The JAX twin dealing small variant ``name`` (imports jax only when called)."""
    return importlib.import_module(f"{__package__}.jax").variant_twin(name)


def action_table() -> str:
    """The action table (indices, name, meaning, phase) as markdown: the one written in :mod:`.actions`'s docstring,
    beside the index constants it documents (the docs test checks its index ranges cover ``0 … NUM_ACTIONS - 1``)."""
    return re.search(r"^\| indices .*?(?=\n\n)", A.__doc__, flags=re.S | re.M).group(0)


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
    bots={"random": RandomAgent, "heuristic": HeuristicAgent},
    rules_summary=rules_summary,
    layout=_LAYOUT,
    action_text=describe_action,
    action_table=action_table,
    metrics=metrics,
    records=records,
    jax=lambda: importlib.import_module(f"{__package__}.jax"),
    hidden_variant=hidden_variant,
    terminal_view=lambda: importlib.import_module(f"{__package__}.view"),  # imports rich only when played
    hidden_side=int(Role.MUTINEER),  # the Mutineers' roles are secret (rulebook "Setup")
    progress=progress,
    text=lambda: importlib.import_module(f"{__package__}.text"),
    # The small variants (S01–S03) that the exact solver walks: ``--game traitors_aboard:mini3`` in every tool, the
    # JAX backend's included (each variant's twin deals it).
    variants={name: Variant({"small_variant": name}, (v.num_players,), claims=v.claims, records=False,
                            jax=functools.partial(variant_twin, name))
              for name, v in SMALL_VARIANTS.items()},
    extras={"roles": Role, "observation_encoder": "compiled" if COMPILED_ENCODER else "pure Python"},
)
