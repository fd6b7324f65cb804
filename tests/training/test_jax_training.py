"""The JAX training backend (issue 13): team GAE, the game master's semantics, PPO, checkpoints, the run loop.

The semantics are those of ``TeamEnv`` (tests/training/test_training.py): one trajectory per team per game, the
terminal reward (R17) reaches the learner's last decision even when an opponent ends the game, games
where the learner never acts are not transitions. Checked on explicit grids, on the stand-in game and
on the real JAX engine.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402
from jax_run_helpers import tiny_jax_config  # noqa: E402

from training.jax_backend import ppo as P  # noqa: E402
from training.jax_backend import rollout as R  # noqa: E402
from training.jax_backend.engine import standin_engine  # noqa: E402
from traitors_env.core import load_game  # noqa: E402
from traitors_env.core.registry import DEFAULT_GAME  # noqa: E402

#: the actions of the game the stand-in (and these networks) are sized for
NUM_ACTIONS = load_game(DEFAULT_GAME).type.num_actions


def gae(valid, ended, reward, values=None, bootstrap=None, gamma=1.0, lam=1.0):
    valid = jnp.asarray(valid, bool)[:, None]
    ended = jnp.asarray(ended, bool)[:, None]
    reward = jnp.asarray(reward, jnp.float32)[:, None]
    values = jnp.zeros_like(reward) if values is None else jnp.asarray(values, jnp.float32)[:, None]
    bootstrap = jnp.zeros(1) if bootstrap is None else jnp.asarray([bootstrap], jnp.float32)
    adv, ret = P.team_gae(valid, values, ended, reward, bootstrap, gamma, lam)
    return np.asarray(adv[:, 0]), np.asarray(ret[:, 0])


# ---------------------------------------------------------------- team GAE on explicit grids
def test_r17_reward_of_a_game_ended_by_an_opponent_reaches_the_learners_last_decision():
    # decisions: learner, opponent, learner, opponent (ends the game, learner's team won), then a new game
    valid = [1, 0, 1, 0, 1]
    ended = [0, 0, 0, 1, 0]
    reward = [0, 0, 0, 1, 0]
    adv, ret = gae(valid, ended, reward, bootstrap=0.5)
    assert adv[2] == 1.0 and adv[0] == 1.0  # gamma = lambda = 1: every decision of the game returns +1
    assert adv[1] == adv[3] == 0.0  # opponent decisions are not transitions
    assert adv[4] == 0.5  # the new game's decision bootstraps; the old game's reward does not leak into it


def test_a_game_without_learner_decisions_gives_nothing_and_cuts_the_previous_game_off():
    # game A: learner, then the learner's decision ends it (lost); game B: opponents only, ended (won); game C: learner
    valid = [1, 1, 0, 0, 1]
    ended = [0, 1, 0, 1, 0]
    reward = [0, -1, 0, 1, 0]
    adv, _ = gae(valid, ended, reward, bootstrap=0.25)
    assert list(adv[:2]) == [-1.0, -1.0]  # game B's +1 never reaches game A
    assert adv[4] == 0.25


def test_discounting_counts_learner_decisions_only():
    # Three learner decisions with many opponent decisions between them; gamma applies twice, not seven times.
    valid = [1, 0, 0, 0, 1, 0, 0, 1, 0]
    ended = [0, 0, 0, 0, 0, 0, 0, 0, 1]
    reward = [0, 0, 0, 0, 0, 0, 0, 0, 1]
    adv, _ = gae(valid, ended, reward, gamma=0.9, lam=1.0)
    assert adv[7] == pytest.approx(1.0) and adv[4] == pytest.approx(0.9) and adv[0] == pytest.approx(0.81)


def test_gae_with_values_matches_the_textbook_recursion():
    valid = [1, 0, 1, 1, 0]
    ended = [0, 0, 0, 0, 1]
    reward = [0, 0, 0, 0, -1]
    values = [0.2, 9.0, -0.1, 0.4, 9.0]  # opponent rows' values are never read
    gamma, lam = 0.99, 0.95
    adv, ret = gae(valid, ended, reward, values, bootstrap=3.0, gamma=gamma, lam=lam)
    v = [0.2, -0.1, 0.4]
    d2 = -1 - v[2]
    d1 = gamma * v[2] - v[1]
    d0 = gamma * v[1] - v[0]
    a2 = d2
    a1 = d1 + gamma * lam * a2
    a0 = d0 + gamma * lam * a1
    assert adv[[0, 2, 3]] == pytest.approx([a0, a1, a2], abs=1e-6)
    assert ret[[0, 2, 3]] == pytest.approx([a0 + v[0], a1 + v[1], a2 + v[2]], abs=1e-6)


# ---------------------------------------------------------------- the game master in a scan
def _model():
    model = P.ActorCritic((16,), NUM_ACTIONS)
    params = model.init(jax.random.key(0), jnp.zeros((1, 1228)))
    return model, params, lambda p, o: model.apply(p, o, method=P.ActorCritic.logits)


def _stacked(params, size):
    return jax.tree_util.tree_map(lambda x: jnp.stack([x] * size), params)


@functools.cache
def _scan(engine, steps, batch, capacities=None):
    """A jitted rollout of ``steps`` decisions that also returns who acted (compiled once for both teams)."""
    model, params, actor = _model()
    settings = R.Settings((3, 4, 5, 6, 7, 8), (1 / 6,) * 6, steps, 1.0, 1.0, True, capacities)

    def run(team, probabilities):
        opponents = R.Opponents(probabilities, params, _stacked(params, 2), jnp.int32(2))
        slots = R.new_slots(engine, settings, jax.random.key(1), batch, opponents)

        def body(slots, key):
            before = (jax.vmap(engine.roles)(slots.state), slots.state.current_player, slots.empty)
            slots, rec = R.game_step(engine, settings, model.apply, actor, params, team, opponents, slots, key)
            return slots, (rec, before)

        return jax.lax.scan(body, slots, jax.random.split(jax.random.key(2 + team), steps))[1]

    return jax.jit(run)


def _replay_check(engine, team, kinds, steps=48, batch=16, capacities=None):
    """Roll out, then check each slot's transitions against the record of who acted."""
    scan = _scan(engine, steps, batch, capacities)
    rec, (roles, seats, empty) = scan(jnp.int32(team), jnp.asarray(kinds, jnp.float32))
    roles, seats, empty = np.asarray(roles), np.asarray(seats), np.asarray(empty)
    valid = np.asarray(rec["valid"])
    # A slot whose game ended is empty — no decision, no transition, no game end — until a deal hands it a new
    # game; a deal gives up to deal_size(16) = 8 empty slots a game once at least 4 are empty.
    ended = np.asarray(rec["ended"])
    assert empty.any() and not (valid & empty).any() and not (ended & empty).any()
    assert (empty[:-1] & ~empty[1:]).any()  # deals came in the middle of the rollout
    size = R.deal_size(batch)
    for t in range(steps - 1):
        after = empty[t].sum() + ended[t].sum()
        assert empty[t + 1].sum() == (after - min(size, after) if after >= size // 2 else after)
    acting_team = np.take_along_axis(roles, seats[..., None], axis=-1)[..., 0]
    if capacities is None:
        assert (valid == ((acting_team == team) & ~empty)).all()  # exactly the learner seats' decisions are transitions
    else:
        assert not (valid & (acting_team != team)).any()  # only the learner seats' decisions are transitions
        waited = (acting_team == team) & ~valid & ~empty  # the learner's games beyond its capacity wait a step
        assert waited.any() and valid.sum(axis=1).max() <= capacities[0]
    index = np.asarray(rec["learner"]["index"])
    for t in range(steps):  # the learner's sub-batch holds exactly its games of the step
        assert sorted(index[t][index[t] < batch]) == list(np.flatnonzero(valid[t]))
    assert (acting_team >= 0).all()  # only real seats act
    ended, reward = np.asarray(rec["ended"]), np.asarray(rec["team_reward"])
    assert set(np.unique(reward[ended])) <= {-1.0, 1.0}
    adv, _ = P.team_gae(
        rec["valid"], jnp.zeros_like(rec["value"]), rec["ended"], rec["team_reward"], jnp.zeros(batch), 1.0, 1.0
    )
    adv = np.asarray(adv)
    ended_by_opponent = without_learner = 0
    for b in range(batch):
        start = 0
        for t in np.flatnonzero(ended[:, b]):
            game = slice(start, t + 1)
            learner = np.flatnonzero(valid[game, b]) + start
            if learner.size:
                assert (adv[learner, b] == reward[t, b]).all()  # every decision returns the game's result
                ended_by_opponent += not valid[t, b]
            else:
                without_learner += 1
            start = t + 1
        assert (adv[start:, b] == 0).all()  # the unfinished game bootstraps (from 0 here)
    return ended_by_opponent, without_learner, np.asarray(rec["learner"]["obs"])


@pytest.mark.parametrize("team", [0, 1])
def test_standin_rollout_transitions_are_the_learners_decisions_with_their_games_result(team):
    by_opponent, _, _ = _replay_check(standin_engine(), team, (0.3, 0.2, 0.3, 0.2))
    assert by_opponent > 0  # the sample holds the case under test


def test_players_computed_on_sub_batches_keep_the_team_semantics_and_games_wait_for_room():
    # Capacities below the demand: games wait, transitions and results are still the learner's own.
    by_opponent, _, _ = _replay_check(standin_engine(), 1, (0.3, 0.2, 0.3, 0.2), steps=64, capacities=(4, 2, 2, 4, 2))
    assert by_opponent > 0


def test_past_opponents_draw_their_snapshot_per_game_and_keep_it_all_game():
    # Snapshots stand in as numbers: snapshot 0 plays the lowest legal action, snapshot 1 the highest.
    engine = standin_engine()
    model, params, _ = _model()
    settings = R.Settings((3, 4, 5, 6, 7, 8), (1 / 6,) * 6, 64, 1.0, 1.0, True, None)

    def actor(snapshot, obs):
        ramp = jnp.arange(NUM_ACTIONS, dtype=jnp.float32) * 100.0
        return jnp.broadcast_to(jnp.where(snapshot == 0, -ramp, ramp), obs.shape[:-1] + ramp.shape)

    # Three pooled entries of which two are real: entry 2 (a repeat) is never drawn.
    opponents = R.Opponents(jnp.asarray([0.0, 1.0, 0.0, 0.0]), jnp.float32(0), jnp.asarray([0.0, 1.0, 1.0]), jnp.int32(2))

    @jax.jit
    def run():
        slots = R.new_slots(engine, settings, jax.random.key(4), 32, opponents)

        def body(slots, key):
            before = (slots.past, slots.state.legal_action_mask.astype(bool), slots.empty)
            slots, rec = R.game_step(engine, settings, model.apply, actor, params, 0, opponents, slots, key)
            return slots, (before, rec["action"], rec["valid"], rec["ended"])

        return jax.lax.scan(body, slots, jax.random.split(jax.random.key(5), 64))[1]

    (drawn, mask, empty), action, valid, ended = jax.device_get(run())
    assert set(np.unique(drawn)) == {0, 1}  # both real snapshots are met, the repeat never
    lowest = mask.argmax(-1)
    highest = mask.shape[-1] - 1 - mask[..., ::-1].argmax(-1)
    opponent = ~valid & ~empty  # an empty slot (its game ended, no new one dealt yet) makes no decision
    assert opponent.sum() > 100
    expected = np.where(drawn == 0, lowest, highest)
    assert (action[opponent] == expected[opponent]).all()  # each game meets the snapshot it drew
    # A game keeps its snapshot until it ends; the slot's next game draws again (both values follow some deal).
    same_game = ~ended[:-1] & ~empty[:-1]
    assert (drawn[1:][same_game] == drawn[:-1][same_game]).all()
    dealt = (ended[:-1] | empty[:-1]) & ~empty[1:]
    redrawn = drawn[1:][dealt] != drawn[:-1][dealt]
    assert redrawn.any() and not redrawn.all()


def test_past_pool_holds_every_older_snapshot_or_a_uniform_sample():
    rng = np.random.default_rng(0)
    assert R.past_pool([], 3, rng) == ([], 0)
    assert R.past_pool(["a", "b"], 3, rng) == (["a", "b", "a"], 2)  # repeats fill the static size
    picked = [tuple(R.past_pool(list("abcdefghij"), 4, rng)[0]) for _ in range(2000)]
    counts = {c: sum(c in p for p in picked) for c in "abcdefghij"}
    assert all(len(set(p)) == 4 for p in picked)  # a sample without replacement
    assert max(counts.values()) - min(counts.values()) < 200  # each older snapshot ~ 800 times: uniform


def test_capacities_follow_the_learner_share_and_the_opponent_mix():
    caps = R.capacities(1024, 1, (0.25, 0.05, 0.6, 0.1))
    assert caps[0] == 336  # the Mutineers' share: 1024 × 0.28 × 1.15, rounded up to 8s
    # past: 1024 × 0.72 × 1.15 × (its games 4× as long as the others': 0.2 / (0.2 + 0.95)), rounded up to 8s
    assert caps[2] == 152
    assert R.capacities(1024, 0, (0.0, 0.0, 1.0, 0.0))[1:3] == (0, 0)  # a kind never drawn is never computed
    assert max(R.capacities(16, 0, (0.25, 0.25, 0.25, 0.25))) <= 16


@pytest.mark.slow  # compiles the real engine (about a minute on 2 cores)
def test_real_engine_rollout_transitions_are_the_learners_decisions_with_their_games_result():
    pytest.importorskip("pgx")
    from training.jax_backend.engine import twin_engine

    engine = twin_engine(heuristic=False)
    by_opponent = without_learner = 0
    for team in (0, 1):
        ended, skipped, obs = _replay_check(engine, team, (0.5, 0.0, 0.0, 0.5), steps=96, batch=32)
        by_opponent, without_learner = by_opponent + ended, without_learner + skipped
        assert np.abs(obs).max() <= 1.0  # policies see the scaled observation
    assert by_opponent > 0 and without_learner > 0  # the sample holds the cases under test


def test_opponent_probabilities_drop_kinds_without_snapshots():
    weights = {"latest": 0.4, "past": 0.2, "heuristic": 0.3, "random": 0.1}
    assert R.opponent_probabilities(weights, 0) == pytest.approx([0, 0, 0.75, 0.25])
    assert R.opponent_probabilities(weights, 1) == pytest.approx([0.5, 0, 0.375, 0.125])
    assert R.opponent_probabilities(weights, 3) == pytest.approx([0.4, 0.2, 0.3, 0.1])
    with pytest.raises(ValueError, match="no opponent kind"):
        R.opponent_probabilities({"latest": 1.0}, 0)


def test_masked_distribution_never_picks_or_weighs_illegal_actions():
    logits = jnp.asarray([[5.0, 0.0, 1.0, -2.0]])
    mask = jnp.asarray([[False, True, True, False]])
    logp, entropy = P.log_prob_entropy(logits, mask, jnp.asarray([2]))
    p = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    assert float(logp[0]) == pytest.approx(np.log(p[1]), abs=1e-6)
    assert float(entropy[0]) == pytest.approx(-(p * np.log(p)).sum(), abs=1e-6)
    draws = jax.random.categorical(jax.random.key(0), P.masked_logits(logits, mask), shape=(500, 1))
    assert set(np.unique(np.asarray(draws))) <= {1, 2}


@pytest.mark.parametrize("net_arch, activation", [((), "tanh"), ((16,), "tanh"), ((32, 8), "relu"), ((128, 128), "tanh")])
def test_actor_critic_is_two_separate_mlps_with_the_first_layers_in_one_matmul(net_arch, activation):
    """The fused first layer changes neither the parameters nor the math: two NumPy MLPs on the same tree agree."""
    model = P.ActorCritic(net_arch, NUM_ACTIONS, activation)
    params = model.init(jax.random.key(0), jnp.zeros((1, 1228)))
    towers = params["params"]
    names = [f"hidden_{i}" for i in range(len(net_arch))] + ["out"]
    for tower, head in (("actor", NUM_ACTIONS), ("critic", 1)):  # the checkpoint's tree (jax_checkpoint)
        assert list(towers[tower]) == names
        assert [towers[tower][n]["kernel"].shape for n in names] == list(zip((1228, *net_arch), (*net_arch, head)))
    params = jax.tree_util.tree_map(lambda x: x + 0.1 * jax.random.normal(jax.random.key(1), x.shape), params)
    obs = np.asarray(jax.random.uniform(jax.random.key(2), (32, 1228)) * 4.0)
    act = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}[activation]

    def numpy_mlp(tower):
        x = obs.astype(np.float64)
        for n in names:
            x = x @ np.asarray(tower[n]["kernel"], np.float64) + np.asarray(tower[n]["bias"], np.float64)
            x = act(x) if n != "out" else x
        return x

    logits, value = model.apply(params, jnp.asarray(obs))
    assert logits.shape == (32, NUM_ACTIONS) and value.shape == (32,)
    np.testing.assert_allclose(logits, numpy_mlp(params["params"]["actor"]), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(value, numpy_mlp(params["params"]["critic"])[:, 0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(model.apply(params, jnp.asarray(obs), method=P.ActorCritic.logits), logits, atol=1e-5)


def test_update_capacity_is_whole_minibatches_leaving_out_at_most_five_percent():
    from training.jax_backend.train import update_capacity

    assert update_capacity(8_200, 2048) == 8192  # 8 of 8,200 left out, where rounding up padded 2,040 rows
    assert update_capacity(23_900, 2048) == 24_576  # 12 minibatches: 676 padding rows, none left out
    assert update_capacity(7_000, 2048) == 8192  # 3 minibatches would leave out 12%: pad instead
    assert update_capacity(100, 2048) == 2048  # at least one minibatch
    for n in range(1000, 40_000, 337):
        rows = update_capacity(n, 512)
        assert rows % 512 == 0 and rows >= 0.95 * n and (rows < n + 512)


def test_compact_keeps_valid_rows_and_pads_with_zero_weight():
    valid = jnp.asarray([[True, False], [False, True], [True, False]])
    grid = P.Batch(*(jnp.arange(6.0).reshape(3, 2) for _ in range(8)))
    batch = P.compact(jax.random.key(0), grid, valid, 4)
    assert sorted(np.asarray(batch.obs)[np.asarray(batch.weight) > 0].tolist()) == [0.0, 3.0, 4.0]
    assert np.asarray(batch.weight).sum() == 3
    small = P.compact(jax.random.key(0), grid, valid, 2)
    assert set(np.asarray(small.obs).tolist()) <= {0.0, 3.0, 4.0} and np.asarray(small.weight).sum() == 2


# ---------------------------------------------------------------- checkpoints as agents
def test_jax_checkpoint_agent_plays_the_trained_actors_probabilities(tmp_path):
    from traitors_env.agents.checkpoint import OBS_SCALE, load_frozen_policy
    from traitors_env.agents.jax_checkpoint import save_checkpoint

    model = P.ActorCritic((8, 8), NUM_ACTIONS, "relu")
    params = model.init(jax.random.key(3), jnp.zeros((1, 1228)))
    optimizer = P.make_optimizer(1e-3, 0.5)
    path = tmp_path / "pirates.msgpack"
    save_checkpoint(
        path, params, optimizer.init(params), team="pirates", net_arch=[8, 8], activation="relu", num_timesteps=7
    )
    policy = load_frozen_policy(path)
    rng = np.random.default_rng(0)
    obs = rng.uniform(-1, 1, 1228).astype(np.float32) * OBS_SCALE
    mask = (rng.random(196) < 0.3).astype(np.int8)
    mask[5] = 1
    logits = model.apply(params, jnp.asarray(obs / OBS_SCALE)[None], method=P.ActorCritic.logits)[0]
    expected = np.asarray(jax.nn.softmax(P.masked_logits(logits, jnp.asarray(mask))))
    assert policy.probabilities(obs, mask) == pytest.approx(expected, abs=1e-5)
    assert (policy.probabilities(obs, mask)[mask == 0] == 0).all()


def test_broken_jax_checkpoint_is_a_clear_error(tmp_path):
    from traitors_env.agents.checkpoint import PolicyLoadError, load_frozen_policy

    path = tmp_path / "pirates.msgpack"
    path.write_bytes(b"not msgpack at all")
    with pytest.raises(PolicyLoadError, match="not a JAX PPO checkpoint|not a 'traitors-env-jax-ppo'"):
        load_frozen_policy(path)
    with pytest.raises(PolicyLoadError, match="does not exist"):
        load_frozen_policy(tmp_path / "missing.msgpack")


def test_the_checkpoint_format_names_no_game_and_the_old_name_still_reads(tmp_path):
    """The format string is generic; a checkpoint written under its earlier name (``traitors-aboard-jax-ppo``) reads
    as before, and a file of another format is refused."""
    from flax import serialization

    from traitors_env.agents.checkpoint import PolicyLoadError
    from traitors_env.agents.jax_checkpoint import FORMAT, OLD_FORMATS, read_checkpoint, save_checkpoint

    assert FORMAT == "traitors-env-jax-ppo" and OLD_FORMATS == ("traitors-aboard-jax-ppo",)
    kind = load_game(DEFAULT_GAME).type
    params = {"params": {"actor": {"out": {"kernel": np.zeros((kind.observation_shape[0], kind.num_actions),
                                                              np.float32),
                                           "bias": np.zeros(kind.num_actions, np.float32)}}}}
    path = tmp_path / "pirates.msgpack"
    save_checkpoint(path, params, {}, team="pirates", net_arch=[], activation="tanh", num_timesteps=7)
    assert read_checkpoint(path)["format"] == FORMAT
    for name, readable in (("traitors-aboard-jax-ppo", True), ("someone-elses-format", False)):
        data = serialization.msgpack_restore(path.read_bytes())
        data["format"] = name
        path.write_bytes(serialization.msgpack_serialize(data))
        if readable:
            assert read_checkpoint(path)["num_timesteps"] == 7
        else:
            with pytest.raises(PolicyLoadError, match="is not a 'traitors-env-jax-ppo' file"):
                read_checkpoint(path)


# ---------------------------------------------------------------- the run: 2 generations, resume, agents by spec
def test_tiny_jax_run_trains_two_generations_resumes_and_plays_by_spec(tmp_path):
    from training.evaluate import evaluate_run
    from training.jax_backend.train import train
    from training.storage import RunFolder
    from traitors_env.agents import TeamAgent
    from traitors_env.agents.spec import load_agent

    engine = standin_engine()
    config = tiny_jax_config(tmp_path)
    run = train(config, engine=engine)
    assert isinstance(run, RunFolder) and run.completed_generations() == 1
    # A kill during generation 2 left a half-written checkpoint behind; --resume redoes that generation.
    run.generation_dir(1).mkdir(parents=True)
    (run.generation_dir(1) / "pirates.msgpack").write_bytes(b"half")
    config2 = tiny_jax_config(tmp_path, training={"generations": 2})
    train(config2, resume=True, engine=engine)
    state = run.read_state()
    assert state["completed_generations"] == 2
    for record in state["history"]:
        for team in ("pirates", "mutineers"):
            assert record["teams"][team]["learner_steps"] >= 200
        assert set(record["vs_heuristic"]["pirates"]) == {"trained", "heuristic", "random"}
    assert run.checkpoint(1, "mutineers").suffix == ".msgpack"
    from traitors_env.agents.jax_checkpoint import read_checkpoint

    data = read_checkpoint(run.checkpoint(1, "pirates"))
    assert data["team"] == "pirates" and data["num_timesteps"] == state["history"][1]["teams"]["pirates"]["total_timesteps"]
    rows = (run.path / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("generation,team,time/total_timesteps") and {r.split(",")[0] for r in rows[1:]} == {"1", "2"}
    assert list((run.path / "tensorboard" / "mutineers").glob("events.out.tfevents.*"))
    assert (run.path / "generations.csv").is_file() and (run.path / "winrates.png").is_file()

    label, agent = load_agent(str(run.path), seed=0)  # a run folder: its newest generation, by role
    assert label.endswith("gen_002") and isinstance(agent, TeamAgent)
    label, agent = load_agent(str(run.checkpoint(0, "mutineers")), seed=0)
    assert label.startswith("policy:")
    report = evaluate_run(config2, run, progress=False)
    assert report["generation"] == 2 and len(report["cells"]) == 18  # 1-based

    # Same seed, same run: training is deterministic.
    again = train(tiny_jax_config(tmp_path / "again"), engine=engine)
    first = read_checkpoint(RunFolder(run.path).checkpoint(0, "pirates"))["params"]
    second = read_checkpoint(again.checkpoint(0, "pirates"))["params"]
    jax.tree_util.tree_map(np.testing.assert_array_equal, first, second)
    assert json.loads((again.path / "state.json").read_text())["completed_generations"] == 1


def test_warm_up_compiles_the_mutineers_turn_and_changes_no_checkpoint(tmp_path, monkeypatch):
    """``Trainer.warm_up`` (run by ``train`` in a thread) compiles the very programs the Mutineers' turn then runs
    (each jitted function of the run holds one compilation), and a run without it writes the same bytes."""
    from training.jax_backend.train import Trainer, train

    engine = standin_engine()
    changes = {"evaluation": {"games_per_generation": 0}}  # compiled() shared with the other tiny runs: cheaper
    trainer = Trainer(tiny_jax_config(tmp_path, **changes), engine)  # the run's own jitted functions (cached)
    functions = (*trainer.rollouts, *trainer.new_slots)
    before = [f._cache_size() for f in functions]
    warmed = train(tiny_jax_config(tmp_path / "warmed", **changes), engine=engine)
    # a warm-up on other argument types would leave two entries (its own and the turn's), at least when run first
    assert all(f._cache_size() - n <= 1 for f, n in zip(functions, before)), (before, functions)

    monkeypatch.setattr(Trainer, "warm_up", lambda self, *args: None)
    cold = train(tiny_jax_config(tmp_path / "cold", **changes), engine=engine)
    for team in ("pirates", "mutineers"):
        assert warmed.checkpoint(0, team).read_bytes() == cold.checkpoint(0, team).read_bytes(), team


def test_a_stopped_warm_up_compiles_and_runs_nothing_more(tmp_path):
    """Review finding: Python joins the warm-up thread at exit, so a run stopped (Ctrl-C, an error) during the
    Pirates' first turn waited for the Mutineers' whole warm-up; ``stop`` ends it before its next step."""
    import threading

    from training.jax_backend.train import Trainer

    trainer = Trainer(tiny_jax_config(tmp_path), standin_engine())
    params, opt_state = trainer.init_params(0)
    calls = []
    stop = threading.Event()

    def deal(key, opponents):
        calls.append("deal")
        stop.set()  # the run stops while the warm-up deals

    def refuse(*args, **kwargs):
        raise AssertionError("the warm-up went on after stop was set")

    trainer.new_slots = (refuse, deal)
    trainer.rollouts = (refuse, refuse)
    trainer._learn = refuse
    trainer.warm_up(1, params, opt_state, stop)
    assert calls == ["deal"]
    trainer.warm_up(1, params, opt_state, stop)  # already set: not even the deal
    assert calls == ["deal"]


def test_a_minibatch_larger_than_the_rollout_is_warned_once_per_team(tmp_path):
    """Review finding: with ``ppo.batch_size`` above a rollout's learner decisions each update was one mostly
    padded minibatch, silently."""
    import warnings

    from training.jax_backend.train import Trainer

    trainer = Trainer(tiny_jax_config(tmp_path, ppo={"batch_size": 4096}), standin_engine())
    trainer._learn = lambda *args, capacity, magnet=None: capacity
    with pytest.warns(UserWarning, match=r"ppo.batch_size=4096 is more than the 100 pirates decisions of a rollout"):
        assert trainer.learn("pirates", None, None, None, None, None, 100) == 4096
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trainer.learn("pirates", None, None, None, None, None, 40)  # once per team
        trainer.learn("mutineers", None, None, None, None, None, 8000)  # within one minibatch's reach: no warning
    # per team, not once per trainer: the Mutineers' own short first rollout is warned after the Pirates' was
    other = Trainer(tiny_jax_config(tmp_path, ppo={"batch_size": 4096}), standin_engine())
    other._learn = lambda *args, capacity, magnet=None: capacity
    with pytest.warns(UserWarning, match="pirates decisions"):
        other.learn("pirates", None, None, None, None, None, 100)
    with pytest.warns(UserWarning, match=r"ppo.batch_size=4096 is more than the 300 mutineers decisions"):
        other.learn("mutineers", None, None, None, None, None, 300)


@pytest.mark.slow  # about a minute: its own compilation and a dozen PPO iterations
def test_jax_backend_learns_the_standin_game():
    """A few PPO iterations on the stand-in (where even actions score) raise the learner's training win rate."""
    from training.config import config_from_dict
    from training.jax_backend.train import Trainer

    config = config_from_dict(
        {
            "name": "learn",
            "backend": "jax",
            "opponents": {"latest": 0.0, "past": 0.0, "heuristic": 0.0, "random": 1.0},
            "training": {"n_envs": 64},
            "ppo": {"n_steps": 32, "batch_size": 256, "n_epochs": 4, "net_arch": [32], "learning_rate": 3.0e-3},
        }
    )
    trainer = Trainer(config, standin_engine())
    params, opt_state = trainer.init_params(0)
    rates = []
    trainer.train_team(1, params, opt_state, [], 0, 12_000, lambda m: rates.append(m["wins"] / max(m["games"], 1)))
    assert len(rates) >= 6
    assert np.mean(rates[-2:]) > np.mean(rates[:2]) + 0.15


# ---------------------------------------------------------------- the training benchmark
def test_training_benchmark_measures_both_backends_and_both_teams(tmp_path):
    from training.bench import format_report, run_training_benchmark
    from training.config import config_from_dict

    sb3 = config_from_dict(
        {
            "name": "bench_sb3",
            "env": {"player_counts": [3, 5]},
            "training": {"n_envs": 2, "progress_bar": False},
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
        }
    )
    result = run_training_benchmark(sb3, tiny_jax_config(tmp_path), 0.5, engine=standin_engine())
    for team in ("pirates", "mutineers"):
        entry = result["teams"][team]
        assert entry["sb3"]["learner_decisions"] > 0 and entry["jax"]["learner_decisions"] > 0
        assert entry["jax_over_sb3"] == pytest.approx(  # rounded to 2 decimals (a loaded machine gives ~0.04 here)
            entry["jax"]["learner_decisions_per_s"] / entry["sb3"]["learner_decisions_per_s"], abs=0.005
        )
        assert entry["jax"]["update_only_learner_decisions_per_s"] > 0  # the update alone, timed
    ceiling = result["ceiling"]
    assert ceiling["matmul_gflops"] > 0 and ceiling["max_learner_decisions_per_s"] > 0
    assert ceiling["teams"]["pirates"]["ten_times_sb3"] == round(10 * result["teams"]["pirates"]["sb3"]["learner_decisions_per_s"])
    report = format_report(result)
    assert "JAX / SB3" in report and "GFLOP/s" in report


def test_the_benchmark_runs_the_jax_backend_with_the_sb3_configs_network_epochs_and_opponents(tmp_path):
    from training.bench import comparable_jax_config
    from training.config import config_from_dict

    sb3 = config_from_dict(
        {"name": "s", "opponents": {"latest": 0.5, "past": 0.1, "heuristic": 0.3, "random": 0.1},
         "ppo": {"net_arch": [32, 16], "activation": "relu", "n_epochs": 5}}
    )
    jax_config = tiny_jax_config(tmp_path, ppo={"n_epochs": 2, "batch_size": 128})
    bench = comparable_jax_config(sb3, jax_config)
    assert (bench.ppo.net_arch, bench.ppo.activation, bench.ppo.n_epochs) == ([32, 16], "relu", 5)
    assert bench.opponents == sb3.opponents
    assert (bench.ppo.batch_size, bench.training.n_envs) == (128, jax_config.training.n_envs)  # its own layout


def test_learner_flops_count_the_dense_layers_of_actor_and_critic():
    from training.bench import learner_flops

    # obs 10 -> hidden 4 -> heads 3 (actor) and 1 (critic): forward MACs 10*4 + 4*3 + 10*4 + 4*1 = 96
    flops = learner_flops((4,), 2, 10, 3)
    assert flops["forward"] == 2 * 96
    # backward: weight gradients (96 MACs) + input gradients of all but the first layers (12 + 4)
    assert flops["update"] == 2 * (2 * 96 + 2 * (96 + 16))
    assert flops["total"] == flops["forward"] + flops["update"]


def test_traitors_bench_training_hands_over_and_writes_json_under_training(tmp_path, capsys):
    from training.bench import cli as main  # the traitors-bench command

    config = tmp_path / "sb3.yaml"
    config.write_text(
        "name: b\nenv: {player_counts: [3]}\ntraining: {n_envs: 1, progress_bar: false}\n"
        "ppo: {n_steps: 16, batch_size: 16, n_epochs: 1, net_arch: [8]}\n"
    )
    out = tmp_path / "bench.json"
    args = ["--training", "--backends", "sb3", "--seconds", "0.3", "--sb3-config", str(config), "--quiet"]
    assert main(args + ["--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["training"]["teams"]["mutineers"]["sb3"]["learner_decisions_per_s"] > 0
    assert "learner decisions/s" in capsys.readouterr().out


def test_each_team_deals_its_own_table_size_weights_in_the_compiled_loop(tmp_path):
    """``env.mutineers_player_count_weights`` reaches the Mutineers' deals (the first and those mid-rollout); the
    Pirates keep ``env.player_count_weights``."""
    from training.jax_backend.train import Trainer

    config = tiny_jax_config(
        tmp_path, env={"player_counts": [3, 5, 8], "mutineers_player_count_weights": [0.0, 0.0, 1.0]}
    )
    trainer = Trainer(config, standin_engine())
    params, _ = trainer.init_params(0)
    for team, expected in ((1, {8}), (0, {3, 5, 8})):
        opponents = trainer.opponents(params, [], 0)
        slots = trainer.new_slots[team](jax.random.key(team), opponents)
        sizes = set(np.asarray(slots.state.num_players).tolist())
        for step in range(3):  # games end and new ones are dealt during the rollouts
            slots, _, _, metrics = trainer.rollouts[team](params, opponents, slots, jax.random.key(10 + step))
            sizes |= set(np.asarray(slots.state.num_players).tolist())
        assert int(metrics["games"]) > 0
        assert sizes == expected


def test_mutineers_steps_gives_the_mutineers_their_own_budget():
    from training.config import TrainingSection

    assert TrainingSection(steps_per_team=100).steps_for("mutineers") == 100  # default: the same budget
    split = TrainingSection(steps_per_team=100, mutineers_steps=300)
    assert (split.steps_for("pirates"), split.steps_for("mutineers")) == (100, 300)


# ---------------------------------------------------------------- a rollout smaller than one minibatch
def test_compact_pads_to_the_capacity_when_the_grid_holds_fewer_rows():
    """Bug (issue 27): a rollout grid of fewer rows than one minibatch gave a batch of fewer rows than
    ``capacity`` and ``update``'s reshape into minibatches failed; the batch is now padded with weight-0 rows."""
    valid = jnp.asarray([[True, False], [False, True], [True, False]])
    grid = P.Batch(*(jnp.arange(6.0).reshape(3, 2) for _ in range(8)))
    batch = P.compact(jax.random.key(0), grid, valid, 16)
    assert batch.weight.shape == (16,) and np.asarray(batch.weight).sum() == 3
    assert sorted(np.asarray(batch.obs)[np.asarray(batch.weight) > 0].tolist()) == [0.0, 3.0, 4.0]


def test_a_rollout_with_fewer_learner_transitions_than_one_minibatch_updates(tmp_path):
    """Bug (issue 27): ``ppo.batch_size`` above the rollout grid's rows (here 4096 > 16 steps x 16 games) crashed the
    update with a reshape error; it now runs one mostly padded minibatch (and warns, see above)."""
    from training.jax_backend.train import Trainer

    trainer = Trainer(tiny_jax_config(tmp_path, ppo={"batch_size": 4096}), standin_engine())
    params, opt_state = trainer.init_params(0)
    seen = []
    with pytest.warns(UserWarning, match="ppo.batch_size=4096"):
        new, _, summary = trainer.train_team(0, params, opt_state, [], 0, 1, lambda m: seen.append(m))
    assert len(seen) == 1 and 0 < seen[0]["learner_decisions"] < 4096 and np.isfinite(seen[0]["train/loss"])
    changed = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool((a != b).any()), params, new))
    assert any(changed)
