"""Stopping and resuming a training run, and the training command's messages (issue 10, frictions of a new user).

A Ctrl-C is simulated by raising ``KeyboardInterrupt`` where the training loop saves the Mutineers of
generation 2: by then generation 2 has written its Pirates' checkpoint, TensorBoard events and
``progress.csv`` rows, which the interrupted attempt must not leave behind.
"""

from __future__ import annotations

import csv
import json
import shlex
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

import training.sb3 as sb3_module  # noqa: E402
import training.train as train_module  # noqa: E402
from training.config import ConfigError, config_from_dict  # noqa: E402
from training.resume import resume_command  # noqa: E402
from training.storage import RunFolder  # noqa: E402
from training.train import main as train_main  # noqa: E402

TINY = {
    "name": "tiny",
    "seed": 3,
    "env": {"player_counts": [3, 5]},
    "training": {"generations": 2, "steps_per_team": 128, "n_envs": 2, "vec_env": "dummy", "progress_bar": False},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "evaluation": {"games": 2, "games_per_generation": 4, "player_counts": [3], "workers": 1},
}


def write_config(folder: Path, **changes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "output_dir": str(folder / "runs"), **changes}))
    return path


def interrupt_at(monkeypatch, generation_dir: str, team: str) -> None:
    """Ctrl-C when the training loop saves ``team`` of ``generation_dir`` (e.g. ``gen_002``)."""
    save = sb3_module.save_model_atomic

    def save_or_interrupt(model, path):
        if Path(path).parent.name == generation_dir and Path(path).stem == team:
            raise KeyboardInterrupt
        save(model, path)

    monkeypatch.setattr(sb3_module, "save_model_atomic", save_or_interrupt)


def scalar_steps(folder: Path) -> dict[str, list[int]]:
    """Every TensorBoard scalar's logged steps, in file order, from all event files of ``folder``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    steps: dict[str, list[int]] = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        accumulator = EventAccumulator(str(path), purge_orphaned_data=False)
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            steps.setdefault(tag, []).extend(event.step for event in accumulator.Scalars(tag))
    return steps


def progress_rows(run: RunFolder) -> list[tuple[str, str, str]]:
    with (run.path / "progress.csv").open(newline="") as handle:
        return [(r["generation"], r["team"], r["time/total_timesteps"]) for r in csv.DictReader(handle)]


# ---------------------------------------------------------------- Ctrl-C and --resume
def test_ctrl_c_keeps_completed_generations_and_a_resumed_run_logs_like_an_uninterrupted_one(
    tmp_path, monkeypatch, capsys
):
    reference = write_config(tmp_path / "straight")
    assert train_main(["--config", str(reference), "--no-eval"]) == 0
    straight = RunFolder(tmp_path / "straight" / "runs" / "tiny")

    config = write_config(tmp_path)
    run = RunFolder(tmp_path / "runs" / "tiny")
    interrupt_at(monkeypatch, "gen_002", "mutineers")
    capsys.readouterr()
    assert train_main(["--config", str(config), "--no-eval"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"interrupted during generation 2 of 2: generation 1 is saved in {run.path}" in err
    command = f"traitors-train --config {config} --resume"
    assert command in err
    # Nothing of generation 2 stays: no checkpoint folder, no event file, no progress row.
    assert run.read_state()["completed_generations"] == 1
    assert not run.generation_dir(1).exists() and run.checkpoint(0, "mutineers").is_file()
    assert not list(run.path.glob("tensorboard/*/*.gen_002"))
    assert {row[0] for row in progress_rows(run)} == {"1"}

    monkeypatch.undo()
    capsys.readouterr()
    assert train_main(shlex.split(command)[1:] + ["--no-eval"]) == 0
    out = capsys.readouterr().out
    assert "resuming run 'tiny' at generation 2 of 2 (generation 1 completed)" in out
    # The resumed run's logs: every step once, in order, exactly the uninterrupted run's.
    for team in ("pirates", "mutineers"):
        resumed = scalar_steps(run.path / "tensorboard" / team)
        assert resumed == scalar_steps(straight.path / "tensorboard" / team) and resumed
        assert all(steps == sorted(set(steps)) for steps in resumed.values())
    assert progress_rows(run) == progress_rows(straight)
    assert [h["generation"] for h in run.read_state()["history"]] == [1, 2]


def test_a_kill_mid_generation_is_cleaned_up_by_resume(tmp_path, monkeypatch, capsys):
    """A kill leaves no chance to clean up: ``--resume`` removes the interrupted generation's files first."""
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1})
    assert train_main(["--config", str(config), "--no-eval"]) == 0
    run = RunFolder(tmp_path / "runs" / "tiny")
    # What a kill during generation 2 leaves: a checkpoint, an event file, progress rows.
    run.generation_dir(1).mkdir()
    run.checkpoint(1, "pirates").write_bytes(b"half")
    stale = run.path / "tensorboard" / "pirates" / "events.out.tfevents.1.host.1.0.gen_002"
    stale.write_bytes(b"")
    with (run.path / "progress.csv").open("a") as handle:
        handle.write("2,pirates" + "," * 14 + "\n")
    assert train_main(["--config", str(config), "--resume", "--generations", "2", "--no-eval"]) == 0
    assert not stale.exists() and len(list(run.path.glob("tensorboard/pirates/*.gen_002"))) == 1
    assert [row[:2] for row in progress_rows(run)].count(("2", "pirates")) == 1  # 128 steps: one PPO update, one row
    assert all(row[2] for row in progress_rows(run))


