"""The baseline agents of ``traitors_env.agents``: legal play, determinism, the documented strategy, strength."""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import EYP, GR, MC, MINUS, PL, PLUS, SG, ZERO, M, P  # noqa: E402

from traitors_env import agents as bots
from traitors_env import traitors_aboard_v0
from traitors_env.agents import RandomAgent, SideAgent, TeamAgent, make_agent
from traitors_env.core import load_game
from traitors_env.evaluation import evaluate as evaluate_matchup
from traitors_env.evaluation import play_game, wilson_interval
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.bots import HeuristicAgent
from traitors_env.games.traitors_aboard.engine import GameState, Phase
from traitors_env.games.traitors_aboard.observation import BLOCKS, OBS_SIZE, encode

BOT_NAMES = load_game("traitors_aboard").bot_names  # the game's bots: GAME.bots
TABLES = [(n, claims) for n in range(3, 9) for claims in (True, False)]


class CheckedAgent:
    """Wraps an agent and fails the test the moment it returns an action the mask forbids."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.decisions = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = self.agent.act(observation, action_mask)
        assert isinstance(action, int), f"act returned {type(action).__name__}, not int"
        assert action_mask[action] == 1, f"illegal action {action} ({A.describe_action(action)})"
        self.decisions += 1
        return action


def observe(state: GameState) -> tuple[np.ndarray, np.ndarray]:
    """The observation and mask of the player to act in an explicit position."""
    return encode(state, state.current_player), state.legal_mask().copy()


def claimed(state: GameState, claim: int) -> GameState:
    """Let the player to act place its 0 (announced 0) and make ``claim``; the turn passes on (R14)."""
    state.apply_action(A.loot_action(ZERO, ZERO))
    state.apply_action(claim)
    return state


def decide(state: GameState, seed: int = 0) -> int:
    return HeuristicAgent(seed).act(*observe(state))


def position(num_players, roles, hands, chest=(), draw_pile=(PL,) * 10, **kwargs) -> GameState:
    """An explicit position; seats not in ``hands`` hold {+1, 0, −2}."""
    overboard = kwargs.get("overboard", ())
    all_hands = [() if seat in overboard else hands.get(seat, (PLUS, ZERO, MINUS)) for seat in range(num_players)]
    return GameState.from_position(num_players, roles, all_hands, draw_pile, chest=chest, **kwargs)


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("num_players,claims", TABLES)
def test_bots_only_play_legal_actions(num_players, claims):
    """Over many games, with the two bots mixed at random over the seats, every action is legal (R13)."""
    env = traitors_aboard_v0.raw_env(num_players=num_players, claims=claims)  # raw: an illegal action raises
    rng = np.random.default_rng(num_players * 2 + claims)
    checked = []
    for game in range(24):
        if game % 3 == 0:
            agents = [HeuristicAgent(int(rng.integers(1 << 30))) for _ in range(num_players)]
        elif game % 3 == 1:
            agents = [RandomAgent(int(rng.integers(1 << 30))) for _ in range(num_players)]
        else:
            agents = [
                make_agent(str(rng.choice(BOT_NAMES)), int(rng.integers(1 << 30))) for _ in range(num_players)
            ]
        seats = [CheckedAgent(agent) for agent in agents]
        out = play_game(env, seats, seed=1000 * num_players + game)
        assert out["result"]["winner"] in ("Pirate", "Mutineer")
        checked += seats
    assert sum(seat.decisions for seat in checked) > 0


def test_bots_reach_every_decision_phase():
    """The legality test above is only as good as its coverage: the heuristic meets every phase."""
    seen = set()
    agent = HeuristicAgent(0)

    class Recorder:
        def act(self, observation, action_mask):
            seen.add(int(np.argmax(observation[BLOCKS["phase"]])))
            return agent.act(observation, action_mask)

    for seed in range(20):
        play_game({"num_players": 4}, [Recorder()] * 4, seed=seed)
    assert seen == {Phase.MAIN, Phase.SPYGLASS_ORDER, Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2, Phase.CLAIM}


@pytest.mark.parametrize("agent", [RandomAgent(0), HeuristicAgent(0)], ids=["random", "heuristic"])
def test_all_zero_mask_raises(agent):
    observation = np.zeros(OBS_SIZE, dtype=np.float32)
    with pytest.raises(ValueError, match="no action"):
        agent.act(observation, np.zeros(A.NUM_ACTIONS, dtype=np.int8))


def test_heuristic_sees_no_hidden_state():
    """Other hands and the draw pile order differ; the observation, and so the decision, does not."""
    draw = (PL, SG, GR, ZERO, PLUS, PL)
    first = position(
        4, [P, P, M, P], {1: (PLUS, ZERO, MINUS)}, chest=[(MINUS, 2, PLUS), (PLUS, 1, PLUS)], draw_pile=draw
    )
    second = position(
        4, [P, P, M, P], {1: (PL, EYP, MC)}, chest=[(PLUS, 2, PLUS), (PLUS, 1, PLUS)], draw_pile=draw[::-1]
    )
    for seed in range(5):
        assert decide(first, seed) == decide(second, seed)


# ------------------------------------------------------------------ determinism and construction
@pytest.mark.parametrize("name", BOT_NAMES)
def test_same_seed_same_game(name):
    """Agents are deterministic given their seed: the same seeds replay the same game, action for action."""

    def actions(agent_seed):
        log = []
        agents = [make_agent(name, agent_seed + seat) for seat in range(5)]

        class Logger:
            def __init__(self, agent):
                self.agent = agent

            def act(self, observation, action_mask):
                log.append(self.agent.act(observation, action_mask))
                return log[-1]

        out = play_game({"num_players": 5}, [Logger(a) for a in agents], seed=7)
        return log, out

    first, out1 = actions(3)
    second, out2 = actions(3)
    assert first == second and out1 == out2
    if name == "random":
        assert actions(4)[0] != first  # the seed matters


def test_random_agent_accepts_a_generator_and_is_uniform():
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[[3, 50, 190]] = 1
    agent = RandomAgent(np.random.default_rng(0))
    counts = {3: 0, 50: 0, 190: 0}
    for _ in range(3000):
        counts[agent.act(np.zeros(OBS_SIZE, dtype=np.float32), mask)] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_make_agent():
    assert isinstance(make_agent("random", 0), RandomAgent)
    assert isinstance(make_agent("heuristic", 0), HeuristicAgent)
    assert isinstance(make_agent("heuristic"), bots.Agent)
    with pytest.raises(ValueError, match=r"'greedy'.*'random'.*'heuristic'"):
        make_agent("greedy")


def test_play_game_rewards_follow_the_winner():
    """R17: +1 to every seat of the winning team, −1 to the others, overboard seats included."""
    for seed in range(10):
        out = play_game({"num_players": 6}, [HeuristicAgent(seed)] * 6, seed=seed)
        result = out["result"]
        expected = [1.0 if role == result["winner"] else -1.0 for role in result["roles"]]
        assert out["rewards"] == expected


def test_play_game_needs_one_agent_per_seat():
    with pytest.raises(ValueError, match="3 agents for 5 seats"):
        play_game({"num_players": 5}, [RandomAgent(0)] * 3, seed=0)


def test_team_agent_dispatches_on_the_observed_role():
    state = position(3, [P, M, P], {})
    pirate_obs = encode(state, 0)
    mutineer_obs = encode(state, 1)

    class Fixed:
        def __init__(self, action):
            self.action = action

        def act(self, observation, action_mask):
            return self.action

    team = TeamAgent(Fixed(1), Fixed(2))
    mask = np.ones(A.NUM_ACTIONS, dtype=np.int8)
    assert team.act(pirate_obs, mask) == 1 and team.act(mutineer_obs, mask) == 2


def test_side_agent_reads_the_side_of_each_game():
    """SideAgent (TeamAgent's generic name) hands a decision to the agent of game.side_of_observation's side."""
    import pickle

    from traitors_env.games.the_traitors.engine import GameConfig, GameState
    from traitors_env.games.the_traitors.observation import encode as tt_encode

    class Fixed:
        def __init__(self, action):
            self.action = action

        def act(self, observation, action_mask):
            return self.action

    assert TeamAgent is SideAgent
    by_name = TeamAgent(pirate=Fixed(1), mutineer=Fixed(2))  # the README's keywords: a side's key, label or singular
    assert by_name.agents[0].action == 1 and by_name.agents[1].action == 2
    with pytest.raises(ValueError, match="has no side 'captain'"):
        TeamAgent(captain=Fixed(1), mutineer=Fixed(2))
    with pytest.raises(ValueError, match="needs an agent for each side"):
        SideAgent(Fixed(1))
    state = GameState.new(GameConfig(num_players=4), seed=3)
    side = SideAgent(faithful=Fixed(2), traitor=Fixed(1), game="the_traitors_v0")  # sides: Traitor, Faithful
    mask = np.ones(load_game("the_traitors").type.num_actions, dtype=np.int8)
    for seat in range(4):
        assert side.act(tt_encode(state, seat), mask) == (1 if seat == state.traitor else 2)
    again = pickle.loads(pickle.dumps(SideAgent(RandomAgent(0), RandomAgent(1), game="the_traitors")))  # by game name
    assert again.game == "the_traitors" and again.act(tt_encode(state, state.traitor), mask) in range(mask.size)
    assert make_agent("heuristic", 0, game="the_traitors").__class__.__name__ == "TheTraitorsHeuristicAgent"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_agent("random", 0, game="chess")
    assert bots.HeuristicAgent is HeuristicAgent  # the default game's heuristic, under its old name


def test_wilson_interval():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(3, 0)


# ------------------------------------------------------------------ the documented strategy
def test_pirate_places_plus_one_truthfully():
    state = position(5, [P, P, P, P, M], {0: (PLUS, ZERO, MINUS)})
    assert decide(state) == A.loot_action(PLUS, PLUS)


def test_mutineer_places_minus_two_announced_plus_one():
    state = position(5, [M, P, P, P, P], {0: (PLUS, ZERO, MINUS)})
    assert decide(state) == A.loot_action(MINUS, PLUS)


def test_pirate_opens_when_its_own_known_loot_reaches_the_target():
    """R03: the chest holds 5 +1 cards the Pirate placed itself (known), target 5 at 3 players."""
    state = position(3, [P, P, M], {}, chest=[(PLUS, 0, PLUS)] * 5)
    assert decide(state) == A.OPEN_CHEST


def test_pirate_does_not_open_a_chest_it_knows_is_short():
    state = position(3, [P, P, M], {}, chest=[(PLUS, 0, PLUS)] * 4)
    assert decide(state) != A.OPEN_CHEST


def test_pirate_opens_with_one_card_left_in_the_draw_pile():
    """R06: any other move draws the last card and loses; opening is the only chance."""
    state = position(3, [P, P, M], {}, draw_pile=(PL,))
    assert decide(state) == A.OPEN_CHEST


def test_pirate_discounts_announcements_of_a_suspect():
    """Ten +1 announced by seat 2, which accused me (evidence +2): not enough to open at target 5.

    The same ten announced by seat 1, which I do not suspect, are (R03).
    """
    accuse_seat_0 = A.accuse_action(1)  # seat 2 accuses the seat one to its left: seat 0
    hands = dict.fromkeys(range(3), (ZERO, SG, MC))
    suspect = position(3, [P, P, M], hands, chest=[(MINUS, 2, PLUS)] * 10, current_player=2)
    assert decide(claimed(suspect, accuse_seat_0)) != A.OPEN_CHEST
    trusted = position(3, [P, P, M], hands, chest=[(PLUS, 1, PLUS)] * 10, current_player=2)
    assert decide(claimed(trusted, accuse_seat_0)) == A.OPEN_CHEST


def test_pirate_planks_the_seat_that_accused_it():
    state = position(4, [P, P, P, M], {0: (PL, MINUS, MINUS)}, current_player=3)
    assert decide(claimed(state, A.accuse_action(1))) == A.plank_action(3)


def test_pirate_accuses_a_seat_that_vouched_for_a_revealed_mutineer():
    """Seat 5 vouches for seat 3; seat 6 throws seat 3 overboard, a Mutineer (R11); seat 0 then accuses seat 5."""
    state = position(
        7,
        [P, P, P, M, P, M, P],
        {0: (ZERO, ZERO, ZERO), 6: (PL, ZERO, ZERO)},
        planks=[0, 0, 0, 2, 0, 0, 0],
        current_player=5,
    )
    claimed(state, A.vouch_action(5))  # seat 5 + 5 = seat 3
    state.apply_action(A.plank_action(4))  # seat 6 + 4 = seat 3, its third Plank
    state.apply_action(A.CLAIM_NONE)
    assert state.revealed[3] and state.current_player == 0
    state.apply_action(A.loot_action(ZERO, ZERO))
    assert decide(state) == A.accuse_action(5)


def test_mutineer_good_riddance_against_a_nearly_full_chest():
    state = position(3, [M, P, P], {0: (GR, MINUS, PLUS)}, chest=[(PLUS, 1, PLUS)] * 4)
    assert decide(state) == A.GOOD_RIDDANCE
    empty_chest = position(3, [M, P, P], {0: (GR, MINUS, PLUS)})
    assert decide(empty_chest) == A.loot_action(MINUS, PLUS)


def test_spyglass_order_by_role():
    """R07: Pirates put the lowest value on top, Mutineers the highest."""
    for role, top in ((P, MINUS), (M, PLUS)):
        roles = [role, P, M] if role == P else [role, P, P]
        chest = [(PLUS, 1, PLUS), (MINUS, 2, PLUS), (ZERO, 1, ZERO)]
        state = position(3, roles, {0: (SG, ZERO, ZERO)}, chest=chest, seed=1)
        state.apply_action(A.SPYGLASS)
        assert state.phase is Phase.SPYGLASS_ORDER
        state.apply_action(decide(state))
        assert state.chest[-1].kind == top


def test_pirate_accuses_the_liar_its_spyglass_found():
    """Seat 2 announced +1 on all three top cards; the Spyglass shows a −2 among them."""
    state = position(4, [P, P, M, P], {0: (SG, ZERO, ZERO)}, chest=[(PLUS, 2, PLUS), (MINUS, 2, PLUS), (PLUS, 2, PLUS)])
    agent = HeuristicAgent(0)
    while state.phase is not Phase.CLAIM:
        state.apply_action(agent.act(*observe(state)))
    assert agent.act(*observe(state)) == A.accuse_action(2)


def test_catch_returns_the_least_useful_cards():
    state = position(3, [P, P, M], {0: (MC, PLUS, MINUS)}, draw_pile=(ZERO, SG, PL, PL, PL))
    agent = HeuristicAgent(0)
    state.apply_action(A.MIRACULOUS_CATCH)
    returned = []
    while state.phase in (Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2):
        action = agent.act(*observe(state))
        returned.append(action - A.RETURN_BASE)
        state.apply_action(action)
    assert returned == [MINUS, ZERO]


# ------------------------------------------------------------------ strength
def test_heuristic_pirates_beat_random_pirates():
    """Against the same random Mutineers, heuristic Pirates win clearly more often (fixed seeds)."""
    heuristic = evaluate_matchup("heuristic", "random", num_players=5, games=150, seed=11)
    random = evaluate_matchup("random", "random", num_players=5, games=150, seed=11)
    assert heuristic.interval[0] > random.interval[1], (heuristic, random)


# ------------------------------------------------------------------ role beliefs (issue 27, item 2)
def _belief_games(game, sizes, seeds, agent_for_seat):
    """(seat, beliefs, side of every seat) at every decision of seeded heuristic games, each observer's own beliefs."""
    from traitors_env.core.agent import agent_beliefs

    found = []
    for n in sizes:
        env = game.raw_env(num_players=n)
        for seed in seeds:
            agents = [agent_for_seat(s) for s in range(n)]

            def hook(seat, observation, mask, values, state, agent):
                assert agent_beliefs(agent, observation, game.belief_size) is not None
                found.append((seat, values, [game.side_of_seat(state, s) for s in range(state.num_players)]))

            play_game(env, agents, seed, beliefs=hook)
    return found


@pytest.mark.parametrize("n", range(3, 9))
def test_heuristic_beliefs_shape_range_and_count(n):
    """P(Mutineer) per relative seat: float32 (8,), NaN at me and beyond the table, in [0, 1]; a Pirate's sum over
    the others is the Mutineers of the rulebook's setup table (revealed ones count 1), a Mutineer's one fewer."""
    game = load_game("traitors_aboard")
    mutineers = {3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2}[n]  # rulebook "Setup"
    found = _belief_games(game, [n], range(2), lambda s: HeuristicAgent(s))
    assert found
    for seat, values, sides in found:
        assert values.dtype == np.float32 and values.shape == (8,)
        assert np.isnan(values[0]) and np.all(np.isnan(values[n:]))
        others = values[1:n]
        assert np.all(np.isfinite(others)) and others.min() >= 0.0 and others.max() <= 1.0
        expected = mutineers - (sides[seat] == 1)
        assert others.sum() == pytest.approx(expected, abs=1e-5)


def test_heuristic_beliefs_follow_its_suspicion():
    """A Pirate's beliefs rank the seats as its suspicion q does (the q it Planks on), and equal q where no seat is
    capped at 1."""
    from traitors_env.games.traitors_aboard.bots import _Table

    agent = HeuristicAgent(0)
    checked = 0
    for seed in range(3):
        env = traitors_aboard_v0.raw_env(num_players=5)
        env.reset(seed=seed)
        for _name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            obs = observation["observation"]
            if obs[BLOCKS["role"]][0] > 0.5:
                t = _Table(obs, with_chest=True)
                _, q = agent._suspicion(t)
                b = agent.beliefs(obs)
                if max(q[1:]) < 1.0:
                    assert b[1 : t.n] == pytest.approx(q[1 : t.n], abs=1e-6)
                    checked += 1
            env.step(agent.act(obs, observation["action_mask"]))
    assert checked > 50


@pytest.mark.parametrize("n", [3, 5, 8])
def test_asking_for_beliefs_changes_no_game(n):
    """The kit asks every heuristic for beliefs before it acts: the same seeds must give the same games."""
    game = load_game("traitors_aboard")
    env = game.raw_env(num_players=n)
    for seed in range(3):
        plain = play_game(env, [HeuristicAgent(seed * 10 + s) for s in range(n)], seed)
        history = list(env.unwrapped.game.history)
        asked = play_game(env, [HeuristicAgent(seed * 10 + s) for s in range(n)], seed,
                          beliefs=lambda *args: None)
        assert list(env.unwrapped.game.history) == history and asked["rewards"] == plain["rewards"]
