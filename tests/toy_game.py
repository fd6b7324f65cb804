"""A toy hidden-role game defined only here, registered as ``toy``: proves a game is one object and one line.

*Odd One Out*: 3–5 players, one secret Spy. Each player in turn either passes or accuses another seat;
after two rounds the seat with most accusations is exposed (ties: nobody). The Others win if the Spy is
exposed, else the Spy wins. Observation: own role (2), accusations received per relative seat (5),
round (1). Actions: 0 pass, 1–4 accuse the seat that many places to the left.
"""

from __future__ import annotations

import copy

import numpy as np

from traitors_env.core.aec import CardGameAECEnv, wrap
from traitors_env.core.agent import RandomAgent
from traitors_env.core.game import Game, GameType
from traitors_env.core.layout import Layout, Piece

MAX, ROUNDS = 5, 2
LAYOUT = Layout((Piece("role", (2,), 0, 1, "one-hot: Other, Spy"),
                 Piece("accused", (MAX,), 0, ROUNDS * MAX, "accusations received, per seat relative to the observer"),
                 Piece("round", (1,), 0, ROUNDS, "round number")))


class ToyState:
    def __init__(self, num_players: int, seed) -> None:
        rng = np.random.default_rng(seed)
        self.num_players, self.spy = num_players, int(rng.integers(num_players))
        self.accused, self.turn = [0] * num_players, 0

    current_player = property(lambda self: self.turn % self.num_players)
    is_terminal = property(lambda self: self.turn >= ROUNDS * self.num_players)

    def legal_mask(self) -> np.ndarray:
        return np.array([1] * self.num_players + [0] * (MAX - self.num_players), dtype=np.int8)

    def legal_actions(self) -> list[int]:
        return list(range(self.num_players))

    def apply_action(self, action: int) -> None:
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_players:
            raise ValueError(f"action {action!r} is not legal; legal actions: {self.legal_actions()}")
        if action:
            self.accused[(self.current_player + action) % self.num_players] += 1
        self.turn += 1

    def exposed(self) -> int | None:
        top = max(self.accused)
        return self.accused.index(top) if self.accused.count(top) == 1 else None

    def returns(self) -> list[int]:
        others_win = self.exposed() == self.spy
        return [(1 if (s == self.spy) != others_win else -1) if self.is_terminal else 0 for s in range(self.num_players)]

    def action_to_string(self, action: int) -> str:
        return action_text(action)

    def result(self) -> dict:
        return {"spy": self.spy, "exposed": self.exposed(), "rewards": self.returns()}


def encode(state: ToyState, seat: int) -> np.ndarray:
    out = np.zeros(LAYOUT.size, dtype=np.float32)
    out[int(seat == state.spy)] = 1.0
    for offset in range(state.num_players):
        out[2 + offset] = state.accused[(seat + offset) % state.num_players]
    out[2 + MAX] = state.turn // state.num_players
    return out


def action_text(action: int) -> str:
    return "pass" if action == 0 else f"accuse the player {action} seat(s) to the left"


def hidden_variant(state: ToyState, seat: int, rng: np.random.Generator) -> ToyState:
    """Who the Spy is, redrawn where ``seat`` is not the Spy (the Spy knows itself; the Others know nothing)."""
    variant = copy.deepcopy(state)
    if seat != state.spy:
        variant.spy = int(rng.choice([s for s in range(state.num_players) if s != seat]))
    return variant


class raw_env(CardGameAECEnv):  # noqa: N801 (PettingZoo's name)
    metadata = {"render_modes": ["ansi", "human"], "name": "toy_v0", "is_parallelizable": False}
    layout, num_actions = LAYOUT, MAX
    _encode = staticmethod(encode)
    _render_text = staticmethod(lambda state, show_hidden=False: f"accusations: {state.accused}")

    def __init__(self, num_players: int = 4, claims: bool = True, render_mode=None, render_hidden: bool = False):
        if not isinstance(num_players, int) or not 3 <= num_players <= MAX:
            raise ValueError(f"toy_v0 has no table of {num_players!r} players; expected an int 3–{MAX}")
        self.num_players = num_players
        super().__init__(num_players, render_mode, render_hidden)

    def _new_game(self, seed: int) -> ToyState:
        return ToyState(self.num_players, seed)

    def _check_position(self, state) -> None:
        if state.num_players != self.num_players:
            raise ValueError(f"position has {state.num_players} players; this env has {self.num_players}")

    def _finish(self) -> None:
        for i, name in enumerate(self.agents):
            self.rewards[name], self.terminations[name] = self.game.returns()[i], True
        self._accumulate_rewards()


TYPE = GameType("toy", "toy_v0", "Odd One Out", 3, MAX, 4, MAX, (LAYOUT.size,), ("spy", "others"), ("Spy", "Others"),
                "zero_sum_teams")
GAME = Game(
    type=TYPE, raw_env=raw_env, env=lambda **kwargs: wrap(raw_env(**kwargs)),
    new_initial_state=lambda n, seed=None, claims=True: ToyState(n, seed), encode=encode,
    side_of_seat=lambda state, seat: 0 if seat == state.spy else 1,
    side_of_observation=lambda observation: 0 if observation[1] > 0.5 else 1,
    side_sizes=lambda n: (1, n - 1), seat_won=lambda state, seat: state.returns()[seat] > 0,
    end_condition=lambda state: "spy exposed" if state.exposed() == state.spy else "spy hidden",
    bots={"random": RandomAgent, "heuristic": RandomAgent},
    rules_summary=lambda num_players=None: __doc__, layout=LAYOUT, action_text=action_text,
    hidden_variant=hidden_variant,
)
