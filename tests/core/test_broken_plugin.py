"""One broken game plug-in breaks nothing else (issue 49, item 3): every tool that lists or loads all games (the JAX
engines, traitors-train, traitors-replay, traitors-bench, traitors-eval, the docs generator, TextArena's and
PettingZoo's registries) leaves it out with a one-line warning naming it, and only asking for that game fails, with
the plug-in's own error."""

from __future__ import annotations

import json
import warnings
from importlib import metadata
from pathlib import Path

import pytest

from traitors_env.core import registry
from traitors_env.core.registry import GameLoadError, load_game, loadable_games, registered_games

#: The registry's contents depend on the optional extras installed: CI runs these in both venvs (conftest.py).
pytestmark = pytest.mark.every_extra

BROKEN = "brokenplug"
REASON = "brokenplug needs libfrobnicate, which is not installed"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def broken_plugin(tmp_path, monkeypatch):
    """A third-party package whose entry point (group ``traitors_env.games``) raises ``ImportError`` on import,
    installed as an installed distribution's entry point is: read by the registry on its first use."""
    (tmp_path / "brokenplug_pkg.py").write_text(f"raise ImportError({REASON!r})\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    installed = list(metadata.entry_points(group=registry.ENTRY_POINT_GROUP))
    entry = metadata.EntryPoint(BROKEN, "brokenplug_pkg:GAME", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group: [*installed, entry] if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_plugins_read", False)
    registered_games()  # read the entry points now, as the first tool of a process would
    yield
    registry.unregister_game(BROKEN)
    registry._loaded.clear()


def _left_out(caught) -> list[str]:
    return [str(w.message) for w in caught if BROKEN in str(w.message)]


def test_loadable_games_leave_out_a_broken_plugin_once_and_asking_for_it_gives_its_error(broken_plugin):
    assert BROKEN in registered_games()
    with pytest.warns(UserWarning) as caught:
        names = [game.name for game in loadable_games()]
    assert names == list(registry.shipped_games())
    (message,) = _left_out(caught)
    assert "\n" not in message and f"'{BROKEN}'" in message and REASON in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second listing in the same process stays quiet
        assert [game.name for game in loadable_games()] == names
    with pytest.raises(GameLoadError, match=f"'{BROKEN}'.*brokenplug_pkg:GAME.*ImportError: {REASON}"):
        load_game(BROKEN)


def test_jax_engines_leave_out_a_broken_plugin_and_asking_for_it_gives_its_error(broken_plugin):
    pytest.importorskip("jax")
    from training.jax_backend.engine import engine_names, make_engine

    with pytest.warns(UserWarning) as caught:
        names = engine_names()
    assert _left_out(caught) and "traitors_aboard" in names and not any(BROKEN in name for name in names)
    with pytest.raises(GameLoadError, match=REASON):  # the plug-in's own error, not "engine not known"
        make_engine(BROKEN)


@pytest.mark.slow  # compiles the real engine: one to four minutes on 2 cores
def test_traitors_train_runs_a_jax_config_of_a_built_in_game(broken_plugin, tmp_path):
    pytest.importorskip("jax")
    from training.train import main

    config = tmp_path / "jax_one.yaml"  # jax_tiny for one generation: what matters is that it runs
    config.write_text((ROOT / "tests/training/pinned/jax_tiny.yaml").read_text(encoding="utf-8")
                      .replace("generations: 2", "generations: 1"), encoding="utf-8")
    with pytest.warns(UserWarning) as caught:
        assert main(["--config", str(config), "--output-dir", str(tmp_path / "runs"), "--no-eval"]) in (0, None)
    assert _left_out(caught)
    assert json.loads((tmp_path / "runs" / "jax_tiny" / "state.json").read_text(encoding="utf-8"))


def _finished_record(tmp_path: Path) -> Path:
    env = load_game("traitors_aboard").raw_env(num_players=5)
    env.reset(seed=3)
    while not env.game.is_terminal:
        env.step(int(env.game.legal_actions()[0]))
    path = tmp_path / "game.json"
    env.record().save(path)
    return path


def test_traitors_replay_reads_a_built_in_record_and_an_unknown_format_says_why(broken_plugin, tmp_path, capsys):
    from traitors_env.table.replay import main

    assert main([str(_finished_record(tmp_path)), "--no-pause"]) == 0
    unknown = tmp_path / "other.json"
    unknown.write_text(json.dumps({"format": "someone-elses-record", "decisions": []}), encoding="utf-8")
    with pytest.warns(UserWarning) as caught:  # every game's format is looked at: the broken one is left out
        status = main([str(unknown), "--no-pause"])
    assert status == 2 and _left_out(caught)
    assert "traitors-replay:" in capsys.readouterr().out
    assert main([str(unknown), "--game", BROKEN, "--no-pause"]) == 2  # asked for: its own error, in one line
    assert REASON in " ".join(capsys.readouterr().out.split())  # the console wraps long lines


def test_traitors_bench_measures_the_built_in_games(broken_plugin, tmp_path, capsys):
    from training.bench import cli

    out = tmp_path / "bench.json"
    assert cli(["--quick", "--games", "1", "--repeats", "1", "--slices", "1", "--memory-games", "0", "--no-leduc",
                "--quiet", "--players", "5", "--json", str(out)]) == 0
    assert BROKEN in capsys.readouterr().err  # named on its one line
    measured = json.loads(out.read_text(encoding="utf-8"))["meta"]["games"]
    assert set(measured) == {load_game(name).type.env_id for name in registry.shipped_games()}
    with pytest.raises(SystemExit) as exit_:  # a usage error naming the plug-in's own error
        cli(["--game", BROKEN, "--quick", "--quiet", "--no-leduc"])
    assert exit_.value.code == 2 and REASON in capsys.readouterr().err


def test_traitors_eval_plays_the_built_in_game_and_names_the_broken_one_s_error(broken_plugin, tmp_path, capsys):
    from training.evaluate import main

    out = tmp_path / "report"
    assert main(["--agents", "heuristic", "random", "--games", "2", "--players", "5", "--out", str(out), "--no-plots",
                 "--no-progress"]) == 0
    assert (out / "report.json").is_file()
    assert main(["--game", BROKEN, "--agents", "heuristic", "--games", "1", "--out", str(out)]) == 2
    assert REASON in capsys.readouterr().err


def test_docs_generator_pettingzoo_and_textarena_leave_the_broken_plugin_alone(broken_plugin):
    from traitors_env.core import docs

    assert docs.documented_games() == list(registry.BUILTIN_GAMES)  # a plug-in keeps its docs in its own package
    import pettingzoo

    from traitors_env import registration

    if registration.register_environments():  # PettingZoo ≥ 1.27: the id is registered, the game loads on make
        assert pettingzoo.make("aec", "traitors_aboard_v0").metadata["name"] == "traitors_aboard_v0"
        with pytest.raises(GameLoadError, match=REASON):
            pettingzoo.make("aec", f"{BROKEN}_v0")
    pytest.importorskip("textarena")
    with pytest.warns(UserWarning) as caught:  # its first import registers every game, a later call the new ones
        from traitors_env import textarena_envs

        textarena_envs.register_all()
    assert _left_out(caught)
    assert "TraitorsAboard-v0" in textarena_envs.ta.envs.registration.ENV_REGISTRY
