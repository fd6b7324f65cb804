"""A pyspiel game with imperfect information and two sides as a registered :class:`~traitors_env.core.game.Game`.

The generic half of the OpenSpiel adapter; a game plugs in by declaring a :class:`SpielSpec` (which pyspiel game,
its parameters, its sides, how its information state becomes our flat observation and how its actions map onto one
fixed ``Discrete`` space) and calling :func:`make_game`. :mod:`.social_deduction` is the first such declaration.

- :class:`SpielState`: one position, our engine protocol (``num_players``, ``current_player``, ``is_terminal``,
  ``legal_mask()``, ``legal_actions()``, ``apply_action()``, ``returns()``, ``result()``) over a ``pyspiel.State``.
  Chance nodes are never shown to a player: the state samples them from its own seeded ``numpy.random.Generator``
  (``state.chance_outcomes()``'s probabilities), so a game is its seed and its players' actions, bit for bit.
- :func:`hidden_variant`: the secrets test's perturbation, made through the game's chance outcomes: each chance
  outcome of the history is redrawn among those that leave the observer's ``information_state_string`` (and the
  legality of every later action) as it is; what OpenSpiel says the seat knows is then all that stays fixed.
- :class:`TensorEncoder`: the observation of a game that provides ``information_state_tensor`` (else
  ``observation_tensor``), padded to the largest table, with a ``num_players`` one-hot; a game without tensors
  declares its own encoder (same protocol: ``layout``, ``encode(spiel_state, seat, spec_kwargs)``).
- :func:`make_raw_env`: the PettingZoo AEC class (:class:`~traitors_env.core.aec.CardGameAECEnv`) of a spec.

This folder and the exact tool's pyspiel game (``traitors_env/solve/spiel.py``) are the only places of the package
that import ``pyspiel`` (the ``[solve]`` extra, ``pip install -e ".[solve]"``).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from ...core.aec import CardGameAECEnv, check_flag, wrap
from ...core.game import Game, GameType, Variant, sizes_text
from ...core.layout import Layout, Piece

__all__ = ["IllegalActionError", "SmallSpielVariant", "SpielSpec", "SpielState", "TensorEncoder", "hidden_variant",
           "make_game", "make_raw_env"]


class IllegalActionError(ValueError):
    """An action that is not legal for the seat to act, naming it and the legal set."""


@dataclass(frozen=True)
class SmallSpielVariant:
    """A parameter set of a pyspiel game small enough to solve exactly (``traitors-exact``; the tree is walked by
    ``traitors_env.solve.openspiel_tree``). Plain data: declaring one imports nothing of the solver.

    Attributes:
        name: the variant's key (``"sd3"``); description: one line for docs and reports.
        num_players: the table size; options: the game's other parameters (our env keywords, as
            :attr:`SpielSpec.options`; defaults fill the rest).
    """

    name: str
    description: str
    num_players: int
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SpielSpec:
    """How one pyspiel game plugs in.

    Attributes:
        spiel_name: the pyspiel short name (``"social_deduction"``).
        type: our :class:`GameType` (``num_actions`` and ``observation_shape`` fixed over every table size).
        players_parameter: the pyspiel parameter that sets the table size (``"players"``).
        options: our env keyword → (default, check) for the game's other parameters; ``check(value)`` returns the
            value as pyspiel takes it or raises ``ValueError`` naming it; ``check_table(num_players, options)``
            then checks them together.
        sides: ``(spiel_state, num_players) -> list[int]``: each seat's side (0 or 1), read from the deal.
        encoder: ``layout`` and ``encode(spiel_state, seat, options) -> float32`` from the seat's information state.
        to_spiel / from_spiel: ``(spiel_state, action) -> action`` between our index and pyspiel's, for the seat
            to act (identity where ``None``).
        action_text: ``(action) -> str`` for our action index; end_condition: ``(spiel_state) -> str``.
        progress: ``(spiel_state, options) -> float`` in [0, 1]; public_text: ``(spiel_state) -> str``, the public
            record for ``render()``.
        bots, rules_summary, variants, hidden_side, extras: as in :class:`Game`.
        small_variants: name → :class:`SmallSpielVariant`, the parameter sets ``traitors-exact`` solves exactly
            (``Game.extras["small_variants"]``).
    """

    spiel_name: str
    type: GameType
    players_parameter: str
    sides: Callable[[Any, int], list[int]]
    encoder: Any
    action_text: Callable[[int], str]
    end_condition: Callable[[Any], str]
    rules_summary: Callable[[int | None], str]
    bots: Mapping[str, Callable[..., Any]]
    options: Mapping[str, tuple[Any, Callable[[Any], Any]]] = field(default_factory=dict)
    check_table: Callable[[int, Mapping[str, Any]], None] | None = None
    to_spiel: Callable[[Any, int], int] | None = None
    from_spiel: Callable[[Any, int], int] | None = None
    variants: Mapping[str, Variant] = field(default_factory=dict)
    hidden_side: int | None = None
    progress: Callable[[Any, Mapping[str, Any]], float] | None = None
    public_text: Callable[[Any], str] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    small_variants: Mapping[str, SmallSpielVariant] = field(default_factory=dict)

    def checked_options(self, num_players: object, options: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """``(num_players, {option: value})`` with every default filled in; ``ValueError`` naming a bad value."""
        lo, hi = self.type.min_players, self.type.max_players
        if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)) \
                or not lo <= num_players <= hi:
            raise ValueError(f"{self.type.env_id} has no table of {num_players!r} players; "
                             f"expected a table size in {sizes_text(self.type)}")
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} of {self.type.env_id}; expected keyword arguments among "
                             f"{['num_players', 'claims', 'render_mode', 'render_hidden', *sorted(self.options)]}")
        values = {name: check(options.get(name, default)) for name, (default, check) in self.options.items()}
        if self.check_table is not None:
            self.check_table(int(num_players), values)
        return int(num_players), values


_GAMES: dict[tuple, Any] = {}


def _spiel_game(spec: SpielSpec, num_players: int, options: Mapping[str, Any]):
    """The loaded pyspiel game of these parameters (one per parameter set and process)."""
    params = {spec.players_parameter: num_players, **options}
    key = (spec.spiel_name, tuple(sorted(params.items())))
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game(spec.spiel_name, params)
    return _GAMES[key]


class SpielState:
    """One position of a pyspiel game in our engine's protocol (see the module doc).

    Attributes:
        spec, num_players, options: the game's declaration and parameters. ``spiel``: the ``pyspiel.State`` (never
        shown to an agent; :func:`encode` reads only its information state). ``rng``: the generator of its chance
        outcomes.
    """

    def __init__(self, spec: SpielSpec, num_players: int, options: Mapping[str, Any],
                 seed: int | np.random.Generator | None = None, spiel_state=None) -> None:
        self.spec = spec
        self.num_players = num_players
        self.options = dict(options)
        self.game = _spiel_game(spec, num_players, self.options)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.spiel = self.game.new_initial_state() if spiel_state is None else spiel_state
        self._mask: np.ndarray | None = None
        self._sides: list[int] | None = None
        self._resolve_chance()

    # ------------------------------------------------------------ chance
    def _resolve_chance(self) -> None:
        """Apply chance outcomes, drawn from :attr:`rng`, until a player is to act or the game is over."""
        spiel = self.spiel
        while spiel.is_chance_node():
            outcomes = spiel.chance_outcomes()
            p = np.array([prob for _, prob in outcomes], dtype=np.float64)
            spiel.apply_action(int(outcomes[int(self.rng.choice(len(outcomes), p=p / p.sum()))][0]))
        self._mask = None

    # ------------------------------------------------------------ the engine protocol
    @property
    def current_player(self) -> int:
        """The seat to act (``-4``, pyspiel's terminal id, once the game is over)."""
        return int(self.spiel.current_player())

    @property
    def is_terminal(self) -> bool:
        return bool(self.spiel.is_terminal())

    def _to_ours(self, action: int) -> int:
        return int(action) if self.spec.from_spiel is None else int(self.spec.from_spiel(self.spiel, int(action)))

    def legal_mask(self) -> np.ndarray:
        """``int8`` over our actions: 1 where legal for the seat to act (all zeros once the game is over)."""
        if self._mask is None:
            mask = np.zeros(self.spec.type.num_actions, dtype=np.int8)
            if not self.is_terminal:
                mask[[self._to_ours(a) for a in self.spiel.legal_actions()]] = 1
            self._mask = mask
        return self._mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def apply_action(self, action: int) -> None:
        """Play our ``action`` for the seat to act, then the chance outcomes up to the next decision.

        Raises:
            IllegalActionError: for an action that is not legal (naming it and the legal set), or a finished game.
        """
        if self.is_terminal:
            raise IllegalActionError(f"action {action!r} after the game ended; {self.spec.type.env_id} is over")
        legal = self.legal_mask()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < legal.size or not legal[action]:
            raise IllegalActionError(f"action {action!r} is not legal for seat {self.current_player}; legal actions: "
                                     f"{self.legal_actions()}")
        action = int(action)
        spiel_action = action if self.spec.to_spiel is None else int(self.spec.to_spiel(self.spiel, action))
        self.spiel.apply_action(spiel_action)
        self._resolve_chance()

    def returns(self) -> list[float]:
        return [float(r) for r in self.spiel.returns()]

    def sides(self) -> list[int]:
        """Each seat's side (0 or 1), read from the deal (hidden: a game master's view)."""
        if self._sides is None:
            self._sides = [int(s) for s in self.spec.sides(self.spiel, self.num_players)]
        return self._sides

    @property
    def winners(self) -> list[bool]:
        return [r > 0 for r in self.returns()] if self.is_terminal else [False] * self.num_players

    def action_to_string(self, action: int) -> str:
        return self.spec.action_text(int(action))

    def result(self) -> dict:
        """The finished (or running) game with everything revealed: sides, returns, how it ended, pyspiel's text."""
        return {
            "game": self.spec.spiel_name,
            "parameters": {self.spec.players_parameter: self.num_players, **self.options},
            "sides": self.sides(),
            "returns": self.returns(),
            "outcome": self.spec.end_condition(self.spiel) if self.is_terminal else "running",
            "history": [int(a) for a in self.spiel.history()],
            "state": str(self.spiel),
        }

    def __deepcopy__(self, memo):
        clone = copy.copy(self)
        clone.options = dict(self.options)
        clone.spiel = self.spiel.clone()
        clone.rng = copy.deepcopy(self.rng, memo)
        clone._mask = None if self._mask is None else self._mask.copy()
        return clone

    def __getstate__(self) -> dict:
        """Pickled by its history (pyspiel states pickle through their game's text, which is the same)."""
        state = dict(self.__dict__)
        state["game"] = None
        state["spiel"] = [int(a) for a in self.spiel.history()]
        state["_mask"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        history = state.pop("spiel")
        self.__dict__.update(state)
        self.game = _spiel_game(self.spec, self.num_players, self.options)
        self.spiel = self.game.new_initial_state()
        for action in history:
            self.spiel.apply_action(action)


def hidden_variant(state: SpielState, seat: int, rng: np.random.Generator, tries: int = 8) -> SpielState:
    """A copy of ``state`` that differs from it only in what ``seat`` cannot know, made through chance outcomes.

    Walking the history from the start, each chance outcome is redrawn (up to ``tries`` distinct outcomes drawn with
    the game's probabilities, the outcome played left out) and the first draw kept where the seat's ``information_state_string``
    right after it is unchanged (the seat did not see that outcome), every later action is still legal, the game has
    not ended earlier, and at the end the seat's ``information_state_string`` (its perfect-recall knowledge, as
    OpenSpiel defines it) and the seat to act are those of ``state``. The copy gets a fresh chance generator drawn
    from ``rng`` (its future chance outcomes are unknown to every seat).
    """
    history = [int(a) for a in state.spiel.history()]
    target = state.spiel.information_state_string(seat)
    player = state.spiel.current_player()
    seen: dict[int, str] = {}  # chance node index -> the seat's information state just after it, in the true game
    probe = state.game.new_initial_state()
    for i, action in enumerate(history):
        chance = probe.is_chance_node()
        probe.apply_action(action)
        if chance:
            seen[i] = probe.information_state_string(seat)
    walker = state.game.new_initial_state()
    for i in range(len(history)):
        if i in seen:
            outcomes = [(a, p) for a, p in walker.chance_outcomes() if a != history[i]]
            p = np.array([prob for _, prob in outcomes], dtype=np.float64)
            # Up to `tries` distinct outcomes, drawn without replacement with the game's probabilities
            # (Efraimidis–Spirakis: the largest u ** (1 / p)).
            order = np.argsort(-(rng.random(len(outcomes)) ** (1.0 / p)))[:tries] if outcomes else ()
            for k in order:
                drawn = int(outcomes[int(k)][0])
                trial = walker.clone()
                trial.apply_action(drawn)
                if trial.information_state_string(seat) != seen[i]:
                    continue  # the seat saw this outcome
                candidate = history[:i] + [drawn] + history[i + 1:]
                spiel = _replay_from(trial, candidate[i + 1:])
                if spiel is not None and spiel.current_player() == player \
                        and spiel.information_state_string(seat) == target:
                    history = candidate
                    break
        walker.apply_action(history[i])
    variant = copy.deepcopy(state)
    variant.spiel = walker
    variant._mask = None
    variant._sides = None
    variant.rng = np.random.default_rng(int(rng.integers(2**63)))
    return variant


def _replay_from(spiel, actions: list[int]):
    """A clone of ``spiel`` with ``actions`` applied, or ``None`` where one of them is not legal (or the game ends
    before the last)."""
    spiel = spiel.clone()
    for action in actions:
        if action not in spiel.legal_actions():  # at a chance node: the outcomes of positive probability; none at the end
            return None
        spiel.apply_action(action)
    return spiel


class TensorEncoder:
    """The observation of a game that provides ``information_state_tensor`` (else ``observation_tensor``): the
    tensor padded with zeros to the longest over the table sizes, then a ``num_players`` one-hot.

    Args:
        spiel_name, players_parameter, min_players, max_players: the game and its table sizes; options: the other
            parameters (defaults) the tensor's size is measured at.
    """

    def __init__(self, spiel_name: str, players_parameter: str, min_players: int, max_players: int,
                 options: Mapping[str, Any] | None = None) -> None:
        game_type = pyspiel.load_game(spiel_name, {players_parameter: min_players, **(options or {})}).get_type()
        if game_type.provides_information_state_tensor:
            self.kind = "information_state_tensor"
        elif game_type.provides_observation_tensor:
            self.kind = "observation_tensor"
        else:
            raise ValueError(f"pyspiel game {spiel_name!r} provides no information state or observation tensor; "
                             "declare an encoder (layout, encode) of its own")
        size = 0
        for n in range(min_players, max_players + 1):
            game = pyspiel.load_game(spiel_name, {players_parameter: n, **(options or {})})
            size = max(size, int(np.prod(getattr(game, f"{self.kind}_shape")())))
        self.min_players = min_players
        self.layout = Layout((
            Piece(self.kind, (size,), -np.inf, np.inf, f"OpenSpiel's `{self.kind}` of the seat, zero-padded"),
            Piece("num_players", (max_players - min_players + 1,), 0, 1,
                  f"one-hot: table size {min_players}–{max_players}"),
        ))

    def encode(self, spiel_state, seat: int, options: Mapping[str, Any]) -> np.ndarray:
        out = np.zeros(self.layout.size, dtype=np.float32)
        tensor = np.asarray(getattr(spiel_state, self.kind)(seat), dtype=np.float32)
        out[: tensor.size] = tensor
        out[self.layout.offsets["num_players"] + spiel_state.num_players() - self.min_players] = 1.0
        return out


def make_raw_env(spec: SpielSpec) -> type:
    """The PettingZoo AEC class of ``spec`` (``raw_env(num_players=..., claims=..., render_mode=..., **options)``)."""
    default_players = spec.type.default_players

    def encode(state: SpielState, seat: int) -> np.ndarray:
        return spec.encoder.encode(state.spiel, seat, state.options)

    def render_text(state: SpielState, show_hidden: bool = False) -> str:
        """The public record (``spec.public_text``); pyspiel's full state text too with ``show_hidden``."""
        public = spec.public_text(state.spiel) if spec.public_text is not None else \
            f"{spec.type.long_name}: move {len(state.spiel.history())}, seat {state.current_player} to act"
        return f"{public}\n--- hidden ---\n{state.spiel}" if show_hidden else public

    class raw_env(CardGameAECEnv):  # noqa: N801 (PettingZoo's name)
        __doc__ = f"""PettingZoo AEC environment of OpenSpiel's ``{spec.spiel_name}`` (``{spec.type.env_id}``).

        Args:
            num_players: {spec.type.min_players}–{spec.type.max_players} (default {default_players}).
            claims: accepted for the common interface of the package's games (a bool); the game has no claim channel
                of ours to switch, its own messages are always played.
            render_mode: ``None``, ``"ansi"`` or ``"human"``; render_hidden: show pyspiel's full state (debugging).
            options: the game's parameters: {", ".join(f"``{k}`` (default {v[0]!r})" for k, v in spec.options.items())}.

        Raises:
            ValueError: naming a bad table size, option, ``claims`` or ``render_mode``; :class:`IllegalActionError`
                (a ``ValueError``) from :meth:`step`.
        """

        metadata = {"render_modes": ["ansi", "human"], "name": spec.type.env_id, "is_parallelizable": False}
        layout = spec.encoder.layout
        num_actions = spec.type.num_actions
        _encode = staticmethod(encode)
        _render_text = staticmethod(render_text)

        def __init__(self, num_players: int = default_players, claims: bool = True, render_mode: str | None = None,
                     render_hidden: bool = False, **options) -> None:
            check_flag("claims", claims)
            self.num_players, self.options = spec.checked_options(num_players, options)
            self.claims = bool(claims)
            _spiel_game(spec, self.num_players, self.options)  # pyspiel's own checks, at construction
            super().__init__(self.num_players, render_mode, render_hidden)

        def _new_game(self, seed: int) -> SpielState:
            return SpielState(spec, self.num_players, self.options, seed)

        def _check_position(self, state: SpielState) -> None:
            if (state.num_players, state.options) != (self.num_players, self.options):
                raise ValueError(f"position has {state.num_players} players and options {state.options}; this env has "
                                 f"{self.num_players} and {self.options}")

        def _finish(self) -> None:
            game = self.game
            returns = game.returns()
            for i, name in enumerate(self.agents):
                self.rewards[name] = returns[i]
                self.terminations[name] = True
                self.infos[name] = {"won": returns[i] > 0, "reward": returns[i], "side": game.sides()[i],
                                    "outcome": spec.end_condition(game.spiel), "num_players": game.num_players}
            self._accumulate_rewards()

    raw_env.__name__ = raw_env.__qualname__ = "raw_env"
    return raw_env


def make_game(spec: SpielSpec, raw_env: type, env: Callable[..., Any], **game_fields: Any) -> Game:
    """The registered :class:`Game` of ``spec``, with its ``raw_env`` and ``env`` (module-level names, so that envs
    and games pickle by reference); ``game_fields``: further :class:`Game` fields (``side_of_observation``, …)."""

    def new_initial_state(num_players: int, seed: int | np.random.Generator | None = None, claims: bool = True,
                          **options) -> SpielState:
        n, values = spec.checked_options(num_players, options)
        return SpielState(spec, n, values, seed)

    def encode(state: SpielState, seat: int) -> np.ndarray:
        return spec.encoder.encode(state.spiel, seat, state.options)

    @functools.cache
    def side_sizes(num_players: int) -> tuple[int, int]:
        """(side 0, side 1) seats of a deal at the game's default options (an option such as social_deduction's
        `imposters` may change them: such options are keywords, not `Game.variants`)."""
        state = new_initial_state(num_players, 0)
        sides = state.sides()
        return sides.count(0), sides.count(1)

    def progress(state: SpielState) -> float:
        return float(spec.progress(state.spiel, state.options)) if not state.is_terminal else 1.0

    return Game(
        type=spec.type,
        raw_env=raw_env,
        env=env,
        new_initial_state=new_initial_state,
        encode=encode,
        side_of_seat=lambda state, seat: state.sides()[seat],
        side_sizes=side_sizes,
        seat_won=lambda state, seat: bool(state.winners[seat]),
        end_condition=lambda state: spec.end_condition(state.spiel),
        bots=spec.bots,
        rules_summary=spec.rules_summary,
        layout=spec.encoder.layout,
        action_text=spec.action_text,
        hidden_variant=hidden_variant,
        variants=spec.variants,
        hidden_side=spec.hidden_side,
        progress=progress if spec.progress is not None else None,
        # Its speed is OpenSpiel's engine's: the package's speed targets (traitors-bench) are not graded on it.
        # spiel_spec and small_variants: for the exact solver (traitors_env.solve.openspiel_tree), which walks the
        # pyspiel game and encodes observations through the spec, as the env does.
        extras={"observation_encoder": "pure Python", "openspiel_game": spec.spiel_name, "speed_targets": False,
                "spiel_spec": spec, "small_variants": dict(spec.small_variants), **spec.extras},
        **game_fields,
    )


def wrapped(raw_env: type) -> Callable[..., Any]:
    """``env(**kwargs)``: ``raw_env`` with the package's classic PettingZoo wrappers."""

    def env(**kwargs):
        return wrap(raw_env(**kwargs), IllegalActionError)

    return env
