"""Training ``the_traitors_v0`` like the first game's loop: 1-based generations, TensorBoard, Ctrl-C and --resume."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

import training.sb3 as sb3  # noqa: E402  (the one SB3 loop trains this game too)
from training.train import main as train_main  # noqa: E402

CONFIG = (
    "name: tt\nseed: 0\nenv: the_traitors_v0\n"
    "training: {generations: 2, steps_per_team: 64, n_envs: 1, progress_bar: false}\n"
    "ppo: {n_steps: 64, batch_size: 64, n_epochs: 1, net_arch: [8]}\n"
    "evaluation: {games: 2, player_counts: [3], games_per_generation: 0, workers: 1}\n"
)


def test_ctrl_c_discards_the_generation_cut_short_and_resume_finishes(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tt.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    args = ["--config", str(config), "--output-dir", str(tmp_path / "runs"), "--no-eval"]
    save = sb3.save_model_atomic

    def interrupt_in_generation_2(model, path):
        save(model, path)
        if path.parent.name == "gen_002" and path.stem == "faithful":  # half of generation 2 written
            raise KeyboardInterrupt

    monkeypatch.setattr(sb3, "save_model_atomic", interrupt_in_generation_2)
    assert train_main(args) == 130
    assert "--resume" in capsys.readouterr().err
    run = tmp_path / "runs" / "tt"
    state = json.loads((run / "state.json").read_text())
    assert state["completed_generations"] == 1 and [h["generation"] for h in state["history"]] == [1]
    assert not (run / "checkpoints" / "gen_002").exists()
    for role in ("faithful", "traitor"):
        events = sorted(p.name for p in (run / "tensorboard" / role).iterdir())
        assert events and all(name.endswith(".gen_001") for name in events)
    monkeypatch.setattr(sb3, "save_model_atomic", save)
    assert train_main([*args, "--resume"]) == 0
    state = json.loads((run / "state.json").read_text())
    assert [h["generation"] for h in state["history"]] == [1, 2]
    assert (run / "checkpoints" / "gen_002" / "traitor.zip").is_file()
    assert any(p.name.endswith(".gen_002") for p in (run / "tensorboard" / "traitor").iterdir())
