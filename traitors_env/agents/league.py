"""A league's meta-game Nash mixture as one agent: the output of population training (PSRO's solution).

A population trained by ``traitors-train`` with a ``league:`` section (``training/jax_backend/league.py``) writes
``league.json``: each side's members and the Nash mixture of the last solved meta-game. PSRO's answer to "which
policy" is that mixture, not the newest member: a side's newest policy can be a best response to the other side's
previous ones and lose to a strategy the population already holds. :func:`league_maker` builds, for each game, one
member per side drawn by those Nash weights from the game's seed (so figures do not depend on how games are split
over workers), and plays each decision with the member of the observer's side (:class:`~.side.SideAgent`).

A league trained with ``league.meta_game: per_size`` also records each table size's Nash mixture
(``nash_by_size``): the table size is public and dealt by nature, so the game is one subgame per size and its
solution is one mixture per size. Its file plays those by default (:class:`PerSizeLeagueAgent`: each side's member
is drawn at that side's first decision of the game, from the mixture of the size its observation shows); the spec
``PATH/league.json:pooled`` plays the pooled mixture instead, and ``PATH/league.json:per_size`` insists on the
per-size one (:data:`MIXTURES`).

Members: ``policy`` (a checkpoint relative to the league file, loaded once per process; it plays its most probable
action where the league's cross-play did, ``deterministic``), ``heuristic`` / ``random`` (the game's bots),
``probe`` (a scripted probe of the game's JAX twin, its ``probes`` submodule's ``PROBES``, on its own side only;
needs the ``jax`` extra). The file is checked whole before any game (:func:`read_league_file`). Beliefs
(``beliefs()``) are those of the member drawn: a game whose member has no belief head (a probe, the random bot)
gives none, so the kit's deduction metrics for a league cover the games of its members that have beliefs.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.agent import Agent, agent_beliefs
from ..core.game import Game
from ..files import confined_path
from .policy import AgentSpecError, PolicyLoadError, generator, policy_agent
from .side import SideAgent

__all__ = ["KINDS", "LEAGUE_FILE", "MIXTURES", "PerSizeLeagueAgent", "ProbeAgent", "is_league_file", "league_maker",
           "league_spec", "probes", "read_league_file", "split_mixture"]

#: the file name of a league in its run folder
LEAGUE_FILE = "league.json"


#: which of a league's Nash mixtures its agent plays, by the spec's suffix (``PATH/league.json:pooled``): the one
#: solved on all table sizes' games, or each table size's own (a ``league.meta_game: per_size`` league's)
MIXTURES = ("pooled", "per_size")


def is_league_file(path: Path) -> bool:
    """Whether ``path`` is a league's file (a ``league.json``)."""
    return path.is_file() and path.name == LEAGUE_FILE


def split_mixture(spec: str) -> tuple[str, str | None]:
    """``(PATH, MIXTURE)`` for ``PATH/league.json:MIXTURE`` (``MIXTURE`` any text after the last colon), else
    ``(spec, None)``; nothing is checked on disk."""
    head, _, tail = spec.rpartition(":")
    return (head, tail) if head and Path(head).name == LEAGUE_FILE else (spec, None)


def league_spec(spec: str) -> tuple[Path, str | None] | None:
    """``(path, mixture)`` if ``spec`` names a league file, ``PATH/league.json`` or ``PATH/league.json:MIXTURE``
    (``mixture`` one of :data:`MIXTURES`, ``None`` without a suffix); else ``None``.

    Raises:
        AgentSpecError: for a league file with another suffix, or a ``league.json:MIXTURE`` that does not exist.
    """
    head, tail = split_mixture(spec)
    if tail in MIXTURES and not Path(head).is_file():
        raise AgentSpecError(f"agent {spec!r}: no league file {head!r}")
    if tail is not None and is_league_file(Path(head)):
        if tail not in MIXTURES:
            raise AgentSpecError(f"agent {spec!r}: a league file's suffix is ':{tail}'; expected one of "
                                 f"{', '.join(':' + m for m in MIXTURES)} (or none: the league's own meta-game)")
        return Path(head), tail
    return (Path(spec), None) if is_league_file(Path(spec)) else None


