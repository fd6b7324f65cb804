"""Test options: tests marked ``slow`` run only when asked for (``-m slow`` or ``--runslow``)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow") or "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def toy_registered():
    """The toy game of ``tests/toy_game.py`` registered as ``toy`` for one test, unregistered after."""
    import toy_game

    from traitors_env.core.registry import register_game, unregister_game

    register_game("toy", toy_game.GAME, override=True)
    yield toy_game.GAME
    unregister_game("toy")
