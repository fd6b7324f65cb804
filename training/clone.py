"""Warm start by behaviour cloning (config section ``warm_start``, SB3 backend, default off).

Before generation 1, one of the game's bots (``warm_start.bot``, the heuristic by default) plays every learner seat
of a side in the learner's own environments (:class:`training.team_env.TeamEnv`, against the opponent pool the side
meets in generation 1) for ``warm_start.sides[side]`` decisions. The side's new ``MaskablePPO`` policy is then fitted
to those decisions: the policy network to the bot's actions (cross-entropy over the legal actions: the mask applied
as in PPO), the value network to the discounted return (``ppo.gamma``) of each decision, for ``warm_start.epochs``
passes in minibatches of ``warm_start.batch_size`` (Adam, ``warm_start.learning_rate``, an optimizer of its own:
PPO's is left as it was). PPO then starts from the clone.

Hindsight fitting (config section ``hindsight``, SB3, default off) uses the same fit: :func:`fit_hindsight` fits a
side's policy, after each generation's PPO, to the action right in hindsight (``Game.hindsight_action``) at the
decisions of that generation's rollouts that have one, without the value network.

Nothing here names a game: the bot is built by :meth:`traitors_env.core.Game.make_bot` and acts on the unscaled
observation and the action mask alone.
"""

from __future__ import annotations

import numpy as np

from traitors_env.core import Game

from .agents import observation_scale

__all__ = ["HELD_OUT", "accuracy", "clone_into", "collect", "fit_hindsight", "sampled_accuracy"]


def collect(venv, game: Game, bot: str, steps: int, gamma: float, seed: int) -> dict[str, np.ndarray]:
    """Play ``bot`` (a bot name of ``game``) at the learner's seats of every environment of ``venv`` (already
    configured for the side) for at least ``steps`` decisions.

    Returns:
        ``{"obs": float32 (N, *observation_shape) scaled as the learner sees it, "masks": bool (N, num_actions),
        "actions": int64 (N,), "returns": float32 (N,)}``, N >= ``steps``; ``returns`` is each decision's discounted
        return within its game; decisions of games still running at the end are dropped.
    """
    scale = observation_scale(game)
    n_envs = venv.num_envs
    rng = np.random.default_rng(seed)
    bots = [game.make_bot(bot, int(rng.integers(2**63))) for _ in range(n_envs)]
    venv.seed(seed)
    obs = venv.reset()
    running: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(n_envs)]
    out_obs, out_masks, out_actions, out_returns = [], [], [], []
    while len(out_actions) < steps:
        masks = np.stack(venv.env_method("action_masks")).astype(bool)
        actions = np.array([bots[i].act(obs[i] * scale, masks[i].astype(np.int8)) for i in range(n_envs)])
        for i in range(n_envs):
            running[i].append((obs[i].copy(), masks[i], int(actions[i])))
        obs, rewards, dones, _infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            # the reward arrives on the game's last learner step: returns counted back from it
            g = float(rewards[i])
            returns = [g * gamma ** k for k in range(len(running[i]))][::-1]
            for (o, m, a), r in zip(running[i], returns):
                out_obs.append(o)
                out_masks.append(m)
                out_actions.append(a)
                out_returns.append(r)
            running[i] = []
    return {"obs": np.asarray(out_obs, dtype=np.float32), "masks": np.asarray(out_masks, dtype=bool),
            "actions": np.asarray(out_actions, dtype=np.int64), "returns": np.asarray(out_returns, dtype=np.float32)}


