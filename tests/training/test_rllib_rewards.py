"""No terminal reward lost under RLlib (issue 14): explicit positions played through RLlib's own env runner.

RLlib's ``MultiAgentEpisode`` keeps a seat only once it has acted; a seat whose only observation is
the last one (the chest opened before its first turn) is left out of the episode, so RLlib's return
metrics miss its reward. These tests run the real ``MultiAgentEnvRunner`` (episodes, policy mapping,
callbacks, metrics) on scripted positions and check where every seat's reward (R17) arrives: in the
seat's trajectory when it acted (overboard seats included), and in ``custom_data["table_rewards"]`` and
the per-team/per-module returns of :class:`training.rllib.callbacks.GameCallbacks` for every seat.
Skipped without the ``rllib`` extra; no Ray cluster is started (the env runner runs in-process).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("PIL")

from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402

from training.config import config_from_dict, load_config  # noqa: E402
from training.rllib.env import GameMasterEnv, team_of  # noqa: E402
from training.rllib.runner import algorithm_config  # noqa: E402
from traitors_env.games.traitors_aboard import actions as A  # noqa: E402
from traitors_env.games.traitors_aboard.cards import CardKind, EndCondition, Role  # noqa: E402
from traitors_env.games.traitors_aboard.engine import GameState  # noqa: E402

P, M = Role.PIRATE, Role.MUTINEER
PLUS, ZERO, MINUS, PLANK = CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2, CardKind.PLANK
TINY = Path(__file__).resolve().parents[2] / "configs" / "rllib_tiny.yaml"


def _chest_at_8(loot: int) -> GameState:
    """8 players (6 Pirates, 2 Mutineers: seats 1 and 5), target 12; ``loot`` +1 cards in the chest; seat 0 (a
    Pirate) is to make the game's first decision."""
    return GameState.from_position(
        8,
        roles=[P, M, P, P, P, M, P, P],
        hands=[(PLANK, ZERO, MINUS)] * 8,
        draw_pile=[MINUS] * 4,
        chest=[(PLUS, (i % 7) + 1, PLUS) for i in range(loot)],
        current_player=0,
    )


def _overboard_at_5() -> GameState:
    """5 players (4 Pirates, Mutineer seat 2), target 11, 11 × +1 in the chest; seat 1 already has 2 Planks."""
    return GameState.from_position(
        5,
        roles=[P, P, M, P, P],
        hands=[(ZERO, MINUS, MINUS), (ZERO, MINUS, MINUS), (PLANK, ZERO, MINUS), (ZERO, MINUS, MINUS), (ZERO, MINUS, MINUS)],
        draw_pile=[PLANK] * 8,
        chest=[(PLUS, 0, PLUS)] * 11,
        planks=[0, 2, 0, 0, 0],
        current_player=0,
    )


LOOT_ZERO = A.loot_action(ZERO, ZERO)
#: name → (position factory, scripted decisions)
SCENARIOS = {
    # R03: a Pirate opens a full chest (12 ≥ 12) as the game's first decision: Pirates win; 7 seats never acted.
    "chest_full_at_8": (lambda: _chest_at_8(12), [A.OPEN_CHEST]),
    # R03: a Pirate opens a short chest (11 < 12): the Mutineers win without ever acting.
    "chest_short_at_8": (lambda: _chest_at_8(11), [A.OPEN_CHEST]),
    # R11: seat 0 and 1 loot; the Mutineer (seat 2) Planks seat 1 overboard (third Plank; 3 Pirates still
    # aboard, R12 goes on; seat 1 is 4 seats to its left); seats 3 and 4 loot; seat 0 opens the chest (11 ≥ 11): Pirates win, seat 1 included.
    "overboard_then_chest_at_5": (
        _overboard_at_5,
        [LOOT_ZERO, A.CLAIM_NONE, LOOT_ZERO, A.CLAIM_NONE, A.plank_action(4), A.CLAIM_NONE]
        + [LOOT_ZERO, A.CLAIM_NONE] * 2
        + [A.OPEN_CHEST],
    ),
}


class ScriptedEnv(GameMasterEnv):
    """The game master started at a scenario's position whose seat to act has one legal action, the scripted
    one (so any policy, trained or bot, plays the script through RLlib's own action sampling)."""

    def __init__(self, config=None):
        super().__init__(config)
        self._build, self._script = SCENARIOS[dict(config)["scenario"]]

    def reset(self, *, seed=None, options=None):
        self._turn = 0
        return super().reset(options={"position": self._build()})

    def step(self, action_dict):
        self._turn += 1
        return super().step(action_dict)

    def legal_mask(self, agent):  # what the env checker's sampled action draws from
        mask = super().legal_mask(agent)
        if mask.any():
            mask[:] = False
            mask[self._script[self._turn]] = True
        return mask

    def _observe(self, seat):
        observation = super()._observe(seat)
        if observation["action_mask"].any():
            scripted = self._script[self._turn]
            assert observation["action_mask"][scripted] == 1, "the script must stay legal (engine)"
            observation["action_mask"][:] = 0
            observation["action_mask"][scripted] = 1
        return observation


