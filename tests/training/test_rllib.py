"""The Ray RLlib backend (issue 14): the game-master env, terminal rewards through RLlib's episodes,
training in-process, agents by spec, and a real two-node Ray cluster on loopback (slow).

Skipped without the ``rllib`` extra. Every test that needs Ray starts it itself (local, loopback only,
no dashboard, small object stores) and shuts it down.
"""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("PIL")  # RLlib's algorithm registry imports Pillow

import ray  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from rllib_helpers import MB, TINY, loopback_only, rllib_config, running_local_ray  # noqa: E402

from training.config import config_from_dict  # noqa: E402
from training.rllib.env import GameMasterEnv, team_of  # noqa: E402
from training.rllib.modules import TeamMapping  # noqa: E402
from traitors_env import traitors_aboard_v0  # noqa: E402
from traitors_env.agents.spec import load_agent  # noqa: E402
from traitors_env.evaluation import play_game  # noqa: E402
from traitors_env.games.traitors_aboard import actions as A  # noqa: E402
from traitors_env.games.traitors_aboard.cards import CardKind, EndCondition, Role  # noqa: E402
from traitors_env.games.traitors_aboard.engine import GameState  # noqa: E402

P, M = Role.PIRATE, Role.MUTINEER
PLUS, ZERO, MINUS, PLANK = CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2, CardKind.PLANK
# ---------------------------------------------------------------- the game master
def test_game_master_env_passes_rllibs_env_checker():
    """RLlib's own checker (reset, a sampled action, step) accepts the env at every table size."""
    steps = []

    class Counted(GameMasterEnv):  # shows the checker really stepped the env (it skips envs it cannot read)
        def step(self, action_dict):
            steps.append(action_dict)
            return super().step(action_dict)

    for n in range(3, 9):
        check_multiagent_environments(Counted({"player_counts": [n], "seed": n}))
    assert len(steps) == 6


def test_agent_ids_name_the_team_of_the_seat_and_only_the_seat_to_act_observes():
    """Ids are '<team>/<seat>' by the deal of the current game (so the policy mapping maps by team); every
    step observes exactly the seat to act, with its own legal mask; a sampled action is legal (the checker uses it)."""
    env = GameMasterEnv({"player_counts": [3, 5, 8], "seed": 3})
    rng = np.random.default_rng(0)
    for game in range(6):
        obs, _ = env.reset(seed=game)
        roles = env.game.roles
        assert env.agents == [f"{'pirates' if r == P else 'mutineers'}/{s}" for s, r in enumerate(roles)]
        done = False
        while not done:
            (agent,) = obs
            seat = int(agent.split("/")[1])
            assert seat == env.game.current_player and team_of(agent) == ("pirates" if roles[seat] == P else "mutineers")
            mask = obs[agent]["action_mask"]
            np.testing.assert_array_equal(mask, env.game.legal_mask())
            action = env.get_action_space(agent).sample()
            assert mask[action] == 1
            if rng.random() < 0.5:  # and a policy's choice
                action = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
            done = terminateds["__all__"]


def _feed(env: GameMasterEnv, actions_by_turn, position: GameState) -> MultiAgentEpisode:
    """Plays scripted actions through the env and RLlib's MultiAgentEpisode, as RLlib's env runner does."""
    episode = MultiAgentEpisode(
        observation_space=env.observation_spaces, action_space={a: env.action_spaces[a] for a in env.possible_agents}
    )
    obs, infos = env.reset(options={"position": position})
    episode.add_env_reset(observations=obs, infos=infos)
    terminated = False
    while not terminated:
        (agent,) = obs
        actions = {agent: actions_by_turn.pop(0)}
        obs, rewards, terminateds, truncateds, infos = env.step(actions)
        episode.add_env_step(obs, actions, rewards, infos, terminateds=terminateds, truncateds=truncateds)
        terminated = terminateds["__all__"]
    assert episode.is_done
    return episode, rewards


