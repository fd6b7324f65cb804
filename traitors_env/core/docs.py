"""The docs' generated tables: each game's facts, observation and action tables, and the table of games.

Every registered game gets them by registering: the tables come from its :class:`~traitors_env.core.game.Game`
(``type``, ``layout``, ``action_table`` or ``action_text``), never from numbers written by hand. A page holds each
generated table between two HTML comments, which markdown does not show::

    <!-- BEGIN GENERATED traitors_aboard/observation: python -m traitors_env.core.docs --write -->
    | slice | name | shape | meaning |
    ...
    <!-- END GENERATED traitors_aboard/observation -->

Each game also gets a page ``docs/text/<name>.md`` holding one generated block, ``<name>/text``: the text view's
system prompt and one prompt for every kind of decision of each side (:func:`text_block`, from seeded random games
read through :class:`~traitors_env.core.text.TextView`), what a language-model agent is shown.

``python -m traitors_env.core.docs --check`` exits 1 naming every block that differs from what the declarations give
now (``tests/test_docs.py`` runs the same check); ``--write`` rewrites the blocks, and writes a page
``docs/games/<name>.md`` holding its three blocks (and ``docs/text/<name>.md``) for a game that has none yet (add them
to ``nav`` in
``mkdocs.yml``: ``mkdocs build --strict`` refuses a page left out of it). Text outside the blocks is never touched.

The games documented here are the registered games that ship with this package (:data:`BUILTIN_GAMES`): a game
registered from another package (entry-point group ``traitors_env.games``) keeps its docs in that package, and can
build the same tables with :func:`game_blocks`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from .game import Game
from .registry import BUILTIN_GAMES, load_game, registered_games
from .text import TextView, text_of

__all__ = ["DocsError", "action_table", "begin_marker", "check", "documented_games", "end_marker", "expected_blocks",
           "facts_table", "game_blocks", "games_table", "main", "observation_table", "page_path", "read_blocks",
           "replace_blocks", "text_block", "text_page_path", "text_prompts", "write"]

#: The command that regenerates every block (named in each begin marker and in every drift message).
COMMAND = "python -m traitors_env.core.docs --write"

#: Where a game's page lies, relative to the repository root.
GAMES_DIR = Path("docs") / "games"
#: Where a game's text-view page (its prompts) lies, relative to the repository root.
TEXT_DIR = Path("docs") / "text"
#: At most this many random games :func:`text_prompts` plays (seeds 0, 1, …) to meet every kind of decision …
TEXT_GAMES = 300
#: … stopping after this many games in a row that met nothing new.
TEXT_PATIENCE = 60

_BEGIN = re.compile(r"^<!-- BEGIN GENERATED (?P<key>[\w/.-]+)(?:: .*)? -->$", re.M)

_UTILITY_WORDS = {
    "zero_sum_teams": "zero-sum team game: every seat of the winning side gets +1, every other seat −1",
    "general_sum": "general-sum: individual rewards; several seats, or none of a side, may win",
}


class DocsError(ValueError):
    """A page whose generated blocks are malformed (an unclosed or repeated block), or an action table whose index
    ranges do not cover the action space."""


def begin_marker(key: str) -> str:
    """The comment that opens block ``key`` (``"<game>/<table>"`` or ``"games"``)."""
    return f"<!-- BEGIN GENERATED {key}: {COMMAND} -->"


def end_marker(key: str) -> str:
    """The comment that closes block ``key``."""
    return f"<!-- END GENERATED {key} -->"


# ------------------------------------------------------------------------------------------------ the tables
def observation_table(game: Game) -> str:
    """The observation layout as markdown (slice, name, shape, meaning): ``game.layout.table()``."""
    return game.layout.table()


def _index_span(cell: str) -> tuple[int, int]:
    first, _, last = cell.strip().replace("-", "–").partition("–")
    return int(first), int(last or first)


def action_table(game: Game) -> str:
    """The action table as markdown.

    ``game.action_table()`` where the game declares one (a row per group of indices: indices, name, meaning, phase;
    Sphinx roles such as ``:class:`X``` shown as code), else one row per index with ``game.action_text(index)``.

    Raises:
        DocsError: when the declared table's first column (``"0"``, ``"1–9"``) does not cover
            ``0 … num_actions - 1`` in order, each index once (naming the row and the index expected).
    """
    n = game.type.num_actions
    if game.action_table is None:
        rows = ["| index | meaning |", "|---|---|"]
        rows += [f"| {i} | {game.action_text(i)} |" for i in range(n)]
        return "\n".join(rows)
    table = re.sub(r":(?:class|data|func|attr|meth|mod|obj):`", "`", game.action_table().strip())
    expected = 0
    for row in table.splitlines()[2:]:
        try:
            first, last = _index_span(row.split("|")[1])
        except ValueError:
            raise DocsError(f"{game.type.env_id}: action table row {row!r} does not start with an index or a "
                            "range 'a–b'") from None
        if first != expected or last < first:
            raise DocsError(f"{game.type.env_id}: action table row {row!r} starts at {first}; expected index "
                            f"{expected} (rows cover 0 … {n - 1} in order, each index once)")
        expected = last + 1
    if expected != n:
        raise DocsError(f"{game.type.env_id}: action table ends at index {expected - 1}; the action space is "
                        f"Discrete({n}), so it must end at {n - 1}")
    return table


def _shape(shape: tuple[int, ...]) -> str:
    return str(tuple(shape)).replace(" ", "")


def _rules_cell(game: Game, page_dir: Path | None) -> str:
    rules = game.type.rules
    if not rules:
        return "–"
    name = Path(rules).name
    if page_dir is not None and rules.startswith("docs/"):
        return f"[{name}]({Path(os.path.relpath(rules, page_dir)).as_posix()})"
    return f"`{rules}`"


def facts_table(game: Game, page_dir: Path | str | None = GAMES_DIR) -> str:
    """The game's static facts as a two-column markdown table: names, players, sides, rewards, spaces, bots and
    which optional capabilities it has. ``page_dir`` (relative to the repository root) makes the rulebook a link
    relative to the page; ``None`` names its path instead."""
    t = game.type
    sides = ", ".join(f"{label} (`{key}`)" for key, label in zip(t.sides, t.side_labels))
    capabilities = [("hidden-role metrics", "metrics"), ("game records and replay", "records"), ("JAX twin", "jax"),
                    ("terminal view", "terminal_view")]
    has = "; ".join(f"{words}: {'yes' if game.has(name) else 'no'}" for words, name in capabilities)
    rows = [
        ("Registry name", f"`{t.short_name}`: `load_game(\"{t.short_name}\")`, `--game {t.short_name}`"),
        ("Environment id", f"`{t.env_id}` (PettingZoo: `pettingzoo.make(\"aec\", \"{t.env_id}\")`)"),
        ("Players", f"{t.min_players}–{t.max_players} (default {t.default_players})"),
        ("Sides", f"{sides}; the first is the row side of the benchmark kit's cross-play"),
        ("Rewards", _UTILITY_WORDS.get(t.utility, f"`{t.utility}`")),
        ("Action space", f"`Discrete({t.num_actions})` at every table size"),
        ("Observation space", f"`Dict(observation=Box{_shape(t.observation_shape)} float32, "
                              f"action_mask=Box(0, 1, ({t.num_actions},), int8))` at every table size"),
        ("Bots", ", ".join(f"`{name}`" for name in game.bot_names)),
        ("Optional capabilities", has),
        ("Rules", _rules_cell(game, None if page_dir is None else Path(page_dir))),
    ]
    return "\n".join(["| | |", "|---|---|"] + [f"| {name} | {value} |" for name, value in rows])


def games_table(names: Iterable[str], link_dir: str = "") -> str:
    """One row per game: its name linked to ``{link_dir}{name}.md``, environment id, players, sides, rewards."""
    rows = ["| game | environment id | players | sides | rewards |", "|---|---|---:|---|---|"]
    for name in names:
        t = load_game(name).type
        reward = "team (zero-sum)" if t.utility == "zero_sum_teams" else "individual (general-sum)"
        rows.append(f"| [{t.long_name}]({link_dir}{name}.md) | `{t.env_id}` | {t.min_players}–{t.max_players} | "
                    f"{' vs '.join(t.side_labels)} | {reward} |")
    return "\n".join(rows)


def game_blocks(game: Game | str, page_dir: Path | str | None = GAMES_DIR) -> dict[str, str]:
    """The generated blocks of a game's page: ``{"<name>/facts": …, "<name>/observation": …, "<name>/actions": …}``."""
    game = load_game(game)
    name = game.type.short_name
    return {f"{name}/facts": facts_table(game, page_dir), f"{name}/observation": observation_table(game),
            f"{name}/actions": action_table(game)}


