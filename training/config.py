"""Run configuration: a YAML file validated into a typed :class:`RunConfig`.

Every section forbids unknown keys and checks types strictly (an ``int`` field refuses
``"5"`` and ``true``), so a typo or a wrong type is an error that names the key and, for an
unknown key, the closest valid one, e.g. ``configs/x.yaml: ppo.learning_rat: unknown key (did you
mean 'learning_rate'?)``. Write floats in YAML with a dot (``3.0e-4``, not ``3e-4``, which YAML 1.1
reads as a string; the error says so).

Every game-dependent check reads the game registry (:func:`traitors_env.core.load_game` of ``env.name``): the
table sizes the game allows, its sides' keys for per-side settings (``evaluation.deterministic``), and the backends
it can train with (:func:`backend_problem`).

See ``configs/quick.yaml`` for every key with a comment.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from traitors_env.core import Game, load_game
from traitors_env.core.game import sizes_text
from traitors_env.core.registry import DEFAULT_GAME, UnknownGameError, registered_env_ids
from traitors_env.solve import is_small_variant

from .config_files import UnknownConfigError, resolve_config
from .config_regularizer import RegularizerSection, check_regularizer_backend
from .table_sizes import table_size_probabilities

OPPONENT_KINDS = ("latest", "past", "heuristic", "random")
#: The side the per-side keys ``training.mutineers_steps`` and ``env.mutineers_player_count_weights`` set: the keys
#: are named after it, so they are valid for a game that has a side of this key (:meth:`RunConfig._check_backend`
#: refuses them for another game, naming its sides).
KEYED_SIDE = "mutineers"


class ConfigError(ValueError):
    """A run configuration that cannot be read or validated; the message names the file and key."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def env_names() -> tuple[str, ...]:
    """The environments the training command accepts (``env.name``): every registered game's environment id."""
    return tuple(registered_env_ids())


def game_of(env_name: str) -> Game:
    """The registered :class:`~traitors_env.core.Game` of an environment id (or short name).

    Raises:
        ValueError: naming ``env_name`` and the registered environments.
    """
    try:
        return load_game(env_name)
    except UnknownGameError as error:
        if isinstance(env_name, str) and ":" in env_name:  # a game's variant: its own error names the declared ones
            raise ValueError(f"env.name: {error}") from None
        raise ValueError(
            f"env.name {env_name!r} is not a registered game; expected one of {', '.join(env_names())}"
        ) from None


def _default_env_name() -> str:
    return load_game(DEFAULT_GAME).type.env_id


def backend_problem(game: Game, backend: str) -> str | None:
    """Why ``game`` cannot train with ``backend`` (``"sb3"``, ``"jax"``, ``"rllib"``), in words; ``None`` if it can.

    - ``sb3``: every game (its game master seats a learner at every seat of its side in a zero-sum team game, at
      one seat in a game with individual rewards);
    - ``jax``: a game with a JAX twin (``game.jax``) or a small variant's exact tree, whose sides share one reward;
    - ``rllib``: a game whose sides share one reward (one module per side plays every seat of it).
    """
    env = game.type.env_id
    if backend in ("jax", "rllib") and not game.team_play:
        return (f"backend: {backend} trains zero-sum team games only (one policy plays every seat of its side); {env} "
                f"has individual rewards ({game.type.utility}), train it with backend: sb3")
    if backend == "jax" and game.jax is None and not is_small_variant(game.name):  # tree: jax_backend.tree_engine
        return (f"backend: jax needs the game's JAX twin; {env} has no JAX twin, train it with backend: sb3 (or "
                "a small variant it declares, e.g. avalon:mini5, which runs on its exact tree)")
    return None


def _each_once(counts: list, name: str, hint: str = "", what: str = "table size") -> None:
    """Raise ``ValueError`` naming the entries (table sizes, or ``what``) ``counts`` holds more than once (a repeated
    size would silently weigh its games double, or evaluate them twice)."""
    twice = sorted({n for n in counts if counts.count(n) > 1}, key=str)
    if twice:
        raise ValueError(f"{name} holds {', '.join(map(str, twice))} more than once; give each {what} once{hint}")