def test_r03_chest_opened_by_an_opponent_on_turn_1_every_seat_gets_its_terminal_reward():
    """A Pirate opens the chest (5 × +1, target 5 at 3 players, R03) on the game's first decision: every seat
    gets its team's reward with its last observation (R17); RLlib keeps the opener's transition with +1 and
    leaves out the two seats that never acted (nothing to learn from: their only observation is the last)."""
    state = GameState.from_position(
        3,
        roles=[M, P, P],
        hands=[(PLUS, ZERO, MINUS)] * 3,
        draw_pile=[MINUS] * 6,
        chest=[(PLUS, 1, PLUS)] * 5,
        current_player=1,
    )
    episode, rewards = _feed(GameMasterEnv(), [A.OPEN_CHEST], state)
    assert rewards == {"mutineers/0": -1.0, "pirates/1": 1.0, "pirates/2": 1.0}
    assert set(episode.agent_episodes) == {"pirates/1"}
    assert np.asarray(episode.agent_episodes["pirates/1"].get_rewards()).tolist() == [1.0]


def test_r11_seat_thrown_overboard_keeps_its_terminal_reward_in_rllibs_episode():
    """Seats 0 and 1 (Pirates) play, then the Mutineer Planks seat 1 overboard (third Plank, R11): 1 Pirate vs
    1 Mutineer, Mutineers win (R12). Every seat that acted, the overboard one included, ends its RLlib
    trajectory with its team's reward (−1, −1, +1); every earlier reward is 0."""
    state = GameState.from_position(
        3,
        roles=[P, P, M],
        hands=[(PLUS, ZERO, MINUS), (PLUS, ZERO, MINUS), (PLANK, ZERO, MINUS)],
        draw_pile=[ZERO] * 6,
        planks=[0, 2, 0],
        current_player=0,
    )
    turns = [A.loot_action(ZERO, ZERO), A.CLAIM_NONE] * 2 + [A.plank_action(2)]
    env = GameMasterEnv()
    episode, rewards = _feed(env, turns, state)
    game = env.game
    assert not game.aboard[1] and game.winner == M and game.end_condition == EndCondition.MUTINEERS_NOT_OUTNUMBERED
    assert rewards == {"pirates/0": -1.0, "pirates/1": -1.0, "mutineers/2": 1.0}
    returns = {agent: sa.get_return() for agent, sa in episode.agent_episodes.items()}
    assert returns == {"pirates/0": -1.0, "pirates/1": -1.0, "mutineers/2": 1.0}
    for sa in episode.agent_episodes.values():
        assert np.asarray(sa.get_rewards())[:-1].tolist() == [0.0] * (len(sa) - 1)


