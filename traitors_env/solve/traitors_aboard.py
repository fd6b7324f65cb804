"""*Traitors Aboard*'s small variants as an explicit game tree with chance nodes, over the reference engine.

A :class:`SmallVariant` (declared in :mod:`traitors_env.games.traitors_aboard.small`, which deals the same variant's
games for the environment) is the full game's rules (the engine is not changed) played from a dealt position: a table of
``num_players``, the cards in play (``deck``: hands, the pre-placed chest cards and the draw pile), Planks already in
front of seats and chest cards already placed (each placer knows its card; the public saw who placed it and what was
announced, R04). Every other card of the full deck is in the face-down discard pile (as
:meth:`GameState.from_position <traitors_env.games.traitors_aboard.engine.GameState.from_position>` puts it), so a
variant is a position of the full game, reachable by its rules; ruling ``docs/rules/small-variants.md`` (S01–S03)
says how it departs from the rulebook's setup.

**Chance.** The engine draws everything from one seeded generator: the deal (roles, the shuffled deck), R01's first
seat and R07's Spyglass shuffle. Here each is an explicit chance outcome instead, resolved when a seat could first
tell it apart (the tree is smallest, and the game the same):

1. the deal: which seats are Mutineers (uniform over the seat sets), then each seat's hand as a *multiset* of card
   kinds (multivariate hypergeometric from the cards in play; cards of one kind are indistinguishable), then the true
   kind of each pre-placed chest card, bottom first (proportional to the cards of that kind left);
2. every draw from the face-down part of the draw pile (R05, R06, R09, R10): a chance node over the card kinds still
   face down, proportional to their counts, right after the action that drew it. A uniformly shuffled pile drawn
   from the top is the same random process as drawing uniformly from what is left, so this is the engine's game;
   cards that a Miraculous Catch put back (R09) are known and are drawn as they lie, without chance. A draw that
   empties the pile ends the game (R06) and is not resolved (no seat ever sees it);
3. R07's Spyglass shuffle of 2–3 cards: a chance node over the orders, uniform.

An exact best response therefore may condition only on what its seat has seen: the pile's order is never fixed in
advance, so no deviation can exploit it (fixing the whole shuffle at the deal would give the same values in a much
larger tree).

**Information states** (perfect recall): per seat, the sequence of its own observations (the game's
``encode(state, seat)``, one digest per settled position where it changed) and its own actions. A seat therefore
knows everything it ever observed, in order, and nothing else.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Sequence

from ..games.traitors_aboard.actions import HAND_MULTISET_INDEX, HAND_MULTISETS
from ..games.traitors_aboard.cards import HAND_SIZE, LOOT_KINDS, NUM_CARD_KINDS, Role
from ..games.traitors_aboard.chest import ChestCard, ScrambledGroup
from ..games.traitors_aboard.engine import GameState
from ..games.traitors_aboard.observation import encode
from ..games.traitors_aboard.small import VARIANTS, SmallVariant, variant

__all__ = ["CHANCE", "TERMINAL", "VARIANTS", "Node", "SmallVariant", "root", "variant"]

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId
MAX_CHANCE_OUTCOMES = len(HAND_MULTISETS)  # the largest chance node: a hand's multiset (120)


def root(v: SmallVariant) -> Node:
    """The tree's root: the deal's first chance node."""
    return Node(v)


class _Engine(GameState):
    """The reference engine, with its two random steps after the deal turned into records for the chance nodes."""

    def __init__(self, config, rng) -> None:
        super().__init__(config, rng)
        self.unknown_draws: list[list[int]] = []  # [seat, kind] drawn from the face-down pile during one action
        self.shuffled = 0  # cards a Spyglass took during one action (2–3: a shuffle to resolve)

    def _draw(self, seat: int) -> bool:
        if not self.draw_known[-1]:
            self.unknown_draws.append([seat, self.draw_pile[-1]])
        return super()._draw(seat)

    def spyglass_shuffle(self, taken: int) -> Sequence[int]:
        self.shuffled = taken
        return range(taken)  # the taken cards bottom first; the chance node reorders them


def _copy_engine(engine: _Engine) -> _Engine:
    """A copy sharing nothing mutable (``copy.deepcopy`` is ~50× slower): lists copied, chest cards and their
    scrambled groups cloned with their identities kept (the Spyglass's seen cards are chest cards)."""
    new = object.__new__(_Engine)
    d = new.__dict__
    for key, value in engine.__dict__.items():
        if type(value) is list:
            value = [list(v) if type(v) is list else v for v in value]
        d[key] = value
    groups: dict[int, ScrambledGroup] = {}
    cards: dict[int, ChestCard] = {}
    for card in engine.chest:
        group = card.group
        if group is not None and id(group) not in groups:
            groups[id(group)] = ScrambledGroup(None if group.counts is None else list(group.counts), group.size)
        cards[id(card)] = ChestCard(card.kind, card.placer, card.announced, card.known_by,
                                    None if group is None else groups[id(group)])
    new.chest = [cards[id(c)] for c in engine.chest]
    new.spyglass_seen = [cards[id(c)] for c in engine.spyglass_seen]
    return new


def _hypergeometric(counts: Sequence[int], hand: Sequence[int]) -> float:
    """P(a hand of ``len(hand)`` cards drawn from ``counts`` is the multiset ``hand``) (card kinds, sorted)."""
    total = sum(counts)
    ways = 1
    for kind in set(hand):
        ways *= math.comb(counts[kind], hand.count(kind))
    return ways / math.comb(total, len(hand))


def _digest(observation) -> str:
    return hashlib.blake2b(observation.tobytes(), digest_size=8).hexdigest()


class Node:
    """One history of a small variant: a chance node of the deal, a position of the engine with draws or a shuffle
    still to resolve (chance), a decision, or the end. OpenSpiel's vocabulary: :meth:`current_player`,
    :meth:`legal_actions`, :meth:`chance_outcomes`, :meth:`apply_action`, :meth:`returns`,
    :meth:`information_state_string`."""

    __slots__ = ("variant", "engine", "roles", "hands", "chest", "remaining", "info", "history")

    def __init__(self, variant: SmallVariant) -> None:
        self.variant = variant
        self.engine: _Engine | None = None
        self.roles: tuple[int, ...] | None = None  # the deal so far
        self.hands: list[tuple[int, ...]] = []
        self.chest: list[int] = []
        self.remaining = list(variant.deck)  # cards in play not yet dealt
        self.info: list[tuple[str, ...]] = [() for _ in range(variant.num_players)]
        self.history: list[int] = []

    def clone(self) -> Node:
        new = object.__new__(Node)
        new.variant = self.variant
        new.engine = None if self.engine is None else _copy_engine(self.engine)
        new.roles = self.roles
        new.hands = list(self.hands)
        new.chest = list(self.chest)
        new.remaining = list(self.remaining)
        new.info = list(self.info)
        new.history = list(self.history)
        return new

    def __deepcopy__(self, memo) -> Node:
        return self.clone()  # pyspiel clones a Python state with copy.deepcopy; this is ~50× faster

    # --------------------------------------------------------------- queries
    def current_player(self) -> int:
        engine = self.engine
        if engine is None or engine.unknown_draws or engine.shuffled:
            return CHANCE
        if engine.is_terminal:
            return TERMINAL
        return engine.current_player

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_terminal

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        """The current seat's legal actions (the game's action indices), or the chance outcomes' ids."""
        if self.is_chance_node():
            return [outcome for outcome, _ in self.chance_outcomes()]
        if self.engine.is_terminal:
            return []
        return list(self.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node (module doc); the outcomes' ids by stage: the index of the
        Mutineers' seat set, a hand's index in ``HAND_MULTISETS``, a card kind, the index of a Spyglass order in
        ``itertools.permutations(range(taken))``."""
        v, engine = self.variant, self.engine
        if engine is None:
            if self.roles is None:
                sets = list(itertools.combinations(range(v.num_players), v.mutineers))
                return [(i, 1.0 / len(sets)) for i in range(len(sets))]
            if len(self.hands) < v.num_players:
                outcomes = []
                for hand in itertools.combinations_with_replacement(range(NUM_CARD_KINDS), HAND_SIZE):
                    if all(hand.count(k) <= self.remaining[k] for k in set(hand)):
                        outcomes.append((HAND_MULTISET_INDEX[hand], _hypergeometric(self.remaining, hand)))
                return outcomes
            return self._kind_outcomes(self.remaining, LOOT_KINDS)
        if engine.unknown_draws:
            return self._kind_outcomes(self._face_down(), range(NUM_CARD_KINDS))
        if engine.shuffled:
            orders = math.factorial(engine.shuffled)
            return [(i, 1.0 / orders) for i in range(orders)]
        return []

    @staticmethod
    def _kind_outcomes(counts: Sequence[int], kinds) -> list[tuple[int, float]]:
        total = sum(counts[k] for k in kinds)
        return [(k, counts[k] / total) for k in kinds if counts[k]]

    def _face_down(self) -> list[int]:
        """Per kind: the face-down pile's cards plus the drawn cards still to resolve (the unknown pool)."""
        engine = self.engine
        pool = [0] * NUM_CARD_KINDS
        for kind, known in zip(engine.draw_pile, engine.draw_known):
            if not known:
                pool[kind] += 1
        for _, kind in engine.unknown_draws:
            pool[kind] += 1
        return pool

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.variant.num_players
        return [float(r) for r in self.engine.returns()]

    def side_of(self, seat: int) -> int:
        """0 (Pirates) or 1 (Mutineers): ``seat``'s role once dealt."""
        return int(self.engine.roles[seat])

    def information_state_string(self, seat: int) -> str:
        """``seat``'s perfect-recall information state (module doc)."""
        return f"p{seat}" + "".join(self.info[seat])

    def observation(self, seat: int):
        """``seat``'s observation now (the game's ``encode``)."""
        return encode(self.engine, seat)

    def legal_mask(self):
        """The env's ``action_mask`` now (the engine's)."""
        return self.engine.legal_mask()

    # ----------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """A seat's action (the engine's index) or a chance outcome's id (:meth:`chance_outcomes`)."""
        self.history.append(int(action))
        engine = self.engine
        if engine is None:
            self._deal(int(action))
        elif engine.unknown_draws:
            self._resolve_draw(int(action))
        elif engine.shuffled:
            self._resolve_shuffle(int(action))
        else:
            seat = engine.current_player
            engine.apply_action(int(action))
            self.info[seat] = self.info[seat] + (f"/a{int(action)}",)
            if engine.is_terminal:
                engine.unknown_draws.clear()  # R06: the last draw ended the game; nobody sees it
                engine.shuffled = 0
        if self.engine is not None and not (self.engine.unknown_draws or self.engine.shuffled or self.engine.is_terminal):
            self._observe()  # nobody decides at the end: no observation is needed there

    def child(self, action: int) -> Node:
        new = self.clone()
        new.apply_action(action)
        return new

    def _deal(self, outcome: int) -> None:
        v = self.variant
        if self.roles is None:
            mutineers = list(itertools.combinations(range(v.num_players), v.mutineers))[outcome]
            self.roles = tuple(int(Role.MUTINEER if s in mutineers else Role.PIRATE) for s in range(v.num_players))
        elif len(self.hands) < v.num_players:
            hand = HAND_MULTISETS[outcome]
            for kind in hand:
                self.remaining[kind] -= 1
            self.hands.append(hand)
        else:
            self.remaining[outcome] -= 1
            self.chest.append(outcome)
        if self.roles is not None and len(self.hands) == v.num_players and len(self.chest) == len(v.chest):
            pile = [k for k in range(NUM_CARD_KINDS) for _ in range(self.remaining[k])]
            chest = [(kind, placer, announced) for kind, (placer, announced) in zip(self.chest, v.chest)][::-1]
            self.engine = _Engine.from_position(
                v.num_players, self.roles, [list(h) for h in self.hands], pile, chest=chest, planks=v.planks,
                current_player=v.first_player, claims=v.claims, seed=0)

    def _resolve_draw(self, kind: int) -> None:
        """The first unresolved draw was a ``kind``: swap it into the drawer's hand for the provisional card, which
        goes back to the face-down pool (a face-down pile card, or another unresolved draw, of kind ``kind``)."""
        engine = self.engine
        seat, provisional = engine.unknown_draws.pop(0)
        if kind != provisional:
            engine.hands[seat][provisional] -= 1
            engine.hands[seat][kind] += 1
            for i, (card, known) in enumerate(zip(engine.draw_pile, engine.draw_known)):
                if card == kind and not known:
                    engine.draw_pile[i] = provisional
                    break
            else:
                other = next(d for d in engine.unknown_draws if d[1] == kind)
                engine.hands[other[0]][kind] -= 1
                engine.hands[other[0]][provisional] += 1
                other[1] = provisional
            engine._legal_entry = None

    def _resolve_shuffle(self, outcome: int) -> None:
        engine = self.engine
        order = list(itertools.permutations(range(engine.shuffled)))[outcome]
        engine.spyglass_seen = [engine.spyglass_seen[i] for i in order]
        engine.shuffled = 0

    def _observe(self) -> None:
        """Every seat's observation of the settled position joins its information state where it changed."""
        engine = self.engine
        for seat in range(self.variant.num_players):
            entry = "/o" + _digest(encode(engine, seat))
            info = self.info[seat]
            if not info or info[-1] != entry:
                # the latest observation entry, skipping own actions
                last = next((e for e in reversed(info) if e.startswith("/o")), None)
                if last != entry:
                    self.info[seat] = info + (entry,)

    def history_str(self) -> str:
        return ", ".join(map(str, self.history))

    def __str__(self) -> str:
        if self.engine is None:
            return f"deal: roles {self.roles}, hands {self.hands}, chest {self.chest}"
        return f"{self.engine.phase.name} seat {self.engine.current_player} history {self.engine.history}"
