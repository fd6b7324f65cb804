"""Training ``avalon_v0`` with the SB3 backend through the generic game master, pool and loop (issue 28).

Avalon is a zero-sum team game (A15): the learner plays every seat of its side, Good or Evil. No test asserts a
learning result (that is measured by ``traitors-train --config configs/avalon_quick.yaml``; figures in
``docs/games/avalon.md#training``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.agents import OpponentPool  # noqa: E402
from training.config import ConfigError, config_from_dict, load_config  # noqa: E402
from training.evaluate import main as evaluate_main  # noqa: E402
from training.team_env import TeamEnv  # noqa: E402
from training.train import main as train_main  # noqa: E402
from traitors_env.agents.checkpoint import load_frozen_policy  # noqa: E402
from traitors_env.core import load_game  # noqa: E402
from traitors_env.games.avalon.engine import Phase  # noqa: E402
from traitors_env.games.avalon.observation import encode  # noqa: E402
from traitors_env.games.avalon.roles import EVIL, GOOD  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_the_quick_config_trains_deeproles_variant_most_without_claims():
    """configs/avalon_quick.yaml: SB3 (no JAX twin), 5 players (DeepRole's variant, A02) weighted most, claims off
    (A17's default), evaluated at 5 players."""
    quick = load_config(CONFIGS / "avalon_quick.yaml")
    assert quick.env.name == "avalon_v0" and quick.backend == "sb3" and quick.env.claims is False
    weights = dict(zip(quick.env.player_counts, quick.env.count_weights_for("good")))
    assert max(weights, key=weights.get) == 5 and quick.eval_player_counts == [5]
    assert quick.teams == ("good", "evil")
    with pytest.raises(ConfigError, match="avalon_v0 has no JAX twin"):
        config_from_dict({"name": "x", "env": "avalon_v0", "backend": "jax"})


@pytest.mark.parametrize("side", [GOOD, EVIL])
def test_the_learner_plays_every_seat_of_its_side_and_never_a_forced_card(side):
    """A15: the side shares one reward, so the learner plays each of its seats; A10: a Good member's quest card has
    one legal action (Success), which the game master plays for it (``skip_forced_moves``): every learner step is a
    choice, and the game's last step carries the side's ±1."""
    game = load_game("avalon")
    env = TeamEnv(side, OpponentPool({"heuristic": 1.0}, seed=0, game=game), player_counts=(5, 7), claims=False,
                  game=game)
    rng = np.random.default_rng(side)
    obs, _ = env.reset(seed=side)
    for _ in range(20):
        state = env.game
        assert env.learner_seats == {s for s in range(state.num_players) if state.side_of(s) == side}
        assert len(env.learner_seats) == game.side_sizes(state.num_players)[side]
        terminated = False
        while not terminated:
            mask = env.action_masks()
            assert state.current_player in env.learner_seats and mask.sum() >= 2 and np.abs(obs).max() <= 1
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert state.is_terminal and state.phase is Phase.GAME_OVER
        assert reward == (1.0 if state.winning_side == side else -1.0) and info["won"] == (reward > 0)
        obs, _ = env.reset()


def test_a_tiny_run_trains_both_sides_saves_and_evaluates(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "name: av\nseed: 0\nenv: {name: avalon_v0, player_counts: [5, 6], player_count_weights: [3, 1], claims: false}\n"
        "opponents: {latest: 0.3, past: 0.1, heuristic: 0.5, random: 0.1}\n"
        "training: {generations: 2, steps_per_team: 64, n_envs: 2, progress_bar: false}\n"
        "ppo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}\n"
        "evaluation: {games: 4, player_counts: [5], games_per_generation: 4, workers: 1}\n",
        encoding="utf-8",
    )
    assert train_main(["--config", str(config), "--output-dir", str(tmp_path / "runs")]) == 0
    run = tmp_path / "runs" / "av"
    for generation in ("gen_001", "gen_002"):
        assert sorted(p.name for p in (run / "checkpoints" / generation).iterdir()) == ["evil.zip", "good.zip"]
    state = json.loads((run / "state.json").read_text())
    assert state["completed_generations"] == 2 and set(state["history"][-1]["vs_heuristic"]) == {"good", "evil"}
    report = json.loads((run / "evaluation.json").read_text())
    assert report["generation"] == 2 and report["player_counts"] == [5]
    cells = {(c["good"], c["evil"]): c for c in report["cells"]}
    assert set(cells) == {(g, e) for g in ("trained", "heuristic", "random") for e in ("trained", "heuristic", "random")}
    assert all(c["games"] == 4 and c["good_wins"] + round(c["evil_win_rate"] * 4) == 4 for c in cells.values())
    out = capsys.readouterr().out
    assert "Good's win rate in %" in out and "| Good \\ Evil | trained | heuristic | random |" in out
    # a trained side's policy puts no probability on an illegal action (an Evil seat's quest card: A10)
    policy = load_frozen_policy(run / "checkpoints" / "gen_002" / "evil.zip", "avalon")
    env = TeamEnv("evil", OpponentPool({"heuristic": 1.0}, seed=0, game="avalon"), player_counts=(5,), claims=False,
                  game="avalon")
    env.reset(seed=0)
    mask = env.game.legal_mask()
    probabilities = policy.probabilities(encode(env.game, env.game.current_player), mask)
    assert probabilities.sum() == pytest.approx(1.0) and (probabilities[mask == 0] == 0).all()
    # traitors-eval --run evaluates the run again (another number of games: suffixed files)
    assert evaluate_main(["--run", str(run), "--games", "2"]) == 0
    assert json.loads((run / "evaluation_gen002_games2.json").read_text())["games_per_cell"] == 2
    # the run folder is an agent of the benchmark kit (traitors-eval --game avalon --agents …)
    out_dir = tmp_path / "kit"
    assert evaluate_main(["--game", "avalon", "--agents", "heuristic", f"trained={run}", "--players", "5",
                          "--games", "2", "--no-claims", "--out", str(out_dir), "--no-plots", "--no-progress"]) == 0
    kit = json.loads((out_dir / "report.json").read_text())
    assert {(c["good"], c["evil"]) for c in kit["matrix"]} >= {("trained", "heuristic"), ("heuristic", "trained")}
