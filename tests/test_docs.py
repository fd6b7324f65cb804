"""The README's tables and examples stay true to the code they describe."""

import re
from pathlib import Path

from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.observation import layout_table

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_observation_layout_is_the_declared_layout():
    assert layout_table() in README


def test_readme_action_table_is_the_actions_module_table():
    table = re.search(r"^\| indices .*?(?=\n\n)", A.__doc__, flags=re.S | re.M).group(0)
    assert table in README
    assert f"Discrete({A.NUM_ACTIONS})" in README


#: Optional extras a README example may need; its block is skipped where the package is not installed.
OPTIONAL_PACKAGES = {"tianshou", "jax", "flax", "optax", "pgx", "ray"}


def test_readme_python_examples_run():
    for block in re.findall(r"```python\n(.*?)```", README, flags=re.S):
        try:
            exec(compile(block, "README.md", "exec"), {})
        except ModuleNotFoundError as error:
            if error.name.split(".")[0] not in OPTIONAL_PACKAGES:
                raise
