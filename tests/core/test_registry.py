"""The registry's contract: names and entry points checked when registered, no game or environment id taken twice,
a game registered at run time reaches PettingZoo's registry."""

from __future__ import annotations

import dataclasses

import pytest
import toy_game

from traitors_env.core import registry
from traitors_env.core.registry import load_game, register_game, registered_env_ids, registered_games

#: The registry's contents depend on the optional extras installed: CI runs these in both venvs (conftest.py).
pytestmark = pytest.mark.every_extra


@pytest.fixture
def clean():
    """The built-in games alone for the test, and the registry as it was afterwards (other modules' ``toy`` included)."""
    registered_games()  # installed plugins read first, so that they are in the snapshot
    saved = dict(registry._entry_points), dict(registry._env_ids)
    for name in set(registry._entry_points) - set(registry.shipped_games()):
        registry.unregister_game(name)
    yield
    registry._entry_points.clear()
    registry._entry_points.update(saved[0])
    registry._env_ids.clear()
    registry._env_ids.update(saved[1])
    registry._loaded.clear()


@pytest.mark.parametrize("name", ["", "Bad", "a-b", "a b", "gäme", "x²", "①", "ǆ", None, 3])
def test_a_name_outside_lowercase_ascii_letters_digits_and_underscore_is_refused(name, clean):
    with pytest.raises(ValueError, match="is not valid"):
        register_game(name, "toy_game:GAME")
    assert name not in registered_games()


@pytest.mark.parametrize("entry_point", ["nocolon", "", "mod:", ":GAME", "a:b:c", "a b:GAME", "mod:GA ME"])
def test_a_malformed_entry_point_is_refused_when_registered(entry_point, clean):
    with pytest.raises(ValueError, match="module:attribute"):
        register_game("epx", entry_point)
    assert "epx" not in registered_games()


def test_the_same_game_registered_again_with_another_env_id_is_refused(clean):
    with pytest.raises(ValueError, match="registered already"):
        register_game("the_traitors", "traitors_env.games.the_traitors.game:GAME", env_id="zzz_v0")
    assert load_game("the_traitors").type.env_id == "the_traitors_v0"
    register_game("the_traitors", "traitors_env.games.the_traitors.game:GAME")  # the same registration: a no-op
    assert registered_env_ids()["the_traitors_v0"] == "the_traitors"


def test_an_env_id_or_name_another_game_answers_to_is_refused(clean):
    with pytest.raises(ValueError, match="traitors_aboard_v0"):
        register_game("toy", toy_game.GAME, env_id="traitors_aboard_v0")
    with pytest.raises(ValueError, match="traitors_aboard_v0"):
        register_game("traitors_aboard_v0", toy_game.GAME)
    with pytest.raises(ValueError, match="the_traitors"):
        register_game("toy", toy_game.GAME, env_id="the_traitors")
    assert load_game("traitors_aboard_v0").name == "traitors_aboard"
    assert registered_env_ids()["traitors_aboard_v0"] == "traitors_aboard"
    assert "toy" not in registered_games()


def test_override_replaces_a_game_under_its_own_name(clean):
    register_game("toy", toy_game.GAME)
    other = dataclasses.replace(toy_game.GAME, type=dataclasses.replace(toy_game.TYPE, env_id="toy_v1"))
    register_game("toy", other, env_id="toy_v1", override=True)
    assert load_game("toy_v1") is other
    assert "toy_v0" not in registered_env_ids()


def test_a_game_whose_type_disagrees_with_its_registration_is_refused_when_loaded(clean):
    register_game("other", toy_game.GAME)
    with pytest.raises(ValueError, match="calls itself 'toy'"):
        load_game("other")
    register_game("toy", toy_game.GAME, env_id="toy_v9")
    with pytest.raises(ValueError, match="GameType says 'toy_v0'"):
        load_game("toy")


