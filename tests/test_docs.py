"""The README and the manual under docs/ stay true to the code they describe.

- each game's facts, observation and action tables, and the table of games, are generated from the declarations
  (``traitors_env.core.docs``) and a drifted page fails here;
- the README stays a front door (at most 200 lines) holding the two commands, and its links resolve;
- every ``python`` block of the README and the manual runs (```` ```py ```` and other fences do not);
- every run config is documented; ``mkdocs build --strict`` passes (a broken link or anchor fails).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from traitors_env.core import docs
from traitors_env.core.game import Game, GameType
from traitors_env.core.registry import load_game, register_game, registered_games, unregister_game
from traitors_env.games.the_traitors import actions as TA
from traitors_env.games.the_traitors.observation import OBS_SIZE as THE_TRAITORS_OBS_SIZE
from traitors_env.games.the_traitors.observation import layout_table as the_traitors_layout_table
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.observation import layout_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "rules" not in p.relative_to(DOCS).parts[:1])


def page(relative: str) -> str:
    return (DOCS / relative).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------ generated tables
def test_generated_blocks_match_the_declarations():
    """Every generated block (README, docs/games/) equals what the games' declarations give now."""
    problems = docs.check(ROOT)
    assert not problems, "\n".join(problems + [f"run: {docs.COMMAND}"])


@pytest.mark.every_extra
def test_every_registered_game_of_the_package_has_its_page_with_its_tables():
    names = docs.documented_games()
    assert set(names) >= {"traitors_aboard", "the_traitors"} and set(names) <= set(registered_games())
    for name in names:
        blocks = docs.read_blocks((ROOT / docs.page_path(name)).read_text(encoding="utf-8"))
        assert {f"{name}/facts", f"{name}/observation", f"{name}/actions"} <= set(blocks), name
        assert f"({name}.md)" in page("games/index.md") and f"(docs/games/{name}.md)" in README


def test_every_game_has_its_text_page_with_a_prompt_per_kind_of_decision():
    """Issue 29: the text view's prompts of every game are in docs/text/<name>.md (generated, in the nav)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in docs.documented_games():
        path = docs.text_page_path(name)
        block = docs.read_blocks((ROOT / path).read_text(encoding="utf-8"))[f"{name}/text"]
        assert f"text/{name}.md" in nav and f"({name}.md)" in page("text/index.md")
        assert block.count("\nLegal actions:\n") == block.count("\n### ") >= 2 and '"name": "act"' in block
        assert load_game(name).rules_summary(load_game(name).type.default_players).strip() in block


def test_traitors_aboard_page_shows_the_declared_layout_and_the_actions_module_table():
    """The intent of the README checks before the move: the page holds the declared layout, the action table of
    the actions module (its docstring, Sphinx roles shown as code) and the action space's size."""
    text = page("games/traitors_aboard.md")
    assert layout_table() in text
    table = re.search(r"^\| indices .*?(?=\n\n)", A.__doc__, flags=re.S | re.M).group(0)
    assert re.sub(r":(?:class|data):`", "`", table) in text
    assert f"Discrete({A.NUM_ACTIONS})" in text


def test_the_traitors_page_shows_the_declared_layout_and_action_table():
    text = page("games/the_traitors.md")
    assert the_traitors_layout_table() in text
    assert TA.action_table() in text
    assert f"Discrete({TA.NUM_ACTIONS})" in text and f"Box({THE_TRAITORS_OBS_SIZE},)" in text


def test_a_new_game_gets_its_page_by_registering_and_a_drifted_page_fails(tmp_path):
    """The toy game of tests/ (no action table of its own): --write creates its page with its three blocks, the check
    passes, and an edited row, a removed block or a missing page is named."""
    import toy_game

    register_game("toy", toy_game.GAME)
    try:
        assert docs.check(tmp_path, ["toy"])  # nothing there yet
        (tmp_path / "README.md").write_text(f"{docs.begin_marker('games')}\n{docs.end_marker('games')}\n")
        (tmp_path / "docs" / "games").mkdir(parents=True)
        (tmp_path / "docs" / "games" / "index.md").write_text(f"{docs.begin_marker('games')}\n{docs.end_marker('games')}\n")
        written = docs.write(tmp_path, ["toy"])
        assert Path("docs/games/toy.md") in written
        assert docs.check(tmp_path, ["toy"]) == []
        text = (tmp_path / "docs" / "games" / "toy.md").read_text()
        assert toy_game.LAYOUT.table() in text and "| 1 | accuse the player 1 seat(s) to the left |" in text
        assert "`Discrete(5)`" in text and "game records and replay: no" in text
        prompts = (tmp_path / "docs" / "text" / "toy.md").read_text()  # the generic text view's prompts
        assert "### decision (Spy)" in prompts and "### decision (Others)" in prompts
        assert "accuse the player 1 seat(s) to the left" in prompts

        (tmp_path / "docs" / "games" / "toy.md").write_text(text.replace("| 0 | pass |", "| 0 | wait |"))
        assert docs.check(tmp_path, ["toy"]) == ["docs/games/toy.md: block 'toy/actions' differs from the declarations"]
        assert docs.main(["--check", "--root", str(tmp_path)]) == 1  # the built-in games have no pages there
        docs.write(tmp_path, ["toy"])
        assert docs.check(tmp_path, ["toy"]) == []

        cut = re.sub(r"<!-- BEGIN GENERATED toy/facts.*?END GENERATED toy/facts -->", "", text, flags=re.S)
        (tmp_path / "docs" / "games" / "toy.md").write_text(cut)
        (problem,) = docs.check(tmp_path, ["toy"])
        assert "no generated block 'toy/facts'" in problem
    finally:
        unregister_game("toy")


