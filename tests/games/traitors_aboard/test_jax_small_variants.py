"""The JAX twin deals and plays the small variants (``traitors_aboard:mini3`` …; rulings S01–S03).

Why: the JAX training backend trains a variant on its twin (``VariantTwin``, ``init_variant``), and the exact solver
(:mod:`traitors_env.solve.traitors_aboard`) scores the result on the variant's tree, so the twin must deal exactly
the tree's game: the same public position (S02, S03), the same chance (S01), and the same play from there.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402
import jax_replay as R  # noqa: E402

from traitors_env.core import load_game  # noqa: E402
from traitors_env.games.traitors_aboard.cards import LOOT_KINDS, NUM_CARD_KINDS  # noqa: E402
from traitors_env.games.traitors_aboard.engine import GameState  # noqa: E402
from traitors_env.games.traitors_aboard.jax import engine as E  # noqa: E402
from traitors_env.games.traitors_aboard.jax.observation import observe  # noqa: E402
from traitors_env.games.traitors_aboard.jax.position import game_from_state, init_variant  # noqa: E402
from traitors_env.games.traitors_aboard.observation import encode  # noqa: E402
from traitors_env.games.traitors_aboard.small import VARIANTS, deal  # noqa: E402
from traitors_env.solve.traitors_aboard import Node  # noqa: E402

NAMES = tuple(VARIANTS)
SAMPLES = 100_000


@jax.jit
def _deal_many(keys):
    return {name: jax.vmap(lambda k, v=v: init_variant(k, v))(keys) for name, v in VARIANTS.items()}


@pytest.fixture(scope="module")
def deals() -> dict:
    """``SAMPLES`` JAX deals of every variant, as host arrays of what the chance decides."""
    games = jax.device_get(_deal_many(jax.random.split(jax.random.PRNGKey(7), SAMPLES)))
    return {name: {"roles": g.roles[:, :3], "hands": g.hands[:, :3], "chest": g.chest_kind[:, :3],
                   "pile": g.draw[:, : VARIANTS[name].pile], "game": g} for name, g in games.items()}


def _hand(counts) -> tuple[int, ...]:
    return tuple(k for k in range(NUM_CARD_KINDS) for _ in range(int(counts[k])))


def _exact(v) -> dict:
    """``{(hand of seat 0, 1, 2, chest kinds bottom first): probability}``: the tree's chance of the deal's cards
    (:meth:`Node.chance_outcomes`; the roles are dealt first and apart, uniformly)."""
    out: dict = collections.defaultdict(float)
    n, c = v.num_players, len(v.chest)

    def walk(node: Node, p: float) -> None:
        last = len(node.hands) == n and len(node.chest) == c - 1
        for outcome, q in node.chance_outcomes():
            if last:
                out[(*node.hands, (*node.chest, outcome))] += p * q
            else:
                walk(node.child(outcome), p * q)

    walk(Node(v).child(0), 1.0)
    assert math.isclose(sum(out.values()), 1.0)
    return out


def _within_5_sigma(counts: collections.Counter, exact: dict, total: int, what: str) -> None:
    """Every outcome's frequency within 5 standard deviations (+ one count) of its exact probability, and no
    outcome the tree does not have."""
    assert set(counts) <= set(exact), f"{what}: outcomes the tree never deals: {sorted(set(counts) - set(exact))[:3]}"
    for key, p in exact.items():
        sigma = math.sqrt(p * (1 - p) / total)
        assert abs(counts[key] / total - p) <= 5 * sigma + 1 / total, (what, key, counts[key] / total, p)


def _python_position(v, game) -> GameState:
    """The reference game of the JAX deal's chance (roles, hands, chest kinds, pile) at the variant's declared public
    position (S02's Planks and chest placers and announcements, S03's first seat), as ``small.deal`` builds it."""
    n, c = v.num_players, len(v.chest)
    chest_bottom_first = [(int(game.chest_kind[c - 1 - j]), placer, announced) for j, (placer, announced)
                          in enumerate(v.chest)]
    state = GameState.from_position(
        n, [int(r) for r in game.roles[:n]], [list(_hand(game.hands[s])) for s in range(n)],
        [int(k) for k in game.draw[: v.pile]], chest=chest_bottom_first[::-1], planks=v.planks,
        current_player=v.first_player, claims=v.claims, seed=0)
    state.small_variant = v.name
    return state


_observe_seats = jax.jit(jax.vmap(observe, in_axes=(None, 0)))


@pytest.mark.parametrize("name", NAMES)
def test_s02_s03_a_jax_deal_is_the_variants_position(name, deals):
    """S02/S03: each JAX deal is the reference position of the same cards at the variant's public position: every
    field of the game equal, every seat's observation and the legal mask equal."""
    v = VARIANTS[name]
    games = deals[name]["game"]
    for b in range(0, 400, 4):
        game = jax.tree_util.tree_map(lambda x, b=b: x[b], games)
        state = _python_position(v, game)
        expected = jax.device_get(game_from_state(state))
        for field in ("roles", "hands", "draw_pile", "draw_size", "chest", "chest_size", "discard", "planks", "aboard",
                      "revealed", "current_player", "phase", "turn", "loot_placed", "announced_sum", "claims",
                      "claim_accuse", "targeted", "actions_played"):
            np.testing.assert_array_equal(getattr(game, field), getattr(expected, field), err_msg=f"{name} {b} {field}")
        np.testing.assert_array_equal(np.asarray(E.legal_action_mask(game)), state.legal_mask().astype(bool))
        observations = np.asarray(_observe_seats(game, jnp.arange(v.num_players)))
        np.testing.assert_array_equal(observations, np.stack([encode(state, s) for s in range(v.num_players)]))


