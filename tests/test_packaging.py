"""Installable from a wheel (issue 30): one version, configs by name, no run-time reads beside the source.

The wheel itself is built, installed outside the checkout and exercised by ``scripts/check_wheel.sh`` (run by
``.ci/run``; docs/packaging.md); these tests cover the pieces in the source tree, quickly.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

import traitors_env
from training.config import ConfigError, load_config
from training.config_files import UnknownConfigError, config_names, list_configs, resolve_config
from training.train import main as train_main

ROOT = Path(__file__).resolve().parent.parent
CHECKOUT_CONFIGS = sorted(str(p.relative_to(ROOT / "configs").with_suffix("")) for p in (ROOT / "configs").rglob("*.yaml"))


# ---------------------------------------------------------------- one version
def test_version_is_written_once_and_read_by_the_metadata():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "traitors_env.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", traitors_env.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and f"## [{traitors_env.__version__}] - " in changelog


def test_metadata_names_the_license_file_readme_and_python():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert project["readme"] == "README.md" and project["requires-python"] == ">=3.10"
    assert project["urls"] and any(c.startswith("Programming Language :: Python :: 3.") for c in project["classifiers"])


# ---------------------------------------------------------------- configs by name
def test_every_config_of_the_checkout_is_shipped_by_name():
    assert config_names() == CHECKOUT_CONFIGS
    assert {"quick", "tiny", "jax_quick", "rllib_quick", "the_traitors_quick", "ablation/claims-on"} <= set(config_names())
    for name in config_names():
        assert resolve_config(name).read_bytes() == (ROOT / "configs" / f"{name}.yaml").read_bytes()


def test_list_configs_gives_one_line_each():
    configs = list_configs()
    assert list(configs) == CHECKOUT_CONFIGS
    for name, summary in configs.items():
        assert summary and "\n" not in summary and len(summary) <= 120, name
    assert configs["tiny"].startswith("Smoke run")


def test_a_name_a_name_with_suffix_and_a_path_mean_the_same_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the checkout: names still work, the checkout's relative paths do not
    assert resolve_config("quick") == resolve_config("quick.yaml") == resolve_config(str(ROOT / "configs" / "quick.yaml"))
    assert load_config("tiny") == load_config(ROOT / "configs" / "tiny.yaml")
    assert load_config("ablation/claims-on").name == "claims-on"


def test_a_path_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quick").write_text("name: my-own\n")
    assert resolve_config("quick") == Path("quick")
    assert load_config("quick").name == "my-own"


def test_unknown_names_and_missing_paths_are_clear_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownConfigError, match=r"'quik' does not exist; did you mean the shipped config 'quick'\?"):
        resolve_config("quik")
    with pytest.raises(ConfigError, match=r"'configs/quick.yaml' does not exist; .*named 'quick': --config quick"):
        load_config("configs/quick.yaml")  # the README's path, typed outside the checkout
    with pytest.raises(ConfigError, match=r"'nothing-like-it' does not exist; expected a path .* tiny"):
        load_config("nothing-like-it")
    with pytest.raises(UnknownConfigError, match="does not exist$"):
        resolve_config(tmp_path / "quick")  # a Path is a path, never a name


def test_train_command_lists_configs_and_needs_one(capsys):
    assert train_main(["--list-configs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == CHECKOUT_CONFIGS
    with pytest.raises(SystemExit) as exit_:
        train_main([])
    assert exit_.value.code == 2 and "--config is required" in capsys.readouterr().err
    assert train_main(["--config", "quik"]) == 2
    assert "did you mean the shipped config 'quick'" in capsys.readouterr().err


def test_a_wheel_installed_without_the_train_extra_says_what_to_install(tmp_path, capsys, monkeypatch):
    """``pip install dist/*.whl`` (no extra), then ``traitors-train --config quick``: a clear error, not a traceback."""
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)  # as if the train extra were not installed
    assert train_main(["--config", "tiny", "--output-dir", str(tmp_path / "runs")]) == 2
    error = capsys.readouterr().err
    assert "backend: sb3 needs the train extra" in error and "pip install 'traitors-aboard-rl[train]'" in error
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------- data inside the package
def test_setup_maps_the_data_folders_to_packages():
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    for package, folder in (("training.configs", "configs"), ("traitors_env.examples", "examples")):
        assert f'"{package}": "{folder}"' in setup
        assert (ROOT / folder / "__init__.py").is_file()  # editable installs map regular packages only


def test_the_example_agent_is_importable_from_the_package():
    from traitors_env.agents.spec import load_agent

    if importlib.util.find_spec("traitors_env.examples") is None:
        pytest.skip("this checkout is not installed (a PYTHONPATH run): setup.py's folder mapping is not in effect")
    label, agent = load_agent("traitors_env.examples.plank_pirate:make", seed=0)
    assert label == "factory:traitors_env.examples.plank_pirate:make" and callable(agent.act)


def test_no_run_time_path_is_taken_from_the_source_location():
    """Data read at run time comes through importlib (resources, modules), never from a path beside the source:
    in a wheel there is no configs/, docs/ or examples/ next to the package. The one exception is the
    uninstalled-checkout fallback of training/config_files.py (used only when training.configs is not installed), and
    the docs generator traitors_env/core/docs.py, a maintainer's tool that checks and writes a checkout's docs/ (its
    folder is --root, the current folder by default), never run for a user's data."""
    offenders = []
    for folder in ("traitors_env", "training"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in (ROOT / "training" / "config_files.py", ROOT / "traitors_env" / "core" / "docs.py"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if re.search(r"""__file__|Path\(\s*["'](configs|docs|examples)\b|/\s*["'](configs|docs|examples)["']""", code):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# ---------------------------------------------------------------- the encoder where none was compiled
def test_without_the_compiled_encoder_the_package_gives_the_same_observations(tmp_path):
    """What a wheel built without a C compiler runs: ``_encoder`` cannot be imported, ``COMPILED_ENCODER`` is False,
    and the observations of random games equal this process's (compiled where it was built)."""
    script = """
import sys
sys.modules["traitors_env.games.traitors_aboard._encoder"] = None  # import fails: as if never built
import numpy as np
from traitors_env.games.traitors_aboard import observation
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState
assert not observation.COMPILED_ENCODER
rows = []
for n in (3, 8):
    state = GameState.new(GameConfig(num_players=n), seed=n)
    rng = np.random.default_rng(n)
    while not state.is_terminal and len(rows) < 400:
        rows.extend(observation.encode(state, seat) for seat in range(n))
        legal = list(state.legal_actions())
        state.apply_action(int(legal[rng.integers(len(legal))]))
np.save(sys.argv[1], np.stack(rows))
"""
    out = tmp_path / "python.npy"
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, cwd=ROOT, timeout=120)
    from traitors_env.games.traitors_aboard import observation
    from traitors_env.games.traitors_aboard.engine import GameConfig, GameState

    rows = []
    for n in (3, 8):
        state = GameState.new(GameConfig(num_players=n), seed=n)
        rng = np.random.default_rng(n)
        while not state.is_terminal and len(rows) < 400:
            rows.extend(observation.encode(state, seat) for seat in range(n))
            legal = list(state.legal_actions())
            state.apply_action(int(legal[rng.integers(len(legal))]))
    np.testing.assert_array_equal(np.load(out), np.stack(rows))
