"""Our small variants as pyspiel games serialize and pickle (issue 50, item 2: OpenSpiel's algorithms and its
``random_sim_test`` with ``serialize=True`` run on them unmodified). Found by a tester: the one module registering
both games kept a module on each state and built the game classes at run time, so neither a state nor a game could
be pickled or serialized. Skipped without the ``solve`` extra."""

from __future__ import annotations

import pickle

import pytest

pyspiel = pytest.importorskip("pyspiel")

from traitors_env.solve import spiel  # noqa: E402  (registers the games)

GAMES = sorted(spiel.FAMILIES)


@pytest.mark.parametrize("name", GAMES)
def test_random_simulation_with_serialization(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_a_state_and_its_game_pickle_and_deserialize_to_the_same_history(name):
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    for _ in range(40):  # into the game: the deal, then a few decisions (first legal action each)
        if state.is_terminal():
            break
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and str(copy) == str(state)
    assert type(pickle.loads(pickle.dumps(game))) is type(game)
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert again.history() == state.history()
