"""``traitors-play --web`` (issue 53): people at seats in the browser against bots, every registered game.

Secrecy: whenever a seat's page is sent its data while that seat is to decide (the game waits on it), the data must be
what :func:`seat_payload` builds from a copy of the game with everything that seat cannot know redrawn (the game's
``hidden_variant``), twice; so the page is sent nothing of another seat's hand or role, and a leak planted in what
the server sends fails the check. The log's lines are the terminal's (``event_text`` and notes), whose secrecy
``test_play.py`` checks. The browser tests drive the system's Chromium through Playwright (skipped, saying why,
where either is missing) and play whole games by clicking the legal buttons; their records feed ``traitors-eval
--played``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import browser_missing, chromium, docs_screenshot, new_page

from traitors_env.agents import make_agent
from traitors_env.core.registry import load_game, loadable_games
from traitors_env.evaluation.cli import main as eval_main
from traitors_env.table.play import main as play_main

pytest.importorskip("starlette", reason="traitors-play --web needs the web extra (starlette, uvicorn)")
pytest.importorskip("uvicorn", reason="traitors-play --web needs the web extra (starlette, uvicorn)")

from traitors_env.web.play_server import PlayServer  # noqa: E402
from traitors_env.web.table import ABANDONED, FAILED, OVER, PLAYING, WebTable, seat_payload  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def games_with(capability: str) -> list[str]:
    return [game.name for game in loadable_games() if getattr(game, capability) is not None]


def make_table(name: str, num_players: int, humans, seed: int, beliefs: bool = False) -> WebTable:
    game = load_game(name)
    bots = [None if s in humans else make_agent("heuristic", seed=seed + s, game=game) for s in range(num_players)]
    labels = ["human" if s in humans else "heuristic" for s in range(num_players)]
    advisors = {s: make_agent("heuristic", seed=seed + 100 + s, game=game) for s in humans} if beliefs else None
    return WebTable(game, num_players, humans, bots, seed, labels=labels, advisors=advisors, advisor_label="heuristic")


# ------------------------------------------------------------------------------------------------ a seat over HTTP
class Seat:
    """One seat's page as a script: the same requests as play.js."""

    def __init__(self, url: str, token: str) -> None:
        self.base, self.token = url.split("#")[0], token

    def request(self, path: str, body: object = None, token: str | None = None, headers: dict | None = None,
                raw: bytes | None = None) -> tuple[int, dict]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, headers={
            "X-Seat-Token": self.token if token is None else token, "Content-Type": "application/json",
            **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def state(self, since: int = 0) -> dict:
        status, payload = self.request(f"api/state?since={since}")
        assert status == 200, payload
        return payload

    def act(self, decision, action) -> tuple[int, dict]:
        return self.request("api/act", {"decision": decision, "action": action})


def pick(payload: dict, rng: np.random.Generator) -> int:
    """A legal action of the seat's open decision, as a person clicking at random would (rarely one that asks to be
    confirmed: in Traitors Aboard, opening the chest ends the game)."""
    leaves = []
    for choice in payload["decision"]["choices"]:
        leaves.extend(choice["submenu"]["choices"] if choice["submenu"] else [choice])
    calm = [c for c in leaves if c["confirm"] is None]
    pool = calm if calm and rng.random() < 0.9 else leaves
    return pool[int(rng.integers(len(pool)))]["action"]


def check_secrecy(table: WebTable, seat: int, sent: dict, rng: np.random.Generator) -> None:
    """Raises AssertionError where ``sent`` (a seat's data at its decision) holds what that seat cannot know."""
    state = table.env.game
    for redraw in range(2):  # two redraws: a secret kept by one redraw by chance is changed by the other
        variant = table.game.hidden_variant(state, seat, rng)
        expected = json.loads(json.dumps(seat_payload(table, seat, variant)))
        assert sent == expected, (f"player_{seat}'s page data changes when what player_{seat} cannot know is "
                                  f"redrawn (redraw {redraw}, version {sent['version']})")


def play_over_http(table: WebTable, seed: int, secrecy: bool = True) -> dict[int, dict]:
    """Play ``table`` to its end through its server, every human seat answering at random; returns the last data."""
    rng = np.random.default_rng(seed)
    with PlayServer(table, "a table", "127.0.0.1", 0, long_poll=5) as server:
        table.start()
        seats = {s: Seat(server.url, table.tokens[s]) for s in table.humans}
        last: dict[int, dict] = {}
        answered = {s: 0 for s in seats}  # the version a seat answered at: its next data is newer (a long poll)
        for _ in range(5000):
            moved = False
            for seat, client in seats.items():
                payload = last[seat] = client.state(answered[seat])
                if payload["status"] != PLAYING or payload["decision"] is None:
                    continue
                if secrecy and payload["version"] == table.published:
                    # The game waits on this seat, so every seat's page data is what the table holds now.
                    check_secrecy(table, seat, payload, rng)
                    for other, other_client in seats.items():
                        if other != seat:
                            check_secrecy(table, other, other_client.state(), rng)
                status, body = client.act(payload["decision"]["id"], pick(payload, rng))
                assert status == 200, body
                answered[seat] = payload["version"]
                moved = True
            if any(p["status"] != PLAYING for p in last.values()):
                break
            if not moved:
                time.sleep(0.01)
        assert table.join(30), "the game did not end"
        last = {seat: client.state() for seat, client in seats.items()}
    return last


@pytest.mark.every_extra
@pytest.mark.parametrize("name", games_with("hidden_variant"))
def test_each_seats_page_is_sent_only_what_that_seat_may_know(name):
    game = load_game(name)
    sizes = sorted({game.type.min_players, game.type.default_players})
    for num_players in sizes:
        humans = [0, num_players - 1]
        table = make_table(name, num_players, humans, seed=num_players, beliefs=game.hidden_side is not None)
        last = play_over_http(table, seed=num_players)
        for seat in humans:
            end = last[seat]
            assert end["status"] == OVER and end["decision"] is None and end["result"]
            assert None not in [row["role"] for row in end["seats"]], "the end reveals every role"
        if game.records is not None:
            assert table.record.finished and [table.record.seats[s] for s in humans] == ["human", "human"]


def test_a_leak_planted_in_what_the_server_sends_fails_the_secrecy_check(monkeypatch):
    honest = WebTable.payload

    def leaky(self, seat):  # the server also sends one other seat's role
        payload = dict(honest(self, seat))
        other = (seat + 1) % self.n
        payload["seats"] = [dict(row) for row in payload["seats"]]
        payload["seats"][other]["role"] = self.view.seat_roles(self.env.game, other, False)[other]
        return payload

    monkeypatch.setattr(WebTable, "payload", leaky)
    with pytest.raises(AssertionError, match="cannot know"):
        play_over_http(make_table("traitors_aboard", 5, [0], seed=4), seed=4)


def test_a_seat_is_answered_only_with_its_own_token_and_a_bad_answer_is_refused_in_words():
    table = make_table("traitors_aboard", 5, [0, 2], seed=5)
    with PlayServer(table, "a table", "127.0.0.1", 0, long_poll=2) as server:
        table.start()
        zero, two = Seat(server.url, table.tokens[0]), Seat(server.url, table.tokens[2])
        status, body = zero.request("api/state?since=0", token="not-a-token")
        assert status == 403 and "seat token is not one of this table's" in body["error"]
        status, body = zero.request("api/state?since=0", token="")
        assert status == 403
        status, body = zero.request("api/state?since=x")
        assert status == 400 and "'x' is not a version" in body["error"]
        assert zero.state()["seat"] == 0 and two.state()["seat"] == 2
        # Wait for seat 0's first decision (seat 0 opens a Traitors Aboard game).
        payload = zero.state()
        while payload["decision"] is None:
            payload = zero.state(payload["version"])
        decision = payload["decision"]["id"]
        legal = [c["action"] for c in payload["decision"]["choices"] if c["action"] is not None]
        status, body = two.act(decision, legal[0])
        assert status == 409 and "is not player_2's open decision" in body["error"]
        status, body = zero.act(decision, 10_000)
        assert status == 400 and "action 10000 is not a legal action" in body["error"]
        status, body = zero.act(decision, True)
        assert status == 400
        status, body = zero.act(float(decision), legal[0])
        assert status == 409 and f"decision {float(decision)} is not" in body["error"]
        status, body = zero.request("api/act", raw=b"[" * 1500 + b"]" * 1500)  # nested past Python's recursion limit
        assert status == 400 and "expected a JSON object" in body["error"]
        status, body = zero.act(decision + 1, legal[0])
        assert status == 409 and f"(that is {decision})" in body["error"]
        status, body = zero.request("api/act", raw=b"{not json")
        assert status == 400 and "expected a JSON object" in body["error"]
        status, body = zero.request("api/act", raw=b'{"decision": 1}', headers={"Content-Type": "text/plain"})
        assert status == 415
        status, body = zero.request("api/act", raw=b"{}", headers={"Content-Type": "Application/JSON; charset=utf-8"})
        assert status == 400  # read as JSON (media types ignore case), then refused for what it holds
        status, body = zero.request("api/act", raw=b"x" * 5000)
        assert status == 413
        # Another site's name for this server (DNS rebinding) is refused.
        request = urllib.request.Request(server.url + "api/state", headers={"Host": "evil.example",
                                                                            "X-Seat-Token": table.tokens[0]})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 400
        # The page names no seed and holds no token.
        page = urllib.request.urlopen(server.url, timeout=30).read().decode()
        assert table.tokens[0] not in page and str(table.seed) not in page
        status, body = zero.act(decision, legal[0])
        assert status == 200
        status, body = zero.act(decision, legal[0])
        assert status == 409  # answered already
        status, body = two.request("api/leave", body={})
        assert status == 200
        assert table.join(30) and table.status == ABANDONED
        end = zero.state()
        assert end["status"] == ABANDONED and "player_2 left the table" in end["message"]
        assert end["result"] is None and not any(end["seats"][s]["role"] for s in (1, 3, 4))
    assert table.record is not None and not table.record.finished


def test_a_failing_bot_ends_the_game_keeping_the_record():
    table = make_table("traitors_aboard", 4, [0], seed=6)

    class Broken:
        def act(self, observation, mask):
            raise RuntimeError("the bot broke")

    table.driver.bots[1] = Broken()
    last = play_over_http(table, seed=6, secrecy=False)
    assert table.status == FAILED and "RuntimeError: the bot broke" in last[0]["message"]
    assert table.record is not None and not table.record.finished


def test_with_several_people_every_decision_is_asked_forced_ones_too():
    """A Good Avalon player has one quest card, an Evil one chooses: were the Good person's card played for them, the
    table would wait only on Evil people, and the others would see it. With one person a forced move is taken for
    them (nobody else at the table could tell)."""
    from traitors_env.table.driver import TableGame
    from traitors_env.table.text_view import view_of

    game = load_game("avalon")
    asked: dict[int, list[int]] = {}
    for humans in ([0, 1, 2, 3, 4], [0]):
        env = game.raw_env(num_players=5)
        bots = [None if s in humans else make_agent("heuristic", seed=s, game=game) for s in range(5)]
        rng, key = np.random.default_rng(1), len(humans)

        def decide(seat, observation, legal, events, rng=rng, key=key):
            asked.setdefault(key, []).append(len(legal))
            return legal[int(rng.integers(len(legal)))]

        TableGame(env, view_of(game), bots, humans).play(3, decide)
        assert env.game.is_terminal
    assert 1 in asked[5], "several people: a decision with one legal action is asked too"
    assert 1 not in asked[1], "one person: a forced move is taken for them"


def test_a_waiting_seat_sees_the_games_table_not_the_raw_observation():
    for name in ("the_traitors", "avalon", "traitors_aboard"):
        table = make_table(name, 5, [2], seed=3)
        text = table.payload(2)["table"]
        assert "observes:" not in text and "player_2" in text, (name, text)


# ------------------------------------------------------------------------------------------------ the command
class Command:
    """``traitors-play --web …`` in a process of its own; :attr:`urls` the seats' addresses it printed."""

    def __init__(self, argv: list[str], cwd: Path, seats: int) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "traitors_env.table.play", "--web", *argv], cwd=cwd,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()
        self.output: list[str] = []
        self.urls: dict[int, str] = {}
        deadline = time.monotonic() + 120
        while len(self.urls) < seats:
            line = self.lines.get(timeout=max(1.0, deadline - time.monotonic()))
            self.output.append(line)
            found = re.search(r"player_(\d+) \((.*)\): (http://\S+)", line)
            if found:
                self.urls[int(found.group(1))] = found.group(3)

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        status = self.process.wait(timeout)
        time.sleep(0.1)
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return status, "".join(self.output)


