"""*Avalon*'s small variants as an explicit game tree over the reference engine (issue 50).

A small variant is a declared variant of the game (``avalon:mini5``, ``Game.variants``): the full game's engine with
rules options of :class:`~traitors_env.games.avalon.engine.AvalonConfig` (a shorter ``quest_track``, a lower
``max_proposals``), so the environment plays exactly the game this tree walks. Rulings S04–S06
(``docs/rules/small-variants.md``) say how it departs from A01–A18; the tree sizes are in ``docs/solve.md``.

**Chance** is the deal only (A04): the roles over the seats (uniform over the distinct deals of the role multiset,
as the engine's uniform permutation gives them), then the first leader (uniform over the seats, where the variant
draws it). The engine's other random step, the shuffle of a quest's cards (A11), reveals nothing but the number of
Fails, which the cards played fix: no seat can tell two shuffles apart, so it needs no chance node (the tree's
engine keeps the cards in seat order).

**Information states** (perfect recall): per seat, its observation (the env's ``encode``, hashed) at each of its
decisions and its own actions; away from its decisions, its observation now as well. An Avalon observation holds
the whole public record so far (A17), so nothing a seat saw between its decisions is lost.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

from ..games.avalon.engine import AvalonConfig, GameState
from ..games.avalon.observation import encode
from ..games.avalon.roles import Role

__all__ = ["CHANCE", "TERMINAL", "VARIANTS", "Node", "SmallVariant", "root", "variant"]

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId

#: The game's declared variants that are small enough to solve (their options: ``Game.variants``).
SMALL = {"mini5": "5 players (Merlin, 2 Servants, Assassin, Minion), one quest of a team of 2, the first rejection "
                  "ends the game for Evil (max_proposals=1), the assassination kept, claims off, seat 0 leads"}


@dataclass(frozen=True)
class SmallVariant:
    """A small variant of *Avalon*: a name, one line, and the engine's options (``AvalonConfig``'s keywords)."""

    name: str
    description: str
    options: tuple[tuple[str, Any], ...]

    @property
    def config(self) -> AvalonConfig:
        return AvalonConfig(**dict(self.options))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def sides(self) -> tuple[str, str]:
        """The side names of side 0 and 1, the game's (A01)."""
        return ("good", "evil")

    def root(self) -> Node:
        return Node(self)


def _declared() -> dict[str, SmallVariant]:
    from ..games.avalon.game import GAME  # the one declaration the env plays

    out = {}
    for name, description in SMALL.items():
        declared = GAME.variants[name]
        players = declared.player_counts[0] if declared.player_counts else GAME.type.default_players
        options = {"num_players": players, "claims": bool(declared.claims), **declared.kwargs}
        out[name] = SmallVariant(name, description, tuple(sorted(options.items())))
    return out


VARIANTS: dict[str, SmallVariant] = _declared()