def text_prompts(game: Game | str, num_players: int | None = None, games: int = TEXT_GAMES,
                 patience: int = TEXT_PATIENCE) -> tuple[str, dict[tuple[str, str], tuple[str, dict]]]:
    """The text view's system prompt and one prompt per kind of decision and side, from seeded random games.

    Plays games of ``num_players`` (default: the game's ``default_players``) dealt from seeds 0, 1, …, every seat
    choosing uniformly among its legal actions (seed ``seed``) and read through its own
    :class:`~traitors_env.core.text.TextView`, until ``patience`` games in a row met nothing new or ``games`` were
    played. For each ``(kind, side)`` (the renderer's ``decision_kind`` and the side label of
    ``game.side_of_observation``) it keeps the first prompt met that is not a seat's first decision of the game
    (where there is one, since it shows events), with its tool schema.

    Returns:
        ``(system prompt, {(kind, side label): (prompt, tool)})``, kinds in the order first met, each kind's sides in
        the game's order.
    """
    game = load_game(game)
    n = game.check_players(game.type.default_players if num_players is None else num_players)
    key = (id(game), n, games, patience)
    if key not in _TEXT_CACHE or _TEXT_CACHE[key][0] is not game:
        _TEXT_CACHE[key] = (game, _text_prompts(game, n, games, patience))
    return _TEXT_CACHE[key][1]


