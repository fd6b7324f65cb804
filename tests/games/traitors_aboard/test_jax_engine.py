"""The JAX twin (``traitors_env.games.traitors_aboard.jax``) against the reference engine and encoder.

The core is differential: random games played in JAX (``jit`` + ``vmap`` + ``lax.scan``, every
table size, claims on and off) are replayed in the reference engine from the same deal with the
same Spyglass shuffles (R07), comparing at every decision the current player, the legal mask, the
observation of every seat, rewards and termination, and at the end the revealed result and where
every card lies (``jax_replay.replay_game``). Explicit positions (hand-built Spyglass groups, R07,
R08) are converted to JAX and played in lockstep. The secrets tests run against the JAX observation.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402
import jax_replay as R  # noqa: E402
from game_helpers import (  # noqa: E402
    GR,
    MINUS,
    PL,
    PLUS,
    SG,
    TABLE_SIZES,
    ZERO,
    explicit_positions,
    hidden_variant,
    position,
    random_states,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402

from traitors_env.games.traitors_aboard import actions as A  # noqa: E402
from traitors_env.games.traitors_aboard.cards import EndCondition  # noqa: E402
from traitors_env.games.traitors_aboard.jax import State, TraitorsAboard, init, observe, step  # noqa: E402
from traitors_env.games.traitors_aboard.jax import engine as E  # noqa: E402
from traitors_env.games.traitors_aboard.observation import OBS_SIZE, encode  # noqa: E402


def _batch_layout(games_per_setting: int):
    """Every table size × claims on/off × (open with 5 % / never open), ``games_per_setting`` each."""
    settings_ = [(n, claims, p) for n in TABLE_SIZES for claims in (True, False) for p in (0.05, 0.0)]
    rows = [s for s in settings_ for _ in range(games_per_setting)]
    n, claims, open_prob = (np.array(column) for column in zip(*rows))
    return n, claims, open_prob


def _play_and_replay(seed: int, games_per_setting: int) -> dict:
    n, claims, open_prob = _batch_layout(games_per_setting)
    batch = R.play_batch(seed, n, claims, open_prob)
    for b in range(len(n)):
        R.replay_game(batch, b)
    return batch


def _coverage(batch: dict) -> dict[str, int]:
    """How often the rare rules came up in a batch (so that the comparison met them)."""
    games, final, actions = batch["games"], batch["final"], batch["actions"]
    in_chest = np.arange(games.chest_bottom.shape[-1]) < games.chest_size[..., None]
    bottoms = games.chest_bottom & in_chest
    ends = final.end_condition
    last = actions[np.arange(len(actions)), batch["lengths"] - 1]
    return {
        **{f"end {c.name}": int(np.sum(ends == c)) for c in EndCondition},
        "Spyglass of 2": int(np.sum((games.phase == E.SPYGLASS_ORDER) & (games.spyglass_taken == 2))),
        "Spyglass of 3": int(np.sum((games.phase == E.SPYGLASS_ORDER) & (games.spyglass_taken == 3))),
        "two groups in the chest": int(np.sum(bottoms.sum(-1) >= 2)),
        "a group the public lost track of": int(np.sum(bottoms & ~games.group_known)),
        "pile emptied by Empty Your Pockets": int(
            np.sum((ends == EndCondition.DRAW_PILE_EMPTY) & (last > A.EYP_BASE) & (last < A.GOOD_RIDDANCE))
        ),
        "pile emptied by Miraculous Catch": int(
            np.sum((ends == EndCondition.DRAW_PILE_EMPTY) & (last == A.MIRACULOUS_CATCH))
        ),
        "chest-top claims": int(np.sum(actions >= A.CLAIM_CHEST_BASE)),
        "Catch returns": int(np.sum(games.phase == E.CATCH_RETURN_2)),
    }


# ---------------------------------------------------------------------- differential: random games
DEFAULT_SEED = 12


@pytest.fixture(scope="module")
def batch():
    """1,536 random JAX games: every table size × claims on/off × (open 5 % / never), 64 each."""
    n, claims, open_prob = _batch_layout(64)
    return R.play_batch(DEFAULT_SEED, n, claims, open_prob)


def test_random_games_replay_equal_in_reference_engine(batch):
    """R01–R17: every decision of 1,536 JAX games replayed and compared in the reference engine."""
    for b in range(len(batch["lengths"])):
        R.replay_game(batch, b)
    coverage = _coverage(batch)
    assert all(count > 0 for count in coverage.values()), coverage


def _group_sizes(scrambled, bottom, in_chest):
    """Per chest row (…, C): on a group's lowest row, the number of cards in the group (a run of scrambled
    rows ending there, R07); 0 elsewhere."""
    sizes = np.zeros(bottom.shape, np.int64)
    run = np.zeros(bottom.shape[:-1], np.int64)
    for row in range(bottom.shape[-1]):
        run = np.where(scrambled[..., row] & in_chest[..., row], run + 1, 0)
        sizes[..., row] = np.where(bottom[..., row] & in_chest[..., row], run, 0)
        run = np.where(bottom[..., row], 0, run)
    return sizes


def test_group_counts_are_the_announcements_of_the_group_and_fit_their_bits(batch):
    """R07: a group the public follows counts one announcement per card in it; with 3 Spyglass cards in the
    deck (rulebook "Contents") the chest holds at most 9 scrambled cards, so a count, even summed over the
    groups, stays below 16 (the 4-bit fields of ``state.CHEST_FIELDS``, added whole)."""
    games = batch["games"]
    scrambled, bottom, known = (np.asarray(x) for x in (games.chest_scrambled, games.chest_bottom, games.group_known))
    in_chest = np.arange(bottom.shape[-1]) < games.chest_size[..., None]
    sizes = _group_sizes(scrambled, bottom, in_chest)
    counts = np.asarray(games.group_counts).astype(np.int64)
    followed = bottom & known & in_chest
    np.testing.assert_array_equal(np.where(followed, counts.sum(-1), 0), np.where(followed, sizes, 0))
    lost = bottom & ~known & in_chest  # other rows' counts are never read
    assert not np.any(counts[lost]), "counts kept for a group the public lost track of"
    assert int(sizes.max()) >= 5, "no group merged by a second Spyglass: the check above was idle"
    scrambled = (scrambled & in_chest).sum(-1)
    assert int(scrambled.max()) <= 9 and int(counts.sum(-2).max()) <= 9, (scrambled.max(), counts.sum(-2).max())


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_random_games_replay_equal_in_reference_engine_slow(seed):
    """6,144 more games (4 × 1,536 across table sizes, claims on/off); bounded so CI stays well under its limit."""
    _play_and_replay(seed=1000 + seed, games_per_setting=64)


# ---------------------------------------------------------------------- explicit positions (lockstep)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(explicit_positions())
def test_explicit_positions_play_equal_in_lockstep(state):
    R.play_lockstep(state, seed=state.num_players)


def _play_script(state, script, seed=0):
    """Play ``script`` in both engines from ``state``; ``"first"`` is the first legal action (a loot
    placement in the main phase, the identity order after a Spyglass). Compares every decision."""
    game = R.game_from_reference(state)
    key = jax.random.PRNGKey(seed)
    R.assert_same_decision(game, state, "start")
    for t, action in enumerate(script):
        if action == "first":
            legal = state.legal_actions()
            action = next((a for a in legal if A.LOOT_BASE <= a < A.PLANK_BASE + 1), legal[0])
        key, sub = jax.random.split(key)
        after = R._step_one(game, action, sub)
        if action == A.SPYGLASS and int(after.phase) == E.SPYGLASS_ORDER:
            rows = np.asarray(after.spyglass_seen)[: int(after.spyglass_taken)]
            state.spyglass_shuffle = lambda taken, rows=rows: [taken - 1 - int(r) for r in rows]
        state.apply_action(action)
        game = after
        R.assert_same_decision(game, state, f"decision {t} ({A.describe_action(action)})")
    return game, state


@pytest.mark.parametrize("announced", ["mixed", "uniform"])
@pytest.mark.parametrize("seed", range(3))
def test_r07_r08_spyglass_groups_cut_and_lost_match_reference(announced, seed):
    """R07: a Spyglass cuts a group in part (a mixed group's rest joins the new group; a uniform one
    keeps its rest); R08: Good Riddance cuts a group (a mixed one's multiset is then lost to the
    public); a Spyglass on what is left. Every decision compared, every seat's observation."""
    values = (0, 1, 2, 0, 1, 2) if announced == "mixed" else (0,) * 6
    chest = [(PLUS if v == 0 else ZERO if v == 1 else MINUS, v % 3, v) for v in values]
    state = position(
        4,
        hands={0: (SG, SG, PLUS), 1: (PLUS, ZERO, GR), 2: (SG, PLUS, MINUS), 3: (GR, GR, ZERO)},
        chest=chest,
        draw_pile=(PLUS, ZERO, MINUS, PL) * 4,
        seed=seed,
    )
    script = [
        *(A.SPYGLASS, "first", A.CLAIM_NONE),  # seat 0: a group of the top 3
        *("first", A.CLAIM_NONE),  # seat 1: loot on top of it
        *(A.SPYGLASS, "first", A.chest_claim_action((0, 0, 2))),  # seat 2: the loot and 2 of the group: a cut
        *(A.GOOD_RIDDANCE, A.CLAIM_NONE),  # seat 3: 2 of the new group: cut again
        *(A.SPYGLASS, "first", A.CLAIM_NONE),  # seat 0: what is left
    ]
    _play_script(state, script, seed)