class EnvSection(_Section):
    """The games played during training."""

    #: the environment: the id of a registered game (``traitors_env.core.registered_games()``; its short name
    #: works too and is stored as the id)
    name: str = Field(default_factory=_default_env_name)
    #: table sizes drawn for each training game (one policy plays all of them); default: every size the game has
    player_counts: list[int] = Field(default_factory=list)
    #: relative weights of ``player_counts``; ``None`` = uniform
    player_count_weights: list[float] | None = None
    #: the Mutineers' own weights, if not ``player_count_weights`` (the backends that train the teams in turn: sb3,
    #: jax). Why: the Mutineers can lag the heuristic at one table size long after they pass it at the others
    mutineers_player_count_weights: list[float] | None = None
    #: the claim step after each turn (R14); default: the game's own (:attr:`Game.default_claims`: on for Traitors
    #: Aboard and The Traitors, off for Avalon and a small variant)
    claims: bool = True

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        return game_of(name).type.env_id

    @model_validator(mode="before")
    @classmethod
    def _every_size_by_default(cls, data: Any) -> Any:
        """No ``player_counts``: every table size of the game; no ``claims``: the game's own default."""
        if isinstance(data, dict) and ("player_counts" not in data or "claims" not in data):
            name = data.get("name", _default_env_name())
            if isinstance(name, str):
                try:
                    game = game_of(name)
                except ValueError:  # the name's own check says what is wrong with it
                    return data
                defaults = {"player_counts": list(game.type.player_counts), "claims": game.default_claims}
                data = {**defaults, **data}
        return data

    @model_validator(mode="after")
    def _check(self) -> EnvSection:
        if not self.player_counts:
            raise ValueError("player_counts is empty; give at least one table size")
        kind = game_of(self.name).type
        bad = [n for n in self.player_counts if n not in kind.player_counts]
        if bad:
            held = ", ".join(map(str, bad))
            raise ValueError(f"player_counts holds {held}; {self.name} has table sizes {sizes_text(kind)}")
        _each_once(self.player_counts, "player_counts", " (player_count_weights sets how often each is drawn)")
        for name in ("player_count_weights", "mutineers_player_count_weights"):
            table_size_probabilities(getattr(self, name), self.player_counts, name)
        return self

    def count_weights_for(self, team: str) -> list[float]:
        """The table-size weights of the training games of side ``team`` (its key, e.g. ``"pirates"``), one per
        ``player_counts``: always a list (uniform spelled out), so that a caller that reconfigures an environment
        from one side to the other never reads ``None`` as "keep the other side's weights"."""
        if team == KEYED_SIDE and self.mutineers_player_count_weights is not None:
            return list(self.mutineers_player_count_weights)
        if self.player_count_weights is not None:
            return list(self.player_count_weights)
        return [1.0] * len(self.player_counts)


class OpponentsSection(_Section):
    """Relative weights of the opponent pool, drawn once per training game for all opponent seats.

    ``latest``: the other team's newest snapshot; ``past``: one of its older snapshots,
    uniformly; ``heuristic``/``random``: the bots of :mod:`traitors_env.agents`. While a kind
    has no snapshot yet (generation 0) its weight is shared out over the available kinds.
    """

    # finite: an infinite weight passed ge=0 and the run failed in numpy (probabilities contain NaN) after making
    # its folder; likewise the PPO coefficients below
    latest: float = Field(default=0.4, ge=0, allow_inf_nan=False)
    past: float = Field(default=0.2, ge=0, allow_inf_nan=False)
    heuristic: float = Field(default=0.3, ge=0, allow_inf_nan=False)
    random: float = Field(default=0.1, ge=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _check(self) -> OpponentsSection:
        if self.heuristic + self.random <= 0:
            raise ValueError("heuristic + random must be > 0: generation 0 has no snapshots to play against")
        return self

    def weights(self) -> dict[str, float]:
        return {kind: getattr(self, kind) for kind in OPPONENT_KINDS}


class TrainingSection(_Section):
    """The generation loop and the vectorized environments."""

    #: generations; each trains Pirates, then Mutineers, then snapshots both
    generations: int = Field(default=4, ge=1)
    #: learner decisions (environment steps) per team per generation
    steps_per_team: int = Field(default=50_000, ge=1)
    #: the Mutineers' learner decisions per generation, if not ``steps_per_team`` (they are the harder team to
    #: train: fewer seats, so fewer decisions per game)
    mutineers_steps: int | None = Field(default=None, ge=1)
    #: learner decisions per generation of the sides named here, by the game's side keys (``{evil: 196608}``;
    #: ``GameType.sides``), instead of ``steps_per_team`` (and of ``mutineers_steps``); a side left out trains
    #: ``steps_per_team``. The per-side budget of any game: ``mutineers_steps`` names one game's side
    steps_per_side: dict[str, Annotated[int, Field(ge=1)]] | None = None
    #: parallel environments
    n_envs: int = Field(default=4, ge=1)
    #: "dummy" (one process) or "subproc" (one process per environment)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    #: torch threads of the learner process
    torch_threads: int = Field(default=1, ge=1)
    #: show a progress bar
    progress_bar: bool = True

    def steps_for(self, team: str) -> int:
        """Learner decisions per generation of side ``team`` (its key, e.g. ``"pirates"``)."""
        if self.steps_per_side and team in self.steps_per_side:
            return self.steps_per_side[team]
        return self.mutineers_steps or self.steps_per_team if team == KEYED_SIDE else self.steps_per_team


class PPOSection(_Section):
    """Hyperparameters of sb3-contrib ``MaskablePPO`` (same meaning as there)."""

    learning_rate: float = Field(default=3.0e-4, gt=0, allow_inf_nan=False)
    n_steps: int = Field(default=512, ge=2)
    batch_size: int = Field(default=256, ge=2)
    n_epochs: int = Field(default=4, ge=1)
    gamma: float = Field(default=0.99, gt=0, le=1)
    gae_lambda: float = Field(default=0.95, ge=0, le=1)
    clip_range: float = Field(default=0.2, gt=0, allow_inf_nan=False)
    ent_coef: float = Field(default=0.01, ge=0, allow_inf_nan=False)
    vf_coef: float = Field(default=0.5, ge=0, allow_inf_nan=False)
    max_grad_norm: float = Field(default=0.5, gt=0)
    #: hidden layer sizes of the policy and value networks (separate networks, same sizes)
    net_arch: list[Annotated[int, Field(ge=1)]] = Field(default_factory=lambda: [128, 128], min_length=1)
    activation: Literal["tanh", "relu"] = "tanh"
    #: weight of the belief head's auxiliary loss (backend jax, a game with ``Game.hidden_side``; issue 27): the
    #: actor gets a head that predicts P(hidden side) per relative seat, trained on the game master's true roles
    #: (never shown to the policy); 0 (default): no head, the network and its training exactly as without it
    belief_coef: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    #: hidden layer sizes of the belief head's own layers, between the actor's last hidden layer and the head's
    #: output; ``[]`` (default): one linear layer on the actor's features. Needs ``belief_coef > 0``.
    belief_net_arch: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list)
    #: equilibrium-seeking regularisation (backend jax; :class:`RegularizerSection`); default: none, plain PPO
    regularizer: RegularizerSection = Field(default_factory=RegularizerSection)