def test_every_seat_that_decided_gets_its_team_result_in_episodes_sampled_by_rllib():
    """RLlib's own env runner (policy mapping included) samples random-table games: in every episode each seat
    that took a decision ends its trajectory with its team's result (R17), rewards before are 0, and the seats
    of a team map to that team's module or the episode's bot."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from training.rllib.runner import algorithm_config

    config = algorithm_config(rllib_config("/unused"))
    runner = MultiAgentEnvRunner(config=config)
    try:
        episodes = runner.sample(num_episodes=12, random_actions=False)
    finally:
        runner.stop()
    seen = 0
    for episode in episodes:
        if not episode.is_done:
            continue
        seen += 1
        results = {}
        for agent, sa in episode.agent_episodes.items():
            rewards = np.asarray(sa.get_rewards())
            assert rewards[:-1].tolist() == [0.0] * (len(rewards) - 1)
            assert rewards[-1] in (1.0, -1.0) and sa.is_terminated
            results.setdefault(team_of(agent), set()).add(float(rewards[-1]))
            assert episode.module_for(agent) in (team_of(agent), "heuristic", "random")
        assert all(len(r) == 1 for r in results.values())  # one result per team
        if len(results) == 2:
            assert results["pirates"] != results["mutineers"]
    assert seen >= 10


def test_team_mapping_draws_one_matchup_per_episode_by_the_weights():
    """Self-play maps each team to itself; a bot matchup maps one team (50/50) to the bot, the other to itself."""
    mapping = TeamMapping({"latest": 0.5, "heuristic": 0.5, "random": 0.0}, seed=1)
    kinds = {"latest": 0, "heuristic": 0, "random": 0}
    for i in range(400):
        episode = type("E", (), {"id_": f"episode-{i}"})()
        modules = {mapping(f"{team}/{seat}", episode) for team in ("pirates", "mutineers") for seat in range(3)}
        kind, bot_team = mapping.matchup(f"episode-{i}")
        kinds[kind] += 1
        if kind == "latest":
            assert modules == {"pirates", "mutineers"}
        else:
            assert modules == {kind, "mutineers" if bot_team == "pirates" else "pirates"}
    assert kinds["random"] == 0 and 150 < kinds["latest"] < 250


def test_team_mapping_draws_past_only_once_a_snapshot_is_loaded():
    """``past`` drops out (weights renormalised) until the past modules hold a snapshot; then it is drawn by its
    weight and maps the fixed team to its own ``<team>_past`` module, the other team to its trained module."""
    mapping = TeamMapping({"latest": 0.0, "past": 0.75, "heuristic": 0.25, "random": 0.0}, seed=0)
    rng = np.random.default_rng(0)
    assert {mapping.draw(rng, past_available=False)[0] for _ in range(200)} == {"heuristic"}
    kinds = [mapping.draw(rng, past_available=True) for _ in range(400)]
    assert 250 < sum(kind == "past" for kind, _ in kinds) < 350
    for kind, fixed in kinds:
        assert {TeamMapping.module(team, (kind, fixed)) for team in ("pirates", "mutineers")} == {
            f"{fixed}_past" if kind == "past" else kind,
            "mutineers" if fixed == "pirates" else "pirates",
        }
    with pytest.raises(ValueError, match="besides past"):
        TeamMapping({"latest": 0.0, "past": 1.0, "heuristic": 0.0, "random": 0.0})


# ---------------------------------------------------------------- training in-process
@pytest.fixture
def local_ray():
    with running_local_ray():
        yield


def test_tiny_config_trains_two_iterations_resumes_and_its_teams_are_agents_by_spec(tmp_path, local_ray):
    """``traitors-train --config configs/rllib_tiny.yaml``: two iterations, a checkpoint and a state row each,
    TensorBoard and CSV, the evaluation report; --resume adds a third from the saved checkpoint; the run folder,
    a checkpoint and a team module are agents by spec that play legal games (masked probabilities summing to 1);
    traitors-eval evaluates the resumed run."""
    from training.evaluate import main as eval_main
    from training.rllib.runner import train_rllib
    from training.storage import RunFolder
    from training.train import main as train_main
    from traitors_env.agents.rllib_checkpoint import load_module_policy

    config = rllib_config(tmp_path)
    assert train_main(["--config", str(TINY), "--output-dir", str(tmp_path)]) == 0  # the CLI's backend dispatch
    run = RunFolder(config.run_dir)
    report = json.loads((run.path / "evaluation.json").read_text())
    assert report["backend"] == "rllib" and report["generation"] == 2 and (run.path / "evaluation.md").is_file()
    state = json.loads(run.state_path.read_text())
    assert state["completed_generations"] == 2 and len(state["history"]) == 2
    for record in state["history"]:
        assert record["game_decisions"] >= config.rllib.train_batch_size and record["learner_steps"] > 0
    for g in (0, 1):
        assert (run.generation_dir(g) / "learner_group/learner/rl_module/pirates/module_state.pkl").is_file()
    assert len((run.path / "generations.csv").read_text().splitlines()) == 3
    assert list((run.path / "tensorboard" / "rllib").glob("events.out.tfevents.*"))
    before = (run.generation_dir(1) / "learner_group/learner/rl_module/mutineers/module_state.pkl").read_bytes()

    data = config.model_dump(mode="json")
    data["training"]["generations"] = 3
    run = train_rllib(config_from_dict(data), resume=True, trust_checkpoint=True)
    state = json.loads(run.state_path.read_text())
    assert state["completed_generations"] == 3 and [h["generation"] for h in state["history"]] == [1, 2, 3]
    assert (run.generation_dir(1) / "learner_group/learner/rl_module/mutineers/module_state.pkl").read_bytes() == before

    module = run.generation_dir(2) / "learner_group" / "learner" / "rl_module" / "pirates"
    for spec in (str(run.path), str(run.generation_dir(2)), str(module)):
        label, agent = load_agent(spec, seed=0)
        assert label.startswith("rllib:")
        result = play_game(traitors_aboard_v0.raw_env(num_players=4), [agent] * 4, seed=1)["result"]
        assert result["winner"] in ("Pirate", "Mutineer")

    policy = load_module_policy(module)  # the agents' masked probabilities
    env = traitors_aboard_v0.raw_env(num_players=5)
    env.reset(seed=2)
    observation = env.observe(env.agent_selection)
    p = policy.probabilities(observation["observation"], observation["action_mask"])
    assert p.shape == (A.NUM_ACTIONS,) and abs(p.sum() - 1) < 1e-9
    assert (p[observation["action_mask"] == 0] == 0).all() and (p[observation["action_mask"] == 1] > 0).all()
    legal = observation["action_mask"] == 1  # the fast actor path gives RLlib's own logits
    slow = policy.logits(observation["observation"], observation["action_mask"], fast=False)
    np.testing.assert_allclose(policy.logits(observation["observation"], observation["action_mask"])[legal], slow[legal], rtol=1e-5, atol=1e-5)

    assert eval_main(["--run", str(run.path), "--workers", "1"]) == 0  # traitors-eval reads RLlib runs too
    report = json.loads((run.path / "evaluation.json").read_text())
    assert report["generation"] == 3 and {c["pirates"] for c in report["cells"]} == {"trained", "heuristic", "random"}
    assert len(list((run.path / "tensorboard" / "rllib").glob("events.out.tfevents.*.gen_*"))) == 3  # one per iteration


def test_readme_using_with_rllib_block_runs(local_ray):
    """The manual's "Using with RLlib" example (the plain env, RLlib's masking module) builds and trains."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "backends" / "rllib.md").read_text(encoding="utf-8")
    section = readme.split("## Using with RLlib")[1].split("\n## ")[0]
    (block,) = re.findall(r"```py\n(.*?)```", section, flags=re.S)
    exec(compile(block, "docs/backends/rllib.md", "exec"), {})


