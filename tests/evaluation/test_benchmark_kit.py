"""The benchmark kit (issue 11): metrics on hand-built records, worker-count independence (issue 10),
ratings and the meta-game on a dominated matrix, the README's user agent, every bad input."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from traitors_env.agents.spec import AgentSpecError, agent_maker
from traitors_env.evaluation.cli import main as eval_main
from traitors_env.evaluation.cli import run_benchmark
from traitors_env.evaluation.metagame import solve_zero_sum
from traitors_env.evaluation.metrics import summarize as summarize_metrics
from traitors_env.evaluation.population import PopulationError, load_population_file, parse_population
from traitors_env.evaluation.ratings import rate_games
from traitors_env.evaluation.report import bootstrap_over_seeds
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import LOOT_VALUES, CardKind, Role
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase
from traitors_env.games.traitors_aboard.metrics import METRICS, tally_game, tally_record
from traitors_env.games.traitors_aboard.records import RecordError, record_game

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this folder's agents for factory specs


# ------------------------------------------------------------------ agents used by factory specs
class AlwaysFirst:
    """Plays the first legal action."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def first_legal(seed=None):
    return AlwaysFirst()


def returns_nothing(seed=None):
    return None


def factory_raises():
    raise RuntimeError("no model file")


class Illegal:
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask == 0)[0])


def illegal(seed=None):
    return Illegal()


class CrashesLater:
    """Random play that raises on its 200th decision (so a few games finish first)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        global _CALLS
        _CALLS += 1
        if _CALLS >= 200:
            raise ValueError("out of memory (simulated)")
        return int(self.rng.choice(np.flatnonzero(action_mask)))


_CALLS = 0


def crashes_later(seed=None):
    return CrashesLater(seed)


SELF = "test_benchmark_kit"


def summarize(tally):
    """Traitors Aboard's metrics of one tally (the kit's generic summary over the game's declarations)."""
    return summarize_metrics(tally, METRICS)


# ------------------------------------------------------------------ hand-built games
def _fallback(state: GameState) -> int:
    """A legal action that places no loot, opens no chest and plays no Plank, where there is one."""
    legal = state.legal_actions()
    quiet = [a for a in legal if a in (A.GOOD_RIDDANCE, A.SPYGLASS) or A.EYP_BASE < a < A.GOOD_RIDDANCE]
    if quiet:
        return quiet[0]
    other = [a for a in legal if a != A.OPEN_CHEST and not A.PLANK_BASE < a <= A.EYP_BASE]
    return (other or [a for a in legal if a != A.OPEN_CHEST] or list(legal))[0]


def _mutineer_lies_three_times_then_truthfully(seed: int):
    """3 players, no claims: the Mutineer's first three loot cards are announced falsely, the fourth truly;
    Pirates announce truly. Returns (state, expected announced − true values of the Mutineer)."""
    state = GameState.new(GameConfig(num_players=3, claims=False), seed=seed)
    excess = []
    while not state.is_terminal and len(excess) < 4:
        seat = state.current_player
        if state.phase is not Phase.MAIN:
            state.apply_action(state.legal_actions()[0])
            continue
        loot = [k for k in range(3) if state.hands[seat][k]]
        if not loot:
            state.apply_action(_fallback(state))
            continue
        card = loot[0]
        lie = state.roles[seat] == Role.MUTINEER and len(excess) < 3
        announced = (card + 1) % 3 if lie else card
        if state.roles[seat] == Role.MUTINEER:
            excess.append(LOOT_VALUES[announced] - LOOT_VALUES[card])
        state.apply_action(A.loot_action(card, announced))
    return state, excess


def test_mutineer_with_three_false_announcements_and_one_true_has_lie_rate_three_quarters(tmp_path):
    """Issue 11's example (R04: the announced value may be false)."""
    for seed in range(50):
        state, excess = _mutineer_lies_three_times_then_truthfully(seed)
        if len(excess) == 4:
            break
    assert len(excess) == 4
    record = record_game(state, seed)  # an unfinished game is a record too
    path = record.save(tmp_path / "game.json")
    tallies = tally_record(path)
    mutineers = summarize(tallies["mutineers"])
    assert mutineers["loot_false_rate"]["value"] == 0.75 and mutineers["loot_false_rate"]["count"] == 4
    assert mutineers["announced_minus_true"]["value"] == pytest.approx(np.mean(excess))
    assert summarize(tallies["pirates"])["loot_false_rate"]["value"] == 0.0
    assert mutineers["win_rate"]["count"] == 0  # unfinished: no game counted