class EvaluationSection(_Section):
    """The final evaluation and the per-generation check against the heuristic."""

    #: seeded games per (Pirates policy, Mutineers policy, player count) cell
    games: int = Field(default=200, ge=1)
    #: table sizes evaluated; ``None`` = the training player counts
    player_counts: Annotated[list[int], Field(min_length=1)] | None = None  # [] is a mistake, not null
    #: games per team per generation against the heuristic (for the plot); 0 = skip
    games_per_generation: int = Field(default=100, ge=0)
    #: trained policies pick the most probable legal action instead of sampling: one switch for every team, or one
    #: per side, by the game's side keys (``{pirates: true, mutineers: false}``; ``GameType.sides``); a side left
    #: out samples. Read it through :meth:`RunConfig.deterministic`
    deterministic: bool | dict[str, bool] = False
    #: worker processes for the final evaluation (1 = in this process)
    workers: int = Field(default=2, ge=1)
    #: cells of the final evaluation: ``all`` = every (Pirates policy, Mutineers policy) pair of trained,
    #: heuristic and random; ``vs_heuristic`` = only the five that decide the learning checks (each team's three
    #: policies against the other team's heuristic), 5/9 of the games
    cells: Literal["all", "vs_heuristic"] = "all"

    @model_validator(mode="after")
    def _check(self) -> EvaluationSection:
        # the table sizes' range is the game's: RunConfig checks it
        _each_once(self.player_counts or [], "evaluation.player_counts")
        return self


class WarmStartSection(_Section):
    """Behaviour cloning of one of the game's bots into a side's new policy before generation 1 (SB3 backend;
    default off). The bot plays the side's seats against generation 1's opponent pool for ``steps`` decisions per
    side named in ``sides``; the policy is fitted to its actions (masked log-likelihood) and the value network to
    the discounted returns of those games, for ``epochs`` passes, before PPO starts (see :mod:`training.clone`)."""

    #: decisions of the bot to collect, per side key (``{evil: 65536}``); empty = off
    sides: dict[str, Annotated[int, Field(ge=1)]] = Field(default_factory=dict)
    #: the bot cloned, a bot name of the game
    bot: str = "heuristic"
    epochs: int = Field(default=8, ge=1)
    batch_size: int = Field(default=256, ge=2)
    learning_rate: float = Field(default=1.0e-3, gt=0, allow_inf_nan=False)


class HindsightSection(_Section):
    """Hindsight fitting (SB3 backend; default off; :mod:`training.clone`): after a side's training in each
    generation, its policy is fitted (masked cross-entropy, an Adam optimizer of its own, the value network left
    alone) to the action that was right in hindsight (``Game.hindsight_action``: Avalon's assassination names
    Merlin, A14) at every decision of that generation's rollouts that has one. The label is read from the hidden
    roles by the game master and used in this loss only, never in an observation; it teaches a one-shot guess (the
    posterior over the hidden roles) that PPO's end-of-game reward teaches slowly. 10 % of the decisions are held
    out and their accuracy, before and after the fit, is kept in ``state.json``."""

    #: side keys whose policy is fitted (``[evil]``); empty = off
    sides: list[str] = Field(default_factory=list)
    #: the fit matches softmax(logits / sharpen) to the answers, so the policy plays the fitted posterior raised to
    #: this power: 1 plays the posterior itself; larger plays closer to its most likely answer when it samples (a
    #: one-shot guess is best made at the mode)
    sharpen: float = Field(default=1.0, ge=1.0, allow_inf_nan=False)
    epochs: int = Field(default=8, ge=1)
    batch_size: int = Field(default=256, ge=2)
    learning_rate: float = Field(default=1.0e-3, gt=0, allow_inf_nan=False)


