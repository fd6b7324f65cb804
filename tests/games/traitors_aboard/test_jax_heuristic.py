"""The heuristic agent as a JAX function against the Python ``HeuristicAgent`` (issue 12, item 3).

At every decision a heuristic seat makes in many Python games (every table size, claims on and off,
heuristic and random agents at the seats), the JAX agent, given the same observation, mask and
memory, must give the same distribution over actions as the Python agent. The Python agent's
distribution is found by enumerating its random draws (ties between seats, the Mutineer's coin, the
uniform fallback), each path replayed through its own code.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from game_helpers import MC, MINUS, PL, PLUS, SG, ZERO, M, P, position  # noqa: E402

from traitors_env.agents import HeuristicAgent, RandomAgent  # noqa: E402
from traitors_env.games.traitors_aboard import actions as A  # noqa: E402
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase  # noqa: E402
from traitors_env.games.traitors_aboard.jax import heuristic as jh  # noqa: E402
from traitors_env.games.traitors_aboard.observation import encode  # noqa: E402

TABLES = [(n, claims) for n in range(3, 9) for claims in (True, False)]
BATCH = 2048  # the JAX side runs in batches of this size (one compilation)


# ------------------------------------------------------------------ the Python agent's distribution
class _Path:
    """Replays a sequence of draws (index into each draw's options) and records how many options each had."""

    def __init__(self, path: list[int]) -> None:
        self.path, self.sizes, self.fuzzy = path, [], False

    def choose(self, options: int) -> int:
        i = len(self.sizes)
        self.sizes.append(options)
        if i == len(self.path):
            self.path.append(0)
        return self.path[i]

    # ``random.Random``'s two methods the agent calls outside ``_pick``: the coin flip and the fallback.
    def random(self) -> float:
        return (0.25, 0.75)[self.choose(2)]

    def randrange(self, stop: int) -> int:
        return self.choose(stop)


class _Enumerated(HeuristicAgent):
    """The Python agent with its draws taken from a :class:`_Path`.

    ``_pick`` adds ``1e-6 * uniform`` to each key and takes the highest: exactly tied seats are
    equally likely and a gap of 1e-6 or more is decided. A gap below that (``fuzzy``) has no such
    simple distribution; such decisions are counted, not compared.
    """

    def __init__(self, path: _Path, memory) -> None:
        self._rng = path  # no super().__init__: its seeding is not needed
        self._spyglass_memory = memory

    def _pick(self, seats, key):
        seats = list(seats)
        if not seats:
            return None
        best = max(key[s] for s in seats)
        gaps = [best - key[s] for s in seats]
        tied = [s for s, gap in zip(seats, gaps) if gap <= 1e-12 * max(1.0, abs(best))]
        if any(1e-12 * max(1.0, abs(best)) < gap < 1e-6 for gap in gaps):
            self._rng.fuzzy = True
        return tied[self._rng.choose(len(tied))]


def python_distribution(observation, mask, memory) -> tuple[dict[int, float], set, bool]:
    """The Python agent's (probability per action, memories it may leave, fuzzy tie met) from ``memory``."""
    probabilities: dict[int, float] = defaultdict(float)
    memories, fuzzy = set(), False
    path: list[int] = []
    while True:
        draws = _Path(path)
        agent = _Enumerated(draws, memory)
        action = agent.act(observation, mask)
        probabilities[action] += math.prod(1.0 / size for size in draws.sizes)
        memories.add(agent._spyglass_memory)
        fuzzy |= draws.fuzzy
        path = draws.path[: len(draws.sizes)]
        while path and path[-1] + 1 == draws.sizes[len(path) - 1]:
            path.pop()
        if not path:
            return dict(probabilities), memories, fuzzy
        path[-1] += 1


def jax_memory(memory) -> dict[str, np.ndarray]:
    """The Python agent's ``_spyglass_memory`` as the fields of :class:`jh.Memory`."""
    empty = {name: np.asarray(value) for name, value in jh.init_memory()._asdict().items()}
    if memory is None:
        return empty
    draw, chest_size, cards = memory
    fields = dict(empty, valid=np.bool_(True), draw=np.float32(draw), chest_size=np.float32(chest_size))
    fields["cards"] = np.int32(len(cards))
    for name in ("announced", "placer", "known"):
        fields[name] = np.array([getattr(c, name) for c in cards] + [-1] * (3 - len(cards)), dtype=np.int32)
    return fields


# ------------------------------------------------------------------ games
def record_games(num_players: int, claims: bool, games: int, seed: int) -> list[dict]:
    """Every decision of a heuristic seat in ``games`` games: observation, mask, memories, Python distribution.

    Seats are heuristic agents (each its own), heuristic seats sharing one agent (so one memory), or
    random agents. Each decision is also asked again with part of its mask taken away (the agent's
    own choices, or a random half of the legal actions), which reaches its later choices and its
    uniform fallback; the game goes on with the real decision.
    """
    rng = np.random.default_rng(seed)
    decisions = []
    for _ in range(games):
        shared = HeuristicAgent(int(rng.integers(1 << 30)))
        agents = []
        for kind in rng.choice(3, size=num_players, p=(0.5, 0.25, 0.25)):
            agent_seed = int(rng.integers(1 << 30))
            agents.append((HeuristicAgent(agent_seed), shared, RandomAgent(agent_seed))[kind])
        state = GameState.new(GameConfig(num_players, claims), seed=int(rng.integers(1 << 30)))
        while not state.is_terminal:
            agent = agents[state.current_player]
            observation, mask = encode(state, state.current_player), state.legal_mask().copy()
            if isinstance(agent, HeuristicAgent):
                before = agent._spyglass_memory
                probabilities, memories, fuzzy = python_distribution(observation, mask, before)
                chosen = np.zeros_like(mask)
                chosen[list(probabilities)] = 1
                halved = mask * (rng.random(mask.shape) < 0.5).astype(mask.dtype)
                for variant in (mask * (1 - chosen), halved):
                    if variant.any():
                        p, m, f = python_distribution(observation, variant, before)
                        decisions.append(_decision(observation, variant, before, m, p, f, restricted=True))
                action = agent.act(observation, mask)
                assert action in probabilities, "the enumeration misses the agent's own choice"
                assert memories == {agent._spyglass_memory}
                decisions.append(_decision(observation, mask, before, memories, probabilities, fuzzy, restricted=False))
            else:
                action = agent.act(observation, mask)
            state.apply_action(action)
    return decisions


def _decision(observation, mask, before, memories, probabilities, fuzzy, restricted) -> dict:
    (after,) = memories  # the memory the agent leaves does not depend on its draws
    return dict(
        observation=observation,
        mask=mask,
        memory=jax_memory(before),
        after=jax_memory(after),
        probabilities=probabilities,
        fuzzy=fuzzy,
        restricted=restricted,
    )


@jax.jit
def _batched(observation, mask, memory, key):
    probabilities = jax.vmap(jh.heuristic_probabilities)(observation, mask, memory)
    keys = jax.random.split(key, observation.shape[0])
    action, new = jax.vmap(jh.heuristic_act)(observation, mask, memory, keys)
    return probabilities, action, new


def run_jax(decisions: list[dict], seed: int = 0):
    """The JAX agent on every decision, in padded batches of ``BATCH``: (probabilities, actions, memories)."""
    probabilities, actions, memories = [], [], []
    for start in range(0, len(decisions), BATCH):
        chunk = decisions[start : start + BATCH]
        pad = chunk + [chunk[-1]] * (BATCH - len(chunk))
        observation = np.stack([d["observation"] for d in pad])
        mask = np.stack([d["mask"] for d in pad])
        memory = jh.Memory(**{name: np.stack([d["memory"][name] for d in pad]) for name in jh.Memory._fields})
        p, a, m = _batched(observation, mask, memory, jax.random.key(seed + start))
        probabilities.append(np.asarray(p)[: len(chunk)])
        actions.append(np.asarray(a)[: len(chunk)])
        memories.append({name: np.asarray(value)[: len(chunk)] for name, value in m._asdict().items()})
    merged = {name: np.concatenate([m[name] for m in memories]) for name in jh.Memory._fields}
    return np.concatenate(probabilities), np.concatenate(actions), merged


def compare(decisions: list[dict]) -> dict:
    """Check the JAX agent against the Python agent on every decision; returns counts for the report."""
    probabilities, actions, memories = run_jax(decisions)
    counts = dict.fromkeys(("compared", "fuzzy", "random", "restricted", "remembered", "fallback"), 0)
    for i, d in enumerate(decisions):
        where = f"decision {i} (Python: {d['probabilities']})"
        legal = d["mask"] != 0
        assert legal[actions[i]], f"{where}; JAX played illegal {actions[i]}"
        assert probabilities[i][~legal].sum() == 0, where
        for name in jh.Memory._fields:
            np.testing.assert_array_equal(memories[name][i], d["after"][name], err_msg=f"{where}; memory {name}")
        if d["fuzzy"]:
            counts["fuzzy"] += 1
            continue
        expected = np.zeros(A.NUM_ACTIONS)
        for action, p in d["probabilities"].items():
            expected[action] = p
        support = np.flatnonzero(probabilities[i]).tolist()
        assert support == np.flatnonzero(expected).tolist(), f"{where}; JAX support {support}"
        np.testing.assert_allclose(probabilities[i], expected, atol=1e-6, err_msg=where)
        counts["compared"] += 1
        counts["random"] += len(support) > 1
        counts["restricted"] += d["restricted"]
        counts["remembered"] += bool(d["memory"]["valid"])
        counts["fallback"] += len(support) == legal.sum() > 1
    return counts


@pytest.fixture(scope="module")
def recorded() -> dict[tuple[int, bool], list[dict]]:
    return {table: record_games(*table, games=6, seed=100 * table[0] + table[1]) for table in TABLES}


# ------------------------------------------------------------------ the JAX agent is the Python agent
@pytest.mark.parametrize("num_players,claims", TABLES)
def test_jax_heuristic_matches_python_heuristic(recorded, num_players, claims):
    """Same observation, mask and memory: the same legal actions with the same probabilities, the same memory."""
    counts = compare(recorded[num_players, claims])
    assert counts["compared"] > 100 and counts["random"] > 0 and counts["restricted"] > 0, counts
    assert counts["fuzzy"] <= counts["compared"] // 1000, counts  # seats within 1e-6 of a tie: not comparable


def test_jax_heuristic_reaches_memory_and_fallback(recorded):
    """The comparison above covers the Spyglass memory (R07) and the uniform fallback, not only first choices."""
    totals = defaultdict(int)
    for decisions in recorded.values():
        for name, count in compare(decisions).items():
            totals[name] += count
    assert totals["remembered"] > 0 and totals["fallback"] > 0, dict(totals)


def test_one_batch_mixes_table_sizes_and_phases(recorded):
    """One vmapped batch over every table size gives each decision what it gets in its own batch."""
    mixed = [d for decisions in recorded.values() for d in decisions[:150]]
    assert len({int(np.argmax(d["observation"][jh.BLOCKS["num_players"]])) for d in mixed}) == 6
    together = run_jax(mixed)[0]
    alone = [run_jax([d])[0][0] for d in mixed[::97]]
    np.testing.assert_array_equal(together[::97], np.stack(alone))


@pytest.mark.slow
@pytest.mark.parametrize("num_players,claims", TABLES)
def test_jax_heuristic_matches_python_heuristic_many_games(num_players, claims):
    # 20 games per table (240 in all, thousands of decisions): bounded so CI stays well under its limit.
    decisions = record_games(num_players, claims, games=20, seed=7000 + 100 * num_players + claims)
    counts = compare(decisions)
    assert counts["fuzzy"] <= counts["compared"] // 1000, counts


# ------------------------------------------------------------------ explicit positions
_act = jax.jit(jh.heuristic_act)  # compiled once for every single-seat call below
_probabilities = jax.jit(jh.heuristic_probabilities)


def act(state: GameState, memory=None, key: int = 0):
    """The JAX agent's (action, memory) for the player to act."""
    observation, mask = encode(state, state.current_player), state.legal_mask()
    action, memory = _act(observation, mask, jh.init_memory() if memory is None else memory, jax.random.key(key))
    return int(action), memory


def test_mutineer_places_minus_two_announced_plus_one():
    state = position(5, roles=[M, P, P, P, P], hands={0: (PLUS, ZERO, MINUS)})
    assert act(state)[0] == A.loot_action(MINUS, PLUS)


def test_pirate_accuses_the_liar_its_spyglass_found():
    """R07: seat 2 announced +1 on all three top cards; the Spyglass shows a −2. The memory carries who said what."""
    state = position(
        4, roles=[P, P, M, P], hands={0: (SG, ZERO, ZERO)}, chest=[(PLUS, 2, PLUS), (MINUS, 2, PLUS), (PLUS, 2, PLUS)]
    )
    memory = jh.init_memory()
    while state.phase is not Phase.CLAIM:
        action, memory = act(state, memory)
        state.apply_action(action)
    assert bool(memory.valid)
    action, memory = act(state, memory)
    assert action == A.accuse_action(2) and not bool(memory.valid)
    # Without the memory the same claim position gives no accusation of seat 2.
    assert act(state)[0] != A.accuse_action(2)


def test_catch_returns_the_least_useful_cards():
    """R09: a Pirate returns its −2 first, then its 0."""
    state = position(3, roles=[P, P, M], hands={0: (MC, PLUS, MINUS)}, draw_pile=(ZERO, SG, PL, PL, PL))
    state.apply_action(A.MIRACULOUS_CATCH)
    returned = []
    while state.phase in (Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2):
        action, _ = act(state)
        returned.append(action - A.RETURN_BASE)
        state.apply_action(action)
    assert returned == [MINUS, ZERO]


# ------------------------------------------------------------------ a JAX function
def _claim_coin() -> tuple[np.ndarray, np.ndarray]:
    """A Mutineer's claim with nothing to answer: vouch for itself or claim a hand, a fair coin."""
    state = position(5, roles=[M, P, P, P, P], hands={0: (PLUS, ZERO, PL)})
    state.apply_action(A.loot_action(ZERO, PLUS))
    assert state.phase is Phase.CLAIM
    return encode(state, 0), state.legal_mask().copy()


def test_same_key_same_action_and_draws_follow_the_probabilities():
    """jit of one seat and vmap over seats agree key for key; the draws follow the probabilities (a fair coin)."""
    observation, mask = _claim_coin()
    memory = jh.init_memory()
    probabilities = np.asarray(_probabilities(observation, mask, memory))
    support = np.flatnonzero(probabilities)
    assert len(support) == 2 and np.allclose(probabilities[support], 0.5)
    batch = jh.Memory(*(np.stack([np.asarray(x)] * BATCH) for x in memory))
    key = jax.random.key(11)
    _, actions, _ = _batched(np.stack([observation] * BATCH), np.stack([mask] * BATCH), batch, key)
    actions = np.asarray(actions)
    keys = jax.random.split(key, BATCH)  # as _batched splits them
    for i in (0, 1, 2, 3, 500):
        assert int(_act(observation, mask, memory, keys[i])[0]) == actions[i]
        assert int(_act(observation, mask, memory, keys[i])[0]) == actions[i]
    drawn = np.bincount(actions, minlength=A.NUM_ACTIONS)
    assert set(np.flatnonzero(drawn)) == set(support.tolist())
    assert all(abs(drawn[a] - BATCH / 2) < 5 * np.sqrt(BATCH) / 2 for a in support), drawn[support]  # 5 sd


def test_init_memory_batches():
    memory = jh.init_memory(5)
    assert memory.valid.shape == (5,) and memory.announced.shape == (5, 3)
    assert jax.tree.structure(memory) == jax.tree.structure(jh.init_memory())


def test_all_zero_mask_gives_no_probability():
    observation, mask = _claim_coin()
    zero = np.zeros_like(mask)
    assert float(_probabilities(observation, zero, jh.init_memory()).sum()) == 0.0
    assert int(_act(observation, zero, jh.init_memory(), jax.random.key(0))[0]) == 0


def test_bad_shapes_raise():
    observation, mask = _claim_coin()
    with pytest.raises(ValueError, match=r"observation of shape \(1227,\).*expected \(1228,\) and \(196,\)"):
        jh.heuristic_probabilities(observation[:-1], mask, jh.init_memory())
    with pytest.raises(ValueError, match="vmap for a batch"):
        jh.heuristic_act(np.stack([observation] * 2), np.stack([mask] * 2), jh.init_memory(2), jax.random.key(0))
