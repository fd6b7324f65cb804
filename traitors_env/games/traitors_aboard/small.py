"""*Traitors Aboard*'s small variants: positions of the full game small enough to solve exactly (issue 50).

One declaration feeds both the environment and the exact solver: ``raw_env(num_players=3, small_variant="mini3")``
deals a variant's games from a seed (:func:`deal`), so every tool plays it (``--game traitors_aboard:mini3``, a
declared :class:`~traitors_env.core.game.Variant`), and :mod:`traitors_env.solve.traitors_aboard` walks the same
variant's whole tree with the same chance as explicit outcomes. Rulings S01–S03 (``docs/rules/small-variants.md``)
say how a variant departs from the rulebook's setup; the tree sizes are in ``docs/solve.md``.

A variant is the full game's rules (the engine is not changed) played from a dealt position: the cards in play
(hands, the pre-placed chest cards and the draw pile), Planks already in front of seats and chest cards already
placed (each placer knows its card; the public saw who placed it and what was announced, R04). Every other card of
the full deck is in the face-down discard pile, as :meth:`GameState.from_position` puts it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .cards import HAND_SIZE, LOOT_KINDS, NUM_CARD_KINDS, CardKind, Role, table_setup
from .engine import GameState

__all__ = ["VARIANTS", "SmallVariant", "deal", "variant"]


@dataclass(frozen=True)
class SmallVariant:
    """A small variant of *Traitors Aboard* (module doc).

    Attributes:
        name: the variant's key (``"mini3"``).
        description: one line for docs and reports.
        deck: cards in play per :class:`CardKind` (8 counts): ``HAND_SIZE·num_players`` in hands, then the chest's
            pre-placed cards, then ``pile`` in the draw pile; at most the full deck's count of each kind.
        pile: cards in the draw pile after the deal (≥ 1, R06).
        chest: pre-placed chest cards, bottom first, as ``(placer seat, announced loot index 0 = +1 / 1 = 0 / 2 = −2)``.
        planks: Planks already in front of each seat (0–2).
        num_players: 3–8 (the rulebook's setup table gives teams and target).
        first_player: the seat that plays first (R01 configurable).
        claims: the claim step (R14).
    """

    name: str
    description: str
    deck: tuple[int, ...]
    pile: int
    chest: tuple[tuple[int, int], ...] = ()
    planks: tuple[int, ...] | None = None
    num_players: int = 3
    first_player: int = 0
    claims: bool = False

    def __post_init__(self) -> None:
        setup = table_setup(self.num_players)
        full = setup.deck_counts()
        if len(self.deck) != NUM_CARD_KINDS or any(not isinstance(c, int) or c < 0 for c in self.deck):
            raise ValueError(f"variant {self.name!r}: deck={self.deck!r}; expected {NUM_CARD_KINDS} counts ≥ 0 (CardKind order)")
        too_many = [CardKind(k).name for k in range(NUM_CARD_KINDS) if self.deck[k] > full[k]]
        if too_many:
            raise ValueError(f"variant {self.name!r}: deck={self.deck!r} has more {too_many} than the full deck {full}")
        need = HAND_SIZE * self.num_players + len(self.chest) + self.pile
        if self.pile < 1 or sum(self.deck) != need:
            raise ValueError(f"variant {self.name!r}: deck has {sum(self.deck)} cards and pile={self.pile}; expected "
                             f"pile ≥ 1 and {HAND_SIZE}·{self.num_players} hands + {len(self.chest)} chest + pile cards")
        if any(not 0 <= p < self.num_players or a not in (0, 1, 2) for p, a in self.chest):
            raise ValueError(f"variant {self.name!r}: chest={self.chest!r}; expected (placer seat, announced 0–2) pairs")
        if len(self.chest) > sum(self.deck[k] for k in LOOT_KINDS):
            raise ValueError(f"variant {self.name!r}: {len(self.chest)} chest cards but only "
                             f"{sum(self.deck[k] for k in LOOT_KINDS)} loot cards in the deck")
        if self.planks is not None and (len(self.planks) != self.num_players or any(p not in (0, 1, 2) for p in self.planks)):
            raise ValueError(f"variant {self.name!r}: planks={self.planks!r}; expected one count 0–2 per seat")
        if not 0 <= self.first_player < self.num_players:
            raise ValueError(f"variant {self.name!r}: first_player={self.first_player!r}; expected a seat 0–{self.num_players - 1}")

    @property
    def mutineers(self) -> int:
        return table_setup(self.num_players).mutineers


def _deck(plus: int = 0, zero: int = 0, minus: int = 0, plank: int = 0, riddance: int = 0, spyglass: int = 0,
          catch: int = 0, pockets: int = 0) -> tuple[int, ...]:
    return (plus, zero, minus, plank, riddance, spyglass, catch, pockets)


#: The declared small variants, smallest first (tree sizes: docs/solve.md).
VARIANTS: dict[str, SmallVariant] = {
    v.name: v
    for v in (
        SmallVariant(
            "micro3",
            "as mini3 with no Planks in play (8×(+1), 6×(−2)): no one can be thrown overboard; for quick checks",
            deck=_deck(plus=8, minus=6), pile=2, chest=((0, 0), (1, 0), (2, 0)), planks=(2, 2, 2),
        ),
        SmallVariant(
            "mini3",
            "3 players (2 Pirates, 1 Mutineer), claims off; cards in play 7×(+1), 5×(−2), 2 Planks; a chest of 3 cards "
            "announced +1 (one per seat); 2 Planks before each seat; a draw pile of 2",
            deck=_deck(plus=7, minus=5, plank=2), pile=2, chest=((0, 0), (1, 0), (2, 0)), planks=(2, 2, 2),
        ),
        SmallVariant(
            "mini3_long",
            "as mini3 with a draw pile of 3 (every seat plays once)",
            deck=_deck(plus=8, minus=5, plank=2), pile=3, chest=((0, 0), (1, 0), (2, 0)), planks=(2, 2, 2),
        ),
    )
}


def variant(name: str) -> SmallVariant:
    """The declared variant ``name``; ``ValueError`` naming it and the declared ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"traitors_aboard has no small variant {name!r}; declared: {sorted(VARIANTS)}") from None


