"""*The Resistance: Avalon* as a plug-in: the one :data:`GAME` every generic layer reads (registry: ``avalon``)."""

from __future__ import annotations

import importlib

import numpy as np

from ...core.agent import RandomAgent
from ...core.game import Game, GameType, Variant
from . import actions as A
from . import metrics as _metrics
from . import records
from .actions import describe_action
from .bots import AvalonLogicBot
from .engine import AvalonConfig, GameState, Phase
from .env import env, raw_env
from .hidden import hidden_variant
from .observation import _LAYOUT, OBS_SIZE, encode
from .observation import side_of_observation as _side_of_observation
from .roles import DEFAULT_PLAYERS, EVIL, EVIL_COUNT, MAX_PLAYERS, MIN_PLAYERS, Role
from .rules_text import rules_summary

__all__ = ["GAME", "TYPE"]

TYPE = GameType(
    short_name="avalon",
    env_id="avalon_v0",
    long_name="The Resistance: Avalon",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=DEFAULT_PLAYERS,
    num_actions=A.NUM_ACTIONS,
    observation_shape=(OBS_SIZE,),
    # Good is the row side: the kit's matrix then reads as Good's win rate, the figure DeepRole and ProAvalon report
    # (Serrino et al. 2019, Table 1); the honest majority first, as Traitors Aboard's Pirates.
    sides=("good", "evil"),
    side_labels=("Good", "Evil"),
    utility="zero_sum_teams",  # A15
    rules="docs/rules/avalon-RULINGS.md",
)


def new_initial_state(num_players: int, seed: int | np.random.Generator | None = None, claims: bool = False) -> GameState:
    """A dealt game (A04) of ``num_players`` with the default role set."""
    return GameState.new(AvalonConfig(num_players=num_players, claims=claims), seed=seed)


def side_of_seat(state: GameState, seat: int) -> int:
    """0 Good, 1 Evil (the deal, read as a game master)."""
    return state.side_of(seat)


def side_of_observation(observation: np.ndarray) -> int:
    """0 Good, 1 Evil: the observer's own role."""
    return _side_of_observation(observation)


def side_sizes(num_players: int) -> tuple[int, int]:
    """(Good, Evil) seats (A01)."""
    return num_players - EVIL_COUNT[num_players], EVIL_COUNT[num_players]


def seat_won(state: GameState, seat: int) -> bool:
    return bool(state.winners[seat])


def end_condition(state: GameState) -> str:
    return state.result()["outcome"]


def progress(state: GameState) -> float:
    """How far the game is, in [0, 1]: ``(quests played + proposals made on the next quest / 6) / 5`` (A05, A09:
    at most 5 proposals a quest). It never goes back: a quest played adds 1, more than the 5/6 its proposals can
    have added. The deduction metrics' phases read it."""
    played = len(state.quests)
    pending = sum(1 for p in state.proposals if p.quest > played)
    config = state.config  # a small variant's shorter track and rejection limit (S04), else A05's and A09's
    return float(min(1.0, (played + pending / (config.max_proposals + 1)) / len(config.track)))


def hindsight_action(state: GameState, seat: int) -> int | None:
    """At the assassination (A14), the action of the Assassin ``seat`` that names Merlin; ``None`` at any other
    decision. Reads the hidden roles: a training label only (``Game.hindsight_action``), never an observation."""
    if state.phase is not Phase.ASSASSINATE or state.merlin is None:
        return None
    return A.assassinate_action((state.merlin - seat) % state.num_players)


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
    bots={"random": RandomAgent, "heuristic": AvalonLogicBot},
    rules_summary=rules_summary,
    layout=_LAYOUT,
    action_text=describe_action,
    hidden_variant=hidden_variant,
    records=records,  # A18: a game is its seed and its actions
    terminal_view=lambda: importlib.import_module(f"{__package__}.view"),  # imports rich only when played
    text=lambda: importlib.import_module(f"{__package__}.text"),
    extras={"roles": Role, "observation_encoder": "pure Python"},
    # A Good member's quest card has one legal action (A10); every member is asked so that turns show nothing.
    skip_forced_moves=True,
    metrics=_metrics,  # team selection, votes, fail timing, the assassination
    hidden_side=EVIL,  # A03: Good does not know who is Evil; the heuristic's beliefs are P(Evil) per seat
    progress=progress,
    hindsight_action=hindsight_action,
    action_table=A.action_table,
    variants={
        # A02's optional roles, where the table can hold them (Evil: 2 at 5–6, 3 at 7–9, 4 at 10).
        "percival_morgana": Variant({"percival": True, "morgana": True}),
        "percival_morgana_mordred": Variant({"percival": True, "morgana": True, "mordred": True}, (7, 8, 9, 10)),
        "all_roles": Variant({"percival": True, "morgana": True, "mordred": True, "oberon": True}, (10,)),
        "no_merlin": Variant({"merlin": False}),
        # The small variant solved exactly (traitors_env/solve/avalon.py; rulings S04–S06, docs/rules/small-variants.md):
        # one quest of a team of 2, the first rejection ends the game for Evil, the assassination kept; seat 0 leads
        # (a drawn leader is the same game rotated, in a tree 5 times larger: S06). A record replays the full
        # game's options only (records.record_game refuses it).
        "mini5": Variant({"quest_track": (2,), "max_proposals": 1, "first_leader": 0}, (5,), claims=False,
                         records=False),
    },
)