_TEXT_CACHE: dict[tuple, tuple[Game, tuple]] = {}  # the games are deterministic: play them once per process


def _text_prompts(game: Game, n: int, games: int, patience: int):
    renderer = text_of(game)
    found: dict[tuple[str, str], tuple[str, dict, bool]] = {}
    system = ""
    quiet = 0
    for seed in range(games):
        if quiet >= patience:
            break
        quiet += 1
        env = game.raw_env(num_players=n)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        views = {agent: TextView(game, n) for agent in env.possible_agents}
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            obs, mask = observation["observation"], observation["action_mask"]
            decision = views[agent].decide(obs, mask)
            system = system or views[agent].system_prompt()
            key = (str(renderer.decision_kind(obs)), game.type.side_labels[game.side_of_observation(obs)])
            if key not in found or (found[key][2] and not decision.first):
                found[key] = (decision.prompt, decision.tool, decision.first)
                quiet = 0
            env.step(int(rng.choice(np.flatnonzero(mask))))
    kinds = list(dict.fromkeys(kind for kind, _ in found))
    order = sorted(found, key=lambda key: (kinds.index(key[0]), game.type.side_labels.index(key[1])))
    return system, {key: found[key][:2] for key in order}


def text_block(game: Game | str, num_players: int | None = None) -> str:
    """The text view of ``game`` as markdown (:func:`text_prompts`): the system prompt, then one section per kind of
    decision and side holding its prompt, and the tool schema of the first of them."""
    game = load_game(game)
    n = game.type.default_players if num_players is None else num_players
    system, prompts = text_prompts(game, n)
    parts = [f"What a language-model agent is shown at a table of {n}: one prompt for each of the {len(prompts)} kinds "
             "of decision and side met in seeded random games. The system prompt, once per game:", "", "```text",
             system, "```"]
    for i, ((kind, side), (prompt, tool)) in enumerate(prompts.items()):
        parts += ["", f"### {kind} ({side})", "", "```text", prompt, "```"]
        if i == 0:
            parts += ["", "The same decision as a tool (OpenAI function calling; `choice` lists the legal actions):",
                      "", "```json", json.dumps(tool, indent=2, ensure_ascii=False), "```"]
    return "\n".join(parts)


# ------------------------------------------------------------------------------------------------ the pages
def documented_games() -> list[str]:
    """The registered games this package documents: those it ships (a plug-in game keeps its docs in its package)."""
    return [name for name in registered_games() if name in BUILTIN_GAMES]


def page_path(name: str) -> Path:
    """A game's page, relative to the repository root: ``docs/games/<name>.md``."""
    return GAMES_DIR / f"{name}.md"


def text_page_path(name: str) -> Path:
    """A game's text-view page, relative to the repository root: ``docs/text/<name>.md``."""
    return TEXT_DIR / f"{name}.md"


def expected_blocks(names: Iterable[str] | None = None) -> dict[Path, dict[str, str]]:
    """Every generated block, by page (relative to the repository root): each game's three on its page and its text
    view on its text page, and the table of games in ``README.md`` and ``docs/games/index.md``. ``names``: the games
    (default :func:`documented_games`)."""
    names = list(documented_games() if names is None else names)
    pages: dict[Path, dict[str, str]] = {
        Path("README.md"): {"games": games_table(names, f"{GAMES_DIR.as_posix()}/")},
        GAMES_DIR / "index.md": {"games": games_table(names)},
    }
    for name in names:
        pages[page_path(name)] = game_blocks(name)
        pages[text_page_path(name)] = {f"{name}/text": text_block(name)}
    return pages