def test_an_action_table_that_does_not_cover_the_action_space_is_refused():
    game = load_game("the_traitors")
    short = dataclasses.replace(game, action_table=lambda: "\n".join(TA.action_table().splitlines()[:-1]))
    with pytest.raises(docs.DocsError, match="ends at index 33"):
        docs.action_table(short)
    gap = dataclasses.replace(game, action_table=lambda: TA.action_table().replace("| 2 | ``CLAIM_NONE``", "| 3 | x"))
    with pytest.raises(docs.DocsError, match="expected index 2"):
        docs.action_table(gap)


def test_a_malformed_page_is_refused():
    with pytest.raises(docs.DocsError, match="never closed"):
        docs.read_blocks(docs.begin_marker("x") + "\ntext\n")


def test_every_field_of_game_and_gametype_is_described_in_the_architecture():
    """A field added to GameType or Game (an optional capability) is described where a game's author reads."""
    text = page("architecture.md")
    for cls in (GameType, Game):
        for field in dataclasses.fields(cls):
            assert f"`{field.name}`" in text, f"{cls.__name__}.{field.name} is not described in docs/architecture.md"


# ------------------------------------------------------------------------------------------ the README
TRAIN_COMMAND = 'pip install torch==2.13.0 && pip install -e ".[train,dev,bench]" && traitors-train --config configs/quick.yaml'
TEST_COMMAND = "python -m pytest"


def test_readme_is_a_front_door_with_the_two_commands():
    assert len(README.splitlines()) <= 200
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    assert blocks[:2] == [TRAIN_COMMAND + "\n", TEST_COMMAND + "\n"]
    installation = page("installation.md")
    assert TRAIN_COMMAND in installation and f"```bash\n{TEST_COMMAND}\n```" in installation


def test_ci_runs_the_readmes_two_commands_with_only_the_readmes_install():
    """Issue 49: ``.ci/run`` installed every extra, so a test needing one that the README leaves out failed only for
    the README's user. It now runs the README's first command, read from the README, then its test command, in a venv
    of their own before any other extra is installed."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    pattern = re.search(r"readme_train=\$\(grep -m1 '\^([^']+)' README\.md\)", ci)
    assert pattern and TRAIN_COMMAND.startswith(pattern.group(1))
    assert [line for line in README.splitlines() if line.startswith(pattern.group(1))][0] == TRAIN_COMMAND
    readme_tests = ci.index(TEST_COMMAND + "\n", pattern.end())
    assert readme_tests < ci.index('pip install --quiet -e ".[train,dev,bench,jax')


def test_readme_links_resolve():
    """The README is read on the forge, outside mkdocs: each relative link names a file that exists (and an anchor,
    where given, is checked by mkdocs on the page it points into)."""
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


# ------------------------------------------------------------------------------------------ the manual
#: Optional extras an example may need; its block is skipped where the package is not installed.
OPTIONAL_PACKAGES = {"tianshou", "jax", "flax", "optax", "pgx", "ray", "openai", "textarena"}


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(path):
    for block in re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S):
        try:
            exec(compile(block, str(path.relative_to(ROOT)), "exec"), {})
        except ModuleNotFoundError as error:
            if error.name.split(".")[0] not in OPTIONAL_PACKAGES:
                raise


def test_every_config_is_documented():
    """Each run config of configs/ is named on the training page, the list a user picks from."""
    training = page("training.md")
    for config in sorted((ROOT / "configs").rglob("*.yaml")):
        name = config.relative_to(ROOT).as_posix()
        assert f"`{name}`" in training, f"{name} is not listed in docs/training.md"


def test_figures_come_with_their_commands():
    """A figure on a user's page comes with the command that reproduces it."""
    assert "traitors-eval --run runs/quick --games 900" in page("backends/sb3.md")
    assert "traitors-train --config configs/jax_quick.yaml" in page("backends/jax.md")
    assert "traitors-bench --training" in page("backends/jax.md")
    assert "python -m traitors_env.evaluation.games --games 1000" in page("games/traitors_aboard.md")
    assert "traitors-bench --jax" in page("speed.md")
    assert "PLACEHOLDER: env() speed" in page("speed.md") or "env_vs_raw_env" in page("speed.md")


@pytest.mark.skipif(shutil.which("mkdocs") is None and not Path(sys.executable).with_name("mkdocs").exists(),
                    reason="mkdocs is not installed (the dev extra installs it)")
def test_mkdocs_build_strict_passes(tmp_path):
    """The manual builds with no warning: a broken link, a missing anchor or a page left out of the nav fails."""
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).with_name("mkdocs"))
    result = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-4000:]


def test_paths_and_modules_the_docs_name_exist():
    """A file path of the repository (``traitors_env/…``, ``configs/…``) or a ``python -m`` module that a user's page
    names exists, so a page does not survive the move or removal of what it describes. (docs/notes/ is history.)"""
    import importlib.util

    roots = ("traitors_env/", "training/", "configs/", "tests/", "examples/", "scripts/", "docs/", ".ci/")
    for path in [ROOT / "README.md", *PAGES]:
        if "notes" in path.relative_to(DOCS.parent).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"`([\w./-]+\.(?:py|pyx|yaml|md|txt|png|sh))`", text):
            if name.startswith(roots):
                assert (ROOT / name).exists(), f"{path.relative_to(ROOT)} names {name}, which does not exist"
        for module in re.findall(r"python -m ([\w.]+)", text):
            assert module == "pytest" or importlib.util.find_spec(module), \
                f"{path.relative_to(ROOT)} runs python -m {module}, which does not exist"
