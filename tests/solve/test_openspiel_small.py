"""social_deduction's small variant as an exact tree (issue 50): the tree is OpenSpiel's game, its observations are the
registered env's, and our seat NashConv and the Imposters' team best response equal OpenSpiel's own algorithms'."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import exploitability, get_all_states  # noqa: E402
from open_spiel.python.algorithms.best_response import BestResponsePolicy  # noqa: E402

from traitors_env.agents.spec import agent_maker  # noqa: E402
from traitors_env.core import load_game  # noqa: E402
from traitors_env.solve import small_variants  # noqa: E402
from traitors_env.solve.exact import agent_policy, build_tree, evaluate  # noqa: E402
from traitors_env.solve.openspiel_tree import spiel_policy  # noqa: E402

# The registry's optional game is there only with the solve extra.
pytestmark = pytest.mark.every_extra

GAME = "openspiel_social_deduction"


@pytest.fixture(scope="module")
def small():
    """The registered game, its ``mini3`` variant, the tree (~2–5 s) and the two bots' exact evaluations."""
    game = load_game(GAME)
    variant = small_variants(game)["mini3"]
    tree = build_tree(variant)
    results = {}
    for bot in ("random", "heuristic"):
        _, make = agent_maker(bot, game=GAME)
        policy, note = agent_policy(tree, make)
        assert note["observations_sampled"] == 0  # both state their probabilities: nothing is sampled
        results[bot] = (policy, evaluate(tree, policy, sides=game.type.sides, milp_time_limit=1))
    return game, variant, tree, results


def test_the_tree_is_the_pyspiel_games_whole_state_space(small):
    """Every history of the pyspiel game at 3 players, 1 Imposter, 1 round (139,558, issue 50) and every information
    state of its acting seats, as OpenSpiel enumerates them."""
    _, variant, tree, _ = small
    states = get_all_states.get_all_states(variant.pyspiel_game(), depth_limit=-1, include_terminals=True,
                                           include_chance_states=True)
    infos = {s.information_state_string(s.current_player()) for s in states.values()
             if not s.is_terminal() and not s.is_chance_node()}
    assert tree.size["histories"] == len(states) == 139_558
    assert tree.size["information_states"] == len(infos)
    assert tree.size["terminals"] == sum(s.is_terminal() for s in states.values())


def test_observations_and_masks_are_the_registered_envs(small):
    """At every decision of random games of the env, the tree's observation and mask at the seat's information state
    are exactly what the env gives that seat (so any agent spec sees in the tree what it sees when it plays)."""
    game, variant, tree, _ = small
    index = {key: i for i, key in enumerate(tree.info_keys)}
    env = game.raw_env(num_players=variant.num_players, **variant.declaration.options)
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(20):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            agent = env.agent_selection
            seat = env.agents.index(agent)
            seen = env.observe(agent)
            node = tree.info_node[index[env.game.spiel.information_state_string(seat)]]
            assert np.array_equal(node.observation(seat), seen["observation"])
            assert np.array_equal(node.legal_mask(), seen["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
            checked += 1
    assert checked == 20 * 6  # three messages and three votes per one-round game


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_seat_nash_conv_equals_openspiels_nash_conv(small, bot):
    """OpenSpiel's ``exploitability.nash_conv`` on the pyspiel game, with the bot's probabilities turned into pyspiel's
    actions, equals ours to 1e-9 (a wrong action mapping or information state would not: the heuristic is not
    uniform)."""
    _, variant, tree, results = small
    policy, ours = results[bot]
    game = variant.pyspiel_game()
    theirs = exploitability.nash_conv(game, spiel_policy(game, tree, policy))
    assert ours["nash_conv_seats"] == pytest.approx(theirs, abs=1e-9)
    assert ours["nash_conv_seats"] > 0.1  # neither bot is an equilibrium: the check has something to compare


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_imposters_team_best_response_equals_openspiels_best_response(small, bot):
    """The Imposters have one seat per deal, so their team best response is that seat's best response in each deal:
    Σ over deals of P(deal) · OpenSpiel's ``BestResponsePolicy(seat).value`` after the deal (its information states
    hold its role, so the value there is the Imposter's), as a win rate."""
    _, variant, tree, results = small
    policy, ours = results[bot]
    game = variant.pyspiel_game()
    profile = spiel_policy(game, tree, policy)
    root = game.new_initial_state()
    value = 0.0
    for deal, probability in root.chance_outcomes():  # the outcome is the bitmask of the Imposters' seats
        seat = int(deal).bit_length() - 1
        assert deal == 1 << seat
        value += probability * BestResponsePolicy(game, seat, profile).value(root.child(deal))
    imposters = ours["sides"]["imposters"]
    assert imposters["exact"]
    assert imposters["win_rate_lower"] == pytest.approx((value + 1) / 2, abs=1e-9)
    assert imposters["win_rate_lower"] >= imposters["win_rate"] - 1e-12


def test_uniform_play_wins_as_the_rules_say_and_the_innocents_bracket_holds(small):
    """Rules: in the one round the Imposter is out only if both Innocents vote for it (the Imposter's vote goes to an
    Innocent; one Innocent vote against it ties or loses), so uniform play gives the Innocents ¼. Their team best
    response (two seats) lies between the person-by-person optimum and the shared-information relaxation."""
    _, _, _, results = small
    assert results["random"][1]["sides"]["innocents"]["win_rate"] == pytest.approx(0.25, abs=1e-12)
    for _, report in results.values():
        innocents = report["sides"]["innocents"]
        assert innocents["win_rate"] - 1e-12 <= innocents["win_rate_lower"] <= innocents["win_rate_upper"] + 1e-12
        conv = report["nash_conv_sides"]
        assert 0 <= conv["lower"] <= conv["upper"] + 1e-12


def test_the_innocents_team_best_response_is_exact_and_its_plan_achieves_it(small):
    """The DP over common-knowledge parts (traitors_env/solve/team_dp.py; every action but the deal is public, so a
    part is one public history) gives the Innocents' exact team best response: between the person-by-person
    optimum and the shared-information relaxation, reached by its own plan played against the agent's Imposter; the
    same DP on the Imposter's side (one seat per deal) is its best response."""
    from traitors_env.solve.exact import _pure, policy_value_side
    from traitors_env.solve.team_dp import team_best_response_dp

    _, _, tree, results = small
    for policy, report in results.values():
        innocents = report["sides"]["innocents"]
        # the DP runs where person-by-person falls short of the relaxation (the heuristic's 100 % is met at once)
        assert innocents["exact"] and "milp" not in innocents
        assert innocents.get("dp", {"exact": True})["exact"]
        assert innocents["person_by_person"] - 1e-12 <= innocents["win_rate_lower"]
        assert innocents["win_rate_lower"] <= innocents["shared_information"] + 1e-12
        dp = team_best_response_dp(tree, policy, 0)
        assert dp["win_rate"] == pytest.approx(innocents["win_rate_lower"], abs=1e-12)
        assert policy_value_side(tree, _pure(tree, policy, dp["plan"])) == pytest.approx(dp["value"], abs=1e-12)
        imposter = team_best_response_dp(tree, policy, 1)
        assert imposter["win_rate"] == pytest.approx(report["sides"]["imposters"]["win_rate_lower"], abs=1e-12)
    assert results["random"][1]["sides"]["innocents"]["dp"]["exact"]
    assert results["random"][1]["sides"]["innocents"]["win_rate_lower"] == pytest.approx(139 / 144, abs=1e-12)
