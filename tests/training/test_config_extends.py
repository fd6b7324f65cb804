"""``extends:`` in a config file: a config that states only what it changes from another (docs/training.md,
"Configs"). The ablation configs use it, each from the league it changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from training.config import ConfigError, _read_extended, extend, load_config

ROOT = Path(__file__).resolve().parents[2]
ABLATION = ROOT / "configs" / "ablation"

#: The settings each ablation was measured with (the docs' figures), as a fingerprint of the mapping its file and its
#: ``extends:`` chain give. A change to a config it extends changes it too: measure it again, or give it the old
#: value of the changed key, before updating its line here.
MEASURED = {
    "claims-off": "94edca7615d550ff",
    "claims-on": "22633725f177a5ae",
    "jax_belief-off": "63943ab7c3afc650",
    "jax_belief-on": "2b8b80da95d24ce4",
    "jax_league_belief-layers": "5630352b9592b0cf",
    "jax_league_entropy-02": "71adb5610bd3087e",
    "jax_league_first": "8a5a1c16d909fb08",
    "jax_league_linear-head": "e8144dad86699145",
    "jax_league_mutineers-8p-half": "1b38cd5328685490",
    "jax_league_mutineers-8p": "50ed0354677b0a09",
    "jax_league_no-claims": "2660fb69d3af0a77",
    "jax_league_no-last-exploiters": "e25b9a40a759545c",
    "jax_league_per-size": "c58bbcc296fd61bc",
    "jax_league_pirates-3p": "d3f8d52220e1dbe8",
    "jax_league_pirate-exploiters-x4": "b25713b8de89ea33",
    "jax_league_pirates-45": "f6016d9668969d03",
    "jax_league_pirates-last": "4d4946d66704f91b",
    "jax_league_pirates-x4": "ce59c6002ffe36b7",
    "jax_league_small-tables": "bcb45b3909119145",
}


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(json.dumps(_read_extended(path, ()), sort_keys=True).encode()).hexdigest()[:16]


def test_a_section_is_merged_key_by_key_and_every_value_is_replaced_whole():
    base = {"name": "a", "env": {"claims": True, "player_counts": [3, 4, 5]},
            "league": {"fixed_share": {"plank": 0.2, "heuristic": 0.15}, "iterations": 8}}
    changes = {"name": "b", "env": {"player_counts": [3]}, "league": {"fixed_share": {"heuristic": 0.3}}}
    assert extend(base, changes) == {"name": "b", "env": {"claims": True, "player_counts": [3]},
                                     "league": {"fixed_share": {"heuristic": 0.3}, "iterations": 8}}
    assert base["env"]["player_counts"] == [3, 4, 5]  # the base is not changed
    assert extend({"env": {"claims": True}}, {"env": "the_traitors_v0"}) == {"env": "the_traitors_v0"}


def test_extends_is_relative_to_the_file_and_follows_a_chain(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "base.yaml").write_text("name: base\nseed: 3\nppo: {ent_coef: 0.01, n_epochs: 2}\n")
    (tmp_path / "sub" / "mid.yaml").write_text("extends: ../base.yaml\nname: mid\nppo: {ent_coef: 0.02}\n")
    (tmp_path / "sub" / "top.yaml").write_text("extends: mid.yaml\nname: top\nseed: 5\n")
    monkeypatch.chdir(ROOT)  # not the files' folder
    config = load_config(tmp_path / "sub" / "top.yaml")
    assert (config.name, config.seed, config.ppo.ent_coef, config.ppo.n_epochs) == ("top", 5, 0.02, 2)
    assert config == load_config(str(tmp_path / "sub" / "top.yaml"))


@pytest.mark.parametrize(
    "text, message",
    [
        ("extends: nowhere.yaml\nname: x\n", "extends: 'nowhere.yaml': no config file at"),
        ("extends: [a.yaml]\nname: x\n", "extends: ['a.yaml']: expected the path of a config file, relative to"),
        ("extends: self.yaml\nname: x\n", "makes a cycle"),
        ("extends: list.yaml\nname: x\n", "list.yaml: expected a mapping of keys at the top level, got list"),
        ("extends: base.yaml\nppo: {ent_coeff: 0.1}\n", "ent_coeff"),
    ],
)
def test_a_bad_extends_is_named(tmp_path, text, message):
    (tmp_path / "base.yaml").write_text("name: base\n")
    (tmp_path / "list.yaml").write_text("- 1\n")
    (tmp_path / "self.yaml").write_text(text)
    with pytest.raises(ConfigError, match="self.yaml") as error:
        load_config(tmp_path / "self.yaml")
    assert message in str(error.value)


def test_a_cycle_through_two_files_is_named(tmp_path):
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nname: a\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nname: b\n")
    with pytest.raises(ConfigError, match=r"makes a cycle \(.*a.yaml -> .*b.yaml -> .*a.yaml\)"):
        load_config(tmp_path / "a.yaml")


def test_each_ablation_keeps_the_settings_it_was_measured_with():
    assert sorted(MEASURED) == sorted(p.stem for p in ABLATION.glob("*.yaml"))
    changed = {name: _fingerprint(ABLATION / f"{name}.yaml") for name in MEASURED
               if _fingerprint(ABLATION / f"{name}.yaml") != MEASURED[name]}
    assert not changed, f"the settings of these ablations changed since they were measured: {changed}"


def test_an_ablation_that_extends_another_config_states_only_what_it_changes():
    import yaml

    extending = 0
    for path in sorted(ABLATION.glob("*.yaml")):
        own = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "extends" not in own:
            continue
        extending += 1
        parent = _read_extended(path.parent / own["extends"], ())
        assert own["name"] == path.stem, path
        for key, value in own.items():
            if isinstance(value, dict):
                same = [k for k, v in value.items() if parent.get(key, {}).get(k, object()) == v]
                assert not same, f"{path.name}: {key}.{same} repeat the values of {own['extends']}"
            else:
                assert key == "extends" or parent.get(key) != value, f"{path.name}: {key} repeats {own['extends']}"
    assert extending >= 15
