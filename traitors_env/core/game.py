"""What a game declares to plug into every generic layer: :class:`GameType` and :class:`Game`.

Modelled on OpenSpiel's ``GameType`` + ``GameInfo`` and pgx's ``Env``: a frozen description of the
game's static facts (:class:`GameType`) and one :class:`Game` object per game holding its functions
and its optional capabilities. Each game folder ``traitors_env/games/<name>/`` exports one
``GAME``; the generic layers (agents, evaluation, table, training, benchmark) read only this object,
never a game's name. A capability a game lacks is ``None`` and a tool that needs it says so in words
(:meth:`Game.require`).

Sides: every game here pits two sides against each other. ``sides[0]`` is the *row* side of the
benchmark kit's cross-play matrix (Traitors Aboard: the Pirates; The Traitors: the Traitor), ``sides[1]``
the column side. Side indices (0, 1) are what :meth:`Game.side_of_seat` and
:meth:`Game.side_of_observation` return.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

__all__ = ["Game", "GameType", "MissingCapabilityError", "Utility", "Variant", "add_claims_arguments", "claims_from_args",
           "sizes_text"]

#: ``"zero_sum_teams"``: two teams, one wins, every seat of it gets +1 and every other −1 (constant-sum).
#: ``"general_sum"``: individual rewards; several seats (or none of a side) may win.
Utility = Literal["zero_sum_teams", "general_sum"]


class MissingCapabilityError(ValueError):
    """A tool asked a game for a capability it does not declare (e.g. game records, a JAX twin)."""


@dataclass(frozen=True)
class GameType:
    """The static facts of a game (OpenSpiel's ``GameType`` + ``GameInfo``).

    Attributes:
        short_name: the registry name and ``--game`` value (``"traitors_aboard"``).
        env_id: the PettingZoo environment name (``"traitors_aboard_v0"``).
        long_name: the game's name in text (``"Traitors Aboard"``).
        min_players, max_players: the table sizes the game allows (inclusive).
        default_players: the table size of ``raw_env()`` without arguments.
        num_actions: the size of the one ``Discrete`` action space (the same at every table size).
        observation_shape: the flat observation's shape (the same at every table size).
        sides: the two sides' keys in reports and configs, row side first (``("pirates", "mutineers")``).
        side_labels: the sides' names in text (``("Pirates", "Mutineers")``).
        utility: :data:`Utility`.
        rules: the rulebook the engine follows, for docs (a path under ``docs/rules/`` or a title).
        table_sizes: the sizes actually played where they are fewer than ``min_players``–``max_players`` (a
            declared variant's, :meth:`Game.variant_game`); ``None``: all. ``min_players``/``max_players`` stay the
            game's, as the observation's layout encodes them.
    """

    short_name: str
    env_id: str
    long_name: str
    min_players: int
    max_players: int
    default_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    sides: tuple[str, str]
    side_labels: tuple[str, str]
    utility: Utility
    rules: str = ""
    table_sizes: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        """``ValueError`` naming the field for facts that contradict each other (every generic layer trusts them)."""
        def check(ok: bool, field: str, expected: str) -> None:
            if not ok:
                raise ValueError(f"GameType {field}={getattr(self, field)!r} is not valid; expected {expected}")

        def count(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value >= 1

        check(isinstance(self.short_name, str) and re.fullmatch(r"[a-z0-9_]+(:[a-z0-9_]+)?", self.short_name) is not None,
              "short_name", "lowercase letters, digits and '_' (and ':<variant>' for a declared variant)")
        check(isinstance(self.env_id, str) and bool(self.env_id), "env_id", "a non-empty string")
        check(count(self.min_players), "min_players", "an int ≥ 1")
        check(count(self.max_players) and self.max_players >= self.min_players, "max_players", "an int ≥ min_players")
        check(count(self.default_players) and self.min_players <= self.default_players <= self.max_players,
              "default_players", f"an int in {self.min_players}–{self.max_players}")
        check(count(self.num_actions), "num_actions", "an int ≥ 1")
        check(isinstance(self.observation_shape, tuple) and len(self.observation_shape) >= 1
              and all(count(d) for d in self.observation_shape), "observation_shape", "a tuple of positive ints")
        check(isinstance(self.sides, tuple) and len(self.sides) == 2 and all(isinstance(s, str) and s for s in self.sides)
              and self.sides[0] != self.sides[1], "sides", "two different non-empty strings")
        check(isinstance(self.side_labels, tuple) and len(self.side_labels) == 2
              and all(isinstance(s, str) and s for s in self.side_labels), "side_labels", "two non-empty strings")
        check(self.utility in ("zero_sum_teams", "general_sum"), "utility", "'zero_sum_teams' or 'general_sum'")

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every allowed table size, ascending."""
        if self.table_sizes is not None:
            return tuple(self.table_sizes)
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def mixed_motive(self) -> bool:
        """Individual rewards (the meta-game's payoff is then a modelling choice)."""
        return self.utility == "general_sum"

    def side_index(self, side: str) -> int:
        """0 or 1 for a side key or label (case-insensitive); ``ValueError`` naming the valid ones."""
        for i, (key, label) in enumerate(zip(self.sides, self.side_labels)):
            if side in (key, label) or str(side).lower() in (key.lower(), label.lower()):
                return i
        raise ValueError(f"{self.env_id} has no side {side!r}; expected one of {list(self.sides)}")


@dataclass(frozen=True)
class Variant:
    """A declared variant of a game: extra keyword arguments of its ``raw_env``/``env`` (a role set, an option) and
    the table sizes where the game allows them (``None``: every size of its ``GameType``). The conformance test
    runs every declared variant as it runs the default game.

    Every tool plays a declared variant as a game of its own, named ``<game>:<variant>``
    (``traitors_aboard:mini3``, or by env id ``traitors_aboard_v0:mini3``): :func:`~traitors_env.core.load_game`
    gives :meth:`Game.variant_game`.

    Attributes:
        kwargs: keyword arguments added to ``raw_env(num_players=..., claims=..., **kwargs)``.
        player_counts: the table sizes the variant is played at; ``None``: all.
        claims: the claim channel of ``<game>:<variant>`` when a tool does not say (``None``: the game's default).
        records: whether the game's records replay a game of the variant (a record replays the deal from its seed:
            not a small variant's dealt position); ``False``: ``<game>:<variant>`` has no records capability.
        jax: a zero-argument loader of the variant's JAX twin (the twin's API, ``init`` dealing the variant), the
            :attr:`Game.jax` of ``<game>:<variant>``; ``None``: it has none (the game's twin deals the default game).
    """

    kwargs: Mapping[str, Any]
    player_counts: tuple[int, ...] | None = None
    claims: bool | None = None
    records: bool = True
    jax: Callable[[], Any] | None = None


@dataclass(frozen=True)
class Game:
    """One game's functions and capabilities, read by every generic layer.

    Required:
        type: :class:`GameType`.
        raw_env: ``raw_env(num_players=..., claims=..., render_mode=...)`` → the unwrapped AEC env, whose
            ``.game`` is the engine state after ``reset``.
        env: the same with the PettingZoo wrappers.
        new_initial_state: ``(num_players, seed, claims) -> state`` (the engine's ``GameState``).
        encode: ``(state, seat) -> float32 observation`` of ``type.observation_shape``.
        side_of_seat: ``(state, seat) -> 0 | 1`` (the game master's view: reads the deal).
        side_of_observation: ``(observation) -> 0 | 1`` (the seat's own role, which its observation shows).
        side_sizes: ``(num_players) -> (seats of side 0, seats of side 1)``.
        seat_won: ``(state, seat) -> bool`` for a finished game (the outcome per seat).
        end_condition: ``(state) -> str``: how a finished game ended, in the result's words.
        bots: bot name → ``make(seed) -> Agent`` (``"random"`` and ``"heuristic"`` at least).
        rules_summary: ``(num_players | None) -> str``: the rules in a few lines, for ``?`` at the table.
        layout: the observation's declared layout (:class:`traitors_env.core.layout.Layout`).
        action_text: ``(action) -> str``: an action index in the rulebook's words.

    Optional capabilities (``None`` where a game lacks them):
        metrics: hidden-role metrics from finished games (an object with ``METRICS`` and ``tally_state(state, seed)``;
            see :mod:`traitors_env.evaluation.metrics`).
        records: game records and replay (a module with ``record_game(state, seed, seats)``, ``GameRecord``,
            ``load_record``, ``replay_steps``, ``RecordError``).
        jax: a zero-argument loader of the JAX twin (imports ``jax`` only when called).
        terminal_view: a zero-argument loader of the terminal game's view of the game (``traitors-play``,
            ``traitors-replay``): an object with the functions of :mod:`traitors_env.table.text_view`'s protocol
            (usually the module ``games/<name>/view.py``); ``None``: the table's generic view.
        text: a zero-argument loader of the game's text renderer for language-model agents (usually the module
            ``games/<name>/text.py``): any of the functions of :class:`traitors_env.core.text.GenericText`
            (the observation, the events between two observations and the legal actions in words); ``None``: the
            generic renderer from :attr:`layout` and :attr:`action_text` (:mod:`traitors_env.core.text`).
        hidden_variant: ``(state, seat, rng) -> state``: a copy with everything ``seat`` cannot know redrawn
            (the game's declaration of its secrets; the conformance test checks that ``encode`` ignores it).
        action_table: ``() -> str``: the action table as markdown (indices, name, meaning, phase), one row per
            group of indices, for the game's docs page; where ``None`` the docs list every index with
            :attr:`action_text` (:func:`traitors_env.core.docs.action_table`).
        extras: anything else a game wants to publish to its own tools. A key generic tools read:
            ``observation_encoder`` (``"compiled"`` or ``"pure Python"``: named in ``traitors-bench``'s header);
            ``speed_targets`` (default ``True``; ``False``: ``traitors-bench`` reports the game's speed without
            grading it against the package's own games' targets, as for a game played by another library's engine).

    How a game master (training, an evaluation of one seat) seats an agent and plays the game (optional; the
    defaults suit a game that declares nothing):
        learner_seat: ``(state, side, seed) -> seat``: where rewards are individual (``utility ==
            "general_sum"``), the one seat an agent trained or evaluated in ``side`` plays in the game dealt from
            ``seed`` (a zero-sum team game seats it at every seat of its side, :meth:`learner_seats`). ``None``:
            one of the side's seats drawn from ``seed`` (:meth:`seat_for_agent`).
        skip_forced_moves: the game master applies a seat's only legal action itself instead of asking the seat's
            player (for a game whose env asks every seat questions with one answer, so that turns do not reveal
            who has a choice: such a decision carries nothing to learn). ``False``: every decision is asked.
        training_order: the two sides in the order a training generation trains them (the second meets the
            first's snapshot of the same generation); ``None``: ``(0, 1)``.

    Role beliefs and deduction (optional; :class:`traitors_env.core.agent.BeliefAgent`,
    :mod:`traitors_env.evaluation.deduction`):
        hidden_side: the side index (0 or 1) whose seats the other side does not know: the side an agent's
            ``beliefs(observation)`` gives the probability of, per seat (Traitors Aboard: 1, the Mutineers; The
            Traitors: 0, the Traitor). ``None``: the game declares no hidden side, and beliefs are not scored.
        progress: ``(state) -> float`` in [0, 1]: how far a game in progress is, in the game's own measure
            (Traitors Aboard: the share of the starting draw pile drawn; The Traitors: the rounds played), for
            the deduction metrics' early / mid / late phases. ``None``: one phase, ``"all"``.
        hindsight_action: ``(state, seat) -> int | None``: for the decision ``seat`` is asked to make in ``state``,
            the action that is right in hindsight, read from the hidden state (Avalon: at the assassination, the
            action naming Merlin, A14); ``None`` where the decision has no such answer. A training label only (the
            SB3 ``hindsight`` section fits the policy to it after each generation), never part of an observation.
            ``None``: the game declares none.
    Variants (optional): ``variants``: name → :class:`Variant`, the ``raw_env`` options (role sets, rule options)
    that the conformance test also runs; empty where the game declares none.
    """

    type: GameType
    raw_env: Callable[..., Any]
    env: Callable[..., Any]
    new_initial_state: Callable[[int, int | None, bool], Any]
    encode: Callable[[Any, int], np.ndarray]
    side_of_seat: Callable[[Any, int], int]
    side_of_observation: Callable[[np.ndarray], int]
    side_sizes: Callable[[int], tuple[int, int]]
    seat_won: Callable[[Any, int], bool]
    end_condition: Callable[[Any], str]
    bots: Mapping[str, Callable[..., Any]]
    rules_summary: Callable[[int | None], str]
    layout: Any
    action_text: Callable[[int], str]
    metrics: Any = None
    records: Any = None
    jax: Callable[[], Any] | None = None
    terminal_view: Any = None
    text: Callable[[], Any] | None = None
    hidden_variant: Callable[[Any, int, np.random.Generator], Any] | None = None
    action_table: Callable[[], str] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    learner_seat: Callable[[Any, int, int], int] | None = None
    skip_forced_moves: bool = False
    training_order: tuple[int, int] | None = None
    hidden_side: int | None = None
    progress: Callable[[Any], float] | None = None
    variants: Mapping[str, Variant] = field(default_factory=dict)
    hindsight_action: Callable[[Any, int], int | None] | None = None

    def __post_init__(self) -> None:
        """``ValueError`` naming ``hidden_side`` when it is not ``None``, 0 or 1."""
        if self.hidden_side is not None and (isinstance(self.hidden_side, bool) or self.hidden_side not in (0, 1)):
            raise ValueError(f"Game hidden_side={self.hidden_side!r} is not valid; expected None, 0 or 1")

    @property
    def name(self) -> str:
        """The registry name (``type.short_name``)."""
        return self.type.short_name

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(self.bots)

    def make_bot(self, name: str, seed: int | np.random.Generator | None = None):
        """A bot of this game by name; ``ValueError`` naming ``name`` and the game's bots."""
        try:
            make = self.bots[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown agent name {name!r} for {self.type.env_id}; expected one of {list(self.bots)}"
            ) from None
        return make(seed)

    def learner_seats(self, state, side: int) -> list[int]:
        """The seats of ``side`` (0 or 1) in a dealt game: the seats a learner of that side plays."""
        return [s for s in range(state.num_players) if self.side_of_seat(state, s) == side]

    @property
    def team_play(self) -> bool:
        """Whether an agent of a side plays every seat of that side (a zero-sum team game: the side shares one
        reward); else (individual rewards) it plays one seat of it (:meth:`seat_for_agent`)."""
        return self.type.utility == "zero_sum_teams"

    def seat_for_agent(self, state, side: int, seed: int) -> int:
        """The one seat an agent of ``side`` (0 or 1) plays in a game with individual rewards, dealt from ``seed``:
        :attr:`learner_seat` where the game declares it, else one of the side's seats drawn from ``seed``.

        Raises:
            ValueError: if the dealt game has no seat of ``side``.
        """
        if self.learner_seat is not None:
            return int(self.learner_seat(state, side, seed))
        seats = self.learner_seats(state, side)
        if not seats:
            raise ValueError(f"{self.type.env_id}: the game dealt from seed {seed} has no seat of side {side}")
        return seats[int(np.random.default_rng([int(seed), 15]).integers(len(seats)))]

    @property
    def sides_in_training_order(self) -> tuple[int, int]:
        """The side indices in the order a training generation trains them (:attr:`training_order`)."""
        return tuple(self.training_order) if self.training_order is not None else (0, 1)

    def check_players(self, num_players: object) -> int:
        """``num_players`` as an int in the game's range; ``ValueError`` naming the value and the range."""
        sizes = self.type.player_counts
        if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)) or num_players not in sizes:
            raise ValueError(f"{self.type.env_id} has no table of {num_players!r} players; "
                             f"expected a table size in {sizes_text(self.type)}")
        return int(num_players)

    def require(self, capability: str):
        """The capability's value; :class:`MissingCapabilityError` in words where the game lacks it."""
        value = getattr(self, capability, None)
        if value is None:
            words = {"records": "game records", "metrics": "hidden-role metrics", "jax": "JAX twin",
                     "terminal_view": "terminal view", "hidden_side": "hidden side (Game.hidden_side)",
                     "progress": "progress measure (Game.progress)"}.get(capability, capability)
            raise MissingCapabilityError(f"{self.type.env_id} has no {words}")
        return value

    @property
    def belief_size(self) -> int:
        """The length of a beliefs vector of this game: one entry per relative seat, padded to ``type.max_players``."""
        return self.type.max_players

    def observation_players(self, observation: np.ndarray) -> int:
        """The table size an observation shows, read from its layout's ``num_players`` block: a one-hot of
        ``min_players`` … ``max_players`` (the block every built-in game declares; a checkpoint agent's ``beliefs``
        read it to put ``NaN`` at the absent seats).

        Raises:
            MissingCapabilityError: where the layout declares no ``num_players`` block.
            ValueError: for an observation whose block holds no 1 (naming the block's values).
        """
        try:
            block = np.asarray(self.layout.piece(np.asarray(observation), "num_players")).reshape(-1)
        except KeyError:
            raise MissingCapabilityError(
                f"{self.type.env_id}'s observation layout has no 'num_players' block (a one-hot of the table size)"
            ) from None
        hot = np.flatnonzero(block > 0.5)
        if hot.size != 1:
            raise ValueError(f"observation's num_players block is {block.tolist()}; expected a one-hot of "
                             f"{self.type.min_players}–{self.type.max_players}")
        return self.type.min_players + int(hot[0])

    def hidden_count(self, num_players: int) -> int:
        """Seats of :attr:`hidden_side` at a table of ``num_players`` (``side_sizes``); ``MissingCapabilityError``
        where the game declares no hidden side."""
        return int(self.side_sizes(num_players)[self.require("hidden_side")])

    @property
    def default_claims(self) -> bool:
        """Whether ``raw_env()`` plays with the claim channel when not told (Traitors Aboard and The Traitors: on;
        Avalon: off, A16): the tools' default, so a tool without ``--claims``/``--no-claims`` plays the game's own
        default game."""
        param = inspect.signature(self.raw_env).parameters.get("claims")
        return bool(param.default) if param is not None and param.default is not inspect.Parameter.empty else False

    def variant_player_counts(self, name: str) -> tuple[int, ...]:
        """The table sizes variant ``name`` is played at (:class:`Variant`); ``ValueError`` naming the variants."""
        try:
            variant = self.variants[name]
        except KeyError:
            raise ValueError(f"{self.type.env_id} has no variant {name!r}; declared: {sorted(self.variants)}") from None
        return tuple(variant.player_counts) if variant.player_counts is not None else self.type.player_counts

    def variant_game(self, name: str) -> Game:
        """Variant ``name`` as a game of its own, ``<game>:<variant>``: ``raw_env``/``env``/``new_initial_state``
        with the variant's options bound (``claims`` defaults to the variant's), its table sizes, and the variant's
        own JAX twin where it declares one (:attr:`Variant.jax`; the game's twin deals the default game).
        ``ValueError`` naming the declared variants."""
        sizes = self.variant_player_counts(name)
        declared = self.variants[name]
        options = dict(declared.kwargs)
        claims_default = self.default_claims if declared.claims is None else bool(declared.claims)
        default_players = self.type.default_players if self.type.default_players in sizes else sizes[0]
        base_raw, base_env = self.raw_env, self.env

        def check(num_players) -> None:
            if isinstance(num_players, bool) or num_players not in sizes:
                raise ValueError(f"{kind.env_id} has no table of {num_players!r} players; "
                                 f"expected a table size in {sizes_text(kind)}")

        def raw_env(num_players: int = default_players, claims: bool = claims_default, **kwargs):
            check(num_players)
            return base_raw(num_players=num_players, claims=claims, **options, **kwargs)

        def env(num_players: int = default_players, claims: bool = claims_default, **kwargs):
            check(num_players)
            return base_env(num_players=num_players, claims=claims, **options, **kwargs)

        def new_initial_state(num_players: int, seed=None, claims: bool = claims_default):
            if isinstance(seed, np.random.Generator):  # the env deals from an int seed
                seed = int(seed.integers(2**63))
            table = raw_env(num_players=num_players, claims=claims)
            table.reset(seed=seed)
            return table.game

        kind = dataclasses.replace(self.type, short_name=f"{self.type.short_name}:{name}",
                                   env_id=f"{self.type.env_id}:{name}", default_players=default_players,
                                   table_sizes=sizes)
        return dataclasses.replace(self, type=kind, raw_env=raw_env, env=env, new_initial_state=new_initial_state,
                                   jax=declared.jax, variants={}, records=self.records if declared.records else None)

    def has(self, capability: str) -> bool:
        return getattr(self, capability, None) is not None


def add_claims_arguments(parser) -> None:
    """``--claims`` / ``--no-claims`` on an ``argparse`` parser (dest ``claims``: ``None`` = the game's default,
    :attr:`Game.default_claims`); read them with :func:`claims_from_args`."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--claims", dest="claims", action="store_true", default=None,
                       help="play with the game's structured claim channel (default: the game's own default)")
    group.add_argument("--no-claims", dest="claims", action="store_false",
                       help="play without the claim channel (default: the game's own default)")


def claims_from_args(args, game: Game) -> bool:
    """The claims option of :func:`add_claims_arguments`'s flags: the flag given, else ``game.default_claims``."""
    return game.default_claims if getattr(args, "claims", None) is None else bool(args.claims)


def sizes_text(kind) -> str:
    """A :class:`GameType`'s table sizes in words: ``3–8``, ``3`` (a variant's) or ``5, 7``; the one wording of
    :meth:`Game.check_players` and the tools' errors."""
    sizes = kind.player_counts
    if len(sizes) > 1 and sizes == tuple(range(sizes[0], sizes[-1] + 1)):
        return f"{sizes[0]}–{sizes[-1]}"
    return ", ".join(map(str, sizes))