def test_r07_three_spyglasses_grow_one_followed_group_to_seven_cards():
    """R07: each Spyglass takes 2 new loot cards and cuts the mixed group below, whose rest joins: 3, 5, then 7
    cards, announced +1 six times (the largest count a game reaches; ``state.CHEST_FIELDS`` gives each 4 bits).
    Every decision compared with the reference, every seat's observation (the public multiset included)."""
    state = position(
        4,
        hands={0: (SG, PLUS, PLUS), 1: (PLUS, PLUS, ZERO), 2: (SG, PLUS, PLUS), 3: (SG, PLUS, ZERO)},
        chest=[(PLUS if v == 0 else ZERO, 1, v) for v in (0, 1, 0, 0, 1, 0)],  # the top 3: +1, 0, +1 either way
        draw_pile=(PL,) * 8,
    )
    loot = ("first", A.CLAIM_NONE)  # a +1 announced +1
    spyglass = (A.SPYGLASS, "first", A.CLAIM_NONE)
    game, _ = _play_script(state, [*spyglass, *loot, *loot, *spyglass, *loot, *loot, *spyglass])
    bottom = np.flatnonzero(np.asarray(game.chest_bottom))
    assert bottom.tolist() == [6] and bool(game.group_known[6]), bottom
    assert np.asarray(game.group_counts[6]).tolist() == [6, 1, 0]


