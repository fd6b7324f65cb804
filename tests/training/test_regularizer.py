"""Equilibrium-seeking regularisation of the JAX backend (issue 54): MMD's magnet term and R-NaD's reward transform.

Checked against the papers' formulas on explicit numbers (Sokota et al. 2023: ``α·KL(π ‖ ρ)``; Perolat et al. 2022:
``r − η·log(π/π_reg)``), in the team GAE (the transformed reward of a decision reaches that decision's advantage),
in the config (jax backend only; a best response never regularises) and on tiny runs: a regulariser changes what
is trained, and a seeded regularised run repeats, resumed or not.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402
from jax_run_helpers import tiny_jax_config  # noqa: E402

from training.jax_backend import ppo as P  # noqa: E402
from training.jax_backend.engine import standin_engine  # noqa: E402


def test_masked_kl_is_the_kl_over_the_legal_actions_only():
    logits = jnp.asarray([[1.0, 2.0, 0.5, 9.0]])
    magnet = jnp.asarray([[0.0, 0.0, 3.0, -9.0]])
    mask = jnp.asarray([[1, 1, 1, 0]])
    p = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    q = np.exp([0.0, 0.0, 3.0]) / np.exp([0.0, 0.0, 3.0]).sum()
    expected = float(np.sum(p * np.log(p / q)))
    assert float(P.masked_kl(logits, magnet, mask)[0]) == pytest.approx(expected, rel=1e-5)
    assert float(P.masked_kl(logits, logits + 7.0, mask)[0]) == pytest.approx(0.0, abs=1e-6)  # same policy
    # a uniform magnet (zero logits): KL = log(#legal) − H(π)
    entropy = -float(np.sum(p * np.log(p)))
    assert float(P.masked_kl(logits, jnp.zeros_like(logits), mask)[0]) == pytest.approx(np.log(3) - entropy, rel=1e-5)


def test_rnad_reward_is_minus_eta_log_ratio_of_the_taken_action():
    reference = jnp.asarray([[0.0, np.log(3.0), 0.0]])  # π_reg = (1/5, 3/5, 1/5)
    mask = jnp.asarray([[1, 1, 1]])
    log_prob = jnp.asarray([np.log(0.9)])  # π(a=1) = 0.9
    reward = P.rnad_step_reward(log_prob, reference, mask, jnp.asarray([1]), eta=0.2)
    assert float(reward[0]) == pytest.approx(-0.2 * np.log(0.9 / 0.6), rel=1e-5)


def test_a_decisions_own_reward_reaches_its_advantage_and_none_changes_nothing():
    """Two learner decisions (t=0, t=2) with an opponent's between; the game ends at t=3 with −1 (R17)."""
    valid = jnp.asarray([[True], [False], [True], [False]])
    ended = jnp.asarray([[False], [False], [False], [True]])
    reward = jnp.asarray([[0.0], [0.0], [0.0], [-1.0]])
    values = jnp.asarray([[0.25], [0.0], [-0.5], [0.0]])
    own = jnp.asarray([[0.1], [7.0], [-0.3], [7.0]])  # read only where valid
    gamma, lam = 0.9, 0.8
    adv, _ = P.team_gae(valid, values, ended, reward, jnp.zeros(1), gamma, lam, own)
    delta2 = -0.3 + -1.0 - (-0.5)
    delta0 = 0.1 + gamma * -0.5 - 0.25
    assert float(adv[2, 0]) == pytest.approx(delta2, rel=1e-6)
    assert float(adv[0, 0]) == pytest.approx(delta0 + gamma * lam * delta2, rel=1e-6)
    plain = P.team_gae(valid, values, ended, reward, jnp.zeros(1), gamma, lam)
    zero = P.team_gae(valid, values, ended, reward, jnp.zeros(1), gamma, lam, jnp.zeros_like(own))
    np.testing.assert_array_equal(np.asarray(plain[0]), np.asarray(zero[0]))


def test_the_magnet_term_pulls_the_policy_toward_the_magnet():
    """With no advantage to follow, MMD's term alone moves π toward ρ; without it (α = 0) nothing does."""
    model = P.ActorCritic((8,), 4)
    obs = jax.random.normal(jax.random.key(0), (64, 5))
    params = model.init(jax.random.key(1), obs)
    mask = jnp.ones((64, 4), jnp.int8)
    magnet = jnp.tile(jnp.asarray([[3.0, 0.0, 0.0, 0.0]]), (64, 1))
    logits, value = model.apply(params, obs)
    logp, _ = P.log_prob_entropy(logits, mask, jnp.zeros(64, jnp.int32))
    batch = P.Batch(obs, mask, jnp.zeros(64, jnp.int32), logp, value, jnp.zeros(64), value, jnp.ones(64),
                    magnet=magnet)

    def kl_after(coef):
        optimizer = P.make_optimizer(1e-2, 10.0)
        cfg = P.UpdateConfig(4, 16, 0.2, 0.0, 0.0, magnet_coef=coef)
        new, _, stats = P.update(params, optimizer.init(params), optimizer, model.apply, batch, jax.random.key(2), cfg)
        return float(P.masked_kl(model.apply(new, obs)[0], magnet, mask).mean()), stats

    before = float(P.masked_kl(logits, magnet, mask).mean())
    pulled, stats = kl_after(0.5)
    assert "train/magnet_kl" in stats
    assert pulled < 0.8 * before
    assert kl_after(0.0)[0] == pytest.approx(before, rel=0.05)


