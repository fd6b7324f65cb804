"""Cells with a ``threaded`` spec (a language model's: its games wait on the network) played in threads
(``play_cells(threads=N)``, ``traitors-eval --llm-concurrency N``): the same results as one by one, a failure
stops its chunk as it does one by one, Ctrl-C keeps every finished game (issue 29 item 3)."""

from __future__ import annotations

import threading

from traitors_env.agents import make_agent
from traitors_env.evaluation.crossplay import agent_seeds, play_cells


class Threaded:
    """A spec object the kit plays in threads: the heuristic, failing at game ``fail_at`` (its agent raises) or
    interrupting (Ctrl-C) at the ``interrupt_at``-th agent built."""

    threaded = True

    def __init__(self, fail_at: int | None = None, interrupt_at: int | None = None) -> None:
        self.fail_at, self.interrupt_at = fail_at, interrupt_at
        self.built = 0
        self.lock = threading.Lock()

    def build(self, seed):
        with self.lock:
            self.built += 1
            if self.built == self.interrupt_at:
                raise KeyboardInterrupt
        agent = make_agent("heuristic", seed)
        if self.fail_at is not None and seed == agent_seeds(0, 5, self.fail_at)[0]:
            agent.act = lambda observation, mask: 10**6  # an action no mask allows
        return agent


def cells(spec) -> list:
    return [(5, "threaded", spec, "random", "random"), (5, "random", "random", "threaded", spec)]


def test_threads_give_the_results_of_one_by_one():
    serial = play_cells(cells(Threaded()), 30, threads=1)
    threaded = play_cells(cells(Threaded()), 30, threads=4)
    assert not serial.interrupted and not threaded.interrupted
    for key, cell in serial.cells.items():
        assert cell.outcomes == threaded.cells[key].outcomes and cell.games == 30
        assert cell.end_conditions == threaded.cells[key].end_conditions
    assert serial.tallies == threaded.tallies and serial.failures == threaded.failures == []


def test_a_failure_stops_its_chunk_as_one_by_one():
    """Game 3 fails: games 0-2 kept, 4-24 of that chunk not counted (as when played in order), 25-29 played."""
    serial = play_cells(cells(Threaded(fail_at=3))[:1], 30, threads=1)
    threaded = play_cells(cells(Threaded(fail_at=3))[:1], 30, threads=3)
    (cell,) = threaded.cells.values()
    assert sorted(cell.outcomes) == [0, 1, 2, *range(25, 30)]
    assert cell.outcomes == next(iter(serial.cells.values())).outcomes
    assert threaded.failures == serial.failures and threaded.failures[0]["game"] == 3


def test_ctrl_c_keeps_every_finished_game():
    result = play_cells(cells(Threaded(interrupt_at=12))[:1], 40, threads=3)
    (cell,) = result.cells.values()
    assert result.interrupted and 1 <= cell.games < 40
    reference = play_cells(cells(Threaded())[:1], 40, threads=1)
    finished = next(iter(reference.cells.values())).outcomes
    assert all(finished[i] == won for i, won in cell.outcomes.items())  # each kept game as it is when played in full