class RLlibSection(_Section):
    """The Ray RLlib backend (``backend: rllib``, see ``training/rllib/``); PPO's other settings come from ``ppo``
    (``batch_size`` = minibatch, ``n_epochs`` = epochs per iteration) and one generation is one RLlib iteration.
    Unused with this backend: ``training.steps_per_team``/``n_envs``/``vec_env``, ``ppo.n_steps`` and
    ``evaluation.games_per_generation`` (training win rates are logged per iteration instead)."""

    #: Ray cluster to join (``ray.init(address=...)``); ``None`` = ``$RAY_ADDRESS`` if set, else a local Ray
    address: str | None = None
    #: sampling workers (Ray actors), each with ``num_envs_per_env_runner`` games
    num_env_runners: int = Field(default=2, ge=0)
    num_envs_per_env_runner: int = Field(default=4, ge=1)
    #: game decisions (all seats) sampled per iteration
    train_batch_size: int = Field(default=4000, ge=1)
    #: a local Ray only: CPUs it may use (``None`` = all) and its object store size
    num_cpus: int | None = Field(default=None, ge=1)
    object_store_memory_mb: int = Field(default=256, ge=80)
    #: full algorithm checkpoints kept: the newest N iterations (``--resume`` needs the newest); older iterations
    #: keep only their team modules (``opponents.past``, ``traitors-eval --generation`` and agents by spec need no
    #: more). ``None`` = keep every full checkpoint
    keep_checkpoints: int | None = Field(default=3, ge=1)


