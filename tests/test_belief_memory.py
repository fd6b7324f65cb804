"""``scripts/belief_memory.py`` (issue 27, item 5): the probes' data are the observer's own observations, labelled
with the game master's true roles, and the script scores both probes per table size and phase."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from traitors_env.core import load_game

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "belief_memory.py"


def load_script():
    spec = importlib.util.spec_from_file_location("belief_memory", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sequences_hold_pirate_observations_labelled_with_the_true_roles():
    """Rulebook setup: one Mutineer at 3-5 players, two at 6-8; the label is 1 at exactly those seats among the
    observer's others (relative seats 1..n-1), NaN at its own seat and at the seats the table does not have."""
    pytest.importorskip("torch")
    game = load_game("traitors_aboard")
    sequences = load_script().collect(game, "heuristic", "heuristic", [3, 6], games=3, seed=5)
    assert {s[2] for s in sequences} == {3, 6} and {s[4] for s in sequences} == set(range(6))
    for observations, label, n, phases, _, own in sequences:
        assert np.isnan(label[0]) and np.isnan(label[n:]).all() and np.isfinite(label[1:n]).all()
        assert label[1:n].sum() == (1 if n == 3 else 2)
        assert (observations[:, :2] == [1.0, 0.0]).all()  # role one-hot: every recorded observer is a Pirate
        assert len(observations) == len(phases) == len(own) >= 1 and set(phases.tolist()) <= {0, 1, 2}
        # the heuristic observer's own suspicion scores ride along: NaN at its own seat, finite at the others
        assert np.isnan(own[:, 0]).all() and np.isfinite(own[:, 1:n]).all()
    # a game's Pirates are all recorded: 2 at 3 players, 4 at 6
    per_game = {}
    for *_, index, _own in sequences:
        per_game[index] = per_game.get(index, 0) + 1
    assert sorted(per_game.values()) == [2, 2, 2, 4, 4, 4]


def test_the_script_scores_both_probes_against_the_base_rate(tmp_path, capsys):
    pytest.importorskip("torch")
    out = tmp_path / "memory.json"
    load_script().main(["--observer", "heuristic", "--against", "random", "--players", "3", "--games", "10",
                        "--epochs", "1", "--width", "8", "--json", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert rows and rows[-1]["phase"] == "all" and rows[-1]["num_players"] == 3
    for row in rows:
        assert row["base_brier"] == pytest.approx(0.25)  # one Mutineer among the two others: (1/2)^2
        assert 0 <= row["brier_latest"] <= 1 and 0 <= row["brier_sequence"] <= 1 and 0 <= row["brier_own"] <= 1
    assert "Brier latest | Brier sequence | base rate | observer's own" in capsys.readouterr().out
