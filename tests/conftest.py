"""Test options: tests marked ``slow`` run only when asked for (``-m slow`` or ``--runslow``).

For ``.ci/run``, which runs the suite twice (the README's install, then every extra): with
``$TRAITORS_CI_RECORD_PASSED`` naming a file, the node ids of the tests that passed are written there; with
``$TRAITORS_CI_SKIP_PASSED`` naming such a file, those tests are deselected, so the second run spends its time on
the tests the first one skipped (those that need an extra) instead of repeating 1,600 tests; tests marked
``every_extra`` (their result depends on the extras installed: the games the registry lists) run in both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_passed: dict[str, bool] = {}  # node id -> every phase so far passed (a teardown error takes a pass back)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_passed = os.environ.get("TRAITORS_CI_SKIP_PASSED")
    if skip_passed:
        passed = set(Path(skip_passed).read_text().splitlines())
        # A test marked every_extra reads what the extras change (the registry's optional games): it runs again.
        again = [item for item in items if item.nodeid not in passed or "every_extra" in item.keywords]
        config.hook.pytest_deselected(items=[item for item in items if item not in again])
        items[:] = again
    if config.getoption("--runslow") or "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.passed:
        _passed.setdefault(report.nodeid, True)
    elif report.failed:
        _passed[report.nodeid] = False


def pytest_sessionfinish(session: pytest.Session) -> None:
    record = os.environ.get("TRAITORS_CI_RECORD_PASSED")
    if record:
        Path(record).write_text("".join(f"{nodeid}\n" for nodeid, ok in _passed.items() if ok))


@pytest.fixture
def toy_registered():
    """The toy game of ``tests/toy_game.py`` registered as ``toy`` for one test, unregistered after."""
    import toy_game

    from traitors_env.core.registry import register_game, unregister_game

    register_game("toy", toy_game.GAME, override=True)
    yield toy_game.GAME
    unregister_game("toy")
