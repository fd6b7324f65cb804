"""PPO's adaptive KL coefficients, which RLlib's algorithm checkpoint leaves out, saved beside it and read back as
data (issue 49: exact resume; the file is JSON, checked before use). The whole resume: test_resume_exact.py."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from training.rllib.reseed import KL_FILE, restore_kl_coefficients, save_kl_coefficients  # noqa: E402

SIDES = ("pirates", "mutineers")


class _Result:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


class _FakeAlgo:
    """The part of an RLlib Algorithm the two functions use: one local learner with its KL coefficients."""

    def __init__(self, values):
        learner = type("Learner", (), {})()
        learner.curr_kl_coeffs_per_module = {k: torch.tensor(v, dtype=torch.float32) for k, v in values.items()}
        self.learner = learner
        self.learner_group = self

    def foreach_learner(self, func):
        return [_Result(func(self.learner))]


def test_the_coefficients_round_trip_exactly(tmp_path):
    trained = _FakeAlgo({"pirates": 0.45, "mutineers": 0.0375})
    save_kl_coefficients(trained, tmp_path, SIDES)
    restored = _FakeAlgo({"pirates": 0.2, "mutineers": 0.2})  # RLlib's kl_coeff after a restore
    restore_kl_coefficients(restored, tmp_path, SIDES)
    for team in SIDES:
        assert torch.equal(restored.learner.curr_kl_coeffs_per_module[team], trained.learner.curr_kl_coeffs_per_module[team])


def test_a_checkpoint_without_the_file_keeps_rllibs_coefficient(tmp_path):
    algo = _FakeAlgo({"pirates": 0.2, "mutineers": 0.2})
    restore_kl_coefficients(algo, tmp_path, SIDES)
    assert float(algo.learner.curr_kl_coeffs_per_module["pirates"]) == pytest.approx(0.2)


@pytest.mark.parametrize("text", ['{"pirates": 0.1}', '[0.1, 0.2]', '{"pirates": "x", "mutineers": 1}',
                                  '{"pirates": NaN, "mutineers": 0.1}', '{"pirates": -1, "mutineers": 0.1}', "not json"])
def test_a_bad_file_is_refused_naming_it_and_changes_nothing(tmp_path, text):
    (tmp_path / KL_FILE).write_text(text)
    algo = _FakeAlgo({"pirates": 0.2, "mutineers": 0.3})
    with pytest.raises(ValueError, match=KL_FILE):
        restore_kl_coefficients(algo, tmp_path, SIDES)
    assert json.loads(json.dumps({k: round(float(v), 4) for k, v in algo.learner.curr_kl_coeffs_per_module.items()})) == {
        "pirates": 0.2, "mutineers": 0.3}