def test_a_game_registered_at_run_time_is_in_pettingzoos_registry(clean):
    pettingzoo = pytest.importorskip("pettingzoo")
    from traitors_env import registration

    if not registration.REGISTERED:
        pytest.skip("this PettingZoo has no registry")
    register_game("toy", toy_game.GAME, override=True)
    env = pettingzoo.make("aec", "toy_v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "toy_v0" and len(env.possible_agents) == 3


@pytest.mark.parametrize(("field", "value", "words"), [
    ("min_players", 6, "min_players"),            # above max_players (5): no table size at all
    ("default_players", 9, "default_players"),    # outside 3–5
    ("min_players", 0, "min_players"),
    ("max_players", 5.0, "max_players"),
    ("num_actions", 0, "num_actions"),
    ("observation_shape", (), "observation_shape"),
    ("sides", ("spy",), "sides"),
    ("side_labels", ("Spy", "Others", "Third"), "side_labels"),
    ("utility", "nonsense", "utility"),
    ("short_name", "Toy", "short_name"),
    ("env_id", "", "env_id"),
])
def test_a_game_type_that_contradicts_itself_is_refused(field, value, words):
    with pytest.raises(ValueError, match=words):
        dataclasses.replace(toy_game.TYPE, **{field: value})


def test_an_entry_point_that_fails_to_import_is_named_with_its_game(clean):
    from traitors_env.core.registry import GameLoadError

    register_game("broken", "no_such_package.game:GAME")
    with pytest.raises(GameLoadError, match="'broken'.*no_such_package.game:GAME.*ModuleNotFoundError"):
        load_game("broken")
    register_game("broken_attr", "toy_game:NO_SUCH_GAME")
    with pytest.raises(GameLoadError, match="AttributeError"):
        load_game("broken_attr")


def test_plugins_with_a_bad_or_taken_name_are_left_out_with_a_warning_and_good_ones_load(clean, monkeypatch):
    from importlib import metadata

    entries = [metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in (
        ("Bad-Name", "toy_game:GAME"), ("traitors_aboard", "toy_game:GAME"), ("toy", "toy_game:GAME"))]
    monkeypatch.setattr(registry.metadata, "entry_points", lambda group: entries if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_plugins_read", False)
    with pytest.warns(UserWarning) as caught:
        names = registered_games()
    assert sorted(str(w.message).split(" = ")[0] for w in caught) == ["entry point Bad-Name", "entry point traitors_aboard"]
    assert "Bad-Name" not in names and "toy" in names
    assert load_game("traitors_aboard").type.long_name == "Traitors Aboard"
    assert load_game("toy_v0") is toy_game.GAME


def test_traitors_bench_leaves_out_a_broken_plugin_unless_it_is_named(clean, capsys):
    from traitors_env.benchmark import select_games
    from traitors_env.core.registry import GameLoadError

    register_game("broken", "no_such_package.game:GAME")
    assert [g.name for g in select_games()] == list(registry.shipped_games())
    assert "left out: game 'broken'" in capsys.readouterr().err
    with pytest.raises(GameLoadError):
        select_games(["broken"])


def test_a_registered_game_pickles_by_name_so_worker_processes_load_their_own(clean):
    import pickle

    for name in registry.BUILTIN_GAMES:
        game = load_game(name)
        blob = pickle.dumps(game)
        assert pickle.loads(blob) is game
        assert len(blob) < 200  # the name, not the modules and functions a Game holds (those do not pickle)
    # a copy not registered under its name cannot be loaded by a worker: refused in words, not half-pickled
    copy = dataclasses.replace(load_game("avalon"), hindsight_action=None)
    with pytest.raises(pickle.PicklingError, match="'avalon' is pickled by its registry name, but that name gives "
                                                   "another Game here"):
        pickle.dumps(copy)


def test_a_game_registered_by_a_factory_still_pickles_after_another_registration(clean):
    import pickle

    register_game("toy", lambda: dataclasses.replace(toy_game.GAME))  # a zero-argument callable, as documented
    game = load_game("toy")
    # another registration empties the cache of loaded games: the factory then builds an equal, not the same, Game
    register_game("toy2", dataclasses.replace(
        toy_game.GAME, type=dataclasses.replace(toy_game.TYPE, short_name="toy2", env_id="toy2_v0")))
    assert load_game("toy") is not game and load_game("toy") == game
    assert pickle.loads(pickle.dumps(game)) == game


def test_every_registered_game_has_its_public_module_under_its_env_id(clean):
    """PettingZoo's versioned names: ``traitors_env.<env_id>`` for each game, built-in or registered at run time,
    with no file outside the game's folder."""
    import importlib
    import sys

    from traitors_env import avalon_v0, the_traitors_v0, traitors_aboard_v0

    for module, name in ((traitors_aboard_v0, "traitors_aboard"), (the_traitors_v0, "the_traitors"),
                         (avalon_v0, "avalon")):
        game = load_game(name)
        assert module.env is game.env and module.raw_env is game.raw_env
        assert module.REGISTRY_ID == game.type.env_id and module.RENDER_MODES == ("ansi", "human")
    register_game("toy", toy_game.GAME)
    sys.modules.pop("traitors_env.toy_v0", None)
    toy = importlib.import_module("traitors_env.toy_v0")
    assert toy.raw_env is toy_game.GAME.raw_env and toy.REGISTRY_ID == "toy_v0"
    sys.modules.pop("traitors_env.toy_v0")
    with pytest.raises(ModuleNotFoundError, match="traitors_env.nothing_v0"):
        importlib.import_module("traitors_env.nothing_v0")