#: member kinds a league file may hold
KINDS = ("policy", "heuristic", "random", "probe")


def read_league_file(path: str | Path, game: Game, spec: str | None = None, mixture: str | None = None) -> dict:
    """A league file of ``game`` checked and reduced to what its Nash mixture needs; ``mixture`` (:data:`MIXTURES`
    or ``None``, the league's own) chooses whether ``by_size`` is read (``"pooled"``: it is left empty).

    Returns:
        ``{"deterministic": bool, "mixtures": {side: [(member, weight), ...]}, "by_size": {n: {side: [...]}}}``:
        for each of the game's sides the members with positive weight in the last solved meta-game (``member``:
        its dict, ``kind`` one of :data:`KINDS`, a ``policy``'s ``checkpoint`` resolved against the file's folder
        as ``path``), weights float summing to 1, in the population's order; ``by_size``: the same for each table
        size ``n`` (int) of the last meta-game's ``nash_by_size`` (``league.meta_game: per_size``; empty without).

    Raises:
        AgentSpecError: naming ``spec`` (default: the path) and what is wrong: unreadable JSON, another game, a
            side without members or weights, a member without a name or of an unknown kind, a name given twice,
            a policy without a checkpoint, a weight that is not a finite number ≥ 0 or names no member, weights whose sum overflows, JSON nested
            too deeply, a checkpoint holding a NUL byte, a probe member without the jax extra, or a side
            whose weights are all 0 (in ``nash`` or at a table size of ``nash_by_size``), or a ``nash_by_size`` key
            that is not a table size of the game; ``per_size`` for a file without ``nash_by_size``; a checkpoint
            that is an absolute path or leads outside the file's folder (``..``, a symbolic link).
    """
    path, choice = Path(path), mixture
    if choice not in (None, *MIXTURES):
        raise AgentSpecError(f"agent {spec or str(path)!r}: mixture {choice!r}; expected one of {', '.join(MIXTURES)}")
    label = f"agent {spec or str(path)!r}"

    def fail(message: str):
        raise AgentSpecError(f"{label}: {message}")

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        fail(f"cannot read the league file: {error}")
    except RecursionError:  # JSON nested deeper than Python's stack
        fail("cannot read the league file: its JSON is nested too deeply")
    if not isinstance(data, dict):
        fail(f"the league file holds a {type(data).__name__}; expected the JSON object a league writes")
    if data.get("game") != game.name:
        fail(f"a league of {data.get('game')!r}, not of {game.name!r}"
             + (f"; use --game {data['game']}" if isinstance(data.get("game"), str) else ""))
    iterations = data.get("iterations")
    last = iterations[-1] if isinstance(iterations, list) and iterations else None
    nash = last.get("nash") if isinstance(last, dict) else None
    members = data.get("members")
    if not isinstance(nash, dict) or not isinstance(members, dict):
        fail("the league file has no members or no solved meta-game (expected 'members' and 'iterations' with "
             "'nash')")
    population: dict[str, dict[str, dict]] = {}
    mixtures = {}

    for side in game.type.sides:
        side_members = members.get(side)
        if not isinstance(side_members, list) or not isinstance(nash.get(side), dict):
            fail(f"no members or Nash weights for side {side!r}")
        seen: dict[str, dict] = {}
        for member in side_members:
            name, member = _checked_member(member, side, seen, game, path, fail)
            seen[name] = member
        population[side] = seen
        mixtures[side] = _nash_mixture(nash[side], side, "", seen, fail)

    by_size = {}
    per_size = last.get("nash_by_size")
    if per_size is not None and not isinstance(per_size, dict):
        fail(f"the last meta-game's nash_by_size is {per_size!r}; expected {{table size: {{side: weights}}}}")
    for key, sides in (per_size or {}).items():
        size = int(key) if key.isascii() and key.isdecimal() and str(int(key)) == key else None
        if size not in game.type.player_counts:
            fail(f"nash_by_size has table size {key!r}; expected one of "
                 f"{', '.join(repr(str(n)) for n in game.type.player_counts)}")
        if not isinstance(sides, dict) or set(sides) - set(game.type.sides):
            fail(f"nash_by_size[{key!r}] is {sides!r}; expected {{side: weights}} for sides "
                 f"{', '.join(game.type.sides)}")
        by_size[size] = {side: _nash_mixture(sides.get(side), side, f" at {size} players", population[side], fail)
                         for side in game.type.sides}
    if choice == "per_size" and not by_size:
        fail("the league file has no per-size meta-game (nash_by_size: a league trained with league.meta_game: "
             "per_size); drop ':per_size' to play its pooled mixture")
    if choice == "pooled":
        by_size = {}
    deterministic = data.get("deterministic", False)
    if not isinstance(deterministic, bool):  # bool("false") is True
        fail(f"deterministic is {deterministic!r}; expected true or false")
    return {"deterministic": deterministic, "mixtures": mixtures, "by_size": by_size}


