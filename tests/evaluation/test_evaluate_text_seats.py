"""``evaluate()`` with a text agent: each seat keeps its own conversation (issue 29: one agent plays one seat)."""

from __future__ import annotations

import pytest

from traitors_env.core.text import TextAgent
from traitors_env.evaluation.games import evaluate

#: id(agent) -> the number of games it opened a conversation in
SEEN: dict[int, int] = {}
#: every agent built
BUILT: list[TextAgent] = []


def make(seed):
    """A text agent whose model answers the first option and notes each game's opening prompt."""

    def reply(messages, decision):
        if decision.first:
            SEEN[id(agent)] = SEEN.get(id(agent), 0) + 1
        return "1"

    agent = TextAgent("traitors_aboard", reply, seed=seed)
    BUILT.append(agent)
    return agent


def test_a_text_agent_spec_gets_one_agent_per_seat_of_its_side():
    """Traitors Aboard at 6 players has four Pirates (rulebook, "Setup"): each is played by its own agent, so no
    agent opens two conversations in one game (two first decisions per game would mean two seats in one agent)."""
    SEEN.clear()
    BUILT.clear()
    result = evaluate(f"{__name__}:make", "random", side=0, num_players=6, games=3, seed=0,
                      game="traitors_aboard")
    assert result.games == 3
    # the spec check builds one, the side's first seat one, and each other Pirate seat one (4 Pirates at 6): at
    # least 3 more, at most one per seat number that was ever a Pirate but not the first (the deal moves them)
    assert 2 + 3 <= len(BUILT) <= 2 + 5
    assert len(SEEN) >= 2  # several of them played (a seat that never acted opened no conversation)
    assert all(count <= 3 for count in SEEN.values())  # at most one conversation per game each


def test_a_text_agent_object_for_a_side_of_several_seats_is_refused_in_words():
    agent = make(0)
    with pytest.raises(ValueError, match="one seat's conversation"):
        evaluate(agent, "random", side=0, num_players=6, games=1, seed=0, game="traitors_aboard")