def test_past_opponents_are_older_snapshots_of_each_team_never_trained(tmp_path, local_ray):
    """``opponents.past``: once two iterations are completed, each team's past module holds that team's module of
    an older iteration (before iteration 3 only iteration 1 is older than the newest), the env runners' copies
    too (``past`` matchups are drawn and counted only then), and training leaves it as loaded."""
    from training.rllib.runner import MODULE_DIR, TEAMS, train_rllib

    data = rllib_config(tmp_path).model_dump(mode="json")
    data["env"]["player_counts"] = [3]  # short games: several start and end within one iteration
    data["opponents"] = {"latest": 0.0, "past": 1.0, "heuristic": 0.2, "random": 0.0}
    data["training"]["generations"] = 3
    run = train_rllib(config_from_dict(data))
    history = json.loads(run.state_path.read_text())["history"]
    assert "past_snapshots" not in history[0] and "past_snapshots" not in history[1]
    assert history[2]["past_snapshots"] == {"pirates": 1, "mutineers": 1}
    assert not any(key.endswith("_vs_past") for h in history[:2] for key in h["win_rates"])
    assert any(key.endswith("_vs_past") for key in history[2]["win_rates"])
    assert any(module.endswith("_past") for module in history[2]["module_returns"])

    def state(generation, module):
        return pickle.loads((run.generation_dir(generation) / MODULE_DIR / module / "module_state.pkl").read_bytes())

    for team in TEAMS:
        past, older, newest = state(2, f"{team}_past"), state(0, team), state(2, team)
        assert int(past.pop("snapshot")) == 1
        assert past.keys() == older.keys() and all(np.array_equal(past[k], older[k]) for k in older)
        assert not all(np.array_equal(newest[k], older[k]) for k in older)  # the team itself trained on


