"""``traitors-train --resume`` of an RLlib run needs ``--trust-checkpoint`` (issue 49, item 1): RLlib restores its
algorithm checkpoint by unpickling, so without the user's word that the run folder is their own nothing of it is
read (a poisoned pickle in the folder creates no marker), and the refusal says why in one line."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from training.train import main

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "rllib_tiny.yaml"


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _poisoned_run(output: Path, marker: Path) -> Path:
    """The run folder of ``rllib_tiny`` after one iteration, as RLlib lays it out, each pickle a payload."""
    run = output / "rllib_tiny"
    checkpoint = run / "checkpoints" / "gen_001"
    for name in ("algorithm_state.pkl", "class_and_ctor_args.pkl",
                 "learner_group/learner/rl_module/pirates/module_state.pkl"):
        (checkpoint / name).parent.mkdir(parents=True, exist_ok=True)
        (checkpoint / name).write_bytes(pickle.dumps(_Payload(marker)))
    from training.config import config_from_dict, dump_config, load_config

    data = load_config(str(TINY)).model_dump(mode="json") | {"output_dir": str(output)}
    data["training"]["generations"] = 2
    (run / "config.yaml").write_text(dump_config(config_from_dict(data)))  # the run as saved: resumable
    (run / "state.json").write_text(json.dumps({"completed_generations": 1, "history": [{"generation": 1}]}))
    return run


def test_resume_of_an_rllib_run_without_trust_checkpoint_is_refused_and_reads_nothing(tmp_path, capsys):
    marker = tmp_path / "marker"
    run = _poisoned_run(tmp_path, marker)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    status = main(["--config", str(TINY), "--output-dir", str(tmp_path), "--resume", "--generations", "2",
                   "--no-eval"])
    assert status == 2
    error = capsys.readouterr().err
    assert error.startswith("traitors-train: error: --resume of an RLlib run") and error.count("\n") == 1
    assert "pickle" in error and "trained yourself" in error and "--trust-checkpoint" in error
    assert not marker.exists()
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_train_rllib_refuses_resume_without_trust_checkpoint(tmp_path):
    from training.config import load_config
    from training.rllib.runner import train_rllib
    from training.run import RunError

    marker = tmp_path / "marker"
    _poisoned_run(tmp_path, marker)
    config = load_config(str(TINY)).model_copy(update={"output_dir": str(tmp_path)})
    with pytest.raises(RunError, match="--trust-checkpoint"):
        train_rllib(config, resume=True)
    assert not marker.exists()


def test_the_resume_command_printed_for_an_rllib_run_trusts_its_own_checkpoint():
    from training.resume import resume_command

    class Args:
        config, name, output_dir, seed, generations = "configs/rllib_tiny.yaml", None, "out", None, None

    assert resume_command(Args(), rllib=True) == ("traitors-train --config configs/rllib_tiny.yaml --resume "
                                                  "--trust-checkpoint --output-dir out")
    assert "--trust-checkpoint" not in resume_command(Args())