class LeagueSection(_Section):
    """Population training (``backend: jax`` only; :mod:`training.jax_backend.league`, docs/backends/jax.md).

    Each iteration adds to each side one policy trained (``training.steps_per_team`` / the side's steps) against
    the meta-game Nash mixture of the other side's population, plus ``latest`` of its games against the other
    side's newest policy; the population starts with the ``fixed`` members, which stay in it. After each
    iteration the new members' cross-play is played in JAX and the meta-game solved again (``league.json``).
    The run has ``iterations`` generations (``checkpoints/gen_00k/`` holds iteration k's policies).
    """

    #: iterations (= the run's generations; ``training.generations`` must be left out or equal)
    iterations: int = Field(ge=1)
    #: the fixed members of both populations: ``random``, ``heuristic`` (each plays both sides) and the scripted
    #: probes of the game's JAX twin by name (Traitors Aboard: ``plank``, the Pirates of examples/plank_pirate.py;
    #: a probe joins its own side's population only)
    fixed: list[str] = Field(default_factory=lambda: ["random", "heuristic"], min_length=1)
    #: share of each training game drawn against the other side's newest policy (the rest: its Nash mixture)
    latest: float = Field(default=0.1, ge=0, lt=1, allow_inf_nan=False)
    #: games per cell of the population's cross-play matrix (spread evenly over the table sizes)
    games: int = Field(default=200, ge=1)
    #: table sizes of the cross-play games; ``None`` = ``env.player_counts``
    player_counts: Annotated[list[int], Field(min_length=1)] | None = None  # [] is a mistake, not null
    #: policies pick their most probable legal action in the cross-play games instead of sampling
    deterministic: bool = False
    #: each iteration's policy starts from the side's previous one (parameters and optimizer state); ``false``: from
    #: fresh parameters
    warm_start: bool = True
    #: shares of each side's training games kept for fixed members of the other side whatever their Nash weight
    #: (name → share, e.g. ``{plank: 0.2, heuristic: 0.1}``): the Nash mixture drops a member the newest policies
    #: beat, and a policy that never meets it again can forget how (a member a side lacks, such as the Pirates-only
    #: ``plank`` for the Pirates' training, reserves nothing there); ``{}``: the Nash mixture alone. A key naming a
    #: side of the game holds that side's training's own shares, which replace the flat ones for that side (e.g.
    #: ``{heuristic: 0.15, mutineers: {plank: 0.2, heuristic: 0.3}}``): :meth:`shares_for`
    fixed_share: dict[str, Annotated[float, Field(allow_inf_nan=False)] | dict[str, float]] = Field(
        default_factory=dict)
    #: exploiters (AlphaStar's main exploiters): side → learner decisions of a policy trained each iteration from
    #: fresh parameters against the other side's newest policy alone, then added to its side's population
    #: (``exploiter_k``), so the next iteration's policies meet whatever beats the newest ones as the Nash mixture
    #: weighs it; ``{}``: none
    exploiters: dict[str, Annotated[int, Field(ge=1)]] = Field(default_factory=dict)
    #: whether the last iteration trains exploiters too. Its exploiters enter the final meta-game (and so the Nash
    #: mixture that ``league.json`` plays) without any policy of the league having trained against them; ``false``
    #: leaves them out, so every exploiter in the final population was offered to the newest policies' training.
    #: The newest policies are the same either way (the exploiters train after them, on their own seeds)
    final_exploiters: bool = True
    #: the meta-game each side's training mixture comes from: ``pooled``, one Nash mixture over the cross-play win
    #: rates pooled over the table sizes; ``per_size``, one per table size, each game's opponent drawn from the
    #: mixture of the size it is dealt (the size is public and drawn by nature, so the game is one subgame per
    #: size and a member's strategy at one size does not constrain it at another; a pooled mixture lets the sizes a
    #: member wins at hide those it loses at). ``per_size`` needs a cross-play table at every training size:
    #: ``league.player_counts`` covering ``env.player_counts`` and ``league.games`` at least one per size
    meta_game: Literal["pooled", "per_size"] = "pooled"
    #: the sides in the order each iteration trains their policies, each side once (e.g. ``[mutineers, pirates]``);
    #: ``None``: the game's training order. The side trained second meets the first side's policy of the same
    #: iteration as its newest opponent (``latest``), the side trained first that of the iteration before: only the
    #: second has met the other side's final policy when the run ends
    order: list[str] | None = None

    @model_validator(mode="after")
    def _check(self) -> LeagueSection:
        _each_once(self.fixed, "league.fixed", what="member")
        _each_once(self.player_counts or [], "league.player_counts")
        flat = {name: share for name, share in self.fixed_share.items() if not isinstance(share, dict)}
        groups = [("league.fixed_share", flat)] + [
            (f"league.fixed_share.{side}", shares) for side, shares in self.fixed_share.items()
            if isinstance(shares, dict)]
        for key, shares in groups:
            unknown = sorted(set(shares) - set(self.fixed))
            if unknown:
                raise ValueError(f"{key} names {', '.join(unknown)}, not in league.fixed ({', '.join(self.fixed)}): "
                                 f"a share is kept for a fixed member only (a key naming a side holds that side's "
                                 f"shares)")
            bad = {name: share for name, share in shares.items() if not 0 < share < 1}
            if bad:
                raise ValueError(f"{key} has {bad}; each share must be in (0, 1)")
            total = self.latest + sum(shares.values())
            if total >= 1:
                raise ValueError(f"league.latest + the {key} values = {total:g}; they must leave a share "
                                 f"(below 1) for the Nash mixture")
        return self

    def shares_for(self, side: str) -> dict[str, float]:
        """The fixed members' kept shares of ``side``'s training games (``fixed_share``): the side's own entry if
        it has one, else the flat entries."""
        own = self.fixed_share.get(side)
        if isinstance(own, dict):
            return dict(own)
        return {name: share for name, share in self.fixed_share.items() if not isinstance(share, dict)}