def test_pirate_opening_an_empty_chest_fails_by_the_target():
    """R03: a chest of value 0 < target loses; margin = −target; the Mutineers win the game."""
    for seed in range(50):
        state = GameState.new(GameConfig(num_players=5), seed=seed)
        if state.roles[state.current_player] == Role.PIRATE:
            break
    state.apply_action(A.OPEN_CHEST)
    tallies = tally_game(5, True, seed, state.history)
    pirates, mutineers = summarize(tallies["pirates"]), summarize(tallies["mutineers"])
    assert pirates["chest_open_success"] == {"value": 0.0, "interval": pirates["chest_open_success"]["interval"], "count": 1}
    assert pirates["chest_margin_at_open"]["value"] == -state.setup.target
    assert pirates["win_rate"]["value"] == 0.0 and mutineers["win_rate"]["value"] == 1.0


def test_claims_planks_and_pockets_against_the_truth():
    """R14–R16 claims checked against the true hand and roles; Planks (R11) and Empty Your Pockets (R10) by target."""
    expected = Counter()
    for seed in range(200):
        state = GameState.new(GameConfig(num_players=5), seed=seed)
        expected.clear()
        mutineer = state.roles.index(Role.MUTINEER)
        turns = 0
        while not state.is_terminal and turns < 24:
            seat = state.current_player
            pirate = state.roles[seat] == Role.PIRATE
            if state.phase is Phase.MAIN:
                hand = state.hands[seat]
                if hand[CardKind.PLANK] and pirate and state.aboard[mutineer]:
                    expected["plank"] += 1
                    expected["plank_on_mutineer"] += 1
                    if state.planks[mutineer] == 2:
                        expected["overboard_mutineer"] += 1
                    state.apply_action(A.plank_action((mutineer - seat) % 5))
                elif hand[CardKind.EMPTY_YOUR_POCKETS] and pirate:
                    victim = (seat + 1) % 5
                    while not state.aboard[victim]:
                        victim = (victim + 1) % 5
                    expected["eyp"] += 1
                    expected["eyp_on_mutineer"] += victim == mutineer
                    state.apply_action(A.empty_your_pockets_action((victim - seat) % 5))
                else:
                    state.apply_action(_fallback(state))
            elif state.phase is Phase.CLAIM:
                turns += 1
                kinds = [k for k, c in enumerate(state.hands[seat]) for _ in range(c)]
                if pirate and turns % 3 == 0:  # a true hand claim
                    expected["hand"] += 1
                    expected["hand_true"] += 1
                    state.apply_action(A.hand_claim_action(kinds))
                elif pirate and turns % 3 == 1:  # a false one: one card named as another kind
                    kinds[0] = (kinds[0] + 1) % 8
                    expected["hand"] += 1
                    state.apply_action(A.hand_claim_action(kinds))
                elif not pirate:  # the Mutineer: "I am a Pirate" (false)
                    expected["vouch_m"] += 1
                    state.apply_action(A.vouch_action(0))
                elif state.aboard[mutineer]:  # a Pirate accuses the Mutineer (true)
                    expected["accuse"] += 1
                    state.apply_action(A.accuse_action((mutineer - seat) % 5))
                else:
                    state.apply_action(A.CLAIM_NONE)
            else:
                state.apply_action(state.legal_actions()[0])
        if expected["plank"] >= 2 and expected["eyp"] >= 1 and expected["accuse"] >= 1:
            break
    tallies = tally_game(5, True, seed, state.history)
    p, m = tallies["pirates"], tallies["mutineers"]
    assert (p["claim_hand"], p["hand_true"]) == (expected["hand"], expected["hand_true"])
    assert (p["claim_accuse"], p["accuse_true"]) == (expected["accuse"], expected["accuse"])
    assert (m["claim_vouch"], m["vouch_true"]) == (expected["vouch_m"], 0)
    assert p["plank"] + m["plank"] == expected["plank"]
    assert p["plank_on_mutineer"] + m["plank_on_mutineer"] == expected["plank_on_mutineer"]
    assert p["overboard_mutineer"] + m["overboard_mutineer"] == expected["overboard_mutineer"]
    assert (p["eyp"], p["eyp_on_mutineer"]) == (expected["eyp"], expected["eyp_on_mutineer"])
    assert summarize(m)["vouch_truth"]["value"] == 0.0