def test_the_regularizer_needs_the_jax_backend_and_a_positive_alpha(tmp_path):
    from training.config import config_from_dict

    base = {"name": "r", "output_dir": str(tmp_path)}
    with pytest.raises(ValueError, match=r"ppo.regularizer.kind='mmd' needs backend: jax \(this config: 'sb3'\)"):
        config_from_dict({**base, "ppo": {"regularizer": {"kind": "mmd"}}})
    with pytest.raises(ValueError, match="alpha=0 regularises nothing"):
        config_from_dict({**base, "backend": "jax", "ppo": {"regularizer": {"kind": "rnad", "alpha": 0.0}}})
    with pytest.raises(ValueError, match="kind"):
        config_from_dict({**base, "backend": "jax", "ppo": {"regularizer": {"kind": "neurd"}}})
    jax_base = {**base, "backend": "jax"}
    for regularizer, message in (
        ({"kind": "mmd", "magnet": "uniform", "update_every": 5}, "update_every=5 renews a lagged magnet"),
        # a magnet renewed after every iteration is the policy that played the rollout: R-NaD's term is always 0
        ({"kind": "rnad", "update_every": 1}, "update_every=1 makes the lagged magnet the policy that played"),
        ({"kind": "mmd", "alpha": 1e300}, "less than or equal to 100"),
    ):
        with pytest.raises(ValueError, match=message):
            config_from_dict({**jax_base, "ppo": {"regularizer": regularizer}})
    config = config_from_dict({**base, "backend": "jax", "ppo": {"regularizer": {"kind": "rnad", "alpha": 0.1,
                                                                             "update_every": 3}}})
    assert config.ppo.regularizer.update_every == 3 and config.ppo.regularizer.magnet == "lagged"
    # a run folder's config.yaml writes every key out, the regulariser's defaults too: it reads back
    for saved in (config, config_from_dict(base)):
        assert config_from_dict(saved.model_dump(mode="json")) == saved


def test_a_variant_on_its_exact_tree_keeps_the_trees_claims(tmp_path):
    """The tree engine plays the variant's tree as declared (claims off): a config saying otherwise is refused."""
    from training.config import config_from_dict

    data = {"name": "t", "output_dir": str(tmp_path), "backend": "jax",
            "env": {"name": "avalon:mini5", "player_counts": [5], "claims": True}}
    with pytest.raises(ValueError, match="env.claims=True but avalon(_v0)?:mini5 is played on its exact tree, whose claims are off"):
        config_from_dict(data)
    data["env"]["claims"] = False
    assert config_from_dict(data).env.claims is False


def test_a_best_response_never_regularises(tmp_path):
    from training.jax_backend.exploit import Target, best_response_config

    config = tiny_jax_config(tmp_path, ppo={"regularizer": {"kind": "mmd", "alpha": 0.2}})
    target = Target("heuristic", "bot")
    assert best_response_config(config, target).ppo.regularizer.kind == "none"


def _params(run, generation, team):
    from traitors_env.agents.jax_checkpoint import read_checkpoint

    return read_checkpoint(run.checkpoint(generation, team))["params"]


@pytest.mark.slow  # ~45 s each: compilations of three configurations
@pytest.mark.parametrize("regularizer", [
    {"kind": "mmd", "alpha": 0.5, "magnet": "lagged", "update_every": 2},
    {"kind": "rnad", "alpha": 0.5, "magnet": "lagged", "update_every": 2},
    {"kind": "mmd", "alpha": 0.5, "magnet": "uniform"},
])
def test_a_regularised_run_differs_from_plain_ppo_and_repeats_resumed_or_not(tmp_path, regularizer):
    from training.jax_backend.train import train

    engine = standin_engine()
    quiet = {"games_per_generation": 0}
    plain = train(tiny_jax_config(tmp_path / "plain", evaluation=quiet), engine=engine)
    changes = {"ppo": {"regularizer": regularizer}, "evaluation": quiet}
    one = train(tiny_jax_config(tmp_path / "one", training={"generations": 2}, **changes), engine=engine)
    first = train(tiny_jax_config(tmp_path / "two", **changes), engine=engine)
    resumed = train(tiny_jax_config(tmp_path / "two", training={"generations": 2}, **changes), resume=True,
                    engine=engine)
    assert resumed.path == first.path
    for team in ("pirates", "mutineers"):
        differs = jax.tree_util.tree_map(lambda a, b: bool(np.any(a != b)), _params(plain, 0, team),
                                         _params(one, 0, team))
        assert any(jax.tree_util.tree_leaves(differs)), f"{regularizer} trained the same {team} as plain PPO"
        jax.tree_util.tree_map(np.testing.assert_array_equal, _params(one, 1, team), _params(resumed, 1, team))


def test_a_leagues_exploiters_train_with_plain_ppo(tmp_path, monkeypatch):
    """The league's exploiters are best responses of the newest policies: the regulariser is the policies' only."""
    from training.jax_backend import league, train

    seen = []

    class Stop(Exception):
        pass

    def spy(config, *args, **kwargs):
        seen.append(config.ppo.regularizer.kind)
        raise Stop

    monkeypatch.setattr(train, "Trainer", spy)
    config = tiny_jax_config(tmp_path, ppo={"regularizer": {"kind": "rnad", "alpha": 0.2}})
    with pytest.raises(Stop):
        league._train_exploiter(config, standin_engine(), None, 0, 0, "pirates", None, 1, None, None, 0, 10)
    assert seen == ["none"] and config.ppo.regularizer.kind == "rnad"
