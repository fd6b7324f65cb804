"""``traitors-exact`` (issue 50, item 4): bad input is refused in words; a report on the quick variant."""

from __future__ import annotations

import json

import pytest

from training.exact import main


def test_unknown_variant_is_refused_naming_the_declared_ones(capsys):
    assert main(["--variant", "huge"]) == 2
    error = capsys.readouterr().err
    assert "huge" in error and "mini3" in error


def test_a_game_without_small_variants_is_refused(capsys):
    assert main(["--game", "the_traitors"]) == 2
    assert "the_traitors" in capsys.readouterr().err


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


def _no_walk(monkeypatch):
    """Make the tree walk fail loudly: a check that must come before it is then seen to."""
    from traitors_env.solve import exact

    def walk(*args, **kwargs):
        raise AssertionError("walked the tree")

    monkeypatch.setattr(exact, "build_tree", walk)


def test_an_out_folder_that_cannot_be_written_is_refused_before_the_walk(tmp_path, monkeypatch, capsys):
    _no_walk(monkeypatch)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for out in (blocker, blocker / "sub"):
        assert main(["--variant", "micro3", "--out", str(out)]) == 2
        assert str(out) in capsys.readouterr().err


def test_bad_arguments_are_refused_before_the_walk(monkeypatch, capsys):
    _no_walk(monkeypatch)
    for args, words in ((["--agents", "random", "random"], "more than once"),
                        (["--milp-time-limit", "-1"], "positive number"),
                        (["--milp-time-limit", "nan"], "positive number")):
        assert main(["--variant", "micro3", *args]) == 2
        assert words in capsys.readouterr().err


def test_the_game_may_be_named_by_its_environment_id(monkeypatch):
    _no_walk(monkeypatch)
    import pytest

    with pytest.raises(AssertionError, match="walked the tree"):  # accepted: it got as far as the walk
        main(["--game", "traitors_aboard_v0", "--variant", "micro3"])


# ------------------------------------------------------------------ an OpenSpiel game's small variants
@pytest.mark.every_extra
def test_an_openspiel_games_unknown_variant_is_refused_naming_the_declared_ones(monkeypatch, capsys):
    pytest.importorskip("pyspiel")
    _no_walk(monkeypatch)
    assert main(["--game", "openspiel_social_deduction", "--variant", "huge"]) == 2
    error = capsys.readouterr().err
    assert "huge" in error and "mini3" in error


@pytest.mark.every_extra
def test_an_openspiel_game_without_the_extra_is_an_error_that_says_how_to_install_it(monkeypatch, capsys):
    import sys

    _no_walk(monkeypatch)
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open-spiel were not installed
    monkeypatch.delitem(sys.modules, "traitors_env.solve.openspiel_tree", raising=False)
    assert main(["--game", "openspiel_social_deduction"]) == 2
    error = capsys.readouterr().err
    assert "pip install" in error and "solve" in error


@pytest.mark.every_extra
def test_report_on_social_deduction_mini3(tmp_path):
    """The heuristic and a short CFR+ on social_deduction's mini3: the report names the game's sides; the
    heuristic's Imposter is read exactly (it states its probabilities) and a coordinated Innocent pair always finds it
    (it accuses an Innocent every time, an Innocent may not); CFR+ nears a seat equilibrium."""
    pytest.importorskip("pyspiel")
    assert main(["--game", "openspiel_social_deduction_v0", "--agents", "heuristic", "--cfr", "200",
                 "--milp-time-limit", "1", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "exact.json").read_text())
    assert report["game"] == "openspiel_social_deduction" and report["sides"] == ["innocents", "imposters"]
    assert report["tree"]["histories"] == 139_558
    heuristic = report["agents"]["heuristic"]
    assert heuristic["policy"]["observations_sampled"] == 0
    assert heuristic["sides"]["innocents"]["exact"] and heuristic["sides"]["innocents"]["win_rate_lower"] == pytest.approx(1.0)
    cfr = report["agents"]["cfr+"]
    assert 0 <= cfr["nash_conv_seats"] < 0.01 < heuristic["nash_conv_seats"]
    assert "Innocents: win rate → team BR | Imposters: win rate → team BR" in (tmp_path / "exact.md").read_text()


# ------------------------------------------------------------------ --out: refused in words, made only when written
def test_an_empty_out_is_refused_naming_the_value(tmp_path, monkeypatch, capsys):
    """``--out ""`` would write exact.json into the current folder: refused, before the walk, in one line."""
    _no_walk(monkeypatch)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["--variant", "micro3", "--out", ""])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--out" in error and "''" in error and "folder" in error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", [["--agents", "no_such_bot"], ["--variant", "huge"], ["--game", "avalon"],
                                 ["--agents", "random", "random"], ["--samples", "0"]])
def test_a_bad_argument_leaves_no_out_folder_behind(tmp_path, monkeypatch, capsys, bad):
    _no_walk(monkeypatch)
    out = tmp_path / "reports" / "exact"
    variant = [] if "--variant" in bad else ["--variant", "micro3"]
    assert main([*variant, *bad, "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("traitors-exact: error:")
    assert not (tmp_path / "reports").exists()