def deal(v: SmallVariant, seed: int | np.random.Generator | None = None, claims: bool | None = None) -> GameState:
    """A game of variant ``v`` dealt from ``seed``, by the chance of the variant's tree (S02): the Mutineers' seats
    uniformly, each hand drawn without replacement from the cards in play, the true kind of each pre-placed chest
    card drawn from the loot cards left (bottom first), the rest shuffled into the draw pile; then the engine's own
    generator (the same one) for every later random step. ``claims``: the claim step (R14; default the variant's).
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    n = v.num_players
    sets = list(itertools.combinations(range(n), v.mutineers))
    mutineers = sets[int(rng.integers(len(sets)))]
    roles = [int(Role.MUTINEER if s in mutineers else Role.PIRATE) for s in range(n)]
    left = [k for k in range(NUM_CARD_KINDS) for _ in range(v.deck[k])]
    hands = []
    for _ in range(n):
        picked = sorted(rng.choice(len(left), size=HAND_SIZE, replace=False).tolist(), reverse=True)
        hands.append([left.pop(i) for i in picked])
    chest = []  # bottom first, as declared
    for placer, announced in v.chest:
        loot = [i for i, kind in enumerate(left) if kind in LOOT_KINDS]
        chest.append((left.pop(loot[int(rng.integers(len(loot)))]), placer, announced))
    rng.shuffle(left)
    state = GameState.from_position(n, roles, hands, left, chest=chest[::-1], planks=v.planks,
                                    current_player=v.first_player, claims=v.claims if claims is None else bool(claims),
                                    seed=rng)
    state.small_variant = v.name
    return state
