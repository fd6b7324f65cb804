"""``docs/notes/lab/action_profile.py``: the kinds of one side's main-phase actions (docs/backends/jax.md quotes it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from traitors_env.games.traitors_aboard import actions as A

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "notes" / "lab" / "action_profile.py"


def load_script():
    spec = importlib.util.spec_from_file_location("action_profile", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_action_kinds_follow_the_action_table():
    """R04: a loot action is the card placed and the value announced (index 1 + 3·card + announced)."""
    kind = load_script().action_kind
    assert kind(A.OPEN_CHEST) == "open the chest"
    assert kind(A.LOOT_BASE) == "place loot +1 announced as +1"
    assert kind(A.LOOT_BASE + 2) == "place loot +1 announced as -2"  # a +1 card announced as −2
    assert kind(A.LOOT_BASE + 3 * 2) == "place loot -2 announced as +1"  # the heuristic Mutineer's lie
    assert kind(A.PLANK_BASE + 1) == kind(A.PLANK_BASE + 7) == "Plank"
    assert kind(A.EYP_BASE + 1) == "Empty Your Pockets"
    assert kind(A.GOOD_RIDDANCE) == "Good Riddance" and kind(A.SPYGLASS) == "Spyglass"
    assert kind(A.MIRACULOUS_CATCH) == "Miraculous Catch"
    assert kind(A.SPYGLASS_ORDER_BASE) is None and kind(A.CLAIM_NONE) is None


def test_the_heuristic_mutineers_announce_plus_one_on_every_loot_card(capsys):
    """The heuristic Mutineer places its loot announced +1 (bots.py, the Mutineer's priorities)."""
    load_script().main(["--pirates", "heuristic", "--mutineers", "heuristic", "--players", "3", "--games", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("mutineers' main-phase actions:") and "in 3 games" in lines[0]
    loot = [line for line in lines[1:] if "place loot" in line]
    assert loot and all(line.endswith("announced as +1") for line in loot)