def read_blocks(text: str) -> dict[str, str]:
    """The blocks of a page: key → the text between its markers (surrounding blank lines stripped).

    Raises:
        DocsError: for a block opened twice or never closed.
    """
    blocks: dict[str, str] = {}
    for match in _BEGIN.finditer(text):
        key = match.group("key")
        end = text.find(end_marker(key), match.end())
        if key in blocks or end < 0:
            raise DocsError(f"generated block {key!r} is {'repeated' if key in blocks else 'never closed'}; "
                            f"expected one '{begin_marker(key)}' … '{end_marker(key)}'")
        blocks[key] = text[match.end():end].strip("\n")
    return blocks


def replace_blocks(text: str, blocks: Mapping[str, str]) -> str:
    """``text`` with each block of ``blocks`` that it holds replaced by its new content (others left as they are)."""
    read_blocks(text)  # refuse a malformed page before changing it
    for key, content in blocks.items():
        pattern = re.compile(rf"^<!-- BEGIN GENERATED {re.escape(key)}(?:: .*)? -->$.*?^{re.escape(end_marker(key))}$",
                             re.M | re.S)
        block = f"{begin_marker(key)}\n\n{content}\n\n{end_marker(key)}"
        text = pattern.sub(lambda _, block=block: block, text)  # a function: the content's backslashes stay as written
    return text


def new_page(name: str, blocks: Mapping[str, str], directory: Path = GAMES_DIR) -> str:
    """The page ``--write`` starts for a game that has none: its title and its three blocks (``directory``
    :data:`TEXT_DIR`: its text view's title and block)."""
    game = load_game(name)
    if directory == TEXT_DIR:
        (key,) = blocks
        return "\n".join([f"# {game.type.long_name} as text", "", begin_marker(key), "", blocks[key], "",
                          end_marker(key), ""])
    parts = [f"# {game.type.long_name} (`{game.type.env_id}`)", ""]
    for key, title in zip(blocks, ("The environment", "Observation layout", "Action indices")):
        parts += [f"## {title}", "", begin_marker(key), "", blocks[key], "", end_marker(key), ""]
    return "\n".join(parts)


def check(root: Path | str, names: Iterable[str] | None = None) -> list[str]:
    """Every difference between the pages under ``root`` and the declarations, in words (empty: all current)."""
    problems = []
    for page, blocks in expected_blocks(names).items():
        path = Path(root) / page
        if not path.is_file():
            problems.append(f"{page}: missing (it should hold the generated blocks {', '.join(blocks)})")
            continue
        try:
            found = read_blocks(path.read_text(encoding="utf-8"))
        except DocsError as error:
            problems.append(f"{page}: {error}")
            continue
        for key, content in blocks.items():
            if key not in found:
                problems.append(f"{page}: no generated block {key!r} (add '{begin_marker(key)}' and "
                                f"'{end_marker(key)}')")
            elif found[key] != content:
                problems.append(f"{page}: block {key!r} differs from the declarations")
    return problems


def write(root: Path | str, names: Iterable[str] | None = None) -> list[Path]:
    """Rewrite every generated block under ``root`` (a game's page that does not exist is created); the pages
    changed. A page that lacks a block keeps lacking it (:func:`check` names it): where it goes is the author's
    choice."""
    changed = []
    for page, blocks in expected_blocks(names).items():
        path = Path(root) / page
        if not path.is_file() and page.parent in (GAMES_DIR, TEXT_DIR) and page.name != "index.md":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new_page(page.stem, blocks, page.parent), encoding="utf-8")
            changed.append(page)
            continue
        if not path.is_file():
            continue
        old = path.read_text(encoding="utf-8")
        new = replace_blocks(old, blocks)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


def main(argv: list[str] | None = None) -> int:
    """``--check``: exit 1 naming each out-of-date block; ``--write``: regenerate them. Exit 0 otherwise."""
    parser = argparse.ArgumentParser(prog="python -m traitors_env.core.docs", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated block is out of date")
    mode.add_argument("--write", action="store_true", help="regenerate every generated block")
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="the repository root whose docs/ to check or write (default: the current folder)")
    args = parser.parse_args(argv)
    if args.write:
        for page in write(args.root):
            print(f"wrote {page}")
        return 0
    problems = check(args.root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"run: {COMMAND}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