class RunConfig(_Section):
    """One training run: ``name`` names the folder ``<output_dir>/<name>/``."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    #: non-negative: numpy's SeedSequence refuses a negative seed, which once failed after the run folder was made
    seed: int = Field(default=0, ge=0)
    #: "sb3" (sb3-contrib MaskablePPO, alternating generations), "rllib" (Ray RLlib PPO, ``rllib`` section) or
    #: "jax" (training/jax_backend: the JAX engine and PPO in one jitted loop; needs the jax extra; there
    #: training.n_envs is the batch of games and ppo.n_steps the game decisions per game per rollout)
    backend: Literal["sb3", "rllib", "jax"] = "sb3"
    output_dir: str = "runs"
    env: EnvSection = Field(default_factory=EnvSection)
    opponents: OpponentsSection = Field(default_factory=OpponentsSection)
    training: TrainingSection = Field(default_factory=TrainingSection)
    ppo: PPOSection = Field(default_factory=PPOSection)
    evaluation: EvaluationSection = Field(default_factory=EvaluationSection)
    rllib: RLlibSection = Field(default_factory=RLlibSection)
    #: population training (``backend: jax`` only); ``None``: the plain generation loop
    league: LeagueSection | None = None
    warm_start: WarmStartSection = Field(default_factory=WarmStartSection)
    hindsight: HindsightSection = Field(default_factory=HindsightSection)

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        # "." and ".." name the output folder itself or its parent: --force would delete that whole folder.
        if set(name) == {"."}:
            raise ValueError(f"name {name!r} is no folder of its own under output_dir; expected a name such as 'quick'")
        return name

    @model_validator(mode="after")
    def _check_backend(self) -> RunConfig:
        """Every key that names a side, a table size, a bot or a feature fits the game and the backend (a
        ``ValueError`` naming the key, the first one found in the order below)."""
        game = self.game
        sides = game.type.sides
        problem = backend_problem(game, self.backend)
        if problem:
            raise ValueError(problem)
        self._check_sides_and_sizes()
        self._check_warm_start_and_hindsight()
        per_team = self.evaluation.deterministic
        if isinstance(per_team, dict) and not set(per_team) <= set(sides):
            unknown = sorted(set(per_team) - set(sides))
            raise ValueError(
                f"evaluation.deterministic names {unknown}, not a team of {self.env.name}; expected keys among "
                f"{list(sides)} (or one true/false for all)"
            )
        if self.ppo.belief_coef > 0 and (self.backend != "jax" or game.hidden_side is None):
            raise ValueError(
                f"ppo.belief_coef={self.ppo.belief_coef} trains a belief head, which needs backend: jax (this config: "
                f"{self.backend!r}) and a game with a hidden side ({self.env.name}: Game.hidden_side="
                f"{game.hidden_side!r}); expected ppo.belief_coef: 0"
            )
        if self.ppo.belief_net_arch and self.ppo.belief_coef == 0:
            raise ValueError(
                f"ppo.belief_net_arch={self.ppo.belief_net_arch} shapes a belief head, which this config does not train "
                "(ppo.belief_coef: 0); expected ppo.belief_net_arch: [] or, with backend: jax and a game with a "
                "hidden side, ppo.belief_coef > 0"
            )
        check_regularizer_backend(self.ppo.regularizer, self.backend)
        if self.backend == "jax" and game.jax is None and is_small_variant(game.name):  # the tree engine's game
            declared = load_game(game.name.partition(":")[0]).variants[game.name.partition(":")[2]].claims
            if declared is not None and self.env.claims != declared:
                raise ValueError(f"env.claims={self.env.claims} but {self.env.name} is played on its exact tree, whose "
                                 f"claims are {'on' if declared else 'off'}; expected env.claims: {str(declared).lower()}")
        if self.league is not None:
            self._check_league()
        if self.backend == "rllib" and self.ppo.batch_size > self.rllib.train_batch_size:
            raise ValueError(
                f"ppo.batch_size={self.ppo.batch_size} (the minibatch) is larger than rllib.train_batch_size="
                f"{self.rllib.train_batch_size}; expected ppo.batch_size <= rllib.train_batch_size"
            )
        return self

    def _check_sides_and_sizes(self) -> None:
        """The keys that name the Mutineers, the evaluation's table sizes and ``training.steps_per_side``."""
        game = self.game
        sides = game.type.sides
        for key, value in (("env.mutineers_player_count_weights", self.env.mutineers_player_count_weights),
                           ("training.mutineers_steps", self.training.mutineers_steps)):
            if value is not None and KEYED_SIDE not in sides:
                raise ValueError(
                    f"{key} sets the side {KEYED_SIDE!r}, which {self.env.name} does not have (its sides: "
                    f"{', '.join(sides)}); leave it out"
                )
        if self.env.mutineers_player_count_weights is not None and self.backend == "rllib":
            raise ValueError(
                "env.mutineers_player_count_weights is for backend sb3 or jax, which train the sides in turn; this "
                f"config has backend {self.backend!r} and env {self.env.name!r}"
            )
        self._check_table_sizes("evaluation.player_counts", self.evaluation.player_counts)
        unknown_sides = sorted(set(self.training.steps_per_side or ()) - set(sides))
        if unknown_sides:
            raise ValueError(
                f"training.steps_per_side names {unknown_sides}, not a side of {self.env.name}; expected keys among "
                f"{list(sides)}"
            )

    def _check_warm_start_and_hindsight(self) -> None:
        """``warm_start`` and ``hindsight``: sides of the game, backend sb3, a bot or a hindsight action it has."""
        game = self.game
        sides = game.type.sides
        unknown_sides = sorted(set(self.warm_start.sides) - set(sides))
        if unknown_sides:
            raise ValueError(
                f"warm_start.sides names {unknown_sides}, not a side of {self.env.name}; expected keys among "
                f"{list(sides)}"
            )
        if self.warm_start.sides and self.backend != "sb3":
            raise ValueError(f"warm_start is for backend sb3; this config has backend {self.backend!r}")
        if self.warm_start.sides and self.warm_start.bot not in game.bot_names:
            raise ValueError(
                f"warm_start.bot={self.warm_start.bot!r} is not a bot of {self.env.name}; expected one of "
                f"{', '.join(game.bot_names)}"
            )
        hindsight = self.hindsight.sides
        if hindsight:
            if len(set(hindsight)) < len(hindsight):
                raise ValueError(f"hindsight.sides={hindsight} names a side more than once; give each side once")
            if not set(hindsight) <= set(sides):
                raise ValueError(
                    f"hindsight.sides names {sorted(set(hindsight) - set(sides))}, not a side of {self.env.name}; "
                    f"expected some of {list(sides)}"
                )
            if self.backend != "sb3":
                raise ValueError(f"hindsight is for backend sb3; this config has backend {self.backend!r}")
            if game.hindsight_action is None:
                raise ValueError(
                    f"hindsight.sides={hindsight} needs a game that declares Game.hindsight_action; {self.env.name} "
                    "declares none; expected hindsight.sides: []"
                )

    def _check_table_sizes(self, key: str, counts) -> None:
        """A ``ValueError`` naming ``key`` for a table size in ``counts`` (``None``: none given) the game does not have."""
        kind = self.game.type
        bad = [n for n in counts or () if n not in kind.player_counts]
        if bad:
            raise ValueError(f"{key} holds {', '.join(map(str, bad))}; {self.env.name} has table sizes {sizes_text(kind)}")

    def _check_league(self) -> None:
        """The ``league:`` section: backend jax, one generation per iteration, sides and table sizes of the game."""
        sides = self.game.type.sides
        if self.backend != "jax":
            raise ValueError(
                f"league: trains with backend: jax only (its cross-play and meta-game run in the JAX twin); "
                f"this config has backend {self.backend!r}: set backend: jax or remove the league section"
            )
        if self.training.generations != self.league.iterations:
            raise ValueError(
                f"training.generations={self.training.generations} differs from league.iterations="
                f"{self.league.iterations}; with a league the run has one generation per iteration: leave "
                "training.generations out"
            )
        nested = sorted(k for k, v in self.league.fixed_share.items() if isinstance(v, dict) and k not in sides)
        if nested:
            raise ValueError(
                f"league.fixed_share holds shares under {nested}, not a side of {self.env.name}; a nested entry "
                f"is keyed by the side whose training keeps them, among {list(sides)}"
            )
        if self.league.order is not None and sorted(self.league.order) != sorted(sides):
            raise ValueError(
                f"league.order is {self.league.order}; expected each side of {self.env.name} once, in the order "
                f"the iterations train them, e.g. {list(reversed(sides))}"
            )
        unknown = sorted(set(self.league.exploiters) - set(sides))
        if unknown:
            raise ValueError(
                f"league.exploiters names {unknown}, not a side of {self.env.name}; expected keys among "
                f"{list(sides)}"
            )
        self._check_table_sizes("league.player_counts", self.league.player_counts)
        if self.league.meta_game == "per_size":
            cross = self.league.player_counts or self.env.player_counts
            missing = sorted(set(self.env.player_counts) - set(cross))
            if missing:
                raise ValueError(
                    f"league.meta_game: per_size solves a meta-game at every training table size, but "
                    f"league.player_counts={cross} lacks {missing} of env.player_counts={self.env.player_counts}; "
                    "leave league.player_counts out or make it cover them"
                )
            if self.league.games < len(cross):
                raise ValueError(
                    f"league.games={self.league.games} is fewer than the {len(cross)} table sizes of the "
                    f"cross-play; league.meta_game: per_size needs at least one game per size and cell"
                )

    @model_validator(mode="before")
    @classmethod
    def _generations_of_league(cls, data: Any) -> Any:
        """A league's ``iterations`` are the run's generations: ``training.generations`` left out takes them."""
        if isinstance(data, dict) and isinstance(data.get("league"), dict):
            iterations = data["league"].get("iterations")
            training = data.get("training", {})
            if isinstance(iterations, int) and isinstance(training, dict) and "generations" not in training:
                data = {**data, "training": {**training, "generations": iterations}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _env_by_name(cls, data: Any) -> Any:
        """``env: <environment id>`` (a plain name) means that environment at every table size it has."""
        if isinstance(data, dict) and isinstance(data.get("env"), str):
            data = {**data, "env": {"name": data["env"]}}
        return data

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) / self.name

    @property
    def game(self) -> Game:
        """The game of ``env.name`` (:func:`traitors_env.core.load_game`)."""
        return load_game(self.env.name)

    @property
    def teams(self) -> tuple[str, ...]:
        """The game's side keys in training order (:attr:`~traitors_env.core.Game.sides_in_training_order`), as the
        run's checkpoints name them (``("pirates", "mutineers")``)."""
        game = self.game
        return tuple(game.type.sides[side] for side in game.sides_in_training_order)

    def deterministic(self, team: str) -> bool:
        """Whether ``team``'s trained policy plays greedily in evaluation (``evaluation.deterministic``)."""
        switch = self.evaluation.deterministic
        return switch.get(team, False) if isinstance(switch, dict) else switch

    @property
    def eval_player_counts(self) -> list[int]:
        return list(self.evaluation.player_counts or self.env.player_counts)


