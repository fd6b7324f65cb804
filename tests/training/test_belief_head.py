"""The belief head of the JAX backend (issue 27, part 2): an auxiliary head on the actor that predicts P(hidden side)
per relative seat, trained on the game master's true roles (``ppo.belief_coef``), and the checkpoint agent's
``beliefs(observation)`` (:class:`traitors_env.core.agent.BeliefAgent`) that the kit's deduction metrics score.

The label is the deal, read by the game master: it enters the loss and never a policy's input. Seats are relative to
the observer as in the observations (R-obs: index ``r`` is the seat ``r`` places to the left).
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402

from training.jax_backend import ppo as P  # noqa: E402
from training.jax_backend import rollout as R  # noqa: E402
from training.jax_backend.engine import standin_engine  # noqa: E402
from traitors_env.core import load_game  # noqa: E402

GAME = load_game("traitors_aboard")
NUM_ACTIONS = GAME.type.num_actions
(OBS_SIZE,) = GAME.type.observation_shape


def tiny_config(tmp_path, **changes):
    """:func:`jax_run_helpers.tiny_jax_config` with the belief head on, a fixed bot mix and a faster learning
    rate (``changes`` merged over those, section by section)."""
    from jax_run_helpers import tiny_jax_config

    base = {"name": "belief", "opponents": {"latest": 0.0, "past": 0.0, "heuristic": 0.5, "random": 0.5},
            "ppo": {"n_epochs": 2, "belief_coef": 1.0, "learning_rate": 3.0e-3},
            "evaluation": {"games_per_generation": 0}}
    for key, value in changes.items():
        base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
    return tiny_jax_config(tmp_path, **base)


# ---------------------------------------------------------------- the labels
def test_labels_are_the_relative_seats_hidden_side_with_nan_at_self_and_absent_seats():
    """A 5-player deal with Mutineers (side 1) at absolute seats 1 and 4, decided by seat 3: relative seat r is
    absolute (3 + r) % 5, so r = 1 → seat 4 (Mutineer), r = 2 → 0, r = 3 → 1 (Mutineer), r = 4 → 2; r = 0 is the
    decider, r = 5..7 no seat."""
    roles = jnp.asarray([[0, 1, 0, 0, 1, -1, -1, -1], [1, 0, 0, -1, -1, -1, -1, -1]], jnp.int8)
    labels = np.asarray(R.belief_labels(roles, jnp.asarray([3, 0]), 1, 8))
    expected = np.array([[np.nan, 1, 0, 1, 0, np.nan, np.nan, np.nan], [np.nan, 0, 0] + [np.nan] * 5], np.float32)
    np.testing.assert_array_equal(labels, expected)
    # The Traitors counts side 0 as the hidden one: the same seats, the other side's truth.
    flipped = np.asarray(R.belief_labels(roles, jnp.asarray([3, 0]), 0, 8))
    np.testing.assert_array_equal(flipped[0, 1:5], 1 - expected[0, 1:5])


def test_the_label_never_changes_what_the_policy_sees_or_does():
    """The same rollout with and without stored labels: identical observations, masks, actions and log-probabilities;
    only ``Batch.belief`` is added, of shape (steps, C, belief_size)."""
    engine = standin_engine()
    model = P.ActorCritic((16,), NUM_ACTIONS, "tanh", GAME.belief_size)
    params = model.init(jax.random.key(0), jnp.zeros((1, OBS_SIZE)))
    opponents = R.Opponents(jnp.asarray([0.0, 0.0, 0.5, 0.5]), params, jax.tree_util.tree_map(lambda x: x[None], params),
                            jnp.int32(1))

    def actor(p, obs):
        return model.apply(p, obs, method=P.ActorCritic.logits)

    grids = []
    for labels in (False, True):
        settings = R.Settings((3, 5, 8), (1 / 3,) * 3, 12, 1.0, 1.0, True, None, belief_labels=labels)
        slots = R.new_slots(engine, settings, jax.random.key(1), 8, opponents)
        _, grid, valid, _ = R.rollout(engine, settings, model.apply, actor, params, 0, opponents, slots, jax.random.key(2))
        grids.append((grid, valid))
    (plain, valid), (labelled, valid2) = grids
    assert plain.belief is None and labelled.belief.shape == (12, 8, GAME.belief_size)
    for field in ("obs", "mask", "action", "log_prob", "value", "advantage"):
        np.testing.assert_array_equal(np.asarray(getattr(plain, field)), np.asarray(getattr(labelled, field)))
    np.testing.assert_array_equal(np.asarray(valid), np.asarray(valid2))
    rows = np.asarray(labelled.belief)[np.asarray(valid)]
    assert np.isnan(rows[:, 0]).all() and set(np.unique(rows[np.isfinite(rows)])) <= {0.0, 1.0}
    # a 3-player game scores seats 1-2 only, an 8-player one 1-7: every row knows 2, 4 or 7 seats
    assert set(np.isfinite(rows).sum(axis=1).tolist()) <= {2, 4, 7}


def test_beliefs_read_only_the_observation_so_redrawn_secrets_give_the_same_beliefs(tmp_path):
    """``hidden_variant`` (the game's hidden.py) redraws what a seat cannot know; the observation, and so the
    checkpoint agent's beliefs, stay the same while the truth they are scored against may change."""
    path = _checkpoint(tmp_path / "pirates.msgpack", belief=True)
    from traitors_env.agents.jax_checkpoint import load_jax_policy

    policy = load_jax_policy(path)
    rng = np.random.default_rng(0)
    state = GAME.new_initial_state(6, 3, True)
    seat = state.current_player
    truths = set()
    for _ in range(20):
        redrawn = GAME.hidden_variant(state, seat, rng)
        np.testing.assert_array_equal(GAME.encode(redrawn, seat), GAME.encode(state, seat))
        np.testing.assert_array_equal(policy.beliefs(GAME.encode(redrawn, seat)), policy.beliefs(GAME.encode(state, seat)))
        truths.add(tuple(GAME.side_of_seat(redrawn, s) for s in range(6)))
    assert len(truths) > 1  # the redraw does move the Mutineers: the beliefs could have followed them and did not


# ---------------------------------------------------------------- the network and the loss
def test_without_a_belief_head_the_parameters_are_those_of_before_and_with_one_actor_and_critic_are_unchanged():
    """``belief_coef: 0`` keeps checkpoints byte-identical (tests/training/test_same_parameters.py); with a head the
    actor and critic start the same and the head's logits come from the actor's last hidden layer."""
    obs = jax.random.uniform(jax.random.key(5), (4, OBS_SIZE))
    plain = P.ActorCritic((16, 8), NUM_ACTIONS, "tanh")
    headed = P.ActorCritic((16, 8), NUM_ACTIONS, "tanh", GAME.belief_size)
    p0, p1 = plain.init(jax.random.key(0), obs), headed.init(jax.random.key(0), obs)
    assert set(p0["params"]) == {"actor", "critic"} and set(p1["params"]) == {"actor", "critic", "belief"}
    for tower in ("actor", "critic"):
        jax.tree_util.tree_map(np.testing.assert_array_equal, p0["params"][tower], p1["params"][tower])
    assert p1["params"]["belief"]["out"]["kernel"].shape == (8, GAME.belief_size)
    logits, value = headed.apply(p1, obs)
    logits2, value2, belief = headed.apply(p1, obs, method=P.ActorCritic.with_beliefs)
    np.testing.assert_array_equal(logits, logits2)
    np.testing.assert_array_equal(value, value2)
    a = p1["params"]["actor"]
    hidden = np.tanh(np.tanh(np.asarray(obs) @ a["hidden_0"]["kernel"] + a["hidden_0"]["bias"]) @ a["hidden_1"]["kernel"]
                     + a["hidden_1"]["bias"])
    b = p1["params"]["belief"]["out"]
    np.testing.assert_allclose(belief, hidden @ b["kernel"] + b["bias"], atol=1e-5)


def test_belief_loss_is_the_cross_entropy_of_the_known_seats_of_the_weighted_rows():
    logits = jnp.asarray([[0.0, 2.0, -1.0], [1.0, 1.0, 1.0]])
    labels = jnp.asarray([[jnp.nan, 1.0, 0.0], [1.0, jnp.nan, jnp.nan]])
    ce, brier = P.belief_losses(logits, labels, jnp.asarray([1.0, 0.0]))  # the second row is padding
    p1, p2 = 1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(1.0))
    assert float(ce) == pytest.approx((-np.log(p1) - np.log(1 - p2)) / 2, rel=1e-5)
    assert float(brier) == pytest.approx(((1 - p1) ** 2 + p2**2) / 2, rel=1e-5)