def test_chest_top_claim_is_checked_against_the_cards_the_spyglass_showed():
    """R07/R15: after a Spyglass, a claim of the seen multiset is true, another one false."""
    for seed in range(300):
        state = GameState.new(GameConfig(num_players=4), seed=seed)
        claims = []
        while not state.is_terminal and len(claims) < 2:
            seat = state.current_player
            if state.phase is Phase.MAIN:
                loot = [k for k in range(3) if state.hands[seat][k]]
                if state.hands[seat][CardKind.SPYGLASS] and len(state.chest) >= 2:
                    seen = sorted(card.kind for card in state.chest[-min(3, len(state.chest)):])
                    state.apply_action(A.SPYGLASS)
                elif loot:
                    state.apply_action(A.loot_action(loot[0], loot[0]))
                else:
                    state.apply_action(_fallback(state))
            elif state.phase is Phase.CLAIM and state.spyglass_taken:
                true_claim = not claims
                named = seen if true_claim else [(v + 1) % 3 for v in seen]
                if not true_claim and sorted(named) == seen:  # e.g. {0, 0, 0} shifted is still uniform
                    named = [(v + 2) % 3 for v in seen]
                claims.append(true_claim)
                state.apply_action(A.chest_claim_action(named))
            else:
                state.apply_action(state.legal_actions()[0] if state.phase is not Phase.CLAIM else A.CLAIM_NONE)
        if len(claims) == 2:
            break
    assert len(claims) == 2
    tallies = tally_game(4, True, seed, state.history)
    total = tallies["pirates"] + tallies["mutineers"]
    assert (total["claim_chest_top"], total["chest_top_true"]) == (2, 1)


def test_a_record_whose_winner_was_edited_is_refused(tmp_path):
    for seed in range(50):
        state = GameState.new(GameConfig(num_players=3), seed=seed)
        if state.roles[state.current_player] == Role.PIRATE:
            state.apply_action(A.OPEN_CHEST)
            break
    data = json.loads(record_game(state, seed).to_json())
    data["result"]["winner"] = "Pirate"
    with pytest.raises(RecordError, match="winner"):
        tally_record(data)


# ------------------------------------------------------------------ cross-play
def _report(tmp_path, workers, name):
    report = run_benchmark(
        parse_population(["random", "heuristic", f"first={SELF}:first_legal"]), [3, 4], games=26,
        out=tmp_path / name, seed=5, workers=workers, plots=False,
    )
    report.pop("files")
    report["settings"].pop("seconds")
    return report


def test_results_are_identical_for_one_and_two_workers(tmp_path):
    """Issue 10: each game's deal and agents come from the game's own index (26 games = two chunks per cell)."""
    one, two = _report(tmp_path, 1, "one"), _report(tmp_path, 2, "two")
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert {r["games"] for r in one["matrix"] if r["num_players"] != "all"} == {26}
    assert set(one) >= {"agents", "matrix", "ratings", "nash", "metrics"}


def test_training_evaluation_is_identical_for_one_and_two_workers():
    """Issue 10's reproduction: evaluate_matrix(specs, [3], 40, seed=5, pairs=[("heuristic", "random")])."""
    from training.agents import AgentSpec
    from training.evaluate import evaluate_matrix

    specs = {team: {"heuristic": AgentSpec("heuristic"), "random": AgentSpec("random")} for team in ("pirates", "mutineers")}
    runs = [evaluate_matrix(specs, [3], 40, seed=5, pairs=[("heuristic", "random")], workers=w) for w in (1, 2)]
    assert [(c.games, c.row_wins) for c in runs[0]] == [(c.games, c.row_wins) for c in runs[1]]


def test_dominating_agent_gets_the_higher_rating_and_all_equilibrium_weight():
    """Agent 'strong' wins every game against 'weak' in both teams; self-play is even."""
    games = []
    for index in range(60):
        for n in (3, 5, 8):
            games += [(n, "strong", "weak", True), (n, "weak", "strong", False),
                      (n, "strong", "strong", index % 2 == 0), (n, "weak", "weak", index % 2 == 1)]
    ratings = rate_games(games)
    for team in ("pirates", "mutineers"):
        assert ratings["strong"][team]["mu"] > ratings["weak"][team]["mu"] + 2 * ratings["strong"][team]["sigma"]
    nash = solve_zero_sum([[0.5, 1.0], [0.0, 0.5]], ["strong", "weak"], ["strong", "weak"])
    assert nash["pirates"]["mixture"] == {"strong": 1.0, "weak": 0.0}
    assert nash["mutineers"]["mixture"] == {"strong": 1.0, "weak": 0.0}
    assert nash["pirates"]["unused"] == ["weak"] and nash["mutineers"]["unused"] == ["weak"]
    assert nash["value"] == 0.5


