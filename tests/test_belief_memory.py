"""``docs/notes/lab/belief_memory.py`` (issue 27, item 5): the probes' data are the observer's own observations, labelled
with the game master's true roles, held out by game, and the script scores both probes per table size and phase on
the same decisions as the base rate and the observer's own beliefs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from traitors_env.core import load_game
from traitors_env.games.traitors_aboard.bots import HeuristicAgent
from traitors_env.games.traitors_aboard.observation import OFFSETS, SEAT_FEATURES

pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "notes" / "lab" / "belief_memory.py"
REVEALED_PIRATE = SEAT_FEATURES.index("revealed Pirate")
REVEALED_MUTINEER = SEAT_FEATURES.index("revealed Mutineer")


def load_script():
    spec = importlib.util.spec_from_file_location("belief_memory", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sequences():
    return load_script().collect(load_game("traitors_aboard"), "heuristic", "heuristic", [3, 6], games=12, seed=5)


def test_sequences_hold_pirate_observations_labelled_with_the_true_roles(sequences):
    """Rulebook setup: one Mutineer at 3-5 players, two at 6-8; the label is 1 at exactly those seats among the
    observer's others (relative seats 1..n-1), NaN at its own seat and at the seats the table does not have. A seat
    the observation shows overboard with its role revealed (R11) agrees with the label, relative seat by seat."""
    assert {s[2] for s in sequences} == {3, 6} and {s[4] for s in sequences} == set(range(24))
    seats = OFFSETS["seats"]
    width = len(SEAT_FEATURES)
    revealed = 0
    for observations, label, n, phases, _, own in sequences:
        assert np.isnan(label[0]) and np.isnan(label[n:]).all() and np.isfinite(label[1:n]).all()
        assert label[1:n].sum() == (1 if n == 3 else 2)
        assert (observations[:, :2] == [1.0, 0.0]).all()  # role one-hot: every recorded observer is a Pirate
        assert len(observations) == len(phases) == len(own) >= 1 and set(phases.tolist()) <= {0, 1, 2}
        rows = observations[:, seats: seats + 8 * width].reshape(len(observations), 8, width)
        for r in range(1, n):
            mutineer = rows[:, r, REVEALED_MUTINEER] == 1
            pirate = rows[:, r, REVEALED_PIRATE] == 1
            assert not (mutineer.any() and label[r] == 0) and not (pirate.any() and label[r] == 1)
            revealed += int(mutineer.any() or pirate.any())
        # the heuristic observer's own suspicion scores ride along, read from the same observation
        heuristic = HeuristicAgent()
        for t in range(len(observations)):
            np.testing.assert_array_equal(own[t], heuristic.beliefs(observations[t]))
    assert revealed >= 5  # the check above met real overboard seats
    per_game = {}
    for *_, index, _own in sequences:
        per_game[index] = per_game.get(index, 0) + 1
    assert sorted(per_game.values()) == [2] * 12 + [4] * 12  # every Pirate of a game: 2 at 3 players, 4 at 6


def test_held_out_games_are_never_trained_on(sequences):
    split = load_script().split
    train, test = split(sequences, seed=0)
    assert len(train) + len(test) == len(sequences)
    assert not {s[4] for s in train} & {s[4] for s in test}
    for n in (3, 6):  # a fifth of each table size's games held out
        assert len({s[4] for s in test if s[2] == n}) == 2
    with pytest.raises(ValueError, match="4 games at 3 players hold none out; expected --games >= 5"):
        split([s for s in sequences if s[2] == 3 and s[4] < 4], seed=0)


def test_tally_counts_each_scored_seat_of_each_step_once():
    """Padded seats (NaN label) and seats a predictor leaves NaN are not scored; errors are per (size, phase)."""
    tally = load_script().tally
    label = np.array([np.nan, 1.0, 0.0] + [np.nan] * 5, np.float32)
    p = np.full((2, 8), np.nan, np.float32)
    p[:, 1:3] = [[0.5, 0.5], [1.0, 0.0]]
    sequence = (None, label, 3, np.array([0, 2]), 0, None)
    assert tally([sequence], [p]) == {(3, "early"): (0.5, 2), (3, "late"): (0.0, 2)}
    p[1, 2] = np.nan  # the observer gave no belief there
    assert tally([sequence], [p])[(3, "late")] == (0.0, 1)


def test_the_script_scores_every_held_out_decision(tmp_path, capsys):
    script = load_script()
    out = tmp_path / "memory.json"
    script.main(["--observer", "heuristic", "--against", "random", "--players", "3", "4", "--games", "10",
                 "--epochs", "1", "--width", "8", "--json", str(out)])
    data = json.loads(out.read_text())
    _, test = script.split(script.collect(load_game("traitors_aboard"), "heuristic", "random", [3, 4], 10, 0), 0)
    for n in (3, 4):
        row = next(r for r in data["rows"] if r["num_players"] == n and r["phase"] == "all")
        assert row["predictions"] == sum(len(s[3]) * (n - 1) for s in test if s[2] == n)
        # one Mutineer among the others: (1/2)^2 at 3 players; (2 (1/3)^2 + (2/3)^2) / 3 = 2/9 at 4
        assert row["base_brier"] == pytest.approx(0.25 if n == 3 else 2 / 9, abs=1e-4)
        assert row["brier_own"] is not None  # the heuristic has beliefs at every scored seat
    assert data["held_out_sequences"] == len(test) and data["players"] == [3, 4]
    assert "Brier latest | Brier sequence | base rate | observer's own" in capsys.readouterr().out
