"""The JAX engine over a small variant's exact tree (training/jax_backend/tree_engine.py): legal play, chance, the
outcome distribution of random play against the exact tree's value, the observations and the heuristic against the
game's own, the backend's fallback to it, and a tiny training run whose checkpoint plays as an agent."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402

from training.jax_backend.tree_engine import TreeState, tables, tree_engine  # noqa: E402
from traitors_env.solve import exact  # noqa: E402

#: random games per variant: enough that ignoring the chance probabilities shows (see the test below)
GAMES = 10_000

VARIANTS = ["traitors_aboard:mini3", "avalon:mini5",
            pytest.param("openspiel_social_deduction:mini3", marks=pytest.mark.slow)]


def _needs(name):
    if name.startswith("openspiel"):
        pytest.importorskip("pyspiel")


def _random_games(name, games, seed=0, first_decision=False):
    """``games`` games of uniform random play: each seat's total reward, any illegal action, the side of each seat,
    and the (node, seat, observation) of the first decisions."""
    t, engine = tables(name), tree_engine(name)

    def play(key):
        k0, key = jax.random.split(key)
        state = engine.init(k0, t.num_players)
        first = (state.node, state.current_player, engine.acting_observation(state), state.legal_action_mask)
        first = first if first_decision else ()

        def body(carry):
            state, key, total, illegal = carry
            key, k_act, k_step = jax.random.split(key, 3)
            action = jax.random.categorical(k_act, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
            illegal = illegal | ~state.legal_action_mask[action]
            state = engine.step(state, action, k_step)
            return state, key, total + state.rewards, illegal

        carry = (state, key, jnp.zeros(t.seats), jnp.zeros((), bool))
        state, key, total, illegal = jax.lax.while_loop(lambda c: ~c[0].terminated, body, carry)
        after = engine.step(state, jnp.int32(0), key)  # pgx: no reward after the end, nothing changes
        return total, illegal, engine.roles(state), first, after.rewards, after.node == state.node

    return jax.device_get(jax.jit(jax.vmap(play))(jax.random.split(jax.random.key(seed), games)))


def _uniform(tree):
    return [np.full(len(node.legal_actions()), 1.0 / len(node.legal_actions())) for node in tree.info_node]


@pytest.mark.parametrize("name", VARIANTS)
def test_random_play_is_legal_ends_and_matches_the_exact_value(name):
    _needs(name)
    games = GAMES
    total, illegal, roles, _, after, unchanged = _random_games(name, games)
    t = tables(name)
    assert not illegal.any() and (after == 0).all() and unchanged.all()
    players = t.num_players
    assert (roles[:, players:] == -1).all() and set(np.unique(roles[:, :players])) <= {0, 1}
    assert (np.abs(total[:, :players]) == 1).all() and (total[:, players:] == 0).all()
    side0 = np.where(roles == 0, total, 0).sum(1) / (roles == 0).sum(1)
    assert np.all(np.where(roles == 0, total, 0) == np.where(roles == 0, side0[:, None], 0))  # one return per side
    assert np.all(np.where(roles == 1, total, 0) == np.where(roles == 1, -side0[:, None], 0))
    value = exact.policy_value_side(t.tree, _uniform(t.tree))
    se = max(side0.std(), 0.05) / np.sqrt(games)
    assert abs(side0.mean() - value) < 4 * se, (side0.mean(), value, se)


def test_ignoring_chance_probabilities_would_fail_the_value_check():
    """The check above has the power to see chance drawn uniformly instead of by its probabilities (Traitors
    Aboard's draws are not uniform)."""
    tree = tables("traitors_aboard:mini3").tree
    value = exact.policy_value_side(tree, _uniform(tree))
    flat = exact.Tree(tree.num_players, tree.kind, tree.player, tree.children, tree.actions,
                      [None if p is None else [1.0 / len(p)] * len(p) for p in tree.probs], tree.info, tree.team,
                      tree.returns, tree.side0_return)
    assert abs(exact.policy_value_side(flat, _uniform(tree)) - value) > 8 * 0.5 / np.sqrt(GAMES)  # ±1: std ≈ 0.5


@pytest.mark.parametrize("name", VARIANTS)
def test_observations_and_masks_are_the_games_own(name):
    _needs(name)
    t, engine = tables(name), tree_engine(name)
    tree = t.tree
    states = np.arange(len(tree.info_node))
    if len(states) > 3000:  # social deduction: a sample of its 43,884
        states = np.random.default_rng(0).choice(states, 3000, replace=False)

    @jax.jit
    def observe(ids, seats):
        def one(i, seat):
            state = TreeState(jnp.int32(0), seat, jnp.zeros(t.legal.shape[1], bool), jnp.zeros(t.seats),
                              jnp.bool_(False), jnp.bool_(False), jnp.full(t.seats, -1, jnp.int32).at[seat].set(i))
            return engine.acting_observation(state)

        return jax.vmap(one)(ids, seats)

    for chunk in np.array_split(states, max(1, len(states) // 500)):
        seats = np.asarray(tree.info_seat)[chunk]
        got = np.asarray(observe(jnp.asarray(chunk, jnp.int32), jnp.asarray(seats, jnp.int32)))
        want = np.stack([tree.info_node[i].observation(s) for i, s in zip(chunk, seats)])
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(t.legal[chunk], np.stack([tree.info_node[i].legal_mask() for i in chunk]) > 0)
    # along play: the acting seat's observation and mask at the node reached are those of the node's information state
    _, _, _, (node, seat, obs, mask), _, _ = _random_games(name, 64, seed=1, first_decision=True)
    for n, s, o, m in zip(node, seat, obs, mask):
        old = int(t.order[n])
        info = tree.info[old]
        assert tree.player[old] == s and tree.info_seat[info] == s
        np.testing.assert_array_equal(o, tree.info_node[info].observation(s))
        np.testing.assert_array_equal(m, np.asarray(tree.info_node[info].legal_mask()) > 0)


@pytest.mark.parametrize("name", ["traitors_aboard:mini3", "avalon:mini5"])
def test_heuristic_frequencies_match_its_probabilities(name):
    t, engine = tables(name), tree_engine(name)
    tree = t.tree
    mixed = [i for i in range(len(tree.info_node)) if (t.heuristic[t.obs_row[i]] > 0).sum() > 1][:3]
    picked = mixed + [0, len(tree.info_node) - 1]
    draws = 4000
    for i in picked:
        obs = jnp.asarray(tree.info_node[i].observation(tree.info_seat[i]))
        mask = jnp.asarray(t.legal[i])
        act = jax.jit(jax.vmap(lambda k, o, m: engine.heuristic_act(engine.heuristic_memory(), o, m, k)[0],
                               in_axes=(0, None, None)))
        actions = np.asarray(act(jax.random.split(jax.random.key(i), draws), obs, mask))
        p = t.heuristic[t.obs_row[i]]
        freq = np.bincount(actions, minlength=p.size) / draws
        assert (freq[p == 0] == 0).all()
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / draws) + 1e-9), (i, freq[p > 0], p[p > 0])


def test_the_backend_falls_back_to_the_tree_for_a_small_variant_without_a_twin(tmp_path):
    from jax_run_helpers import tiny_jax_config

    from training.config import ConfigError, backend_problem
    from training.jax_backend.engine import engine_names, make_engine, twin_engine
    from training.jax_backend.train import resolve_engine
    from traitors_env.core import load_game

    assert "avalon:mini5" in engine_names() and "avalon" not in engine_names()
    assert make_engine("traitors_aboard:mini3") is twin_engine("traitors_aboard:mini3", True, heuristic=True)
    config = _avalon_config(tmp_path, tiny_jax_config)
    assert backend_problem(load_game("avalon:mini5"), "jax") is None
    engine = resolve_engine(None, config.env.claims, config.game.name)
    assert engine is tree_engine("avalon:mini5") and engine.game == "avalon:mini5"
    with pytest.raises((ConfigError, ValueError), match="avalon_v0 has no JAX twin"):
        tiny_jax_config(tmp_path, env={"name": "avalon", "player_counts": [5], "claims": False})


def _avalon_config(tmp_path, tiny_jax_config, **changes):
    return tiny_jax_config(
        tmp_path, env={"name": "avalon:mini5", "player_counts": [5], "claims": False},
        evaluation={"games": 2, "player_counts": [5], "games_per_generation": 0, "workers": 1}, **changes)


@pytest.mark.slow
def test_a_tiny_run_on_the_tree_trains_and_its_checkpoint_plays(tmp_path):
    from jax_run_helpers import tiny_jax_config

    from training.jax_backend.train import train
    from traitors_env.agents.spec import agent_maker
    from traitors_env.core import load_game

    run = train(_avalon_config(tmp_path, tiny_jax_config))
    folder = run.path
    checkpoints = sorted(folder.rglob("*.msgpack"))
    assert {p.stem for p in checkpoints} >= {"good", "evil"}
    _, make = agent_maker(str(folder), game="avalon:mini5")
    agent = make(0)
    tree = tables("avalon:mini5").tree
    for i in (0, len(tree.info_node) - 1):
        node = tree.info_node[i]
        action = int(agent.act(node.observation(tree.info_seat[i]), node.legal_mask()))
        assert action in node.legal_actions()
    assert load_game("avalon:mini5").type.sides == ("good", "evil")