def _nash_mixture(weights: object, side: str, where: str, seen: dict[str, dict], fail) -> list[tuple[dict, float]]:
    """The members of ``side`` (``seen``: name → member, in the population's order) with positive ``weights``,
    normalised; ``fail(message)`` raises for bad weights (``where``: the table size, for the message)."""
    if not isinstance(weights, dict):
        fail(f"no Nash weights for side {side!r}{where}")
    for name, weight in weights.items():
        if name not in seen:
            fail(f"the Nash weights of side {side!r}{where} name {name!r}, not a member ({', '.join(seen)})")
        if not _finite_weight(weight):
            shown = weight if not isinstance(weight, int) or abs(weight) < 10**20 else "an integer too large"
            fail(f"the Nash weight of {side} member {name!r}{where} is {shown!r}; expected a finite number >= 0")
    chosen = [(member, float(weights[name])) for name, member in seen.items() if weights.get(name, 0) > 0]
    if not chosen:
        fail(f"the Nash mixture of side {side!r}{where} gives no member a positive weight")
    total = sum(w for _, w in chosen)
    if not math.isfinite(total):  # 1e308 + 1e308: the normalised weights would be NaN
        fail(f"the Nash weights of side {side!r}{where} sum to {total}; expected finite numbers whose sum is "
             "finite and positive")
    return [(m, w / total) for m, w in chosen]


def _checked_member(member: object, side: str, seen: dict, game: Game, path: Path, fail) -> tuple[str, dict]:
    """``(name, member)`` of one member of ``side`` in a league file at ``path``, checked (``fail(message)`` raises
    for what is wrong): a new name, a kind of :data:`KINDS`, a probe of the game's twin playing ``side``, a policy's
    checkpoint a path confined to the file's folder (resolved into the returned member's ``checkpoint``)."""
    name = member.get("name") if isinstance(member, dict) else None
    if not isinstance(name, str) or not name:
        fail(f"side {side!r} has a member {member!r} without a name")
    if name in seen:
        fail(f"side {side!r} names member {name!r} twice")
    kind = member.get("kind")
    if kind not in KINDS:
        fail(f"member {name!r} has kind {kind!r}; expected one of {', '.join(KINDS)}")
    if kind == "probe":
        try:
            twin = probes(game)
        except AgentSpecError as error:  # the jax extra is missing: name the file and the member
            fail(f"probe member {name!r}: {error}")
        if name not in twin:
            fail(f"member {name!r} is not a probe of {game.type.env_id}'s JAX twin "
                 f"({', '.join(twin) or 'it has none'})")
        if game.type.sides[twin[name][0]] != side:
            fail(f"probe {name!r} plays the {game.type.sides[twin[name][0]]}, not the {side}")
    if kind == "policy":
        if not isinstance(member.get("checkpoint"), str) or not member["checkpoint"]:
            fail(f"policy member {name!r} has no checkpoint (a path relative to the league file)")
        if "\x00" in member["checkpoint"]:  # the OS would say only "embedded null byte"
            fail(f"policy member {name!r}: its checkpoint {member['checkpoint']!r} holds a NUL byte; "
                 "expected a path")
        try:  # a league file may come from someone else: its paths must stay in its folder
            member = {**member, "checkpoint": confined_path(path.parent, member["checkpoint"])}
        except ValueError as error:
            fail(f"policy member {name!r} of {str(path)!r}: its checkpoint {error}")
    return name, member