def _full_checkpoints(run) -> list[str]:
    """The iteration folders that still hold RLlib's whole algorithm checkpoint (its top-level metadata file)."""
    return sorted(p.parent.name for p in run.checkpoints.glob("gen_*/rllib_checkpoint.json"))


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_prune_checkpoints_keeps_the_newest_full_and_the_team_modules_of_every_older_iteration(tmp_path):
    """``rllib.keep_checkpoints`` = 2 after 4 iterations: iterations 3 and 4 keep every file; 1 and 2 keep exactly
    the files of their two team modules; pruning again (a run killed while pruning) changes nothing;
    ``keep_checkpoints: null`` prunes nothing."""
    from training.rllib.runner import MODULE_DIR, TEAMS, prune_checkpoints
    from training.storage import RunFolder

    run = RunFolder(tmp_path / "run")
    layout = ["rllib_checkpoint.json", "algorithm_state.pkl", "env_runner/state.pkl", "learner_group/state.pkl",
              "learner_group/learner/state.pkl", "learner_group/learner/rl_module/module_state.pkl"]
    for module in (*TEAMS, "pirates_past", "mutineers_past", "heuristic"):
        layout += [f"{MODULE_DIR}/{module}/{name}" for name in ("module_state.pkl", "class_and_ctor_args.pkl")]
    for generation in range(4):
        for name in layout:
            path = run.generation_dir(generation) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"x")
    prune_checkpoints(run, 4, None)
    assert _full_checkpoints(run) == ["gen_001", "gen_002", "gen_003", "gen_004"]
    for _ in range(2):
        prune_checkpoints(run, 4, 2)
        assert _full_checkpoints(run) == ["gen_003", "gen_004"]
        assert all(_files(run.generation_dir(g)) == set(layout) for g in (2, 3))
        team_files = {name for name in layout if name.startswith((f"{MODULE_DIR}/pirates/", f"{MODULE_DIR}/mutineers/"))}
        assert len(team_files) == 4
        assert all(_files(run.generation_dir(g)) == team_files for g in (0, 1))


@pytest.mark.slow
def test_keep_checkpoints_prunes_older_iterations_yet_past_loads_them_and_resume_works(tmp_path, local_ray):
    """``rllib.keep_checkpoints: 1``, ``opponents.past`` only: after 4 iterations only iteration 4 keeps a full
    checkpoint; the past modules of iterations 4 and 5 hold an older iteration's team module, which was pruned
    when it was loaded (with one full checkpoint kept, every older iteration is); a --resume to 5 iterations
    restores iteration 4; a pruned iteration is still an agent by spec and evaluates with
    ``traitors-eval --generation``."""
    from training.evaluate import evaluate_run
    from training.rllib.runner import MODULE_DIR, TEAMS, train_rllib

    data = rllib_config(tmp_path, keep_checkpoints=1).model_dump(mode="json")
    data["env"]["player_counts"] = [3]
    data["opponents"] = {"latest": 0.0, "past": 1.0, "heuristic": 0.2, "random": 0.0}
    data["training"]["generations"] = 4
    run = train_rllib(config_from_dict(data))
    assert _full_checkpoints(run) == ["gen_004"]

    def state(generation, module):
        return pickle.loads((run.generation_dir(generation) / MODULE_DIR / module / "module_state.pkl").read_bytes())

    def check_past(generation):  # the past modules the iteration (0-based) trained against
        drawn = json.loads(run.state_path.read_text())["history"][generation]["past_snapshots"]
        for team in TEAMS:
            past, older = state(generation, f"{team}_past"), state(drawn[team] - 1, team)
            assert int(past.pop("snapshot")) == drawn[team]
            assert past.keys() == older.keys() and all(np.array_equal(past[k], older[k]) for k in older)

    check_past(3)
    data["training"]["generations"] = 5
    run = train_rllib(config_from_dict(data), resume=True, trust_checkpoint=True)
    assert run.completed_generations() == 5 and _full_checkpoints(run) == ["gen_005"]
    check_past(4)
    label, agent = load_agent(str(run.generation_dir(0)), seed=0)
    assert play_game(traitors_aboard_v0.raw_env(num_players=3), [agent] * 3, seed=1)["result"]["winner"] in ("Pirate", "Mutineer")
    report = evaluate_run(config_from_dict(data), run, generation=0, games=1, workers=1, progress=False)
    assert report["generation"] == 1 and report["checkpoints"]["pirates"].startswith(str(run.generation_dir(0)))


