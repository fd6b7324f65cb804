"""Shared pieces of the RLlib tests: a local Ray on loopback only, and the tiny RLlib config (needs the rllib extra)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import ray

from training.config import config_from_dict, load_config

MB = 2**20
TINY = Path(__file__).resolve().parent.parent / "configs" / "rllib_tiny.yaml"


def rllib_config(tmp_path, **rllib):
    """``configs/rllib_tiny.yaml`` writing under ``tmp_path``, with ``rllib`` settings overridden."""
    data = load_config(TINY).model_dump(mode="json")
    data["output_dir"] = str(tmp_path)
    data["rllib"].update(rllib)
    return config_from_dict(data)


@contextlib.contextmanager
def loopback_only():
    """Keeps every Ray address on 127.0.0.1: on Linux Ray otherwise binds all interfaces and rewrites 127.0.0.1
    to the machine's outward IP (``ray._private.services.resolve_ip_for_localhost``), here and in the node
    processes it starts (they read the environment variable)."""
    from ray._private import ray_constants

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR, "0")
        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        yield


@contextlib.contextmanager
def running_local_ray():
    """A local Ray (loopback only, no dashboard, a small object store), shut down at the end (a test's fixture)."""
    with loopback_only():
        ray.init(
            address="local",
            _node_ip_address="127.0.0.1",
            num_cpus=2,
            object_store_memory=80 * MB,
            include_dashboard=False,
            log_to_driver=False,
        )
        try:
            yield
        finally:
            ray.shutdown()
