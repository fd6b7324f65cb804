"""``traitors-eval --played RECORD_OR_FOLDER …``: win rates per player and side from saved game records.

Games played at the table (``traitors-play``, in the terminal or ``--web``) are saved with who played each seat
(``seats``: ``human`` or ``human:NAME`` at a person's seat, the bot's spec at the others). This report reads such
records, replays each one (a record that does not replay is refused, naming it), and gives every label's win rate as
each side with a 95 % Wilson interval, as DeepRole's table of play against people does (Serrino et al., 2019); every
person's seats also count together as ``human (all)`` where several names played. A record without labels or
without a result (an abandoned game) is counted but left out of the rates.

The unit is one player in one game: where a label holds several seats of one side in a game (four heuristic bots),
those seats share the game's result and count once, so the interval is not narrowed by seats that cannot differ.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..core.game import Game
from ..core.records import RecordError, record_files, replay
from ..core.registry import load_game, load_game_record
from ..core.stats import wilson_interval

__all__ = ["ALL_HUMANS", "PlayedError", "played_markdown", "played_report"]

#: The name of the row that pools every person's seats, where more than one person's label appears (``"pooled":
#: true``; a seat label of the same text stays a row of its own).
ALL_HUMANS = "human (all)"


class PlayedError(ValueError):
    """A path or record the report cannot take; the message names it and what was expected."""


def is_human(label: str) -> bool:
    """Whether a seat label names a person (``human``, or ``human:NAME`` with a name that is not blank)."""
    return label == "human" or (label.startswith("human:") and bool(label[6:].strip()))


def played_report(paths: Sequence[str | Path], game: str | Game | None = None) -> dict:
    """Win rates per seat label and side from the records under ``paths``.

    Args:
        game: the records' game (default: the game whose record format the first record names); every record must be
            of it.

    Returns:
        ``{"game", "sides", "records", "counted", "skipped": {reason: n}, "rows": [{"player", "human", "pooled",
        "sides": [{"games", "wins", "rate", "interval"}, …], "all": {…}}]}``: the pooled row of every person
        (:data:`ALL_HUMANS`, where several played) first, then people, then by games.

    Raises:
        PlayedError: naming the first path or record that cannot be read, replayed or is of another game.
    """
    try:
        files = record_files(paths)
    except RecordError as error:
        raise PlayedError(str(error)) from None
    games = None if game is None else load_game(game)
    tally: dict[str, list[list[int]]] = {}  # label -> per side [games, wins]
    pooled = [[0, 0], [0, 0]]  # every person's seats together
    skipped: dict[str, int] = {}
    for path in files:
        try:
            record, games = load_game_record(path, games)  # the first record's game, unless given: all of it
        except ValueError as error:  # RecordError, the game's too
            raise PlayedError(f"{path}: {error}") from None
        if record.seats is None:
            skipped["no seat labels"] = skipped.get("no seat labels", 0) + 1
            continue
        if not record.finished:
            skipped["unfinished"] = skipped.get("unfinished", 0) + 1
            continue
        try:
            state = replay(record)
        except ValueError as error:
            raise PlayedError(f"{path}: {error}") from None
        seen: set[tuple[str, int]] = set()
        people: set[int] = set()
        for seat, label in enumerate(record.seats):
            side = int(games.side_of_seat(state, seat))
            won = int(bool(games.seat_won(state, seat)))
            if (label, side) not in seen:  # a label's seats of one side share the game's result: one player
                seen.add((label, side))
                counts = tally.setdefault(label, [[0, 0], [0, 0]])
                counts[side][0] += 1
                counts[side][1] += won
            if is_human(label) and side not in people:
                people.add(side)
                pooled[side][0] += 1
                pooled[side][1] += won
    several = sum(is_human(label) for label in tally) >= 2  # one person's label is already their row

    def cell(games_: int, wins: int) -> dict:
        if not games_:
            return {"games": 0, "wins": 0, "rate": None, "interval": None}
        low, high = wilson_interval(wins, games_)
        return {"games": games_, "wins": wins, "rate": round(wins / games_, 4),
                "interval": [round(low, 4), round(high, 4)]}

    def row(player: str, counts, human: bool, is_pooled: bool) -> dict:
        return {"player": player, "human": human, "pooled": is_pooled,
                "sides": [cell(*counts[side]) for side in (0, 1)],
                "all": cell(counts[0][0] + counts[1][0], counts[0][1] + counts[1][1])}

    rows = [row(label, counts, is_human(label), False) for label, counts in tally.items()]
    rows.sort(key=lambda r: (not r["human"], -r["all"]["games"], r["player"]))
    if several:
        rows.insert(0, row(ALL_HUMANS, pooled, True, True))
    counted = len(files) - sum(skipped.values())
    return {"game": games.name, "sides": list(games.type.side_labels), "records": len(files), "counted": counted,
            "skipped": skipped, "rows": rows}


def _markdown_text(label: str) -> str:
    """A seat label as plain text in a markdown cell: no markup, HTML or link of its own (a label is anyone's text),
    a blank one shown as such."""
    if not label.strip():
        return f"(blank label {json.dumps(label)})"
    text = label.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|~" else c for c in text)


def played_markdown(report: dict) -> str:
    """The report as a markdown table: per player, the win rate [95 % interval] (games) as each side and overall."""

    def shown(cell: dict) -> str:
        if not cell["games"]:
            return "–"
        low, high = cell["interval"]
        return f"{100 * cell['rate']:.1f} % [{100 * low:.1f}, {100 * high:.1f}] ({cell['games']})"

    sides = report["sides"]
    lines = [f"# Played games: {report['game']}", "",
             f"{report['counted']} of {report['records']} records counted"
             + ("".join(f"; {n} {why}" for why, n in report["skipped"].items()) if report["skipped"] else "") + ".",
             "Win rate [95 % Wilson interval] (games), one player per game.", "",
             f"| player | as {sides[0]} | as {sides[1]} | overall |", "|---|---|---|---|"]
    for row in report["rows"]:
        player = f"*{row['player']}*" if row["pooled"] else _markdown_text(row["player"])
        lines.append(f"| {player} | {shown(row['sides'][0])} | {shown(row['sides'][1])} | {shown(row['all'])} |")
    return "\n".join(lines) + "\n"
