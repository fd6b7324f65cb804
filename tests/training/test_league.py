"""Population training (issue 27, part 1): the ``league:`` config, the opponent mix drawn by Nash weights, the JAX
cross-play held equal to the kit's, the plank probe held equal to ``examples/plank_pirate.py``, and a seeded
tiny league that gives the same checkpoints twice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training.config import ConfigError, config_from_dict
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.metagame import solve_zero_sum

ROOT = Path(__file__).resolve().parents[2]


def league_config(tmp_path, **changes):
    data = {
        "name": "ltiny",
        "seed": 3,
        "backend": "jax",
        "output_dir": str(tmp_path / "runs"),
        "env": {"player_counts": [3, 5, 8]},
        "league": {"iterations": 2, "fixed": ["random", "heuristic"], "games": 16, "latest": 0.2},
        "training": {"steps_per_team": 200, "n_envs": 16, "progress_bar": False},
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"games": 2, "player_counts": [3], "games_per_generation": 0, "workers": 1},
    }
    for key, value in changes.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    return config_from_dict(data)


# ---------------------------------------------------------------- the config
def test_league_section_sets_the_generations_and_needs_the_jax_backend(tmp_path):
    config = league_config(tmp_path)
    assert config.training.generations == 2 and config.league.iterations == 2
    with pytest.raises(ConfigError, match="league: trains with backend: jax only.*backend 'sb3'"):
        league_config(tmp_path, backend="sb3")
    with pytest.raises(ConfigError, match="training.generations=3 differs from league.iterations=2"):
        league_config(tmp_path, training={"generations": 3})
    with pytest.raises(ConfigError, match="league.fixed holds heuristic more than once; give each member once"):
        league_config(tmp_path, league={"fixed": ["heuristic", "heuristic"]})
    with pytest.raises(ConfigError, match="league.player_counts: List should have at least 1 item"):
        league_config(tmp_path, league={"player_counts": []})  # not read as null (the env's sizes)
    with pytest.raises(ConfigError, match="league.player_counts holds 9"):
        league_config(tmp_path, league={"player_counts": [9]})
    # existing configs are untouched: no league section, no league
    assert config_from_dict({"name": "x", "backend": "jax"}).league is None


def test_a_game_without_a_jax_twin_cannot_train_a_league(tmp_path):
    # Avalon: a zero-sum team game without a JAX twin; The Traitors: individual rewards (and no twin)
    with pytest.raises(ConfigError, match="avalon_v0 has no JAX twin, train it with backend: sb3"):
        league_config(tmp_path, env={"name": "avalon", "player_counts": [5]})
    with pytest.raises(ConfigError, match="the_traitors_v0 has individual rewards"):
        league_config(tmp_path, env={"name": "the_traitors", "player_counts": [5]})


# ---------------------------------------------------------------- the opponent mix
def test_fixed_members_name_the_bots_and_the_twins_probes():
    pytest.importorskip("jax")
    from training.jax_backend.engine import twin_engine
    from training.jax_backend.league import fixed_members

    engine = twin_engine()
    members = fixed_members(["random", "heuristic", "plank"], engine, ("pirates", "mutineers"))
    assert [m.name for m in members["pirates"]] == ["random", "heuristic", "plank"]  # the probe plays the Pirates only
    assert [m.name for m in members["mutineers"]] == ["random", "heuristic"]
    with pytest.raises(ValueError, match="'plonk'.*expected one of heuristic, random, plank"):
        fixed_members(["plonk"], engine, ("pirates", "mutineers"))
    with pytest.raises(ValueError, match="gives the mutineers no member"):
        fixed_members(["plank"], engine, ("pirates", "mutineers"))


def test_opponent_mix_draws_members_by_their_nash_weights_and_the_newest_by_its_share():
    pytest.importorskip("jax")  # training.jax_backend imports JAX (the jax extra)
    from training.jax_backend.league import Member, opponent_mix

    members = [Member("random", "random"), Member("heuristic", "heuristic"), Member("plank", "probe"),
               Member("league_1", "policy", 1), Member("league_2", "policy", 2), Member("league_3", "policy", 3)]
    nash = {"random": 0.0, "heuristic": 0.4, "plank": 0.1, "league_1": 0.1, "league_2": 0.0, "league_3": 0.4}
    probabilities, pooled, weights = opponent_mix(nash, members, ["plank"], latest=0.2, newest=True, pool=4)
    # (latest, past, heuristic, random, plank): 20 % newest, the rest by the Nash weights
    np.testing.assert_allclose(probabilities, [0.2, 0.4, 0.32, 0.0, 0.08], atol=1e-6)
    assert pooled == ["league_3", "league_1"]  # heaviest first; a policy without weight is not drawn
    np.testing.assert_allclose(weights, [0.8, 0.2, 0.0, 0.0], atol=1e-6)
    # no newest policy yet (the side trained first in iteration 1): the Nash mixture alone
    probabilities, pooled, weights = opponent_mix({"random": 0.25, "heuristic": 0.75}, members[:2], ["plank"],
                                                  latest=0.2, newest=False, pool=2)
    np.testing.assert_allclose(probabilities, [0.0, 0.0, 0.75, 0.25, 0.0], atol=1e-6)
    assert pooled == [] and list(weights) == [1.0, 0.0]
    # more weighted policies than the pool holds: the heaviest are kept, the past share stays theirs
    _, pooled, weights = opponent_mix(nash, members, ["plank"], latest=0.0, newest=True, pool=1)
    assert pooled == ["league_3"] and list(weights) == [1.0]


def test_fixed_share_keeps_games_for_fixed_members_the_nash_mixture_drops():
    """``league.fixed_share``: a fixed member keeps its share of the training games even at Nash weight 0 (the
    league's Mutineers met the plank probe only through the Nash mixture, which dropped it, and lost to it); a name
    the other side lacks keeps nothing; the Nash mixture shares the rest."""
    pytest.importorskip("jax")  # training.jax_backend imports JAX (the jax extra)
    from training.jax_backend.league import Member, opponent_mix

    members = [Member("random", "random"), Member("heuristic", "heuristic"), Member("plank", "probe"),
               Member("league_1", "policy", 1)]
    nash = {"random": 0.0, "heuristic": 0.0, "plank": 0.0, "league_1": 1.0}
    probabilities, pooled, _ = opponent_mix(nash, members, ["plank"], latest=0.2, newest=True, pool=2,
                                            fixed_share={"plank": 0.2, "heuristic": 0.1})
    # (latest, past, heuristic, random, plank): 20 % newest, 10 % heuristic, 20 % plank, the rest (50 %) by Nash
    np.testing.assert_allclose(probabilities, [0.2, 0.5, 0.1, 0.0, 0.2], atol=1e-6)
    assert pooled == ["league_1"]
    # a member with Nash weight of its own gets its share on top of its part of the rest
    nash = {"random": 0.0, "heuristic": 0.5, "league_1": 0.5}
    probabilities, _, _ = opponent_mix(nash, members[:2] + members[3:], ["plank"], latest=0.2, newest=True,
                                       pool=2, fixed_share={"plank": 0.2, "heuristic": 0.1})
    # no plank among these members (the Mutineers' population): nothing kept for it
    np.testing.assert_allclose(probabilities, [0.2, 0.35, 0.45, 0.0, 0.0], atol=1e-6)


def test_fixed_share_names_fixed_members_and_leaves_room_for_the_nash_mixture(tmp_path):
    config = league_config(tmp_path, league={"fixed_share": {"heuristic": 0.3}})
    assert config.league.fixed_share == {"heuristic": 0.3}
    with pytest.raises(ConfigError, match="league.fixed_share names plank, not in league.fixed"):
        league_config(tmp_path, league={"fixed_share": {"plank": 0.2}})
    with pytest.raises(ConfigError, match="league.fixed_share has {'heuristic': 0.0}; each share must be in"):
        league_config(tmp_path, league={"fixed_share": {"heuristic": 0.0}})
    with pytest.raises(ConfigError, match="league.latest \\+ the league.fixed_share values = 1"):
        league_config(tmp_path, league={"fixed_share": {"heuristic": 0.5, "random": 0.3}})


def test_fixed_share_per_side_replaces_the_flat_shares_for_that_side(tmp_path):
    """A ``fixed_share`` key naming a side holds that side's training's shares (the league's Mutineers fell short
    of the heuristic at small tables while the Pirates needed no more heuristic games)."""
    config = league_config(tmp_path, league={"fixed_share": {"heuristic": 0.15, "mutineers": {"heuristic": 0.3,
                                                                                             "random": 0.05}}})
    assert config.league.shares_for("mutineers") == {"heuristic": 0.3, "random": 0.05}
    assert config.league.shares_for("pirates") == {"heuristic": 0.15}
    assert league_config(tmp_path).league.shares_for("pirates") == {}
    with pytest.raises(ConfigError, match="league.fixed_share holds shares under \\['crew'\\], not a side of "
                                          "traitors_aboard_v0"):
        league_config(tmp_path, league={"fixed_share": {"crew": {"heuristic": 0.3}}})
    with pytest.raises(ConfigError, match="league.fixed_share.mutineers names plank, not in league.fixed"):
        league_config(tmp_path, league={"fixed_share": {"mutineers": {"plank": 0.3}}})
    with pytest.raises(ConfigError, match="league.latest \\+ the league.fixed_share.pirates values = 1"):
        league_config(tmp_path, league={"fixed_share": {"pirates": {"heuristic": 0.8}}})
    with pytest.raises(ConfigError, match="league.fixed_share.pirates has {'random': 1.5}; each share must be in"):
        league_config(tmp_path, league={"fixed_share": {"pirates": {"random": 1.5}}})


def test_a_sides_own_share_must_name_a_member_of_the_other_sides_population(tmp_path):
    """The plank probe plays the Pirates' side only: a flat share of it keeps nothing in the Pirates' training (by
    design), but the Pirates' own entry naming it is a mistake, refused before the run folder is made."""
    pytest.importorskip("jax")
    from training.jax_backend.league import train_league

    config = league_config(tmp_path, league={"fixed": ["random", "heuristic", "plank"],
                                             "fixed_share": {"pirates": {"plank": 0.2}}})
    with pytest.raises(ConfigError, match="league.fixed_share.pirates names plank, which the mutineers' population "
                                          "lacks .*the pirates' training meets random, heuristic"):
        train_league(config)
    assert not (tmp_path / "runs" / "ltiny").exists()


def test_the_loop_trains_each_side_with_its_own_fixed_shares(tmp_path, monkeypatch):
    """The league loop hands each side's training the shares :meth:`LeagueSection.shares_for` gives it."""
    pytest.importorskip("jax")  # training.jax_backend imports JAX (the jax extra)
    from training.jax_backend import league as league_module

    seen = []
    real = league_module.opponent_mix

    def spy(*args, **kwargs):
        seen.append(args[6] if len(args) > 6 else kwargs.get("fixed_share"))
        return real(*args, **kwargs)

    monkeypatch.setattr(league_module, "opponent_mix", spy)
    config = league_config(tmp_path, league={"iterations": 1, "fixed_share": {"heuristic": 0.1,
                                                                              "mutineers": {"random": 0.2}}})
    from training.train import train

    train(config)
    assert seen == [{"heuristic": 0.1}, {"random": 0.2}]


def test_exploiters_name_sides_of_the_game(tmp_path):
    config = league_config(tmp_path, league={"exploiters": {"mutineers": 300}})
    assert config.league.exploiters == {"mutineers": 300}
    with pytest.raises(ConfigError, match="league.exploiters names \\['traitors'\\], not a side of traitors_aboard"):
        league_config(tmp_path, league={"exploiters": {"traitors": 300}})
    with pytest.raises(ConfigError, match="greater than or equal to 1"):
        league_config(tmp_path, league={"exploiters": {"pirates": 0}})


def test_league_order_names_each_side_once(tmp_path):
    assert league_config(tmp_path).league.order is None  # the game's training order: unchanged leagues
    assert league_config(tmp_path, league={"order": ["mutineers", "pirates"]}).league.order == ["mutineers", "pirates"]
    for bad in (["pirates"], ["pirates", "pirates"], ["mutineers", "traitors"]):
        with pytest.raises(ConfigError, match=r"league.order is .*; expected each side of traitors_aboard_v0 once"):
            league_config(tmp_path, league={"order": bad})


@pytest.mark.parametrize("order", [None, ["mutineers", "pirates"]])
def test_the_side_trained_second_meets_the_first_sides_policy_of_the_same_iteration(tmp_path, monkeypatch, order):
    """``league.order``: within an iteration the side trained second draws the first side's new policy as its newest
    opponent (``latest``), the side trained first the other side's policy of the iteration before (none in the first
    iteration); ``league.json`` names the policy each met (``newest_met``). The game's order trains the Pirates first."""
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    import jax
    from flax import serialization

    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import read_league, train_league
    from training.jax_backend.train import Trainer

    met = []  # (team index, the ``latest`` parameters its training drew from), in training order
    real = Trainer.train_team

    def spy(self, team_index, params, opt_state, snapshots, seed, steps, on_iteration, opponents=None):
        met.append((team_index, jax.tree_util.tree_map(np.asarray, opponents.latest)))
        return real(self, team_index, params, opt_state, snapshots, seed, steps, on_iteration, opponents=opponents)

    monkeypatch.setattr(Trainer, "train_team", spy)
    run = train_league(league_config(tmp_path, league={"order": order}), engine=standin_engine())
    first, second = order or ["pirates", "mutineers"]
    sides = ("pirates", "mutineers")
    assert [sides[i] for i, _ in met] == [first, second] * 2
    data = read_league(run.path)
    assert [it.get("newest_met") for it in data["iterations"]] == [
        None, {first: None, second: "league_1"}, {first: "league_1", second: "league_2"}]
    for (index, latest), iteration in zip(met[1:], (1, 2, 2)):  # the first draw meets no policy (no share)
        other = sides[1 - index]
        name = data["iterations"][iteration]["newest_met"][sides[index]]
        saved = serialization.msgpack_restore(
            (run.path / "checkpoints" / f"gen_00{name[-1]}" / f"{other}.msgpack").read_bytes())["params"]
        jax.tree_util.tree_map(np.testing.assert_array_equal, latest, saved)
    assert data["iterations"][1]["training"][first]["latest"] == 0.0  # nothing to draw yet
    assert data["iterations"][1]["training"][second]["latest"] == pytest.approx(0.2)


# ---------------------------------------------------------------- the plank probe, twin of the example
def test_the_jax_plank_probe_plays_as_examples_plank_pirate_on_every_pirate_decision():
    """Plank decisions are the same action (the lowest announced total, lowest offset on ties); every other decision
    draws from the same set (the +1 announcements, else anything but opening the chest)."""
    jax = pytest.importorskip("jax")
    import importlib.util

    from traitors_env.games.traitors_aboard.env import raw_env
    from traitors_env.games.traitors_aboard.jax.probes import plank_pirate_act

    spec = importlib.util.spec_from_file_location("plank_pirate", ROOT / "examples" / "plank_pirate.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    act = jax.jit(plank_pirate_act)
    rng = np.random.default_rng(0)
    checked = planks = 0
    for game in range(12):
        env = raw_env(num_players=int(rng.integers(3, 9)))
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            # every seat's decision: the probe reads no role
            python = example.PlankPirate(seed=game).act(obs["observation"], mask)
            ours = int(act(obs["observation"], mask.astype(bool), jax.random.key(checked)))
            assert mask[ours], f"illegal action {ours}"
            legal = np.flatnonzero(mask)
            plank = [a for a in legal if example.A.PLANK_BASE < a <= example.A.EYP_BASE]
            if plank:
                assert ours == python
                planks += 1
            else:
                plus = [a for a in legal if example.A.LOOT_BASE <= a <= example.A.PLANK_BASE
                        and (a - example.A.LOOT_BASE) % 3 == 0]
                allowed = plus or [a for a in legal if a != example.A.OPEN_CHEST] or list(legal)
                assert ours in allowed and python in allowed
            checked += 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 200 and planks > 10


# ---------------------------------------------------------------- JAX cross-play against the kit's
def _agree(jax_wins, jax_games, kit_wins, kit_games):
    low_j, high_j = wilson_interval(jax_wins, jax_games)
    low_k, high_k = wilson_interval(kit_wins, kit_games)
    assert low_j <= high_k and low_k <= high_j, (
        f"JAX {jax_wins}/{jax_games} [{low_j:.3f}, {high_j:.3f}] vs kit {kit_wins}/{kit_games} [{low_k:.3f}, {high_k:.3f}]")


@pytest.mark.parametrize("row, column, players", [("plank", "heuristic", 5), ("heuristic", "random", 8)])
def test_jax_cross_play_agrees_with_the_kits_within_their_intervals(row, column, players):
    """300 games of one pair at one table size, in the JAX twin (:func:`cross_play`) and in the Python kit
    (:func:`traitors_env.evaluation.crossplay.play_cells`): the 95 % Wilson intervals of the row side's win rate
    overlap (R17: the row side wins when a Pirate seat wins)."""
    jax = pytest.importorskip("jax")
    pytest.importorskip("flax")
    from training.jax_backend.engine import twin_engine
    from training.jax_backend.league import HEURISTIC, RANDOM, cross_play
    from training.jax_backend.ppo import ActorCritic
    from traitors_env.evaluation.crossplay import play_cells

    engine = twin_engine()
    codes = {"heuristic": HEURISTIC, "random": RANDOM, "plank": 3}
    params = ActorCritic((8,), 196).init(jax.random.key(0), np.zeros((1, 1228), np.float32))  # unused by bots
    games = 300
    jax_wins, jax_games = cross_play(engine, ((8,), 196, "tanh"), (codes[row], params), (codes[column], params),
                                     games, [players], seed=1)
    assert jax_games == games
    specs = {"plank": str(ROOT / "examples" / "plank_pirate.py") + ":make", "heuristic": "heuristic",
             "random": "random"}
    kit = play_cells([(players, row, specs[row], column, specs[column])], games, seed=1, workers=1)
    cell = kit.cells[(players, row, column)]
    assert cell.games == games
    _agree(jax_wins, jax_games, cell.row_wins, cell.games)


# ---------------------------------------------------------------- the loop
def test_a_tiny_league_writes_its_matrix_and_gives_the_same_checkpoints_for_the_same_seed(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import read_league, train_league

    engine = standin_engine()  # the loop's logic on a game that compiles fast
    runs = [train_league(league_config(tmp_path / name), engine=engine) for name in ("a", "b")]
    files = [{p.relative_to(r.path / "checkpoints").as_posix(): p.read_bytes()
              for p in sorted((r.path / "checkpoints").glob("gen_*/*"))} for r in runs]
    assert sorted(files[0]) == ["gen_001/mutineers.msgpack", "gen_001/pirates.msgpack",
                                "gen_002/mutineers.msgpack", "gen_002/pirates.msgpack"]
    assert files[0] == files[1]  # byte-identical
    league = [read_league(r.path) for r in runs]
    assert league[0]["matrix"] == league[1]["matrix"]
    data = league[0]
    assert [m["name"] for m in data["members"]["pirates"]] == ["random", "heuristic", "league_1", "league_2"]
    assert data["members"]["mutineers"][2]["checkpoint"] == "checkpoints/gen_001/mutineers.msgpack"
    assert np.array(data["matrix"]["games"]).shape == (4, 4) and (np.array(data["matrix"]["games"]) == 16).all()
    assert [it["iteration"] for it in data["iterations"]] == [0, 1, 2]
    assert (runs[0].path / "league.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the Nash weights' plot
    for it in data["iterations"]:
        for side in ("pirates", "mutineers"):
            assert sum(it["nash"][side].values()) == pytest.approx(1.0, abs=1e-5)
    # iteration 1's Pirates trained first: no newest Mutineers policy yet; the Mutineers met the new Pirates
    assert data["iterations"][1]["training"]["pirates"]["latest"] == 0.0
    assert data["iterations"][1]["training"]["mutineers"]["latest"] == pytest.approx(0.2)
    state = json.loads((runs[0].path / "state.json").read_text())
    assert state["completed_generations"] == 2


def test_exploiters_join_their_sides_population_and_never_become_its_newest_policy(tmp_path, monkeypatch):
    """``league.exploiters``: each iteration, a fresh policy per named side trained against the other side's newest
    policy alone joins the population as ``exploiter_k``; the side's own line (``league_k``) goes on from its
    previous policy, and the other side meets the exploiter only through the Nash mixture. Seeded as the rest. With
    ``league.final_exploiters: false`` the last iteration trains none and the rest is unchanged."""
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    import jax

    from training.jax_backend import league as league_module
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import read_league, train_league

    met = []  # (generation, team, the parameters the exploiter trained against)
    real = league_module._train_exploiter

    def spy(config, engine, run, generation, side, team, target, *rest):
        met.append((generation, team, jax.tree_util.tree_map(np.asarray, target)))
        return real(config, engine, run, generation, side, team, target, *rest)

    monkeypatch.setattr(league_module, "_train_exploiter", spy)
    from training.jax_backend import train as train_module

    totals = []  # the progress bar's total of learner decisions, per league trained
    real_bar = train_module.progress_bar

    def bar_spy(config, total):
        totals.append(total)
        return real_bar(config, total)

    monkeypatch.setattr(train_module, "progress_bar", bar_spy)
    engine = standin_engine()
    changes = {"league": {"exploiters": {"pirates": 96, "mutineers": 128}}}
    runs = [train_league(league_config(tmp_path / name, **changes), engine=engine) for name in ("a", "b")]
    files = [{p.relative_to(r.path / "checkpoints").as_posix(): p.read_bytes()
              for p in sorted((r.path / "checkpoints").glob("gen_*/*"))} for r in runs]
    assert sorted(files[0]) == [f"gen_00{k}/{f}.msgpack" for k in (1, 2) for f in
                                ("exploiter_mutineers", "exploiter_pirates", "mutineers", "pirates")]
    assert files[0] == files[1]
    data = read_league(runs[0].path)
    for side in ("pirates", "mutineers"):
        members = data["members"][side]
        assert [m["name"] for m in members] == ["random", "heuristic", "league_1", "exploiter_1", "league_2",
                                                "exploiter_2"]
        assert [m["exploiter"] for m in members] == [False] * 3 + [True, False, True]
        assert members[3]["checkpoint"] == f"checkpoints/gen_001/exploiter_{side}.msgpack"
    assert np.array(data["matrix"]["games"]).shape == (6, 6)
    # an exploiter trains for its own budget from fresh parameters; the side's line goes on from its last policy
    from flax import serialization

    def timesteps(name):
        return serialization.msgpack_restore((runs[0].path / "checkpoints" / name).read_bytes())["num_timesteps"]

    assert timesteps("gen_002/pirates.msgpack") >= 2 * 200  # two iterations of steps_per_team
    for k in (1, 2):  # one budget each (whole PPO iterations: at most one rollout of 16 x 16 decisions over it)
        for side, budget in (("pirates", 96), ("mutineers", 128)):
            assert budget <= timesteps(f"gen_00{k}/exploiter_{side}.msgpack") < budget + 256
    # each exploiter met the other side's newest policy of its iteration (its saved checkpoint), nothing else
    assert [(g, t) for g, t, _ in met[:4]] == [(0, "pirates"), (0, "mutineers"), (1, "pirates"), (1, "mutineers")]
    for generation, team, target in met[:4]:
        other = "mutineers" if team == "pirates" else "pirates"
        saved = serialization.msgpack_restore(
            (runs[0].path / "checkpoints" / f"gen_00{generation + 1}" / f"{other}.msgpack").read_bytes())["params"]
        jax.tree_util.tree_map(np.testing.assert_array_equal, target, saved)
    assert data["iterations"][2]["training"]["exploiters"] == {"pirates": {"latest": 1.0},
                                                               "mutineers": {"latest": 1.0}}
    assert set(data["iterations"][2]["seconds"]) == {"train", "exploiters", "cross_play"}
    # league.final_exploiters: false: the last iteration trains none; every other file is the same, byte for byte
    last = train_league(league_config(tmp_path / "c", league={**changes["league"], "final_exploiters": False}),
                        engine=engine)
    assert {p.relative_to(last.path / "checkpoints").as_posix(): p.read_bytes()
            for p in sorted((last.path / "checkpoints").glob("gen_*/*"))} == {
        name: data for name, data in files[0].items() if not name.startswith("gen_002/exploiter")}
    final = read_league(last.path)
    for side in ("pirates", "mutineers"):
        assert [m["name"] for m in final["members"][side]] == ["random", "heuristic", "league_1", "exploiter_1",
                                                               "league_2"]
    assert final["iterations"][1]["nash"] == data["iterations"][1]["nash"]
    assert "exploiters" not in final["iterations"][2]["training"]
    policies = sum(league_config(tmp_path / "a", **changes).training.steps_for(team) for team in ("pirates", "mutineers"))
    assert totals == [2 * policies + 2 * (96 + 128)] * 2 + [2 * policies + 96 + 128]  # one exploiting iteration
    assert set(final["iterations"][2]["seconds"]) == {"train", "cross_play"}
    # such a league is not resumed to more iterations (the longer one trains exploiters in its iteration 2)
    from training.run import RunError

    saved = (last.path / "config.yaml").read_bytes()
    longer = league_config(tmp_path / "c", league={**changes["league"], "final_exploiters": False, "iterations": 3})
    with pytest.raises(RunError, match="ended at iteration 2 without exploiters .*league.final_exploiters"):
        train_league(longer, resume=True, engine=engine)
    assert (last.path / "config.yaml").read_bytes() == saved


@pytest.mark.slow
def test_a_resumed_league_gives_the_same_checkpoints_and_meta_games(tmp_path):
    """One iteration, then ``--resume`` to two: the same checkpoints and matrix as two in one go (with an exploiter
    on one side, which a resumed run must not take for the side's newest policy)."""
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import read_league, train_league

    engine = standin_engine()
    exploiters = {"exploiters": {"mutineers": 96}}
    whole = train_league(league_config(tmp_path / "a", league=exploiters), engine=engine)
    files = [{p.relative_to(whole.path / "checkpoints").as_posix(): p.read_bytes()
              for p in sorted((whole.path / "checkpoints").glob("gen_*/*"))}]
    data = read_league(whole.path)
    first = train_league(league_config(tmp_path / "c", league={"iterations": 1, **exploiters}), engine=engine)
    assert read_league(first.path)["iterations"][-1]["iteration"] == 1
    resumed = train_league(league_config(tmp_path / "c", league=exploiters), resume=True, engine=engine)
    assert "gen_002/exploiter_mutineers.msgpack" in files[0]
    assert {p.relative_to(resumed.path / "checkpoints").as_posix(): p.read_bytes()
            for p in sorted((resumed.path / "checkpoints").glob("gen_*/*"))} == files[0]
    assert read_league(resumed.path)["matrix"] == data["matrix"]
    assert [it["nash"] for it in read_league(resumed.path)["iterations"]] == [it["nash"] for it in data["iterations"]]
    # the resumed iteration's first side met the newest policy restored from league.json, as uninterrupted
    assert [it.get("newest_met") for it in read_league(resumed.path)["iterations"]] == [
        it.get("newest_met") for it in data["iterations"]]


# ---------------------------------------------------------------- the rollout's additions
def test_the_rollout_draws_past_snapshots_by_weight_and_the_engines_probes_as_kinds():
    """``Opponents.past_weights`` draws a ``past`` game's snapshot by weight (here only entry 2, a weight-1
    snapshot); probabilities over 4 + k kinds draw the engine's probes (here the plank probe for every game)."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from training.jax_backend import rollout as R
    from training.jax_backend.engine import standin_engine, twin_engine

    settings = R.Settings((3, 5, 8), (1 / 3,) * 3, 4, 1.0, 1.0, True, None)
    weighted = R.Opponents(jnp.asarray([0.0, 1.0, 0.0, 0.0]), jnp.float32(0), jnp.zeros(3), jnp.int32(3),
                           jnp.asarray([0.0, 0.0, 1.0]))
    slots = R.new_slots(standin_engine(), settings, jax.random.key(0), 64, weighted)
    assert (np.asarray(slots.kind) == R.PAST).all() and (np.asarray(slots.past) == 2).all()
    uniform = weighted._replace(past_weights=None)  # unchanged: uniform over the real ones
    assert set(np.asarray(R.new_slots(standin_engine(), settings, jax.random.key(0), 64, uniform).past)) == {0, 1, 2}
    probe = R.Opponents(jnp.asarray([0.0, 0.0, 0.2, 0.0, 0.0, 0.8]), jnp.float32(0), jnp.zeros(1), jnp.int32(1))
    engine = standin_engine()._replace(probes=(("a", 0, None), ("b", 0, None)))  # dealing calls no probe
    kinds = np.asarray(R.new_slots(engine, settings, jax.random.key(0), 256, probe).kind)
    assert set(kinds) == {R.HEURISTIC, 5} and 0.7 < (kinds == 5).mean() < 0.9  # probe "b" is kind 4 + 1
    assert twin_engine().probes[0][0] == "plank"  # Traitors Aboard's twin ships the plank probe


# ---------------------------------------------------------------- the meta-game per table size
def test_the_rollout_draws_each_games_opponent_from_the_row_of_its_table_size():
    """Per-size rows (``league.meta_game: per_size``): a game dealt at table size ``player_counts[s]`` meets an
    opponent kind, and a ``past`` snapshot, drawn from row ``s`` only."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from training.jax_backend import rollout as R
    from training.jax_backend.engine import standin_engine

    settings = R.Settings((3, 5, 8), (1 / 3,) * 3, 4, 1.0, 1.0, True, None)
    rows = R.Opponents(
        jnp.asarray([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]),  # 3: heuristic, 5: random
        jnp.float32(0), jnp.zeros(3), jnp.int32(3),                                    # 8: past
        jnp.asarray([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    )
    slots = R.new_slots(standin_engine(), settings, jax.random.key(1), 256, rows)
    size, kind, past = (np.asarray(x) for x in (slots.state.num_players, slots.kind, slots.past))
    assert set(size) == {3, 5, 8}
    assert (kind[size == 3] == R.HEURISTIC).all() and (kind[size == 5] == R.RANDOM).all()
    assert (kind[size == 8] == R.PAST).all() and (past[size == 8] == 2).all()


def test_opponent_mix_by_size_gives_each_size_its_own_nash_mixture_over_one_past_pool():
    pytest.importorskip("jax")  # training.jax_backend imports JAX (the jax extra)
    from training.jax_backend.league import Member, opponent_mix, opponent_mix_by_size

    members = [Member("random", "random"), Member("heuristic", "heuristic"),
               Member("league_1", "policy", 1, "a"), Member("league_2", "policy", 2, "b")]
    nash = {3: {"heuristic": 1.0}, 8: {"league_1": 0.25, "league_2": 0.75}}
    p, pooled, past = opponent_mix_by_size(nash, members, [], 0.2, True, 4, {"random": 0.1}, [3, 8])
    assert p.shape == (2, 4) and past.shape == (2, 4) and pooled == ["league_2", "league_1"]
    # size 3: latest 0.2, random's kept 0.1, the heuristic the rest; past never drawn there
    assert p[0] == pytest.approx([0.2, 0.0, 0.7, 0.1])
    # size 8: the same row as the pooled function's for that size's mixture
    alone, names, weights = opponent_mix(nash[8], members, [], 0.2, True, 4, {"random": 0.1})
    assert names == pooled and p[1] == pytest.approx(alone) and past[1] == pytest.approx(weights)
    assert past[1][:2] == pytest.approx([0.75, 0.25])


def test_per_size_meta_game_needs_a_cross_play_table_at_every_training_size(tmp_path):
    with pytest.raises(ConfigError, match=r"lacks \[8\]"):
        league_config(tmp_path, league={"meta_game": "per_size", "player_counts": [3, 5]})
    with pytest.raises(ConfigError, match="league.games=2 is fewer than the 3 table sizes"):
        league_config(tmp_path, league={"meta_game": "per_size", "games": 2})
    with pytest.raises(ConfigError, match="meta_game"):
        league_config(tmp_path, league={"meta_game": "by_size"})
    assert league_config(tmp_path).league.meta_game == "pooled"  # the default: unchanged leagues


def test_a_per_size_league_solves_and_trains_on_each_table_sizes_meta_game(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import read_league, train_league

    config = league_config(tmp_path, league={"iterations": 1, "meta_game": "per_size", "games": 30})
    data = read_league(train_league(config, engine=standin_engine()).path)
    by_size = data["matrix_by_size"]
    assert sorted(by_size, key=int) == ["3", "5", "8"]
    games = sum(np.array(m["games"]) for m in by_size.values())
    wins = sum(np.array(m["wins"]) for m in by_size.values())
    assert (games == np.array(data["matrix"]["games"])).all() and (wins == np.array(data["matrix"]["wins"])).all()
    assert (np.array(by_size["3"]["games"]) == 10).all()  # games spread evenly over the sizes
    last = data["iterations"][-1]
    rows, columns = ([m["name"] for m in data["members"][side]] for side in ("pirates", "mutineers"))
    for n, m in by_size.items():  # each size's mixture is the LP's solution of that size's own games
        rate = np.where(np.array(m["games"]) > 0, np.array(m["wins"]) / np.maximum(np.array(m["games"]), 1), 0.5)
        solved = solve_zero_sum(rate.tolist(), rows, columns, sides=("pirates", "mutineers"))
        assert last["value_by_size"][n] == pytest.approx(solved["value"], abs=1e-6)
        assert last["nash_by_size"][n]["mutineers"] == pytest.approx(solved["mutineers"]["mixture"], abs=1e-6)
    for it in data["iterations"]:
        assert sorted(it["nash_by_size"], key=int) == ["3", "5", "8"]
        for n, solved in it["nash_by_size"].items():
            for side in ("pirates", "mutineers"):
                assert sum(solved[side].values()) == pytest.approx(1.0, abs=1e-5)
            assert 0.0 <= it["value_by_size"][n] <= 1.0
    mix = data["iterations"][1]["training"]["mutineers"]
    assert sorted(mix["by_size"], key=int) == ["3", "5", "8"]
    for row in mix["by_size"].values():
        assert row["latest"] == pytest.approx(0.2) and sum(row.values()) == pytest.approx(1.0, abs=1e-4)
    assert sum(v for k, v in mix.items() if k != "by_size") == pytest.approx(1.0, abs=1e-4)


def test_a_full_past_pool_keeps_each_table_sizes_heaviest_policy():
    """More policy members than the ``past`` pool holds: each size keeps its heaviest policy (a size whose
    mixture is all on members the other sizes do not use still trains against a policy), then the most drawn."""
    pytest.importorskip("jax")  # training.jax_backend imports JAX (the jax extra)
    from training.jax_backend.league import Member, opponent_mix_by_size

    members = [Member("heuristic", "heuristic")] + [Member(f"league_{i}", "policy", i, "x") for i in range(1, 5)]
    nash = {8: {"league_1": 0.5, "league_2": 0.5}, 3: {"league_3": 0.6, "league_4": 0.4}}
    p, pooled, past = opponent_mix_by_size(nash, members, [], 0.0, False, 2, {}, [3, 8])
    assert sorted(pooled) == ["league_1", "league_3"]
    assert p[0][1] == pytest.approx(1.0) and past[0][pooled.index("league_3")] == pytest.approx(1.0)
    assert p[1][1] == pytest.approx(1.0) and past[1][pooled.index("league_1")] == pytest.approx(1.0)
    # members that fit: every one with a positive weight, heaviest first (the order a pooled league uses)
    _, everyone, _ = opponent_mix_by_size(nash, members, [], 0.0, False, 8, {}, [3, 8])
    assert everyone == ["league_3", "league_1", "league_2", "league_4"]


def test_per_size_rows_must_match_the_rollouts_table_sizes():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from training.jax_backend import rollout as R
    from training.jax_backend.engine import standin_engine

    settings = R.Settings((3, 5, 8), (1 / 3,) * 3, 4, 1.0, 1.0, True, None)
    two = R.Opponents(jnp.full((2, 4), 0.25), jnp.float32(0), jnp.zeros(1), jnp.int32(1))
    with pytest.raises(ValueError, match=r"2 rows; per-size rows need one per table size of .*\(3, 5, 8\)"):
        R.new_slots(standin_engine(), settings, jax.random.key(0), 16, two)


def test_resuming_a_league_whose_league_json_is_damaged_or_missing_is_refused_leaving_the_folder_as_it_was(tmp_path):
    """Bad input loses nothing already saved: the refusal comes before the run folder's config.yaml is rewritten."""
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.league import LEAGUE_FILE, train_league
    from training.run import RunError

    engine = standin_engine()
    run = train_league(league_config(tmp_path, league={"iterations": 1}), engine=engine)
    config_text = run.config_path.read_text()
    league_file = run.path / LEAGUE_FILE
    for damage, message in (("{not json", "is damaged"), ('{"members": {}}', "is damaged"), (None, "is missing")):
        if damage is None:
            league_file.unlink()
        else:
            league_file.write_text(damage)
        with pytest.raises(RunError, match=f"cannot resume .*{LEAGUE_FILE} {message}"):
            train_league(league_config(tmp_path), resume=True, engine=engine)
        assert run.config_path.read_text() == config_text
        assert run.read_state()["completed_generations"] == 1
