"""One wording of a game's table sizes (``core.game.sizes_text``), used by ``Game.check_players`` and the tools'
``--players`` errors alike: a range ``3–8``, one size ``3`` (a small variant's), else a list ``5, 7``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from traitors_env.core import load_game
from traitors_env.core.game import sizes_text
from traitors_env.core.registry import registered_games


def test_sizes_text_words_a_range_one_size_and_a_list():
    kind = load_game("traitors_aboard").type
    assert sizes_text(kind) == "3–8"
    assert sizes_text(load_game("traitors_aboard:mini3").type) == "3"
    assert sizes_text(SimpleNamespace(player_counts=(5, 7))) == "5, 7"


@pytest.mark.parametrize("name", [*registered_games(), "traitors_aboard:mini3"])
def test_check_players_names_the_sizes_as_the_tools_do(name):
    game = load_game(name)
    bad = max(game.type.player_counts) + 1
    with pytest.raises(ValueError) as error:
        game.check_players(bad)
    assert str(error.value) == (f"{game.type.env_id} has no table of {bad} players; "
                                f"expected a table size in {sizes_text(game.type)}")


def test_the_cli_uses_cores_wording():
    from training import config
    from traitors_env import cli_args

    assert cli_args.sizes_text is sizes_text and config.sizes_text is sizes_text