def test_r09_r06_catch_returns_and_a_short_pile_match_reference():
    """R09: returned cards lie on the pile known to their player; R06: Empty Your Pockets ends the
    game the moment the pile is empty."""
    from game_helpers import EYP, MC

    state = position(3, hands={0: (MC, PLUS, ZERO), 1: (EYP, PLUS, MINUS)}, draw_pile=(PL, GR, SG, PLUS, ZERO))
    _play_script(state, [A.MIRACULOUS_CATCH, A.return_action(PL), A.return_action(GR), A.CLAIM_NONE])
    game, state = _play_script(
        position(3, hands={1: (EYP, PLUS, MINUS)}, draw_pile=(PL, GR, SG), current_player=1),
        [A.empty_your_pockets_action(1)],
    )
    assert state.is_terminal and state.end_condition == EndCondition.DRAW_PILE_EMPTY


# ---------------------------------------------------------------------- secrets
@pytest.mark.parametrize("claims", [True, False])
def test_jax_observation_ignores_hidden_state(claims):
    """The JAX observation of a seat is the same for every position that seat cannot tell apart."""
    rng = np.random.default_rng(7)
    observe_seats = R._observe_seats
    for n in TABLE_SIZES:
        states = random_states(n, claims, seed=40 + n, open_prob=0.0)
        for state in states[:: max(1, len(states) // 6)]:
            seats = jnp.arange(n)
            views = np.asarray(observe_seats(R.game_from_reference(state), seats))
            for seat in range(n):
                variant = hidden_variant(state, seat, rng)
                other = np.asarray(observe_seats(R.game_from_reference(variant), seats))
                np.testing.assert_array_equal(other[seat], views[seat], err_msg=f"seat {seat} sees hidden state")


def _seat0(state):
    return np.asarray(R._observe_seats(R.game_from_reference(state), jnp.arange(state.num_players)))[0]


def test_jax_observation_changes_with_what_the_seat_knows():
    """Control for the secrets test: the observer's own hand and a chest card it placed do show."""
    state = position(3, chest=[(PLUS, 0, 1)])
    base = _seat0(state)
    changed = position(3, chest=[(MINUS, 0, 1)])  # seat 0 placed it: it knows the true value
    assert not np.array_equal(_seat0(changed), base)
    other = position(3, hands={0: (PLUS, PLUS, MINUS)}, chest=[(PLUS, 0, 1)])
    assert not np.array_equal(_seat0(other), base)
    # ... while a card another seat placed does not show its value to seat 0
    hidden_a = position(3, chest=[(PLUS, 1, 1)])
    hidden_b = position(3, chest=[(MINUS, 1, 1)])
    np.testing.assert_array_equal(
        _seat0(hidden_a),
        _seat0(hidden_b),
    )


def observe_game(game, seat):
    from traitors_env.games.traitors_aboard.jax.observation import observe as observe_bare

    return observe_bare(game, seat)


# ---------------------------------------------------------------------- jit, vmap, scan, keys
def test_same_key_same_game_and_other_key_other_game(batch):
    """The same key gives the same game (jit + vmap + lax.scan over whole games); another key another game."""
    n, claims, open_prob = _batch_layout(64)
    again = R.play_batch(DEFAULT_SEED, n, claims, open_prob)
    other = R.play_batch(DEFAULT_SEED + 1, n, claims, open_prob)
    np.testing.assert_array_equal(batch["actions"], again["actions"])
    for a, b in zip(jax.tree_util.tree_leaves(batch["final"]), jax.tree_util.tree_leaves(again["final"])):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(batch["actions"], other["actions"])


def test_init_deals_by_the_setup_table():
    """Rulebook "Setup": team sizes, 3 cards each, the deck of the table size; R01 first seat aboard."""
    from traitors_env.games.traitors_aboard.cards import SETUP_TABLE

    keys = jax.random.split(jax.random.PRNGKey(0), 60)
    n = np.arange(60) % 6 + 3
    games = jax.device_get(jax.jit(jax.vmap(E.init))(keys, jnp.asarray(n)))
    for b in range(60):
        setup = SETUP_TABLE[int(n[b])]
        roles = games.roles[b, : n[b]]
        assert int(roles.sum()) == setup.mutineers and not games.roles[b, n[b] :].any()
        assert (games.hands[b, : n[b]].sum(1) == 3).all() and not games.hands[b, n[b] :].any()
        deck = games.hands[b].sum(0) + np.bincount(games.draw[b, : games.draw_size[b]], minlength=8)
        assert tuple(deck) == setup.deck_counts()
        assert 0 <= games.current_player[b] < n[b]
    assert len({tuple(r) for r in games.roles[:, :5]}) > 5  # roles are shuffled


def test_init_rejects_a_bad_table_size():
    with pytest.raises(ValueError, match="num_players=9"):
        E.init(jax.random.PRNGKey(0), 9)
    with pytest.raises(ValueError, match="num_players=2"):
        TraitorsAboard(num_players=2)
    # review finding: 5.0 said "'float' object is not iterable", "35" complained about "3"
    for bad in (5.0, "35", (3, 4.0)):
        with pytest.raises(ValueError, match=r"num_players=.*(expected an int 3–8|an int\))"):
            TraitorsAboard(num_players=bad)
    assert TraitorsAboard(num_players=np.array([3, 5])).table_sizes == (3, 5)
    assert TraitorsAboard(num_players=range(7, 9)).table_sizes == (7, 8)


@pytest.mark.parametrize("claims", ["no", "false", 0, 1, 1.0, None])
def test_init_rejects_claims_that_are_not_a_bool(claims):
    """Review finding: ``init(key, 5, claims="no")`` (and ``TraitorsAboard(claims="no")``) dealt games with claims
    on; ``raw_env(claims="no")`` raises. A bool, or a bool array (one per game, or traced), is accepted."""
    with pytest.raises(ValueError, match=f"claims={claims!r}"):
        E.init(jax.random.PRNGKey(0), 5, claims)
    with pytest.raises(ValueError, match=f"claims={claims!r}"):
        init(jax.random.PRNGKey(0), 5, claims)
    with pytest.raises(ValueError, match=f"claims={claims!r}"):
        TraitorsAboard(num_players=5, claims=claims)
    assert not bool(E.init(jax.random.PRNGKey(0), 5, np.bool_(False)).claims)
    assert not bool(E.init(jax.random.PRNGKey(0), 5, jnp.asarray(False)).claims)


@pytest.mark.parametrize("first_player", [5, 9, -2, 1.0])
def test_init_rejects_a_first_player_that_is_no_seat(first_player):
    """Review finding: ``init(key, 5, first_player=9)`` dealt a game whose acting seat had no legal action (R01)."""
    with pytest.raises(ValueError, match=f"first_player={first_player!r}"):
        E.init(jax.random.PRNGKey(0), 5, True, first_player)
    assert int(E.init(jax.random.PRNGKey(0), 5, True, 4).current_player) == 4


@pytest.mark.parametrize(
    ("player", "error"),
    [
        (5, ValueError),
        (100, ValueError),
        (-1, ValueError),
        (2**70, ValueError),
        (1.0, TypeError),
        (True, TypeError),
        (np.array([2]), ValueError),  # review finding: shape (1,) gave a (1, 1228) observation of one game
        (np.array([1, 2]), ValueError),  # and (2,) a broadcast error
    ],
)
def test_observe_refuses_a_seat_that_is_not_at_the_table(player, error):
    """Review finding: ``observe(state, 100)`` returned an observation for a seat that does not exist; the Python
    env raises for an agent that is not at the table. An int too big for int64 is out of range too (it was a
    ``TypeError``); a bool or a float is not a seat index. Under ``jit`` the seat is traced and not checked."""
    state = init(jax.random.PRNGKey(0), 5)
    with pytest.raises(error, match=re.escape(f"player={player!r}")):
        observe(state, player)
    assert observe(state, 4).shape == (OBS_SIZE,)
    jax.jit(observe)(state, 4)  # traced: not checked, still compiles


# ---------------------------------------------------------------------- the pgx environment
def test_pgx_env_mixed_sizes_rewards_and_finished_games():
    env = TraitorsAboard()
    assert env.num_players == 8 and env.id == "traitors_aboard" and env.num_actions == A.NUM_ACTIONS
    keys = jax.random.split(jax.random.PRNGKey(1), 64)
    states = jax.jit(jax.vmap(env.init))(keys)
    assert isinstance(states, State)
    assert set(np.asarray(states.num_players).tolist()) == set(TABLE_SIZES)
    assert states.observation.shape == (64, OBS_SIZE)
    env_step = jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(2)
    finished_rewards = []
    for _ in range(R.MAX_DECISIONS):
        key, k_act, k_step = jax.random.split(key, 3)
        masks = states.legal_action_mask
        actions = jax.vmap(lambda k, m: jax.random.categorical(k, jnp.where(m, 0.0, -jnp.inf)))(
            jax.random.split(k_act, 64), masks
        )
        was_done = np.asarray(states.terminated)
        states = env_step(states, actions, jax.random.split(k_step, 64))
        rewards = np.asarray(states.rewards)
        assert not rewards[was_done].any()  # pgx: a finished game gives zero rewards
        finished_rewards += [rewards[b] for b in np.flatnonzero(np.asarray(states.terminated) & ~was_done)]
        if bool(states.terminated.all()):
            break
    assert bool(states.terminated.all()) and len(finished_rewards) == 64
    for rewards in finished_rewards:
        assert set(np.abs(rewards[rewards != 0])) == {1.0}  # R17: ±1 to the seats of the table
    # The acting player's observation is observe(state, current_player).
    state = init(jax.random.PRNGKey(5), 6)
    np.testing.assert_array_equal(state.observation, observe(state, state.current_player))


def test_pgx_env_illegal_action_ends_the_game_with_minus_one_for_its_player():
    state = init(jax.random.PRNGKey(0), 5)
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    after = step(state, illegal, jax.random.PRNGKey(1))
    assert bool(after.terminated)
    expected = np.zeros(8, np.float32)
    expected[int(state.current_player)] = -1.0
    np.testing.assert_array_equal(after.rewards, expected)
    assert bool(after.legal_action_mask.all())  # pgx: a finished game's mask is all ones
    again = step(after, 0, jax.random.PRNGKey(2))  # pgx: stepping a finished game changes nothing
    assert bool(again.terminated) and not np.asarray(again.rewards).any()
    for a, b in zip(jax.tree_util.tree_leaves(after._game), jax.tree_util.tree_leaves(again._game)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("action", [0.9, True, np.float32(1.0), jnp.asarray([0.0]), None, "0", b"0"])
def test_float_bool_or_none_actions_are_refused_like_raw_env_refuses_them(action):
    # int32 would silently turn 0.9 into action 0 (open the chest) and True into 1; raw_env refuses both. A string
    # (review finding) said "data type '' not understood".
    state = init(jax.random.PRNGKey(0), 5)
    with pytest.raises(TypeError, match="not an index: action indices are"):
        step(state, action, jax.random.PRNGKey(1))
    with pytest.raises(TypeError, match="not an index: action indices are"):
        E.step(state._game, action, jax.random.PRNGKey(1))
    assert int(step(state, np.int64(0), jax.random.PRNGKey(1)).current_player) >= 0  # numpy ints are indices


def test_observe_matches_raw_env_at_the_start():
    """The same vector as ``observation.encode`` for every seat, straight after the deal."""
    game = E.init(jax.random.PRNGKey(9), 7)
    state = R.reference_start(jax.device_get(game))
    for seat in range(7):
        np.testing.assert_array_equal(np.asarray(observe_game(game, seat)), encode(state, seat))


def test_claims_off_skips_the_claim_step(batch):
    """R14 configurable: with claims off no decision is ever a claim; with claims on every turn has one."""
    claims = np.asarray(batch["final"].claims)
    phases = batch["games"].phase
    assert not (phases[~claims] == E.CLAIM).any()
    assert (phases[claims] == E.CLAIM).any()


@pytest.mark.slow
def test_bench_jax_json_has_every_figure(tmp_path, capsys):
    """``traitors-bench --jax`` writes the JAX figures under ``jax`` (a smoke test: tiny batch, short runs)."""
    import json

    from traitors_env import benchmark

    path = tmp_path / "bench.json"
    argv = ["--quick", "--jax", "--jax-batches", "2", "--no-leduc", "--no-the-traitors", "--players", "5", "--quiet"]
    assert benchmark.main([*argv, "--json", str(path)]) == 0
    figures = json.loads(path.read_text())["jax"]
    for key in ("engine_decisions_per_s", "env_decisions_per_s", "compile_s"):
        assert figures["batches"]["2"][key] > 0
    assert figures["memory"]["game_bytes"] > 0 and figures["raw_env_decisions_per_s"] > 0
    assert "JAX engine" in capsys.readouterr().out


def test_bench_jax_report_says_when_a_persistent_compilation_cache_is_on():
    """A warm JAX compilation cache shrinks ``compile_s``: the report says that one was in use, and where."""
    from traitors_env.benchmark_jax import format_jax_report

    figures = dict.fromkeys(
        ("engine_decisions_per_s", "engine_decisions_per_s_min", "engine_decisions_per_s_max", "env_decisions_per_s",
         "env_decisions_per_s_min", "env_decisions_per_s_max", "engine_decisions_per_cpu_s",
         "env_decisions_per_cpu_s", "compile_s", "engine_compile_s", "env_compile_s", "engine_compile_cpu_s",
         "env_compile_cpu_s"),
        1.0,
    )
    meta = {"jax": "x", "backend": "cpu", "cpu_count": 2, "repeats": 1, "seconds": 1.0, "load_average_before": None}
    result = {"meta": meta, "batches": {"4": figures}, "memory": {"game_bytes": 1, "state_bytes": 2}}
    assert "compilation cache" not in format_jax_report({**result, "meta": {**meta, "compilation_cache_dir": None}}, 1.0)
    warm = format_jax_report({**result, "meta": {**meta, "compilation_cache_dir": "/tmp/jax-cache"}}, 1.0)
    assert "Persistent compilation cache on (/tmp/jax-cache)" in warm
