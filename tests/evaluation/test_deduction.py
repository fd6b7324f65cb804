"""Deduction metrics (traitors_env.evaluation.deduction): Brier and log loss against the true roles, the base rate of
the rules' role counts, and the metric's own sanity: a perfectly informed agent beats the base rate, an agent that
says the base rate equals it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from traitors_env.core.agent import agent_beliefs, spread_to_count
from traitors_env.core.game import MissingCapabilityError
from traitors_env.core.registry import load_game
from traitors_env.evaluation.cli import run_benchmark
from traitors_env.evaluation.deduction import (
    BINS,
    Deduction,
    base_rate,
    brier,
    close_game,
    log_loss,
    phase_of,
    ratio_interval,
    summarize_deduction,
)
from traitors_env.evaluation.games import play_game
from traitors_env.evaluation.population import parse_population

#: Traitors Aboard's rulebook "Setup" table: players → Mutineer cards.
RULEBOOK_MUTINEERS = {3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2}


# ------------------------------------------------------------------ the scores on hand-made cases
def test_brier_and_log_loss_by_hand():
    p, y = [0.2, 0.9, 0.5], [0, 1, 1]
    assert brier(p, y) == pytest.approx(0.04 + 0.01 + 0.25)
    assert log_loss(p, y) == pytest.approx(-math.log(0.8) - math.log(0.9) - math.log(0.5))
    # Certain and right costs nothing; certain and wrong costs −ln(1e-6) (p clipped), not infinity.
    assert brier([1.0, 0.0], [1, 0]) == 0.0 and log_loss([1.0, 0.0], [1, 0]) == pytest.approx(0.0, abs=1e-5)
    assert log_loss([1.0], [0]) == pytest.approx(-math.log(1e-6), rel=1e-6)
    assert brier([], []) == 0.0


def test_phases_are_thirds_of_progress():
    assert [phase_of(x) for x in (0.0, 0.33, 1 / 3, 0.5, 0.66, 2 / 3, 1.0)] == [
        "early", "early", "mid", "mid", "mid", "late", "late"]
    assert phase_of(None) == "all"


# ------------------------------------------------------------------ base rate from the rules' counts
@pytest.mark.parametrize("n", sorted(RULEBOOK_MUTINEERS))
def test_base_rate_traitors_aboard_matches_the_rulebook_setup(n):
    """Rulebook "Setup": a Pirate sees all the Mutineers among the n − 1 others, a Mutineer one fewer."""
    game = load_game("traitors_aboard")
    mutineers = RULEBOOK_MUTINEERS[n]
    assert base_rate(game, n, 0) == pytest.approx(mutineers / (n - 1))
    assert base_rate(game, n, 1) == pytest.approx((mutineers - 1) / (n - 1))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_base_rate_the_traitors_one_traitor(n):
    """T02: one Traitor; a Faithful's prior is 1/(n − 1) per other seat, the Traitor's 0."""
    game = load_game("the_traitors")
    assert base_rate(game, n, 1) == pytest.approx(1 / (n - 1))
    assert base_rate(game, n, 0) == 0.0


def test_a_game_without_hidden_side_is_not_scored(toy_registered):
    game = load_game("toy")
    with pytest.raises(MissingCapabilityError, match="hidden side"):
        Deduction(game)
    with pytest.raises(MissingCapabilityError):
        base_rate(game, 3, 0)


# ------------------------------------------------------------------ the metric's sanity (the cheat lives here only)
class _Informed:
    """A test-only agent that plays the heuristic and *reads the deal* for its beliefs: perfectly informed (or, with
    ``uniform``, saying the base rate for every other seat). Never an agent of the package."""

    def __init__(self, game, state, seat, uniform=False):
        self.game, self.state, self.seat, self.uniform = game, state, seat, uniform
        self.bot = game.make_bot("heuristic", seat)

    def act(self, observation, action_mask):
        return self.bot.act(observation, action_mask)

    def beliefs(self, observation):
        n, g = self.state.num_players, self.game
        out = np.full(g.belief_size, np.nan, dtype=np.float32)
        prior = base_rate(g, n, g.side_of_seat(self.state, self.seat))
        for r in range(1, n):
            truth = g.side_of_seat(self.state, (self.seat + r) % n) == g.hidden_side
            out[r] = prior if self.uniform else float(truth)
        return out


def _scored(game, n, games, uniform):
    deduction = Deduction(game)
    env = game.raw_env(num_players=n)
    for seed in range(games):
        def seated(state):
            return [_Informed(game, state, s, uniform) for s in range(n)]

        def hook(seat, observation, mask, values, state, agent):
            deduction.observe("informed", state, seat, observation, values, mask, agent)

        play_game(env, seated, seed, beliefs=hook)
    return deduction


@pytest.mark.parametrize("name,n", [("traitors_aboard", 5), ("traitors_aboard", 7), ("the_traitors", 5)])
def test_informed_agent_beats_the_base_rate_and_the_prior_equals_it(name, n):
    game = load_game(name)
    hidden_team = game.type.sides[1 - game.hidden_side]  # the side that has something to deduce
    informed = summarize_deduction(_scored(game, n, 3, uniform=False).tallies[("informed", hidden_team)], [n])
    pooled = next(r for r in informed["rows"] if r["phase"] == "all")
    assert pooled["brier"] == 0.0 and pooled["log_loss"] == pytest.approx(0.0, abs=1e-5)
    assert pooled["base_brier"] > 0.1 and pooled["brier_over_base"] == 0.0
    # Every other seat of the table is scored once per decision; never the observer itself.
    assert pooled["predictions"] == pooled["decisions"] * (n - 1)
    uniform = summarize_deduction(_scored(game, n, 3, uniform=True).tallies[("informed", hidden_team)], [n])
    for row in uniform["rows"]:
        assert row["brier"] == pytest.approx(row["base_brier"]) and row["log_loss"] == pytest.approx(row["base_log_loss"])
        assert row["brier_over_base"] == pytest.approx(1.0)
    # The reliability diagram of the informed agent: all predictions at 0 or 1, each bin's frequency its belief.
    bins = [b for b in informed["reliability"] if b["count"]]
    assert {(b["low"], b["frequency"]) for b in bins} <= {(0.0, 0.0), ((BINS - 1) / BINS, 1.0)}


def test_the_observer_and_padded_seats_are_never_scored():
    """Beliefs are NaN at self by protocol; a finite value there (or beyond the table) is ignored all the same."""
    game = load_game("traitors_aboard")
    state = game.new_initial_state(4, 0, True)
    observation = game.encode(state, 0)
    deduction = Deduction(game, heuristic=None)
    deduction.heuristic = None
    values = np.full(game.belief_size, 0.5, dtype=np.float32)
    deduction.observe("a", state, 0, observation, values)
    tally = deduction.tallies[("a", game.type.sides[game.side_of_seat(state, 0)])]
    assert tally[(4, "early", "predictions")] == 3 and tally[(4, "early", "decisions")] == 1


def test_agent_beliefs_checks_shape_and_range():
    class Bad:
        def __init__(self, values):
            self.values = values

        def act(self, observation, action_mask):
            return 0

        def beliefs(self, observation):
            return self.values

    obs = np.zeros(3, dtype=np.float32)
    assert agent_beliefs(object(), obs) is None
    assert agent_beliefs(Bad([np.nan, 0.5]), obs, 2).dtype == np.float32
    with pytest.raises(ValueError, match=r"shape \(3,\).*expected \(8,\)"):
        agent_beliefs(Bad([0.1, 0.2, 0.3]), obs, 8)
    with pytest.raises(ValueError, match="probabilities in"):
        agent_beliefs(Bad([np.nan, 1.5]), obs, 2)


def test_spread_to_count_caps_at_one_and_keeps_the_count():
    assert spread_to_count([1, 1, 1, 1], 1).tolist() == [0.25] * 4
    assert spread_to_count([100, 1, 1], 2) == pytest.approx([1.0, 0.5, 0.5])
    assert spread_to_count([1000, 3, 1, 0], 2) == pytest.approx([1.0, 0.75, 0.25, 0.0])
    assert spread_to_count([1000, 1000, 1, 1], 2).sum() == pytest.approx(2.0)  # near 1, never above
    assert spread_to_count([0, 0], 1).tolist() == [0.5, 0.5]
    assert spread_to_count([3, 1], 0).tolist() == [0.0, 0.0] and spread_to_count([3, 1], 2).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="non-negative"):
        spread_to_count([1, -1], 1)


# ------------------------------------------------------------------ the kit's report
def test_report_has_a_deduction_section_and_a_reliability_plot(tmp_path):
    report = run_benchmark(parse_population(["heuristic", "random"]), [3, 6], 4, tmp_path, game="traitors_aboard")
    deduction = report["deduction"]
    assert deduction["hidden_side"] == "mutineers" and set(deduction["agents"]) == {"heuristic"}  # random has none
    rows = deduction["agents"]["heuristic"]["pirates"]["rows"]
    assert {r["num_players"] for r in rows} == {3, 6, "all"} and {r["phase"] for r in rows} >= {"early", "all"}
    for r in rows:  # the heuristic is the reference: its own beliefs, the same figures
        assert r["heuristic_brier"] == pytest.approx(r["brier"]) and r["predictions"] == r["heuristic_predictions"]
    assert (tmp_path / "beliefs.png").stat().st_size > 0
    assert "## Deduction (role beliefs)" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "report.json").read_text())["deduction"]["agents"]
    report = run_benchmark(parse_population(["heuristic"]), [3], 2, tmp_path, game="traitors_aboard", beliefs=False)
    assert report["deduction"]["agents"] == {} and not (tmp_path / "beliefs.png").exists()


def test_report_of_a_game_without_hidden_side_says_so(tmp_path, toy_registered):
    report = run_benchmark(parse_population(["heuristic"]), [3], 2, tmp_path, game="toy", plots=False)
    assert "skipped" in report["deduction"]
    assert "Not computed" in (tmp_path / "report.md").read_text()


# ------------------------------------------------------------------ the interval of Brier / base, deals as clusters
def _games(rng, count):
    """Per-game Brier and base-rate Brier sums of ``count`` games with 2-40 predictions each, correlated within a
    game (one shared error per game)."""
    k = rng.integers(2, 41, count)
    shared = rng.normal(0, 0.15, count)
    a = np.array([np.sum(np.clip(0.2 + s + rng.normal(0, 0.05, n), 0, 1)) for s, n in zip(shared, k)])
    b = 0.25 * k
    return a, b


def test_the_ratio_interval_agrees_with_a_bootstrap_over_clusters():
    """The delta-method interval against scipy's percentile bootstrap resampling whole clusters."""
    from scipy.stats import bootstrap

    a, b = _games(np.random.default_rng(7), 400)
    lo, hi = ratio_interval(a, b)
    boot = bootstrap((a, b), lambda x, y, axis=-1: x.sum(axis) / y.sum(axis), paired=True, vectorized=True,
                     n_resamples=4000, method="percentile", random_state=np.random.default_rng(1))
    assert lo == pytest.approx(boot.confidence_interval.low, abs=0.01)
    assert hi == pytest.approx(boot.confidence_interval.high, abs=0.01)
    assert lo < a.sum() / b.sum() < hi