def test_belief_coef_needs_the_jax_backend_and_a_hidden_side(tmp_path):
    from training.config import ConfigError

    with pytest.raises(ConfigError, match="ppo.belief_coef=0.5 trains a belief head, which needs backend: jax"):
        tiny_config(tmp_path, backend="sb3", ppo={"belief_coef": 0.5})


def test_belief_net_arch_needs_a_belief_head(tmp_path):
    from training.config import ConfigError

    with pytest.raises(ConfigError, match=r"ppo.belief_net_arch=\[32\] shapes a belief head, which this config does "
                                          r"not train \(ppo.belief_coef: 0\)"):
        tiny_config(tmp_path, ppo={"belief_coef": 0.0, "belief_net_arch": [32]})
    assert tiny_config(tmp_path, ppo={"belief_net_arch": [32]}).ppo.belief_net_arch == [32]


@pytest.mark.parametrize("belief_net_arch", [[], [16]], ids=["linear", "own-layers"])
def test_belief_loss_decreases_on_a_tiny_training_run(tmp_path, belief_net_arch):
    """The stand-in deals its side-1 seats by table size (n // 3 + 1 of n): a side-1 learner's other seats are side 1
    with 1/2 (3 players), 1/4 (5) or 2/7 (8), cross-entropy at best about 0.60 where the initial head (p = 0.5) has
    ln 2 = 0.693. The loss (logged per PPO iteration) falls towards it."""
    from training.jax_backend.train import Trainer

    trainer = Trainer(tiny_config(tmp_path, ppo={"learning_rate": 1e-2, "n_epochs": 4, "batch_size": 32,
                                                 "belief_net_arch": belief_net_arch}), standin_engine())
    params, opt_state = trainer.init_params(0)
    assert sorted(params["params"]["belief"]) == [f"hidden_{i}" for i in range(len(belief_net_arch))] + ["out"]
    losses = []
    trainer.train_team(1, params, opt_state, [], 0, 1200, lambda m: losses.append(m["train/belief_loss"]))
    assert len(losses) >= 10
    assert np.mean(losses[-3:]) < np.log(2) - 0.05 and np.mean(losses[-3:]) < np.mean(losses[:2]), losses