def test_the_command_plays_over_http_and_saves_the_record_with_the_peoples_names(tmp_path):
    record = tmp_path / "records" / "game.json"
    command = Command(["--players", "5", "--seat", "1", "--seat", "3", "--name", "ada", "--seed", "11",
                       "--record", str(record)], tmp_path, seats=2)
    rng = np.random.default_rng(0)
    seats = {s: Seat(url, url.split("token=")[1]) for s, url in command.urls.items()}
    final = None
    answered = {s: 0 for s in seats}
    while final is None:
        for seat, client in seats.items():
            payload = client.state(answered[seat])
            final = payload if payload["final"] else final
            if payload["status"] == PLAYING and payload["decision"] is not None:
                assert client.act(payload["decision"]["id"], pick(payload, rng))[0] == 200
                answered[seat] = payload["version"]
        time.sleep(0.01)
    status, out = command.finish()
    assert status == 0, out
    saved = json.loads(record.read_text())
    assert saved["result"] is not None and saved["seats"][1] == "human:ada" and saved["seats"][3] == "human"
    assert saved["seats"][0] == "heuristic" and f"Game record saved to {record}" in " ".join(out.split())
    assert "Seed 11." in out and final["saved"] == str(record) and final["seed"] == 11


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_a_stop_signal_mid_game_keeps_the_unfinished_record(tmp_path, how):
    import signal

    record = tmp_path / "game.json"
    command = Command(["--players", "5", "--seat", "0", "--seat", "2", "--seed", "5", "--record", str(record)], tmp_path,
                      seats=2)
    seat = Seat(command.urls[0], command.urls[0].split("token=")[1])
    payload = seat.state()
    while payload["decision"] is None:
        payload = seat.state(payload["version"])
    assert seat.act(payload["decision"]["id"], pick(payload, np.random.default_rng(0)))[0] == 200
    time.sleep(0.3)
    command.process.send_signal(getattr(signal, how))
    status, out = command.finish()
    assert status == 1 and "abandoned" in out, out
    saved = json.loads(record.read_text())
    assert saved["result"] is None and len(saved["decisions"]) >= 1 and saved["seats"][0] == "human"