def test_the_interval_is_wide_on_few_clusters_and_none_on_one():
    a, b = _games(np.random.default_rng(3), 400)
    wide, narrow = ratio_interval(a[:12], b[:12]), ratio_interval(a, b)
    assert wide[1] - wide[0] > 3 * (narrow[1] - narrow[0])
    assert ratio_interval(a[:1], b[:1]) is None
    assert ratio_interval([0.0, 0.0], [0.0, 0.0]) is None  # nothing to deduce: no ratio


def _game(n, deal, phases):
    from collections import Counter

    tally = Counter()
    for phase, (a, base) in phases.items():
        tally[(n, phase, "decisions")] += 1
        tally[(n, phase, "predictions")] += 2
        tally[(n, phase, "brier")] += a
        tally[(n, phase, "base_brier")] += base
    return close_game(tally, deal)


def _total(*games):
    from collections import Counter

    total = Counter()
    for g in games:
        total.update(g)  # as the kit merges games (keeps zero entries)
    return total


def test_each_row_counts_the_deals_that_scored_it_and_takes_its_interval_over_them():
    """Two deals at 3 players (one reaching the late phase) and one at 6: each row counts its deals, and its
    interval is :func:`ratio_interval` over those deals' own sums (phases of a deal added up)."""
    total = _total(_game(3, 0, {"early": (0.2, 0.5), "late": (0.1, 0.5)}), _game(3, 1, {"early": (0.4, 0.5)}),
                   _game(6, 0, {"early": (0.3, 0.4), "mid": (0.2, 0.4)}))
    rows = {(r["num_players"], r["phase"]): r for r in summarize_deduction(total, [3, 6])["rows"]}
    assert rows[(3, "early")]["deals"] == 2 and rows[(3, "late")]["deals"] == 1 and rows[(3, "all")]["deals"] == 2
    assert rows[(3, "late")]["brier_over_base_ci"] is None  # one deal: no interval
    assert rows[("all", "all")]["deals"] == 3 and rows[("all", "early")]["deals"] == 3  # (3, 0) and (6, 0) differ
    expected = ratio_interval([0.3, 0.4], [1.0, 0.5])
    assert rows[(3, "all")]["brier_over_base_ci"] == pytest.approx(list(expected), abs=1e-4)
    assert rows[(3, "all")]["brier"] == pytest.approx(0.7 / 6, abs=1e-6) and rows[(3, "all")]["predictions"] == 6


def test_games_of_one_deal_in_different_cells_are_one_cluster():
    """Game 0 at 3 players against two opponents (the same deal in both cells) is one draw, not two."""
    one = _total(_game(3, 0, {"early": (0.2, 0.5)}), _game(3, 0, {"early": (0.3, 0.5)}),
                 _game(3, 1, {"early": (0.4, 0.5)}))
    row = summarize_deduction(one, [3])["rows"][0]
    assert row["deals"] == 2
    assert row["brier_over_base_ci"] == pytest.approx(list(ratio_interval([0.5, 0.4], [1.0, 0.5])), abs=1e-4)