#: A number in exponent notation without a dot or without the exponent's sign (``3e-4``, ``1.0e5``): a float in
#: YAML 1.2 and Python, a string in YAML 1.1 (PyYAML).
_EXPONENT_WITHOUT_DOT = re.compile(r"([-+]?[0-9]+)(?:\.([0-9]*))?[eE]([-+]?)([0-9]+)")


def _unknown_key_hint(loc: tuple) -> str:
    """`` (did you mean 'learning_rate'?)`` for an unknown key at ``loc``, from the keys valid there."""
    model: Any = RunConfig
    for part in loc[:-1]:  # down to the section holding the unknown key
        annotation = model.model_fields[part].annotation if part in getattr(model, "model_fields", {}) else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (valid keys: {', '.join(model.model_fields)})"


def _float_text_hint(value: Any) -> str:
    """``; YAML reads 3e-4 as text: write 3.0e-4`` for a float written the way YAML 1.1 does not read as one."""
    match = _EXPONENT_WITHOUT_DOT.fullmatch(value.strip()) if isinstance(value, str) else None
    if not match:
        return ""
    whole, fraction, sign, exponent = match.groups()
    written = f"{whole}.{fraction or '0'}e{sign or '+'}{exponent}"  # YAML 1.1 wants the dot and the exponent's sign
    return f"; YAML reads {value} as text: write {written}"