# ---------------------------------------------------------------- the checkpoint agent and the kit
def _checkpoint(path, belief: bool, seed: int = 0, team: str = "pirates", belief_hidden=()):
    from traitors_env.agents.jax_checkpoint import save_checkpoint

    model = P.ActorCritic((16,), NUM_ACTIONS, "tanh", GAME.belief_size if belief else 0, belief_hidden)
    params = model.init(jax.random.key(seed), jnp.zeros((1, OBS_SIZE)))
    if belief:  # a head that says something: larger weights than the initial 0.01 scale
        params["params"]["belief"]["out"]["kernel"] = params["params"]["belief"]["out"]["kernel"] * 300
    save_checkpoint(path, params, P.make_optimizer(1e-3, 0.5).init(params), team=team, net_arch=[16],
                    activation="tanh", num_timesteps=1)
    return path


@pytest.mark.parametrize("belief_hidden", [(), (12, 6)], ids=["linear", "own-layers"])
def test_checkpoint_with_a_head_gives_beliefs_with_nan_at_self_and_absent_seats(tmp_path, belief_hidden):
    """The numpy forward pass of the head equals the flax network's, with and without the head's own hidden layers
    (``ppo.belief_net_arch``)."""
    from traitors_env.agents.jax_checkpoint import read_checkpoint
    from traitors_env.agents.policy import observation_scale_of
    from traitors_env.agents.spec import load_agent
    from traitors_env.core.agent import BeliefAgent, agent_beliefs

    path = _checkpoint(tmp_path / "pirates.msgpack", belief=True, belief_hidden=belief_hidden)
    _, agent = load_agent(str(path), seed=0)
    assert isinstance(agent, BeliefAgent)
    model = P.ActorCritic((16,), NUM_ACTIONS, "tanh", GAME.belief_size, belief_hidden)
    params = read_checkpoint(path)["params"]
    assert sorted(params["params"]["belief"]) == [f"hidden_{i}" for i in range(len(belief_hidden))] + ["out"]
    for n in (3, 5, 8):
        state = GAME.new_initial_state(n, n, True)
        obs = GAME.encode(state, state.current_player)
        values = agent_beliefs(agent, obs, GAME.belief_size)
        assert values.dtype == np.float32 and values.shape == (GAME.belief_size,)
        assert np.isnan(values[0]) and np.isnan(values[n:]).all() and np.isfinite(values[1:n]).all()
        assert ((values[1:n] > 0) & (values[1:n] < 1)).all()
        # the numpy forward pass is the trained network's (the head's logits through a sigmoid)
        _, _, z = model.apply(params, jnp.asarray(obs / observation_scale_of(GAME))[None], method=P.ActorCritic.with_beliefs)
        np.testing.assert_allclose(values[1:n], np.asarray(jax.nn.sigmoid(z))[0, 1:n], atol=1e-5)
    # a checkpoint without a head still loads and plays, with no beliefs
    _, plain = load_agent(str(_checkpoint(tmp_path / "old" / "pirates.msgpack", belief=False)), seed=0)
    assert not hasattr(plain, "beliefs") and agent_beliefs(plain, obs) is None
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[[3, 7]] = 1
    assert plain.act(obs, mask) in (3, 7)