def variant(name: str) -> SmallVariant:
    """The declared variant ``name``; ``ValueError`` naming it and the declared ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"avalon has no small variant {name!r}; declared: {sorted(VARIANTS)}") from None


def root(v: SmallVariant) -> Node:
    """The tree's root: the deal's chance node."""
    return Node(v)


class _NoShuffle:
    """The engine's generator in the tree: a quest's cards stay in seat order (no seat can see the order, A11)."""

    @staticmethod
    def permutation(k: int) -> range:
        return range(k)


@functools.cache
def _deals(config: AvalonConfig) -> list[tuple[Role, ...]]:
    """The distinct deals of the config's roles over the seats, sorted (each as likely: A04's uniform permutation)."""
    return sorted(set(itertools.permutations(config.roles)))


def _copy_engine(engine: GameState) -> GameState:
    """``GameState.copy`` without the generator's deep copy (the tree's never draws): a fifth of its time."""
    other = object.__new__(GameState)
    other.__dict__.update(engine.__dict__)
    other.roles = list(engine.roles)
    other._queue = list(engine._queue)
    other.team = list(engine.team)
    other.proposals = [dataclasses.replace(p, claims=list(p.claims)) for p in engine.proposals]
    other.quests = list(engine.quests)
    other.pending_votes = list(engine.pending_votes)
    other.pending_cards = dict(engine.pending_cards)
    other.played_cards = [dict(cards) for cards in engine.played_cards]
    other.winners = list(engine.winners)
    other.events = list(engine.events)
    other.history = list(engine.history)
    return other


def _digest(observation) -> str:
    return hashlib.blake2b(observation.tobytes(), digest_size=8).hexdigest()


class Node:
    """One history of a small variant: the deal (chance), a decision of the engine, or the end. OpenSpiel's
    vocabulary, as :class:`traitors_env.solve.traitors_aboard.Node`."""

    __slots__ = ("variant", "config", "engine", "roles", "info", "history")

    def __init__(self, variant: SmallVariant) -> None:
        self.variant = variant
        self.config = variant.config
        self.engine: GameState | None = None
        self.roles: tuple[Role, ...] | None = None  # dealt, before the first leader is
        self.info: list[tuple[str, ...]] = [() for _ in range(self.config.num_players)]
        self.history: list[int] = []

    def clone(self) -> Node:
        new = object.__new__(Node)
        new.variant, new.config = self.variant, self.config
        new.engine = None if self.engine is None else _copy_engine(self.engine)
        new.roles = self.roles
        new.info = list(self.info)
        new.history = list(self.history)
        return new

    def __deepcopy__(self, memo) -> Node:
        return self.clone()  # pyspiel clones a Python state with copy.deepcopy

    # --------------------------------------------------------------- queries
    def current_player(self) -> int:
        engine = self.engine
        if engine is None:
            return CHANCE
        if engine.is_terminal:
            return TERMINAL
        return engine.current_player

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_terminal

    def is_chance_node(self) -> bool:
        return self.engine is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deal: the index of the roles' deal in the sorted distinct deals, then the first leader's seat."""
        if self.engine is not None:
            return []
        if self.roles is None:
            count = len(_deals(self.config))
            return [(i, 1.0 / count) for i in range(count)]
        n = self.config.num_players
        return [(seat, 1.0 / n) for seat in range(n)]

    def legal_actions(self) -> list[int]:
        """The seat's legal actions (the env's indices), or the chance outcomes' ids."""
        if self.engine is None:
            return [outcome for outcome, _ in self.chance_outcomes()]
        return self.engine.legal_actions()

    def legal_mask(self):
        """The env's ``action_mask`` now (the engine's)."""
        return self.engine.legal_mask()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.config.num_players
        return self.engine.returns()

    def side_of(self, seat: int) -> int:
        """0 (Good) or 1 (Evil): ``seat``'s role once dealt."""
        return self.engine.side_of(seat)

    def observation(self, seat: int):
        """``seat``'s observation now: the env's (``encode``)."""
        return encode(self.engine, seat)

    def information_state_string(self, seat: int) -> str:
        """``seat``'s perfect-recall information state (module doc)."""
        past = f"p{seat}" + "".join(self.info[seat])
        engine = self.engine
        if engine is None:
            return past
        if engine.is_terminal or engine.current_player != seat:
            return past + "/n" + _digest(encode(engine, seat))
        return past  # at its decision its observation is the last entry

    def team_information_state(self, side: int) -> tuple[str, ...]:
        """The acting seat's side's information together (the team-as-one-player relaxation of
        :func:`~.exact.build_tree`) at a decision: the actor's state and its team mates' past entries. The same
        partition as every member's full state (their observations now add only the public record, which the
        actor's observation holds), without encoding each team mate's observation at every node."""
        actor = self.engine.current_player
        return tuple(self.information_state_string(s) if s == actor else f"p{s}" + "".join(self.info[s])
                     for s in range(self.config.num_players) if self.engine.side_of(s) == side)

    # ----------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """A seat's action (the engine's index) or a chance outcome's id (:meth:`chance_outcomes`)."""
        action = int(action)
        self.history.append(action)
        engine = self.engine
        if engine is None:
            self._deal(action)
        else:
            seat = engine.current_player
            engine.apply_action(action)
            self.info[seat] = self.info[seat] + (f"/a{action}",)
        self._observe()

    def child(self, action: int) -> Node:
        new = self.clone()
        new.apply_action(action)
        return new

    def _deal(self, outcome: int) -> None:
        config = self.config
        if self.roles is None:
            self.roles = _deals(config)[outcome]
            if config.first_leader is None:
                return  # the first leader's chance node
            leader = config.first_leader
        else:
            leader = outcome
        # the deal as the engine's own, with the leader drawn here; the variant's config back (a fixed leader)
        engine = GameState.new(dataclasses.replace(config, first_leader=leader), seed=0, roles=self.roles)
        engine.config, engine.rng = config, _NoShuffle()
        self.engine = engine

    def _observe(self) -> None:
        """The seat asked next records the observation it acts on."""
        engine = self.engine
        if engine is not None and not engine.is_terminal:
            seat = engine.current_player
            self.info[seat] = self.info[seat] + ("/o" + _digest(encode(engine, seat)),)

    def __str__(self) -> str:
        if self.engine is None:
            return f"deal: roles {self.roles}"
        return f"{self.engine.phase.name} seat {self.engine.current_player} history {self.engine.history}"
