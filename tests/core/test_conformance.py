"""One conformance test over every registered game (like ``pgx.api_test`` and OpenSpiel's ``api_test.py``).

A new game passes it by registering: the built-in games come from the registry, and ``toy`` (a game defined only
in ``tests/toy_game.py``) is registered here to prove it. Checked at every table size, claims on and off:
PettingZoo's ``api_test`` (``env()`` and ``raw_env()``) and ``seed_test``; spaces fixed across table sizes and
equal to the ``GameType``; masks never empty while the game runs; random games end with the declared rewards;
the secrets test (the game's ``hidden_variant`` redraws what a seat cannot know; its observation is unchanged, and so
is the prompt of its text view, ``traitors_env.core.text``);
pickle and deepcopy of a mid-game env continue as the original does. A game's declared variants (``Game.variants``:
role sets, options) go through the API test, the random games and the secrets test too, at their table sizes.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest
import toy_game
from pettingzoo.test import api_test, seed_test

from traitors_env.core.registry import register_game, registered_games, unregister_game

GAMES = [*registered_games(), "toy"] if "toy" not in registered_games() else list(registered_games())


@pytest.fixture(scope="module", autouse=True)
def _toy_registered():
    register_game("toy", toy_game.GAME, override=True)
    yield
    unregister_game("toy")


def _game(name):
    from traitors_env.core import load_game

    return load_game(name)


def _sizes(name):
    return _game(name).type.player_counts


def _declared(name):
    return toy_game.GAME if name == "toy" else _game(name)


def _variants(name):
    """``(None, {}, sizes)`` for the game as it is, then ``(variant, kwargs, sizes)`` for each declared variant."""
    game = _declared(name)
    yield None, {}, game.type.player_counts
    for variant, declared in game.variants.items():
        yield variant, dict(declared.kwargs), game.variant_player_counts(variant)


def _cases():
    for name in GAMES:
        for variant, _, sizes in _variants(name):
            for n in sizes:
                for claims in (True, False):
                    label = f"{name}{'-' + variant if variant else ''}-{n}p-claims_{'on' if claims else 'off'}"
                    yield pytest.param(name, variant, n, claims, id=label)


def _variant_kwargs(game, variant):
    return {} if variant is None else dict(game.variants[variant].kwargs)


@pytest.mark.parametrize(("name", "variant", "num_players", "claims"), list(_cases()))
def test_pettingzoo_api_test(name, variant, num_players, claims):
    game = _game(name)
    kwargs = _variant_kwargs(game, variant)
    api_test(game.env(num_players=num_players, claims=claims, **kwargs), num_cycles=200)
    api_test(game.raw_env(num_players=num_players, claims=claims, **kwargs), num_cycles=200)


@pytest.mark.parametrize("name", GAMES)
def test_declared_variants_are_accepted_at_their_sizes(name):
    """Each declared variant's options build an env at every table size it declares (a variant no size accepts
    would leave the tests above without a case)."""
    game = _game(name)
    for variant, kwargs, sizes in list(_variants(name))[1:]:
        assert sizes and set(sizes) <= set(game.type.player_counts), (variant, sizes)
        for n in sizes:
            env = game.raw_env(num_players=n, **kwargs)
            env.reset(seed=0)
            assert env.observation_space(env.possible_agents[0])["observation"].shape == game.type.observation_shape


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed_test(name):
    game = _game(name)
    for n in game.type.player_counts:
        seed_test(lambda n=n: game.env(num_players=n), num_cycles=50)


@pytest.mark.parametrize("name", GAMES)
def test_spaces_are_the_same_at_every_table_size_and_match_the_game_type(name):
    game = _game(name)
    spaces = []
    for n in game.type.player_counts:
        env = game.raw_env(num_players=n)
        agent = env.possible_agents[0]
        assert len(env.possible_agents) == n
        spaces.append((env.observation_space(agent), env.action_space(agent)))
    observation_space, action_space = spaces[0]
    assert observation_space["observation"].shape == game.type.observation_shape
    assert observation_space["action_mask"].shape == (game.type.num_actions,)
    assert action_space.n == game.type.num_actions
    for other in spaces[1:]:
        assert other == spaces[0]


def _random_game(game, n, claims, seed, on_decision=None, **kwargs):
    """Play one random game on the raw env (``kwargs``: a variant's options); returns the env at its end, the number of
    decisions and each agent's return."""
    env = game.raw_env(num_players=n, claims=claims, **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, _ = env.last()
        returns[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.any(), f"{game.type.env_id}: empty action mask for {agent} while the game runs (seed {seed})"
        assert env.observation_space(agent)["observation"].contains(observation["observation"])
        if on_decision is not None:
            on_decision(env, agent, rng)
        env.step(int(rng.choice(np.flatnonzero(mask))))
        decisions += 1
    return env, decisions, returns


@pytest.mark.parametrize("name", GAMES)
def test_random_games_end_with_the_declared_rewards(name):
    game = _game(name)
    for variant, kwargs, sizes in _variants(name):
        for n in sizes:
            for seed in range(8 if variant is None else 4):
                env, decisions, returns = _random_game(game, n, claims=bool(seed % 2), seed=seed, **kwargs)
                state = env.game
                assert state.is_terminal and decisions > 0
                rewards = [returns[a] for a in env.possible_agents]
                sides = [game.side_of_seat(state, s) for s in range(n)]
                assert tuple(sides.count(side) for side in (0, 1)) == game.side_sizes(n)
                for seat in range(n):
                    assert game.seat_won(state, seat) == (rewards[seat] > 0)
                    assert game.side_of_observation(game.encode(state, seat)) == sides[seat]
                assert isinstance(game.end_condition(state), str)
                if game.type.utility == "zero_sum_teams":  # one side wins: +1 for each of its seats, −1 for the others
                    winners = {sides[s] for s in range(n) if rewards[s] > 0}
                    assert len(winners) == 1
                    assert all(rewards[s] == (1 if sides[s] in winners else -1) for s in range(n))


def _check_secrets(game):
    """The secrets test of ``game``: its ``hidden_variant`` for each seat leaves that seat's observation (and its mask,
    when it acts) as they are, and redraws, at least once, something another seat sees (else it redraws nothing and
    the test could not fail)."""
    assert game.hidden_variant is not None, f"{game.type.env_id} declares no hidden_variant (the secrets test needs it)"
    checked = redrawn = 0

    def check(env, agent, rng):
        nonlocal checked, redrawn
        state = env.game
        for seat in range(state.num_players):
            expected = game.encode(state, seat)
            for _ in range(2):
                variant = game.hidden_variant(state, seat, rng)
                np.testing.assert_array_equal(game.encode(variant, seat), expected,
                                              err_msg=f"{game.type.env_id}: seat {seat} sees hidden state")
                if seat == state.current_player:
                    np.testing.assert_array_equal(variant.legal_mask(), state.legal_mask())
                if not redrawn:
                    redrawn += any(not np.array_equal(game.encode(variant, other), game.encode(state, other))
                                   for other in range(state.num_players) if other != seat)
            checked += 1

    for n in game.type.player_counts:
        _random_game(game, n, claims=True, seed=100 + n, on_decision=check)
    for variant, declared in game.variants.items():
        for n in game.variant_player_counts(variant):
            _random_game(game, n, claims=True, seed=200 + n, on_decision=check, **declared.kwargs)
    assert checked > 0
    assert redrawn, f"{game.type.env_id}: hidden_variant redraws nothing any other seat sees (a test without teeth)"


@pytest.mark.parametrize("name", GAMES)
def test_secrets_hidden_state_never_changes_an_observation(name):
    _check_secrets(_game(name))


def _check_text_secrets(game):
    """The secrets test of the text view (issue 29): at every decision, the acting seat's prompt (its options, tool
    and system prompt too) read from the game and from ``hidden_variant`` of it are the same, each view having seen
    the seat's previous decision first (the prompt tells what happened since)."""
    from traitors_env.core.text import TextView

    last: dict[int, tuple] = {}
    checked = 0

    def decide(seat, observation, mask):
        view = TextView(game)
        if seat in last:
            view.decide(*last[seat])
        decision = view.decide(observation, mask)
        return decision.prompt, decision.options, decision.tool, view.system_prompt()

    def check(env, agent, rng):
        nonlocal checked
        state = env.game
        seat = state.current_player
        observation, mask = game.encode(state, seat), state.legal_mask()
        expected = decide(seat, observation, mask)
        for _ in range(2):
            variant = game.hidden_variant(state, seat, rng)
            assert decide(seat, game.encode(variant, seat), variant.legal_mask()) == expected, (
                f"{game.type.env_id}: the prompt of seat {seat} sees hidden state")
        last[seat] = (observation, mask)
        checked += 1

    for n in game.type.player_counts:
        last.clear()
        _random_game(game, n, claims=True, seed=200 + n, on_decision=check)
    assert checked > 0


@pytest.mark.parametrize("name", GAMES)
def test_secrets_hidden_state_never_changes_a_prompt(name):
    _check_text_secrets(_game(name))


def test_the_secrets_test_has_teeth():
    """A planted leak (the toy's observation shows who the Spy is) and a hidden_variant that redraws nothing fail it."""
    def leaky_encode(state, seat):
        observation = toy_game.encode(state, seat)
        observation[2 + toy_game.MAX] += 10 * state.spy
        return observation

    with pytest.raises(AssertionError, match="sees hidden state"):
        _check_secrets(dataclasses.replace(toy_game.GAME, encode=leaky_encode))
    with pytest.raises(AssertionError, match="redraws nothing"):
        _check_secrets(dataclasses.replace(toy_game.GAME, hidden_variant=lambda state, seat, rng: copy.deepcopy(state)))
    with pytest.raises(AssertionError, match="prompt of seat .* sees hidden state"):
        _check_text_secrets(dataclasses.replace(toy_game.GAME, encode=leaky_encode))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_mid_game_env_continues_as_the_original(name, how):
    game = _game(name)
    n = game.type.default_players
    env = game.env(num_players=n)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(5):  # a few decisions in
        observation, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    clone = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)

    def play_out(environment, seed):
        rng = np.random.default_rng(seed)
        trace = []
        for agent in environment.agent_iter(max_iter=100_000):
            observation, reward, termination, truncation, _ = environment.last()
            trace.append((agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(), reward))
            if termination or truncation:
                environment.step(None)
            else:
                environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        return trace

    assert play_out(clone, 11) == play_out(env, 11)


@pytest.mark.parametrize("name", GAMES)
def test_the_commands_play_every_game(name, tmp_path, monkeypatch):
    """``traitors-play`` (a scripted human), ``traitors-eval`` (a few games) and ``traitors-bench`` (a moment) run it."""
    import io
    import json

    from rich.console import Console

    from traitors_env import benchmark
    from traitors_env.evaluation.cli import main as eval_main
    from traitors_env.table.play import main as play_main

    monkeypatch.chdir(tmp_path)
    game = _game(name)
    n = game.type.min_players
    console = Console(file=io.StringIO(), width=120, color_system=None)
    status = play_main(["--game", name, "--players", str(n), "--seed", "3", "--bots", "random"], console=console,
                       stdin=io.StringIO("1\n" * 5000))
    assert status == 0, console.file.getvalue()[-2000:]
    assert "Seed 3." in console.file.getvalue()

    status = eval_main(["--game", name, "--agents", "random", "heuristic", "--players", str(n), "--games", "4",
                        "--out", str(tmp_path / "report"), "--no-plots", "--no-progress"])
    assert status == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert report  # the kit wrote its report

    flag = f"--{name.replace('_', '-')}-players"
    assert benchmark.main(["--quick", "--quiet", "--game", name, flag, str(n), "--no-leduc", "--memory-games", "0",
                           "--json", str(tmp_path / "bench.json")]) == 0
    bench = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))
    assert bench["meta"]["games"] == [game.type.env_id]


