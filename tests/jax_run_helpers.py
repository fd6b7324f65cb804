"""A tiny JAX-backend run configuration shared by the training tests (the stand-in engine trains it in seconds)."""

from __future__ import annotations


def tiny_jax_config(tmp_path, **changes):
    from training.config import config_from_dict

    data = {
        "name": "jtiny",
        "backend": "jax",
        "output_dir": str(tmp_path / "runs"),
        "env": {"player_counts": [3, 5, 8]},
        "training": {"generations": 1, "steps_per_team": 200, "n_envs": 16, "progress_bar": False},
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"games": 2, "player_counts": [3], "games_per_generation": 4, "workers": 1},
    }
    for key, value in changes.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    return config_from_dict(data)