def clone_into(model, data: dict[str, np.ndarray], epochs: int, batch_size: int, learning_rate: float,
               seed: int, sharpen: float = 1.0) -> dict[str, float]:
    """Fit ``model.policy`` (a ``MaskablePPO`` policy) to ``data`` from :func:`collect`; returns
    ``{"decisions", "accuracy", "log_likelihood", "value_mse"}`` measured on ``data`` after the last epoch
    (accuracy: the policy's most probable legal action is the bot's). Without ``data["returns"]`` the value network
    is not fitted and ``value_mse`` is left out. ``sharpen`` > 1 fits ``softmax(logits / sharpen)`` to the actions,
    so that the policy itself plays the fitted distribution raised to the power ``sharpen`` (renormalised): closer
    to its most probable action when it samples."""
    import torch

    policy = model.policy
    obs = torch.as_tensor(data["obs"])
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"]) if "returns" in data else None
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    n = len(actions)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            values, log_prob, _entropy = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            if sharpen != 1.0:
                logits = policy.get_distribution(obs[idx], action_masks=masks[idx].numpy()).distribution.logits
                log_prob = torch.log_softmax(logits / sharpen, dim=1).gather(1, actions[idx][:, None]).squeeze(1)
            loss = -log_prob.mean()
            if returns is not None:
                loss = loss + 0.5 * torch.mean((values.flatten() - returns[idx]) ** 2)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        values, log_prob, _entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
    stats = {"decisions": int(n), "accuracy": accuracy(model, data),
             "log_likelihood": round(float(log_prob.mean()), 4)}
    if returns is not None:
        stats["value_mse"] = round(float(torch.mean((values.flatten() - returns) ** 2)), 4)
    return stats


def accuracy(model, data: dict[str, np.ndarray]) -> float:
    """The share of ``data``'s decisions (``obs``, ``masks``, ``actions``) at which the most probable legal action
    of ``model.policy`` is ``actions``; NaN for no decision."""
    import torch

    if len(data["actions"]) == 0:
        return float("nan")
    with torch.no_grad():
        logits = model.policy.get_distribution(torch.as_tensor(data["obs"]),
                                               action_masks=data["masks"]).distribution.logits
    return round(float((logits.argmax(dim=1).numpy() == data["actions"]).mean()), 4)


#: the share of a generation's hindsight decisions held out to measure the fit
HELD_OUT = 0.1


def sampled_accuracy(model, data: dict[str, np.ndarray]) -> float:
    """The mean probability ``model.policy`` gives ``data``'s ``actions`` (masked): how often it plays them when it
    samples; NaN for no decision."""
    import torch

    if len(data["actions"]) == 0:
        return float("nan")
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(data["obs"]),
                                              action_masks=data["masks"]).distribution.probs
    return round(float(probs[np.arange(len(data["actions"])), data["actions"]].mean()), 4)


def fit_hindsight(model, samples: list[tuple[np.ndarray, np.ndarray, int]], epochs: int, batch_size: int,
                  learning_rate: float, seed: int, sharpen: float = 1.0) -> dict[str, float]:
    """Fit ``model.policy`` to the hindsight answers (``Game.hindsight_action``) of one generation's rollouts:
    ``samples`` of ``(observation float32 as the learner saw it, action mask bool, answer)``. A random
    :data:`HELD_OUT` share (from ``seed``) is not fitted; ``sharpen`` as in :func:`clone_into`. Returns
    ``{"decisions", "held_out", "accuracy_before", "accuracy_after", "sampled_accuracy_after"}`` on the held-out
    decisions (:func:`accuracy`: the most probable action; :func:`sampled_accuracy`: what sampling plays; ``None``
    when none is held out), with nothing fitted when ``samples`` is empty."""
    if not samples:
        return {"decisions": 0, "held_out": 0, "accuracy_before": None, "accuracy_after": None,
                "sampled_accuracy_after": None}
    data = {"obs": np.stack([o for o, _m, _a in samples]).astype(np.float32),
            "masks": np.stack([m for _o, m, _a in samples]).astype(bool),
            "actions": np.array([a for _o, _m, a in samples], dtype=np.int64)}
    order = np.random.default_rng(seed).permutation(len(samples))
    cut = int(len(samples) * HELD_OUT)
    held, fitted = ({k: v[order[:cut]] for k, v in data.items()}, {k: v[order[cut:]] for k, v in data.items()})
    before = accuracy(model, held) if cut else None
    stats = clone_into(model, fitted, epochs, batch_size, learning_rate, seed, sharpen)
    return {"decisions": stats["decisions"], "held_out": cut, "accuracy_before": before,
            "accuracy_after": accuracy(model, held) if cut else None,
            "sampled_accuracy_after": sampled_accuracy(model, held) if cut else None}