@pytest.mark.parametrize("name", NAMES)
def test_game_from_state_reads_the_python_deal(name):
    """The converter: a Python deal of the variant (``small.deal``) as a JAX game observes and masks as it does."""
    v = VARIANTS[name]
    for seed in range(20):
        state = deal(v, seed)
        game = game_from_state(state)
        np.testing.assert_array_equal(np.asarray(E.legal_action_mask(game)), state.legal_mask().astype(bool))
        observations = np.asarray(_observe_seats(game, jnp.arange(v.num_players)))
        np.testing.assert_array_equal(observations, np.stack([encode(state, s) for s in range(v.num_players)]))


@pytest.mark.parametrize("name", NAMES)
def test_random_play_of_a_variant_replays_in_the_reference(name):
    """Random legal games of the variant in JAX (claims as the variant, and on) equal the reference engine's at
    every decision: mask, current player, every seat's observation, rewards, the end and where every card lies."""
    v = VARIANTS[name]
    claims = np.arange(320) % 5 == 4  # a fifth with the claim step on (the variant's own is off)
    batch = R.play_variant_batch(3, v, 320, claims=claims)
    assert batch["lengths"].max() > 1
    for b in range(len(claims)):
        R.replay_game(batch, b)


@pytest.mark.parametrize("name", NAMES)
def test_s01_the_deal_is_the_trees_chance(name, deals):
    """S01: over 100k JAX deals, the Mutineer's seat, seat 0's hand, the chest's kinds and the whole deal of cards
    (every hand and the chest) come at the tree's exact probabilities (each within 5 sigma), and the draw pile's order
    is uniform given its cards."""
    v, d = VARIANTS[name], deals[name]
    exact = _exact(v)
    hands = [[_hand(h) for h in row] for row in d["hands"]]
    chests = [tuple(int(k) for k in row[::-1]) for row in d["chest"]]  # bottom first
    joint = collections.Counter((*h, c) for h, c in zip(hands, chests))
    _within_5_sigma(joint, exact, SAMPLES, f"{name} deal")
    seat0, chest_exact = collections.defaultdict(float), collections.defaultdict(float)
    for key, p in exact.items():
        seat0[key[0]] += p
        chest_exact[key[-1]] += p
    _within_5_sigma(collections.Counter(h[0] for h in hands), seat0, SAMPLES, f"{name} seat 0's hand")
    _within_5_sigma(collections.Counter(chests), chest_exact, SAMPLES, f"{name} chest kinds")
    mutineer = collections.Counter(int(np.argmax(r)) for r in d["roles"])
    _within_5_sigma(mutineer, {s: 1 / 3 for s in range(3)}, SAMPLES, f"{name} Mutineer seat")
    assert (d["roles"].sum(1) == v.mutineers).all()
    # The pile: the cards left, each order of them equally likely.
    for row, h, c in zip(d["pile"], hands, chests):
        left = np.array(v.deck) - np.bincount([k for hand in h for k in hand] + list(c), minlength=NUM_CARD_KINDS)
        assert (np.bincount(row, minlength=NUM_CARD_KINDS) == left).all()
    by_cards = collections.defaultdict(collections.Counter)
    for row in d["pile"]:
        by_cards[tuple(sorted(row.tolist()))][tuple(row.tolist())] += 1
    for cards, orders in by_cards.items():
        total = sum(orders.values())
        distinct = math.factorial(len(cards)) // math.prod(math.factorial(cards.count(k)) for k in set(cards))
        _within_5_sigma(orders, {o: 1 / distinct for o in orders}, total, f"{name} pile order of {cards}")
        assert len(orders) == distinct or total < 50 * distinct