def _format_errors(source: str, error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        key = ".".join(str(part) for part in item["loc"]) or "<top level>"
        if item["type"] == "extra_forbidden":
            lines.append(f"{source}: {key}: unknown key{_unknown_key_hint(item['loc'])}")
        else:
            lines.append(f"{source}: {key}: {item['msg']} (got {item['input']!r}{_float_text_hint(item['input'])})")
    return "invalid run configuration:\n  " + "\n  ".join(lines)


def config_from_dict(data: Any, source: str = "<config>") -> RunConfig:
    """Validate a mapping (as read from YAML) into a :class:`RunConfig`.

    Raises:
        ConfigError: naming ``source`` and every bad key (unknown key, wrong type, bad value).
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys at the top level, got {type(data).__name__}")
    try:
        return RunConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_format_errors(source, error)) from None


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML run configuration: a path, or the name of a shipped config (``quick``, ``tiny``).

    A file may start from another with ``extends: PATH`` (relative to its own folder) and state only the keys it
    changes (:func:`extend`); chains are followed.

    Raises:
        ConfigError: if the file is missing or a directory, is not YAML, or does not validate (the message
            names the file and the bad key).
    """
    try:
        path = resolve_config(path)  # a shipped config's name (training/config_files.py), else the path as given
    except UnknownConfigError as error:
        raise ConfigError(str(error)) from None
    if path.is_dir():
        if (path / "config.yaml").is_file():
            hint = f"; for the config of the run in it, pass {str(path / 'config.yaml')!r}"
        else:
            yamls = sorted(p.name for p in path.glob("*.y*ml"))
            hint = f"; YAML files in it: {', '.join(yamls)}" if yamls else " (try configs/quick.yaml)"
        raise ConfigError(f"config path {str(path)!r} is a directory, not a YAML file{hint}")
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist (try configs/quick.yaml)")
    return config_from_dict(_read_extended(path, ()), str(path))


def _read_extended(path: Path, chain: tuple[Path, ...]) -> Any:
    """A config file's mapping with its ``extends:`` chain applied (:func:`extend`); ``chain``: the files that
    extend this one, to name a cycle."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {error}") from None
    if not isinstance(data, dict) or "extends" not in data:
        return data
    data = dict(data)
    parent = data.pop("extends")
    if not isinstance(parent, str) or not parent.strip():
        raise ConfigError(f"{path}: extends: {parent!r}: expected the path of a config file, relative to "
                          f"{str(path.parent)!r} (e.g. ../jax_league.yaml)")
    base = path.parent / parent
    if not base.is_file():
        raise ConfigError(f"{path}: extends: {parent!r}: no config file at {str(base)!r}")
    here = path.resolve()
    if base.resolve() in (*chain, here):
        cycle = " -> ".join(str(p) for p in (*chain, here, base.resolve()))
        raise ConfigError(f"{path}: extends: {parent!r} makes a cycle ({cycle})")
    return extend(_read_extended(base, (*chain, here)), data, f"{path}: extends: {parent!r}: {base}")


def extend(base: Any, changes: dict, source: str = "<base>") -> dict:
    """``changes`` over ``base`` (two config mappings, as read from YAML): a top-level key of ``changes`` replaces
    ``base``'s, except that a section (``env``, ``league``, ``ppo`` …: a mapping in both) is merged key by key, each
    key of the section replacing ``base``'s value whole (a list, or a mapping such as ``league.fixed_share``, is not
    merged further). This is what ``extends: PATH`` in a config file does, so a config states only what it changes.

    Raises:
        ConfigError: ``base`` is not a mapping (naming ``source``).
    """
    if not isinstance(base, dict):
        raise ConfigError(f"{source}: expected a mapping of keys at the top level, got {type(base).__name__}")
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def dump_config(config: RunConfig) -> str:
    """The configuration as YAML text (every key, defaults included)."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False)