def _sample(scenario: str, episodes: int = 4):
    data = load_config(TINY).model_dump(mode="json")
    data["opponents"] = {"latest": 0.5, "past": 0.0, "heuristic": 0.3, "random": 0.2}
    config = algorithm_config(config_from_dict(data)).environment(ScriptedEnv, env_config={"scenario": scenario})
    runner = MultiAgentEnvRunner(config=config)
    try:
        sampled = runner.sample(num_episodes=episodes, random_actions=False)
        return sampled, _values(runner.get_metrics())
    finally:
        runner.stop()


def _values(metrics):
    """The env runner's reduced metrics (RLlib ``Stats`` objects) as plain values."""
    if isinstance(metrics, dict):
        return {key: _values(value) for key, value in metrics.items()}
    return metrics.peek() if hasattr(metrics, "peek") else metrics


def _expected(state: GameState, winner: Role) -> dict[str, float]:
    return {
        f"{'pirates' if role == P else 'mutineers'}/{seat}": 1.0 if role == winner else -1.0
        for seat, role in enumerate(state.roles)
    }


@pytest.mark.parametrize("scenario, winner", [("chest_full_at_8", P), ("chest_short_at_8", M)])
def test_r03_chest_opened_on_the_first_decision_at_8_players_no_terminal_reward_is_lost(scenario, winner):
    """R03/R17: the opener's trajectory (one decision) ends with its team's reward; the 7 seats that never acted
    are not in RLlib's episode (no decision to learn from) nor in its per-agent returns, and every one of the 8
    seats' rewards is in the episode's ``table_rewards``, in ``seats_without_transition`` and in the per-team
    returns, each seat attributed to the team it was dealt."""
    expected = _expected(SCENARIOS[scenario][0](), winner)
    episodes, metrics = _sample(scenario)
    done = [e for e in episodes if e.is_done]
    assert len(done) == 4
    for episode in done:
        assert set(episode.agent_episodes) == {"pirates/0"}
        (sa,) = episode.agent_episodes.values()
        assert np.asarray(sa.get_rewards()).tolist() == [expected["pirates/0"]] and sa.is_terminated
        assert episode.custom_data["table_rewards"] == expected
        assert episode.custom_data["seats_without_transition"] == sorted(set(expected) - {"pirates/0"})
    assert set(metrics["agent_episode_returns_mean"]) == {"pirates/0"}  # RLlib's own: the other 7 seats missing
    assert metrics["seats_without_transition"] == 4 * 7
    sign = 1.0 if winner == P else -1.0
    assert metrics["team_return_mean"] == {"pirates": 6 * sign, "mutineers": -2 * sign}
    # Per module: the mean over episodes of the sum over the seats it played, every seat counted.
    per_module: dict[str, list[float]] = {}
    for episode in done:
        sums: dict[str, float] = {}
        for agent, reward in expected.items():
            module = episode.module_for(agent)
            assert module in (team_of(agent), "heuristic", "random")
            sums[module] = sums.get(module, 0.0) + reward
        for module, total in sums.items():
            per_module.setdefault(module, []).append(total)
    assert metrics["module_return_mean"] == pytest.approx({m: float(np.mean(v)) for m, v in per_module.items()})

def test_r11_seat_overboard_mid_game_gets_its_reward_when_the_game_ends_later():
    """R11/R17: seat 1 goes overboard on the 5th decision and acts no more; the game ends 5 decisions later
    (R03, Pirates win). Seat 1's trajectory in RLlib's episode still ends with +1 (its one loot decision gets
    the terminal reward), every seat acted so none is left out, and every earlier reward is 0."""
    episodes, metrics = _sample("overboard_then_chest_at_5")
    expected = _expected(_overboard_at_5(), P)
    done = [e for e in episodes if e.is_done]
    assert len(done) == 4
    for episode in done:
        assert set(episode.agent_episodes) == set(expected)
        for agent, sa in episode.agent_episodes.items():
            rewards = np.asarray(sa.get_rewards()).tolist()
            assert rewards[-1] == expected[agent] and rewards[:-1] == [0.0] * (len(rewards) - 1)
            assert sa.is_terminated and sa.get_return() == expected[agent]
        assert len(episode.agent_episodes["pirates/1"]) == 2  # loot + claim, then overboard
        assert episode.custom_data["table_rewards"] == expected and episode.custom_data["seats_without_transition"] == []
    assert metrics["seats_without_transition"] == 0
    assert metrics["team_return_mean"] == {"pirates": 4.0, "mutineers": -1.0}
    assert metrics["agent_episode_returns_mean"]["pirates/1"] == 1.0


def test_the_overboard_scenario_is_what_it_claims():
    """The position of the overboard test does what its docstring says (played on the plain game master)."""
    env = ScriptedEnv({"scenario": "overboard_then_chest_at_5"})
    obs, _ = env.reset()
    overboard_at = None
    for turn, action in enumerate(SCENARIOS["overboard_then_chest_at_5"][1]):
        (agent,) = obs
        obs, rewards, terminateds, _, infos = env.step({agent: action})
        if overboard_at is None and not env.game.aboard[1]:
            overboard_at = turn
    assert overboard_at == 4 and terminateds["__all__"]
    assert env.game.winner == P and env.game.end_condition == EndCondition.CHEST_OPENED
    assert rewards == _expected(_overboard_at_5(), P)
    assert all(info["table_rewards"] == rewards for info in infos.values())