@pytest.mark.parametrize(("argv", "words"), [
    (["--seat", "0", "--seat", "0"], "a seat is given twice"),
    (["--seat", "0", "--seat", "9", "--web"], "--seat 9: expected a seat in 0–4"),
    (["--seat", "1", "--seat", "2"], "several people at one table play in the browser, with --web"),
    (["--seat", "1", "--name", "a", "--name", "b", "--web"], "--name given 2 times for 1 seat(s)"),
    (["--name", "", "--web"], "--name '': expected a short name"),
    (["--web", "--host", "127.0.0.1:80"], "is not an address"),
    (["--web", "--port", "70000"], "is not a port"),
])
def test_bad_web_command_lines_are_refused_clearly(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        play_main(["--players", "5", *argv])
    assert exit_.value.code == 2 and words in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ in the browser
@pytest.fixture(scope="module")
def browser():
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    with chromium() as instance:
        yield instance


def click_until_over(pages: list, rng: np.random.Generator, limit: int = 3000, screenshot=None) -> int:
    """Click a random enabled button of each page whose seat is to decide, until every page shows the end; returns
    the clicks. A choice that asks to be confirmed is confirmed half the time (the other half goes back)."""
    clicks = 0
    for _ in range(limit):
        states = [page.evaluate("document.body.dataset.status || ''") for page in pages]
        if all(s and s != PLAYING for s in states):
            return clicks
        moved = False
        for page in pages:
            ready = page.evaluate("""() => document.body.dataset.status === 'playing' && document.body.dataset.decision
                && document.querySelectorAll('#choices button:not(:disabled)').length > 0""")
            if not ready:
                continue
            buttons = page.locator("#choices button:not(:disabled)")
            texts = buttons.all_text_contents()
            listing = page.get_attribute("#choices", "data-list")
            options = list(range(len(texts)))
            if listing == "menu" and rng.random() < 0.9:  # mostly keep Traitors Aboard's game going (R03)
                calm = [i for i in options if "open the chest" not in texts[i].lower()]
                options = calm or options
            if screenshot is not None and clicks >= 6 and listing == "menu":
                screenshot(page)  # the seat's turn, its choices open
                screenshot = None
            buttons.nth(options[int(rng.integers(len(options)))]).click()
            clicks += 1
            moved = True
        if not moved:
            pages[0].wait_for_timeout(20)
    raise AssertionError("the game did not end in the browser")


@pytest.mark.every_extra
@pytest.mark.parametrize("name", [game.name for game in loadable_games()])
def test_a_person_plays_a_whole_game_of_each_game_in_the_browser(browser, name, tmp_path):
    game = load_game(name)
    record = tmp_path / "records" / "game.json"
    argv = ["--game", name, "--seat", "0", "--name", "tester", "--seed", "7"]
    argv += ["--record", str(record)] if game.records is not None else []
    beliefs = game.hidden_side is not None
    argv += ["--show-beliefs"] if beliefs else []
    command = Command(argv, tmp_path, seats=1)
    page, errors = new_page(browser, viewport={"width": 1400, "height": 900})
    try:
        page.goto(command.urls[0])
        page.wait_for_selector("body[data-status]", state="attached")
        assert page.inner_text("#position") == "you are player_0"
        roles = page.locator("#table svg .seat .role").all_text_contents()
        assert roles[0] != "?" and roles.count("?") >= 1, "a seat sees its own role, not every other"
        shots = []

        def screenshot(p):
            if name == "traitors_aboard" and beliefs:
                assert p.locator("#beliefs svg rect").count() > 0
                shots.append(docs_screenshot(p, "play-seat.png", tmp_path))

        clicks = click_until_over([page], np.random.default_rng(7), screenshot=screenshot)
        page.wait_for_selector("body[data-status='over']", state="attached")
        assert clicks >= 1 and page.is_visible("#result") and "?" not in page.locator(
            "#table svg .seat .role").all_text_contents()
        status, out = command.finish()
        assert status == 0, out
        assert errors == []
        if name == "traitors_aboard":
            assert shots, "the docs' screenshot was taken"
    finally:
        page.close()
        if command.process.poll() is None:
            command.process.kill()
    if game.records is not None:
        saved = json.loads(record.read_text())
        assert saved["result"] is not None and saved["seats"][0] == "human:tester"
        # The kit reads the person's record: traitors-eval --played.
        assert eval_main(["--played", str(record.parent), "--out", str(tmp_path / "report")]) == 0
        report = json.loads((tmp_path / "report" / "played.json").read_text())
        row = next(r for r in report["rows"] if r["player"] == "human:tester")
        assert row["human"] and row["all"]["games"] == 1


def test_two_people_play_one_table_each_in_a_tab_of_their_own_and_the_kit_reports_them(browser, tmp_path):
    records = tmp_path / "records"
    outcomes = []
    for seed in (21, 22):
        command = Command(["--players", "4", "--seat", "0", "--seat", "2", "--name", "ada", "--name", "bo", "--seed",
                           str(seed), "--record", str(records / f"game{seed}.json")], tmp_path, seats=2)
        pages = []
        try:
            for seat in (0, 2):
                page, errors = new_page(browser)
                page.goto(command.urls[seat])
                pages.append((page, errors))
            click_until_over([p for p, _ in pages], np.random.default_rng(seed))
            for (page, errors), seat in zip(pages, (0, 2)):
                assert page.inner_text("#position") == f"you are player_{seat}" and errors == []
            status, out = command.finish()
            assert status == 0, out
        finally:
            for page, _ in pages:
                page.close()
            if command.process.poll() is None:
                command.process.kill()
        outcomes.append(json.loads((records / f"game{seed}.json").read_text()))
    assert eval_main(["--played", str(records), "--out", str(tmp_path / "report")]) == 0
    report = json.loads((tmp_path / "report" / "played.json").read_text())
    rows = {row["player"]: row for row in report["rows"]}
    assert {"human:ada", "human:bo", "human (all)", "heuristic"} <= set(rows)
    assert rows["human:ada"]["all"]["games"] == 2 and rows["human:bo"]["all"]["games"] == 2
    for record in outcomes:
        assert record["seats"][0] == "human:ada" and record["seats"][2] == "human:bo"


def test_a_port_in_use_is_refused_naming_it(tmp_path, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["--web", "--players", "5", "--port", str(port), "--record", str(tmp_path / "game.json")]
        assert play_main(argv) == 2
    assert f"cannot serve on --host 127.0.0.1 --port {port}" in capsys.readouterr().err
    assert not (tmp_path / "game.json").exists()