def test_s01_the_chest_is_drawn_from_the_loot_left_only(deals):
    """S01 (a Plank never goes to the chest): mini3's deals never put a Plank in the chest, and the chance that the
    draw pile holds no Plank is the tree's (loot-only chest), not that of chest cards drawn from all the cards left
    (as a plain shuffle of the 14 cards deals them: C(12, 2)/C(14, 2) = 66/91), which 100k deals tell apart."""
    d = deals["mini3"]
    assert np.isin(d["chest"], LOOT_KINDS).all()
    exact = _exact(VARIANTS["mini3"])
    deck = np.array(VARIANTS["mini3"].deck)
    no_plank = sum(p for key, p in exact.items()
                   if deck[3] - sum(k == 3 for hand in key[:-1] for k in hand) == 0)
    shuffled = math.comb(12, 2) / math.comb(14, 2)
    frequency = float(np.mean((d["pile"] == 3).sum(1) == 0))
    sigma = math.sqrt(no_plank * (1 - no_plank) / SAMPLES)
    assert abs(frequency - no_plank) <= 5 * sigma
    assert abs(shuffled - no_plank) > 20 * sigma  # the test would catch chest cards drawn from every card


def test_a_variant_game_has_a_twin_that_deals_it():
    """``load_game("traitors_aboard:mini3").jax()`` is the twin's API dealing mini3 (the training backend's engine by
    the variant's name); another game's variants keep no twin."""
    from training.jax_backend.engine import engine_names, make_engine
    from training.jax_backend.train import resolve_engine

    game = load_game("traitors_aboard:mini3")
    twin = game.jax()
    assert twin.__name__ == "traitors_env.games.traitors_aboard.jax"
    state = twin.init(jax.random.PRNGKey(0), 3)
    assert int(state._game.draw_size) == VARIANTS["mini3"].pile and int(state._game.chest_size) == 3
    assert not bool(state._game.claims)
    with pytest.raises(ValueError, match="played by 3 players"):
        twin.init(jax.random.PRNGKey(0), 5)
    after = twin.step(state, jnp.argmax(state.legal_action_mask), jax.random.PRNGKey(1))
    assert after.observation.shape == twin.observe(after, 0).shape
    assert "traitors_aboard:mini3" in engine_names() and "traitors_aboard" in engine_names()
    engine = make_engine("traitors_aboard:mini3", claims=False)
    assert engine.game == "traitors_aboard:mini3" and engine.probes
    assert resolve_engine(None, False, "traitors_aboard_v0:mini3") is engine  # a config's env.name, as train() reads it
    games = jax.vmap(engine.init)(jax.random.split(jax.random.PRNGKey(2), 8), jnp.full(8, 3))
    assert (np.asarray(games._game.chest_size) == 3).all()
    assert load_game("traitors_aboard").jax().__name__ == twin.__name__  # the full game's twin is the package
    for name in ("avalon", "the_traitors"):
        base = load_game(name)
        assert all(load_game(f"{name}:{v}").jax is None for v in base.variants)