def test_matching_pennies_mixes_and_marks_nobody_unused():
    nash = solve_zero_sum([[1.0, 0.0], [0.0, 1.0]], ["a", "b"], ["c", "d"])
    assert nash["pirates"]["mixture"] == {"a": 0.5, "b": 0.5} and nash["value"] == 0.5
    assert nash["pirates"]["unused"] == [] and nash["mutineers"]["unused"] == []


def test_seed_groups_aggregate_with_a_bootstrap_interval():
    agg = bootstrap_over_seeds([0.4, 0.5, 0.6])
    assert agg["seeds"] == 3 and agg["mean"] == pytest.approx(0.5)
    assert 0.4 <= agg["interval"][0] < 0.5 < agg["interval"][1] <= 0.6
    assert bootstrap_over_seeds([0.3])["interval"] is None


def test_readme_user_agent_example_runs(tmp_path, capsys):
    """The manual's 15-line user agent (examples/plank_pirate.py) benchmarked by the command the manual shows
    (docs/benchmark/index.md, "Benchmark your own agent")."""
    code = eval_main(["--agents", "heuristic", f"plank={ROOT / 'examples' / 'plank_pirate.py'}:make", "--players", "5",
                      "--games", "10", "--out", str(tmp_path / "bench"), "--no-progress"])
    assert code == 0
    report = json.loads((tmp_path / "bench" / "report.json").read_text())
    cell = next(r for r in report["matrix"] if (r["num_players"], r["pirates"], r["mutineers"]) == (5, "plank", "heuristic"))
    assert cell["games"] == 10
    for name in ("report.md", "crossplay.png", "ratings.png", "metrics.png"):
        assert (tmp_path / "bench" / name).is_file()
    readme = (ROOT / "docs" / "benchmark" / "index.md").read_text(encoding="utf-8")
    example = (ROOT / "examples" / "plank_pirate.py").read_text(encoding="utf-8")
    assert example[example.index("import numpy"):] in readme  # the page shows the file that runs here
    assert "plank=examples/plank_pirate.py:make" in readme