# ---------------------------------------------------------------- a real two-node cluster
@pytest.mark.slow
def test_two_node_cluster_on_loopback_samples_episodes_on_both_nodes(tmp_path):
    """A head and a worker node (one CPU each, 127.0.0.1) and ``rllib.address`` pointing at the head: the two
    env runners land one per node, and the iteration's episodes were sampled on both nodes."""
    from ray.cluster_utils import Cluster

    from training.rllib.runner import train_rllib

    node = {"num_cpus": 1, "object_store_memory": 80 * MB, "node_ip_address": "127.0.0.1"}
    with loopback_only():
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
        try:
            worker = cluster.add_node(**node)
            nodes = {cluster.head_node.node_id, worker.node_id}
            data = rllib_config(tmp_path, address=cluster.address, num_env_runners=2).model_dump(mode="json")
            data["training"]["generations"] = 1
            run = train_rllib(config_from_dict(data))
            assert not ray.is_initialized()  # the run connected to the cluster itself and disconnected
            per_node = json.loads(run.state_path.read_text())["history"][0]["episodes_per_node"]
            assert set(per_node) == nodes and all(count > 0 for count in per_node.values())
        finally:
            cluster.shutdown()


# ---------------------------------------------------------------- an unreachable cluster
def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("source", ["config", "environment"])
def test_unreachable_ray_address_fails_fast_naming_it_and_loses_nothing(tmp_path, monkeypatch, capsys, source):
    """``rllib.address`` (or ``$RAY_ADDRESS``) on a loopback port where no Ray head listens: ``traitors-train``
    exits with status 2 within seconds (Ray itself retries for over 2 minutes), the error names the address,
    where it came from and the expected ``ray start --head``; an earlier run folder stays as it was even under
    --force, and no folder is created for a new run name."""
    import socket
    import time

    from training.train import main as train_main

    assert not ray.is_initialized()
    with socket.socket() as closed:  # bound, never listening: connections to it are refused
        closed.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{closed.getsockname()[1]}"
        config = tmp_path / "cfg.yaml"
        text = TINY.read_text()
        if source == "config":
            text = text.replace("rllib:\n", f"rllib:\n  address: {address!r}\n")
        else:
            monkeypatch.setenv("RAY_ADDRESS", address)
        config.write_text(text)
        earlier = tmp_path / "rllib_tiny"
        (earlier / "checkpoints" / "gen_001").mkdir(parents=True)
        (earlier / "config.yaml").write_text(TINY.read_text())
        (earlier / "state.json").write_text('{"completed_generations": 1, "history": []}')
        (earlier / "checkpoints" / "gen_001" / "weights").write_bytes(b"saved")
        before = _snapshot(earlier)
        for extra in (["--force"], ["--resume", "--trust-checkpoint"], ["--name", "fresh"]):
            began = time.monotonic()
            assert train_main(["--config", str(config), "--output-dir", str(tmp_path), *extra]) == 2
            assert time.monotonic() - began < 30
            error = capsys.readouterr().err
            assert f"cannot reach the Ray cluster at {address!r}" in error and "ray start --head" in error
            assert ("rllib.address" if source == "config" else "$RAY_ADDRESS") in error
    assert _snapshot(earlier) == before
    assert not (tmp_path / "fresh").exists()
    assert not ray.is_initialized()