def _finite_weight(weight: object) -> bool:
    """Whether ``weight`` is a number >= 0 whose float is finite (JSON's ``10**400`` is a Python int that
    ``math.isfinite`` cannot convert)."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        return False
    try:
        return math.isfinite(float(weight)) and weight >= 0
    except OverflowError:
        return False


class ProbeAgent:
    """The scripted probe ``name`` of ``game``'s JAX twin (its ``probes`` submodule's ``PROBES``: ``act(observation,
    action_mask, key) -> int32``) as an :class:`Agent`; its draws come from JAX keys taken from ``seed``'s stream.
    It has no beliefs. Needs the ``jax`` extra."""

    def __init__(self, game: str, name: str, seed: int | np.random.Generator | None = None) -> None:
        self.game, self.name = game, name
        self._rng = generator(seed)
        self._act = _compiled_probe(game, name)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        import jax

        key = jax.random.key(int(self._rng.integers(2**31)))
        return int(self._act(np.asarray(observation, np.float32), np.asarray(action_mask, bool), key))

    def __reduce__(self):  # the compiled function is rebuilt where it is unpickled
        return ProbeAgent, (self.game, self.name, self._rng)


def probes(game: Game) -> dict:
    """``{name: (side index, act)}``: the scripted probes of ``game``'s JAX twin (none without a twin or a
    ``probes`` submodule).

    Raises:
        AgentSpecError: when the twin cannot be imported (the ``jax`` extra is missing).
    """
    if game.jax is None:
        return {}
    try:
        twin = game.jax()
        return dict(importlib.import_module(f"{twin.__name__}.probes").PROBES)
    except ModuleNotFoundError as error:
        if error.name and error.name.endswith(".probes"):
            return {}
        raise AgentSpecError(f"{game.type.env_id}'s probes need the JAX twin (pip install -e '.[jax]'): {error}") \
            from None
    except ImportError as error:
        raise AgentSpecError(f"{game.type.env_id}'s probes need the JAX twin (pip install -e '.[jax]'): {error}") \
            from None


@functools.lru_cache(maxsize=8)  # by game name: a Game holds dicts, and one compilation per process is enough
def _compiled_probe(game_name: str, name: str) -> Callable:
    import jax

    from ..core.registry import load_game

    return jax.jit(probes(load_game(game_name))[name][1])


def league_maker(spec: str, path: Path, game: Game, mixture: str | None = None) -> tuple[
        str, Callable[[int | np.random.Generator | None], Agent]]:
    """``(label, make)`` for the league file at ``path`` (see the module doc); ``make(seed)`` draws each side's
    member from ``seed``'s stream, then seeds that member from the same stream. Policies play their most probable
    action where the league's cross-play did (``deterministic``).

    Args:
        mixture: ``"pooled"``, ``"per_size"`` (:data:`MIXTURES`) or ``None``: the league's own, per size where the
            file has ``nash_by_size`` (a :class:`PerSizeLeagueAgent`; label ``league:PATH:per_size``), else pooled
            (a :class:`~.side.SideAgent` of the members drawn; label ``league:PATH``).

    Raises:
        AgentSpecError: see :func:`read_league_file`; also for a missing or broken member checkpoint, an unknown
            ``mixture``, or ``per_size`` for a league file without ``nash_by_size``.
    """
    from .checkpoint import load_frozen_policy

    league = read_league_file(path, game, spec, mixture)
    deterministic = league["deterministic"]
    makers: dict[str, Callable] = {}

    def member_maker(member: dict) -> Callable:
        kind, name = member["kind"], member["name"]
        key = f"{kind}:{name}:{member.get('checkpoint')}"  # names repeat across sides (league_1 on both)
        if key in makers:
            return makers[key]
        if kind == "policy":
            try:
                frozen = load_frozen_policy(member["checkpoint"], game)
            except PolicyLoadError as error:
                raise AgentSpecError(f"agent {spec!r}: member {name!r}: {error}") from None
            makers[key] = lambda rng: policy_agent(frozen, seed=rng, deterministic=deterministic)
        elif kind == "probe":
            makers[key] = lambda rng: ProbeAgent(game.name, name, rng)
        else:
            makers[key] = lambda rng: game.make_bot(kind, rng)
        return makers[key]

    def side_mixtures(mixtures: dict) -> list[tuple[list[Callable], np.ndarray]]:
        return [([member_maker(m) for m, _ in mixtures[side]], np.array([w for _, w in mixtures[side]]))
                for side in game.type.sides]

    pooled = side_mixtures(league["mixtures"])
    if not league["by_size"]:
        def make(seed) -> Agent:
            rng = generator(seed)
            return SideAgent(*(_draw(makers, weights, rng) for makers, weights in pooled), game=game)

        return f"league:{path}", make

    by_size = {size: side_mixtures(mixtures) for size, mixtures in league["by_size"].items()}

    def make_per_size(seed) -> Agent:
        return PerSizeLeagueAgent(game, by_size, pooled, generator(seed))

    return f"league:{path}:per_size", make_per_size


def _draw(makers: list[Callable], weights: np.ndarray, rng: np.random.Generator) -> Agent:
    """One member drawn by ``weights`` from ``rng``, then seeded from it."""
    return makers[int(rng.choice(len(makers), p=weights))](rng)


class PerSizeLeagueAgent:
    """A ``league.meta_game: per_size`` league's solution as one agent: each side's member is drawn by the Nash
    mixture of the table size the observation shows (``game.observation_players``), at that side's first decision
    (or beliefs query) of the game, then plays every decision of that side (the roles are secret: the side comes
    from the observation, as in :class:`~.side.SideAgent`). A table size the league did not solve uses the pooled
    mixture. Built by :func:`league_maker`, one per game; each side draws from its own stream of the game's seed, so
    a game's play is fixed by its seed. Not picklable (its members' makers are closures): build it where it plays.

    Raises:
        ValueError: from ``game.observation_players`` for an observation without a table size, or for an
            observation of another table size than the game's first.
    """

    def __init__(self, game: Game, by_size: dict, pooled: list, rng: np.random.Generator) -> None:
        self.game, self._by_size, self._pooled = game, by_size, pooled
        # one stream per side, so a side's member does not depend on when the other side first acts
        self._rngs = [np.random.default_rng(int(seed)) for seed in rng.integers(2**63, size=len(game.type.sides))]
        self.agents: list[Agent | None] = [None] * len(game.type.sides)
        self.table_size: int | None = None

    def _member(self, observation: np.ndarray) -> Agent:
        side, size = self.game.side_of_observation(observation), self.game.observation_players(observation)
        if self.table_size not in (None, size):  # its members were drawn for another table size
            raise ValueError(f"PerSizeLeagueAgent: an observation of a {size}-player table in a game of "
                             f"{self.table_size} players; build one agent per game")
        self.table_size = size
        if self.agents[side] is None:
            makers, weights = self._by_size.get(size, self._pooled)[side]
            self.agents[side] = _draw(makers, weights, self._rngs[side])
        return self.agents[side]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action of the observer's side's member (see :meth:`Agent.act`)."""
        return self._member(observation).act(observation, action_mask)

    def beliefs(self, observation: np.ndarray) -> np.ndarray | None:
        """The role beliefs of the observer's side's member, or ``None`` where it has none."""
        return agent_beliefs(self._member(observation), observation)