def test_a_belief_head_whose_layers_do_not_chain_is_refused_on_load(tmp_path):
    from traitors_env.agents.jax_checkpoint import JaxPolicy, save_checkpoint
    from traitors_env.agents.policy import PolicyLoadError

    model = P.ActorCritic((16,), NUM_ACTIONS, "tanh", GAME.belief_size, (12,))
    params = model.init(jax.random.key(0), jnp.zeros((1, OBS_SIZE)))
    params["params"]["belief"]["out"]["kernel"] = jnp.zeros((10, GAME.belief_size))  # reads 10 features of 12
    save_checkpoint(tmp_path / "pirates.msgpack", params, P.make_optimizer(1e-3, 0.5).init(params), team="pirates",
                    net_arch=[16], activation="tanh", num_timesteps=1)
    with pytest.raises(PolicyLoadError, match=r"belief layer 'out' has kernel \(10, 8\) and bias \(8,\); expected "
                                              r"a kernel \(12, k\)"):
        JaxPolicy(tmp_path / "pirates.msgpack")


def test_deduction_metrics_score_a_generation_folder_with_belief_heads(tmp_path):
    from traitors_env.evaluation.cli import run_benchmark
    from traitors_env.evaluation.population import parse_population

    folder = tmp_path / "gen_001"
    _checkpoint(folder / "pirates.msgpack", belief=True, team="pirates")
    _checkpoint(folder / "mutineers.msgpack", belief=True, seed=1, team="mutineers")
    report = run_benchmark(parse_population([str(folder), "heuristic"]), [4], 2, tmp_path / "out",
                           game="traitors_aboard", plots=False)
    label = next(a for a in report["deduction"]["agents"] if a != "heuristic")
    rows = report["deduction"]["agents"][label]["pirates"]["rows"]
    pooled = next(r for r in rows if r["phase"] == "all")
    assert pooled["predictions"] == 3 * pooled["decisions"] and pooled["brier"] is not None
    assert pooled["base_brier"] == pytest.approx(2 / 9)  # a Pirate at 4 players: prior 1/3 on 3 seats, 1 a Mutineer (R02)