def test_ctrl_c_during_the_evaluation_says_how_to_evaluate(tmp_path, monkeypatch, capsys):
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1})

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "evaluate_run", interrupted)
    assert train_main(["--config", str(config), "--name", "evaluated"]) == 130
    err = capsys.readouterr().err
    run = tmp_path / "runs" / "evaluated"
    assert "interrupted after training: all 1 generations are saved" in err
    assert f"traitors-eval --run {run}" in err and "--resume --name evaluated" in err


def test_resume_command_repeats_the_overrides():
    class Args:
        config, name, output_dir, seed, generations = "configs/quick.yaml", "try 2", "out", 5, None

    assert resume_command(Args()) == "traitors-train --config configs/quick.yaml --resume --name 'try 2' --output-dir out --seed 5"


# ---------------------------------------------------------------- names, configs, counts, messages
def test_a_second_run_of_a_config_is_pointed_to_name_and_name_starts_it(tmp_path, capsys):
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1}, evaluation={**TINY["evaluation"], "games_per_generation": 0})
    assert train_main(["--config", str(config), "--no-eval"]) == 0
    capsys.readouterr()
    assert train_main(["--config", str(config), "--no-eval"]) == 2
    assert "--name to start another run beside it (e.g. --name tiny-2)" in capsys.readouterr().err
    assert train_main(["--config", str(config), "--no-eval", "--name", "tiny-2"]) == 0
    out = capsys.readouterr().out
    second = tmp_path / "runs" / "tiny-2"
    assert RunFolder(second).read_state()["completed_generations"] == 1
    assert f"run folder: {second} (not evaluated: --no-eval); evaluate it with: traitors-eval --run {second}" in out


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("ppo", "learning_rate", "3e-4", "YAML reads 3e-4 as text: write 3.0e-4"),
        ("ppo", "clip_range", "1e-1", "write 1.0e-1"),
        ("ppo", "ent_coef", "1.0e5", "write 1.0e+5"),  # YAML 1.1 also wants the exponent's sign
        ("ppo", "learning_rat", 0.1, "ppo.learning_rat: unknown key (did you mean 'learning_rate'?)"),
        ("training", "generation", 3, "did you mean 'generations'?"),
        ("trainin", None, None, "trainin: unknown key (did you mean 'training'?)"),
    ],
)
def test_config_errors_suggest_the_fix(tmp_path, section, key, value, message):
    data = {**TINY}
    data[section] = {**data.get(section, {}), key: value} if key else {}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data).replace(f"'{value}'", str(value)))  # as a user types it, unquoted
    loaded = yaml.safe_load(path.read_text())
    with pytest.raises(ConfigError) as error:
        config_from_dict(loaded, str(path))
    assert message in str(error.value)
    if isinstance(value, str):
        assert isinstance(yaml.safe_load(message.rsplit(" ", 1)[1]), float)  # the suggestion is a float in YAML


def test_generations_are_counted_from_1_everywhere(tmp_path, capsys):
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1})
    assert train_main(["--config", str(config)]) == 0
    out = capsys.readouterr().out
    run = RunFolder(tmp_path / "runs" / "tiny")
    state = run.read_state()
    assert state["completed_generations"] == 1 and [h["generation"] for h in state["history"]] == [1]
    assert json.loads(run.state_path.read_text())["history"][0]["generation"] == 1
    assert json.loads((run.path / "evaluation.json").read_text())["generation"] == 1
    assert (run.path / "generations.csv").read_text().splitlines()[1].startswith("1,")
    assert run.generation_dir(0).name == "gen_001"
    # The per-generation line: each trained team beside the heuristic in its seat.
    line = next(line for line in out.splitlines() if line.startswith("gen 1:"))
    check = state["history"][0]["vs_heuristic"]
    assert line == (
        f"gen 1: against heuristic opponents, trained Pirates win {check['pirates']['trained']['win_rate']:.2f} "
        f"(heuristic Pirates {check['pirates']['heuristic']['win_rate']:.2f}), trained Mutineers win "
        f"{check['mutineers']['trained']['win_rate']:.2f} (heuristic Mutineers {check['mutineers']['heuristic']['win_rate']:.2f})"
    )


def test_an_old_zero_based_state_is_read_one_based_and_resumes(tmp_path, capsys):
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1})
    assert train_main(["--config", str(config), "--no-eval"]) == 0
    run = RunFolder(tmp_path / "runs" / "tiny")
    old = json.loads(run.state_path.read_text())
    old["history"][0]["generation"] = 0  # as state.json was written before
    run.state_path.write_text(json.dumps(old))
    assert [h["generation"] for h in run.read_state()["history"]] == [1]
    assert train_main(["--config", str(config), "--resume", "--generations", "2", "--no-eval"]) == 0
    assert [h["generation"] for h in json.loads(run.state_path.read_text())["history"]] == [1, 2]


def test_resume_from_a_damaged_checkpoint_names_the_file_and_changes_nothing(tmp_path, capsys):
    config = write_config(tmp_path, training={**TINY["training"], "generations": 1})
    assert train_main(["--config", str(config), "--no-eval"]) == 0
    run = RunFolder(tmp_path / "runs" / "tiny")
    damaged = run.checkpoint(0, "pirates")
    damaged.write_bytes(damaged.read_bytes()[:100])  # a truncated zip
    before = sorted((p.relative_to(run.path), p.stat().st_size) for p in run.path.rglob("*") if p.is_file())
    assert train_main(["--config", str(config), "--resume", "--generations", "2", "--no-eval"]) == 2
    err = capsys.readouterr().err
    assert str(damaged) in err and "not a readable MaskablePPO zip" in err and "Traceback" not in err
    after = sorted((p.relative_to(run.path), p.stat().st_size) for p in run.path.rglob("*") if p.is_file())
    assert after == before  # nothing written, nothing deleted
