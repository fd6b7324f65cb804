"""``traitors-exact`` (issue 50, item 4): bad input is refused in words; a report on the quick variant."""

from __future__ import annotations

import json

from training.exact import main


def test_unknown_variant_is_refused_naming_the_declared_ones(capsys):
    assert main(["--variant", "huge"]) == 2
    error = capsys.readouterr().err
    assert "huge" in error and "mini3" in error


def test_a_game_without_small_variants_is_refused(capsys):
    assert main(["--game", "avalon"]) == 2
    assert "avalon" in capsys.readouterr().err


def test_a_bad_agent_spec_is_refused_before_the_walk(capsys):
    assert main(["--agents", "no_such_bot", "--variant", "micro3"]) == 2
    assert "no_such_bot" in capsys.readouterr().err


def test_report_on_micro3(tmp_path, capsys):
    """random on micro3: the seats' and sides' figures, exact; CFR+ finds the (trivial) equilibrium: no Pirate can
    reach the target in micro3, so the Mutineers win every game and the NashConv of CFR+ is 0."""
    assert main(["--agents", "random", "--variant", "micro3", "--cfr", "20", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "exact.json").read_text())
    assert report["tree"]["histories"] == 33839 and report["tree"]["information_states"] == 64
    random = report["agents"]["random"]
    assert random["nash_conv_sides"]["exact"] and abs(random["sides"]["mutineers"]["win_rate"] - 1.0) < 1e-9
    assert abs(report["agents"]["cfr+"]["nash_conv_seats"]) < 1e-9
    assert "| random |" in (tmp_path / "exact.md").read_text()