def test_traitors_play_shows_a_trained_policys_beliefs_and_refuses_a_checkpoint_without_a_head(tmp_path, capsys):
    import io

    from rich.console import Console

    from traitors_env.table import play

    folder = tmp_path / "gen_001"
    _checkpoint(folder / "pirates.msgpack", belief=True, team="pirates")
    _checkpoint(folder / "mutineers.msgpack", belief=True, seed=1, team="mutineers")
    console = Console(file=io.StringIO(), width=400, force_terminal=False, color_system=None)
    arguments = ["--players", "4", "--seed", "2", "--show-beliefs", str(folder), "--record", str(tmp_path / "g.json")]
    status = play.main(arguments, console=console, stdin=io.StringIO("1\n" * 400))
    out = console.file.getvalue()
    assert status == 0 and "beliefs, read from your observation only: P(Mutineers) per seat" in out
    assert "has no beliefs about this position" not in out
    plain = _checkpoint(tmp_path / "old" / "pirates.msgpack", belief=False)
    with pytest.raises(SystemExit) as exit_:
        play.main(["--show-beliefs", str(plain)], console=console, stdin=io.StringIO(""))
    assert exit_.value.code == 2 and "this agent has no role beliefs" in capsys.readouterr().err


def test_traitors_view_exports_a_policys_beliefs_as_a_page_that_opens_from_disk(tmp_path):
    """Issue 53: the static export of a 5-player game with a trained policy's beliefs (a generation folder with belief
    heads) holds every seat's beliefs at every step, and opens from ``file://`` in Chromium with no server (where
    Playwright and Chromium are installed)."""
    import json
    import re

    from browser_helpers import browser_missing, chromium, new_page

    from traitors_env.agents import make_agent
    from traitors_env.table.web_view import main as view_main

    folder = tmp_path / "gen_001"
    _checkpoint(folder / "pirates.msgpack", belief=True, team="pirates")
    _checkpoint(folder / "mutineers.msgpack", belief=True, seed=1, team="mutineers")
    env = GAME.raw_env(num_players=5)
    env.reset(seed=8)
    bots = [make_agent("heuristic", seed=s) for s in range(5)]
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        seat = int(agent.removeprefix("player_"))
        env.step(None if termination or truncation
                 else bots[seat].act(observation["observation"], observation["action_mask"]))
    record = tmp_path / "game.json"
    env.record(seats=["heuristic"] * 5).save(record)
    assert view_main([str(record), "--beliefs", str(folder), "--html", str(tmp_path / "site")]) == 0
    index = tmp_path / "site" / "index.html"
    data = json.loads(re.search(r'id="viewer-data">(.*?)</script>', index.read_text(), flags=re.S).group(1))
    assert data["meta"]["beliefs"]["hidden"] == "Mutineers"
    steps = data["views"]["seat1"]
    for step in steps:
        beliefs = step["beliefs"]
        assert beliefs[1] is None and all(0 < p < 1 for s, p in enumerate(beliefs) if s != 1)
    assert len({tuple(s["beliefs"]) for s in steps}) > 1, "the policy's beliefs move over the game"
    if browser_missing():
        return
    with chromium() as browser:
        page, errors = new_page(browser)
        page.goto(index.as_uri() + "#step=10&view=seat1")
        page.wait_for_selector('body[data-step="10"][data-view="seat1"]', state="attached")
        assert page.locator("#beliefs svg rect").count() == 5 * 11 and page.is_visible("#beliefs-section")
        assert errors == []