def test_population_file_and_seed_groups(tmp_path):
    path = tmp_path / "agents.yaml"
    path.write_text("agents:\n  - random\n  - bots: [heuristic, random]\n")
    population = load_population_file(path)
    assert population.names == ["random", "bots/1", "bots/2"] and population.groups == {"bots": ["bots/1", "bots/2"]}
    report = run_benchmark(population, [3], 4, tmp_path / "out", plots=False, records=1)
    assert report["seed_groups"]["bots"]["seeds"] == 2
    records = sorted((tmp_path / "out" / "records").glob("*.json"))
    assert len(records) == 9  # the first game of each of the 3 x 3 cells, replayable
    assert sum(tally_record(r)["pirates"]["games"] for r in records) == 9
    from traitors_env.evaluation.compare import compare

    assert "bots (out: claims on, 2 seeds)" in compare([report], ["bots"], ["out"])
    assert set(report["seed_groups"]["bots"]["pirates"]["win_rate"]) >= {"mean", "interval", "values"}


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "spec, message",
    [
        ("heuristc", "neither a bot name"),
        ("no_such_module_xyz:make", "cannot be imported"),
        (f"{SELF}:missing", "has no callable 'missing'"),
        (f"{SELF}:returns_nothing", "returned NoneType, which has no act"),
        (f"{SELF}:factory_raises", "the factory raised RuntimeError: no model file"),
        ("missing/file.py:make", "cannot be imported"),
    ],
)
def test_bad_specs_are_refused_before_any_game_naming_the_agent(tmp_path, capsys, spec, message):
    assert eval_main(["--agents", "random", spec, "--players", "3", "--games", "2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert spec in err and message in err
    assert not (tmp_path / "o").exists()


def test_a_bad_limit_is_named_alone(tmp_path, capsys):
    code = eval_main(["--agents", "random", "--players", "3", "--games", "0", "--workers", "2", "--out",
                      str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "--games 0: expected at least 1" in err
    assert "--workers" not in err and "--records" not in err  # the good values are not blamed
    assert not (tmp_path / "o").exists()


def test_checkpoint_of_another_environment_is_refused(tmp_path):
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    path = tmp_path / "cartpole.zip"
    MaskablePPO("MlpPolicy", gymnasium.make("CartPole-v1"), n_steps=16, batch_size=16).save(path)
    with pytest.raises(AgentSpecError, match=r"cartpole\.zip.*observations of shape \(4,\)"):
        agent_maker(str(path))


def test_illegal_action_is_a_failure_naming_the_agent_and_keeps_other_games(tmp_path, capsys):
    code = eval_main(["--agents", "random", f"bad={SELF}:illegal", "--players", "3", "--games", "3",
                      "--out", str(tmp_path / "o"), "--no-plots", "--no-progress"])
    assert code == 1
    assert "bad (pirates)" in capsys.readouterr().err
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert {f["agent"] for f in report["failures"]} == {"bad"}
    assert "action mask forbids" in report["failures"][0]["error"]
    assert next(r for r in report["matrix"] if r["num_players"] == 3 and r["pirates"] == r["mutineers"] == "random")["games"] == 3
    assert "**bad** as the" in (tmp_path / "o" / "report.md").read_text()


def test_agent_failing_mid_run_loses_no_finished_game(tmp_path):
    global _CALLS
    _CALLS = 0
    population = parse_population([f"late={SELF}:crashes_later"])
    report = run_benchmark(population, [3], 20, tmp_path / "o", plots=False)
    cell = report["matrix"][0]
    assert 0 < cell["games"] < 20 and cell["failed"]
    assert "out of memory (simulated)" in report["failures"][0]["error"]
    assert report["metrics"]["late"]["pirates"]["win_rate"]["count"] == cell["games"]


def test_bad_population_entries_are_named(tmp_path):
    with pytest.raises(PopulationError, match="'random' is given twice"):
        parse_population(["random", "random"])
    with pytest.raises(PopulationError, match=r"agent 'q' groups one run more than once \('runs/quick': a path"):
        parse_population(["q=runs/quick, runs/quick"])  # one run is not two training seeds
    (tmp_path / "run").mkdir()
    for spelling in (f"{tmp_path}/run/", f"{tmp_path}/./run"):  # one folder, another spelling
        with pytest.raises(PopulationError, match="more than once"):
            parse_population([f"q={tmp_path}/run,{spelling}"])
    # a run folder and the generation folder it plays (its newest completed one) are one run; an older one is not
    (tmp_path / "run" / "checkpoints" / "gen_001").mkdir(parents=True)
    (tmp_path / "run" / "checkpoints" / "gen_002").mkdir()
    (tmp_path / "run" / "state.json").write_text('{"completed_generations": 2}')
    with pytest.raises(PopulationError, match="more than once"):
        parse_population([f"q={tmp_path}/run,{tmp_path}/run/checkpoints/gen_002"])
    assert parse_population([f"q={tmp_path}/run,{tmp_path}/run/checkpoints/gen_001"]).groups == {"q": ["q/1", "q/2"]}
    (tmp_path / "run" / "league.json").write_text("{}")  # a league's mixture, with its meta-game named
    with pytest.raises(PopulationError, match="more than once"):
        parse_population([f"q={tmp_path}/run/league.json:pooled,{tmp_path}/./run//league.json:pooled"])
    assert len(parse_population([f"q={tmp_path}/run/league.json:pooled,{tmp_path}/run/league.json:per_size"]).specs) == 2
    # an agent's name and a seed group's are one namespace, whichever comes first (--agents, then --agents-file)
    for first, second in ((["q=random"], ["q=random,heuristic"]), (["q=random,heuristic"], ["q=heuristic"])):
        population = parse_population(first)
        with pytest.raises(PopulationError, match="agent name 'q' is given twice"):
            population.extend(parse_population(second))
    with pytest.raises(PopulationError, match="agent name 'q' is given twice"):
        parse_population(["q=random", "q=random,heuristic"])
    path = tmp_path / "a.yaml"
    path.write_text("agents: {random: 1}\n")
    with pytest.raises(PopulationError, match="top-level key 'agents' holding a list"):
        load_population_file(path)
    with pytest.raises(ValueError, match="table sizes in 3–8"):
        run_benchmark(parse_population(["random"]), [9], 2, tmp_path / "x")


def test_reused_out_folder_keeps_no_outputs_of_the_earlier_report(tmp_path):
    """A second report into the same --out: no plot or game record of the first stays beside it; other files stay."""
    out = tmp_path / "bench"
    first = run_benchmark(parse_population(["random", "heuristic"]), [3], games=2, out=out, records=1, plots=True)
    assert (out / "crossplay.png").exists() and len(list((out / "records").glob("*.json"))) == 4
    (out / "notes.txt").write_text("mine")
    second = run_benchmark(parse_population(["random"]), [3], games=2, out=out, records=0, plots=False)
    assert not list(out.glob("*.png")) and not list((out / "records").glob("*.json"))
    assert (out / "notes.txt").read_text() == "mine"
    assert first["settings"]["games"] == second["settings"]["games"] == 2