@pytest.mark.parametrize("name", GAMES)
def test_progress_and_bot_beliefs_follow_the_protocol(name):
    """Where a game declares them: ``progress`` is in [0, 1] and never goes back during a game; every bot with
    ``beliefs`` gives a float32 vector of ``belief_size`` with NaN at the observer and beyond the table, finite
    probabilities at the other seats, and the hidden side's count at most the seats the rules deal it."""
    from traitors_env.core.agent import agent_beliefs

    game = _game(name)
    believers = {bot: game.make_bot(bot, 0) for bot in game.bot_names}
    believers = {bot: agent for bot, agent in believers.items() if callable(getattr(agent, "beliefs", None))}
    checked = 0
    for n in game.type.player_counts:
        last = [0.0]

        def check(env, agent, rng, n=n, last=last):
            nonlocal checked
            state = env.game
            if game.progress is not None:
                value = game.progress(state)
                assert 0.0 <= value <= 1.0 and value >= last[0], f"{game.type.env_id}: progress {value} after {last[0]}"
                last[0] = value
            seat = env.possible_agents.index(agent)
            for bot, believer in believers.items():
                values = agent_beliefs(believer, game.encode(state, seat), game.belief_size)
                assert values.dtype == np.float32 and values.shape == (game.belief_size,), bot
                assert np.isnan(values[0]) and np.all(np.isnan(values[n:])), f"{bot}: {values}"
                others = values[1:n]
                assert np.all(np.isfinite(others)) and others.min() >= 0 and others.max() <= 1, f"{bot}: {values}"
                assert others.sum() <= game.hidden_count(n) + 1e-5, f"{bot}: {values}"
                checked += 1

        _random_game(game, n, claims=True, seed=7 + n, on_decision=check)
    assert game.hidden_side is not None or not believers, f"{game.type.env_id}: bots with beliefs need hidden_side"
    assert checked > 0 or not believers
