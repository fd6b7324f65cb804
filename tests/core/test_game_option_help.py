"""``--game`` of the tools: its help lists the registered games and every declared variant as ``<game>:<variant>``
(read from the registry, so a plug-in's variants are listed too)."""

from __future__ import annotations

import pytest

from traitors_env.core.registry import loadable_games


def _tools():
    from traitors_env.evaluation.cli import main as eval_main
    from traitors_env.evaluation.games import main as baselines_main
    from traitors_env.table.play import main as play_main
    from traitors_env.table.replay import main as replay_main

    return {"traitors-eval": eval_main, "baselines": baselines_main, "traitors-play": play_main,
            "traitors-replay": replay_main}


def _help(main, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines: compare with the spaces collapsed


@pytest.mark.parametrize("tool", sorted(_tools()))
def test_the_game_help_lists_every_declared_variant(tool, capsys):
    text = _help(_tools()[tool], capsys)
    games = list(loadable_games())
    variants = [f"{game.name}:{name}" for game in games for name in game.variants]
    assert "traitors_aboard:mini3" in variants  # the registry declares some
    missing = [name for name in variants if name not in text]
    assert missing == [], f"{tool} --help does not list {missing}"
    assert all(game.name in text for game in games)
