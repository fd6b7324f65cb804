"""``traitors-view``: a game record in the browser (traitors_env/web, traitors_env/table/web_view.py).

The secrecy tests need no server: a seat's payloads before the end are the same when everything that seat cannot know
is redrawn (``hidden_variant``), and show no other seat's role but those the game made public; a planted leak fails
them. The server, export and browser tests start what they need and stop it; the browser test drives the system's
Chromium through Playwright and skips where either is missing.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import browser_missing, chromium, docs_screenshot, new_page
from game_helpers import hidden_variant

from traitors_env.agents import make_agent
from traitors_env.agents.spec import agent_maker
from traitors_env.core.registry import load_game
from traitors_env.games.traitors_aboard.cards import ROLE_NAMES
from traitors_env.table.web_view import main
from traitors_env.web import payload as payload_module
from traitors_env.web.export import export_data, write_export
from traitors_env.web.payload import ReplayData, ViewError, view_names

ABOARD = load_game("traitors_aboard")
AVALON = load_game("avalon")


def played(game, num_players: int, seed: int):
    """A game of heuristic bots from ``seed``, and its env."""
    env = game.raw_env(num_players=num_players)
    env.reset(seed=seed)
    bots = [make_agent("heuristic", seed=seed + s, game=game) for s in range(num_players)]
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        seat = int(agent.removeprefix("player_"))
        env.step(None if termination or truncation
                 else bots[seat].act(observation["observation"], observation["action_mask"]))
    return env


@pytest.fixture(scope="module")
def aboard_record(tmp_path_factory):
    env = played(ABOARD, 5, 3)
    record = env.record(seats=["heuristic"] * 5)
    assert record.finished
    path = tmp_path_factory.mktemp("view") / "aboard.json"
    record.save(path)
    return path, record


@pytest.fixture(scope="module")
def avalon_record(tmp_path_factory):
    env = played(AVALON, 5, 3)
    record = AVALON.records.record_game(env.game, env.episode_seed, seats=["heuristic"] * 5)
    path = tmp_path_factory.mktemp("view") / "avalon.json"
    record.save(path)
    return path, record


def beliefs():
    return agent_maker("heuristic", game=ABOARD)


# ---------------------------------------------------------------------------------------------------- secrecy
def check_secrecy(record, view: str) -> None:
    """Raises AssertionError where a payload of ``view`` before the end holds what that viewpoint may not know."""
    data = ReplayData(record, ABOARD, beliefs())
    seat, _ = payload_module.parse_view(view, record.num_players)
    rng = np.random.default_rng(0)
    for redraw in range(2):  # two redraws: a secret kept by one redraw by chance is changed by the other
        variants = [hidden_variant(state, seat, rng) for state in data.states]
        other = ReplayData(record, ABOARD, beliefs(), states=variants)
        for step, state in enumerate(data.states):
            if state.is_terminal:
                continue
            shown = data.step_with_history(view, step)
            for s, row in enumerate(shown["seats"]):
                if s != seat and not state.revealed[s]:
                    assert row["role"] is None, f"{view} step {step}: player_{s}'s role {row['role']} is shown"
            assert json.dumps(other.step_with_history(view, step)) == json.dumps(shown), (
                f"{view} step {step}: the payload changes when what {view} cannot know is redrawn (redraw {redraw})")


@pytest.mark.parametrize("view", ["seat0", "seat2", "spectator"])
def test_a_viewpoints_payloads_hold_nothing_it_may_not_know_before_the_end(aboard_record, view):
    _, record = aboard_record
    check_secrecy(record, view)


def test_a_planted_leak_of_another_seats_role_fails_the_secrecy_check(aboard_record, monkeypatch):
    _, record = aboard_record
    honest = ReplayData._step

    def leaky_roles(self, view, step):
        shown = honest(self, view, step)
        shown["seats"] = [{**row, "role": ROLE_NAMES[self.states[step].roles[s]]} for s, row in enumerate(shown["seats"])]
        return shown

    monkeypatch.setattr(ReplayData, "_step", leaky_roles)
    with pytest.raises(AssertionError, match="role"):
        check_secrecy(record, "seat2")

    def leaky_extra(self, view, step):  # a leak outside the seats: only the redraw can find it
        return {**honest(self, view, step), "debug": [int(r) for r in self.states[step].roles]}

    monkeypatch.setattr(ReplayData, "_step", leaky_extra)
    with pytest.raises(AssertionError, match="redrawn"):
        check_secrecy(record, "seat2")


def test_a_seat_sees_others_decisions_as_the_spectator_does_and_the_meta_holds_no_result(aboard_record):
    _, record = aboard_record
    data = ReplayData(record, ABOARD)
    for step, decision in enumerate(record.decisions, start=1):
        if decision.agent != "player_2":
            assert data.step("seat2", step)["event"] == data.step("spectator", step)["event"]
        else:
            assert data.step("seat2", step)["event"].startswith("You (player_2)")
    meta = json.dumps(data.meta())
    assert "result" not in meta and "Mutineer" not in meta and "Pirate" not in meta
    assert data.meta()["views"] == ["spectator", "seat0", "seat1", "seat2", "seat3", "seat4", "all"]


def test_the_end_reveals_every_role_and_the_beliefs_are_per_seat_over_time(aboard_record):
    _, record = aboard_record
    data = ReplayData(record, ABOARD, beliefs())
    end = data.step_with_history("seat1", data.last)
    assert end["finished"] and all(row["role"] in ("Pirate", "Mutineer") for row in end["seats"])
    assert "Game over" in end["content"] and len(end["belief_history"]) == data.last + 1
    for row in end["belief_history"]:
        assert row[1] is None and all(p is None or 0 <= p <= 1 for p in row)
    assert data.step("spectator", 5)["beliefs"] is None and data.meta()["beliefs"]["hidden"] == "Mutineers"
    assert [entry[0] for entry in end["log"]] == list(range(1, data.last + 1))


def test_any_game_with_records_is_shown_avalon_included(avalon_record):
    _, record = avalon_record
    data = ReplayData(record, AVALON)
    states = data.states
    for seat in range(record.num_players):
        roles = [row["role"] for row in data.step(f"seat{seat}", 1)["seats"]]
        known = set(states[1].known_evil(seat)) | {seat}
        assert all((role is not None) == (s in known) for s, role in enumerate(roles)), (seat, roles)
    assert all(row["role"] is None for row in data.step("spectator", 1)["seats"])
    assert all(row["role"] is not None for row in data.step("spectator", data.last)["seats"])


def test_a_bad_viewpoint_or_step_is_refused_naming_it(aboard_record):
    _, record = aboard_record
    data = ReplayData(record, ABOARD)
    for view in ("seat5", "seat01", "player_1", "", "seat-1"):
        with pytest.raises(ViewError, match=re.escape(f"view {view!r} is not a viewpoint")):
            data.step(view, 0)
    for step in (-1, data.last + 1, "x", "1.5", True):
        with pytest.raises(ViewError, match=f"expected 0–{data.last}"):
            data.step_with_history("spectator", step)


# ---------------------------------------------------------------------------------------------------- export
def embedded(index: Path) -> dict:
    text = index.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', text, flags=re.S)
    assert found, "index.html embeds no data"
    return json.loads(found.group(1))


def test_the_static_export_writes_the_page_with_every_viewpoint(aboard_record, tmp_path, capsys):
    path, record = aboard_record
    out = tmp_path / "site"
    assert main([str(path), "--html", str(out)]) == 0
    assert f"Wrote {out / 'index.html'}" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "table.js", "viewer.css", "viewer.js"]
    data = embedded(out / "index.html")
    assert data == json.loads(json.dumps(export_data(ReplayData(record, ABOARD))))
    assert list(data["views"]) == view_names(5) and len(data["views"]["seat3"]) == len(record.decisions) + 1
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'src="viewer.js"' in html and "http" not in html.replace("http-equiv", "")  # nothing from the network
    for script in ("viewer.js", "table.js"):
        js = (out / script).read_text(encoding="utf-8")
        assert "innerHTML" not in js and "eval(" not in js


def test_the_export_refuses_a_file_in_place_of_its_folder(aboard_record, tmp_path, capsys):
    path, _ = aboard_record
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main([str(path), "--html", str(blocker / "site")]) == 2
    assert f"--html {blocker / 'site'}" in capsys.readouterr().err
    with pytest.raises(NotADirectoryError, match="is a file"):
        write_export(ReplayData(load_record(path), ABOARD), "t", blocker)


def load_record(path):
    return ABOARD.records.load_record(path)


# ---------------------------------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_naming_the_bad_value(aboard_record, avalon_record, tmp_path, capsys):
    path, _ = aboard_record
    missing = tmp_path / "missing.json"
    assert main([str(missing)]) == 2
    assert f"record file {str(missing)!r} does not exist" in capsys.readouterr().err
    assert main([str(path), "--game", "avalon"]) == 2
    err = capsys.readouterr().err
    assert "format='traitors-aboard-record'; expected 'avalon-record'" in err and str(path) in err
    for port in ("70000", "-1", "http"):
        with pytest.raises(SystemExit):
            main([str(path), "--port", port])
        assert f"--port: {port!r} is not a port; expected 0 (any free port) to 65535" in capsys.readouterr().err
    assert main([str(path), "--game", "the_traitors"]) == 2
    assert "the_traitors_v0 has no game records" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(path), "--beliefs", "random"])
    assert "--beliefs random: this agent has no role beliefs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(path), "--beliefs", "heuristik"])
    err = capsys.readouterr().err
    assert "--beliefs heuristik: agent 'heuristik'" in err and "did you mean 'heuristic'" in err


def test_without_the_web_extra_serving_says_what_to_install_and_the_export_works(aboard_record, tmp_path, capsys,
                                                                                  monkeypatch):
    path, _ = aboard_record
    for name in ("starlette", "uvicorn", "traitors_env.web.server"):
        monkeypatch.setitem(sys.modules, name, None)  # as if the web extra were not installed
    assert main([str(path)]) == 2
    assert "serving needs the web extra" in capsys.readouterr().err
    assert main([str(path), "--html", str(tmp_path / "site")]) == 0 and (tmp_path / "site" / "viewer.js").exists()


# ---------------------------------------------------------------------------------------------------- server
def server_modules():
    pytest.importorskip("starlette", reason="the viewer's server needs the web extra (starlette, uvicorn)")
    pytest.importorskip("uvicorn", reason="the viewer's server needs the web extra (starlette, uvicorn)")
    from traitors_env.web.server import ViewerServer

    return ViewerServer


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def test_the_server_serves_the_page_and_each_step_for_its_viewpoint(aboard_record):
    ViewerServer = server_modules()
    _, record = aboard_record
    data = ReplayData(record, ABOARD, beliefs())
    with ViewerServer(data, "a game", "127.0.0.1", 0) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        status, page = get(server.url)
        assert status == 200 and 'src="/static/viewer.js"' in page and "viewer-data" not in page
        status, meta = get(server.url + "api/meta")
        assert status == 200 and json.loads(meta) == json.loads(json.dumps(data.meta()))
        status, step = get(server.url + "api/step?view=seat2&step=5")
        assert status == 200 and json.loads(step) == json.loads(json.dumps(data.step_with_history("seat2", 5)))
        status, error = get(server.url + "api/step?view=seat9&step=5")
        assert status == 400 and "view 'seat9' is not a viewpoint" in json.loads(error)["error"]
        status, error = get(server.url + "api/step?view=all&step=999")
        assert status == 400 and "step 999 is not a step of this record" in json.loads(error)["error"]
        status, script = get(server.url + "static/viewer.js")
        assert status == 200 and "loadStep" in script
        assert get(server.url + "static/other.js")[0] == 404
        port = server.port
    assert not server._thread.is_alive()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass


def test_a_port_in_use_is_refused_naming_it(aboard_record, capsys):
    server_modules()
    path, _ = aboard_record
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main([str(path), "--port", str(port)]) == 2
    assert f"cannot serve on --host 127.0.0.1 --port {port}" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------- browser
@pytest.fixture
def browser_page():
    server_modules()  # before the browser starts: without the web extra there is nothing to browse
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    with chromium() as browser:
        yield new_page(browser)


@pytest.fixture
def browser_page_if_any():
    """The browser page where Playwright and Chromium are there, else None."""
    if browser_missing():
        yield None
        return
    with chromium() as browser:
        yield new_page(browser)


def lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def wait_for(page, step: int, view: str) -> None:
    page.wait_for_selector(f'body[data-step="{step}"][data-view="{view}"]', state="attached")


def test_a_browser_steps_through_a_replay_with_the_keyboard(browser_page, aboard_record, tmp_path):
    page, errors = browser_page
    ViewerServer = server_modules()
    _, record = aboard_record
    data = ReplayData(record, ABOARD, beliefs())
    last = data.last
    with ViewerServer(data, "a game", "127.0.0.1", 0) as server:
        page.goto(server.url)
        wait_for(page, 0, "spectator")
        for step in (1, 2, 3):
            page.keyboard.press("ArrowRight")
            wait_for(page, step, "spectator")
        assert lines(page.inner_text("#content")) == lines(data.step("spectator", 3)["content"])
        assert page.locator("#table svg .seat").count() == 5
        assert page.locator("#table svg .seat .role").all_text_contents() == ["?"] * 5
        page.keyboard.press("End")
        wait_for(page, last, "spectator")
        assert "Game over" in page.inner_text("#content") and page.is_visible("#result")
        assert "?" not in page.locator("#table svg .seat .role").all_text_contents()
        page.keyboard.press("ArrowLeft")
        wait_for(page, last - 1, "spectator")
        assert page.eval_on_selector("#link", "a => a.getAttribute('href')") == f"#step={last - 1}&view=spectator"
        # A seat's viewpoint, by the link to a move: its own role only, its beliefs, then the end by the keyboard.
        page.goto(server.url + "#step=4&view=seat1")
        page.reload()
        wait_for(page, 4, "seat1")
        content = page.inner_text("#content")
        assert "You are player_1" in content and lines(content) == lines(data.step("seat1", 4)["content"])
        roles = page.locator("#table svg .seat .role").all_text_contents()
        assert roles[1] in ("Pirate", "Mutineer") and roles[:1] + roles[2:] == ["?"] * 4
        assert page.locator("#beliefs svg rect").count() == 5 * 5
        # The docs' picture of the viewer: a seat's view mid-game with its belief strip (docs/viewer.md).
        page.set_viewport_size({"width": 1400, "height": 900})
        page.goto(server.url + f"#step={last // 2}&view=seat1")
        wait_for(page, last // 2, "seat1")
        assert page.locator("#beliefs svg rect").count() == 5 * (last // 2 + 1)
        docs_screenshot(page, "viewer-seat.png", tmp_path)
        page.keyboard.press("Home")
        wait_for(page, 0, "seat1")
        page.keyboard.press("End")
        wait_for(page, last, "seat1")
        assert "Game over" in page.inner_text("#content") and "You (" in page.inner_text("#content")
        assert page.locator("#log li").count() == len([s for s in data.view_steps("seat1") if s["event"]])
    # The static export, from file://, without the server.
    index = write_export(data, "a game", tmp_path / "site")
    page.goto(index.as_uri() + "#step=2&view=all")
    wait_for(page, 2, "all")
    assert lines(page.inner_text("#content")) == lines(data.step("all", 2)["content"])
    page.keyboard.press("ArrowRight")
    wait_for(page, 3, "all")
    assert page.locator("#log li").count() == 3 and "?" not in page.locator("#table svg .seat .role").all_text_contents()
    assert errors == []


# ---------------------------------------------------------------------------------------------------- what the record tells
SEED = 987654321  # distinctive: searched for in the payloads' JSON text


@pytest.fixture(scope="module")
def telling_record(tmp_path_factory):
    """A finished game whose seed is distinctive and whose seats are labelled by side, as a cross-play record's are."""
    env = played(ABOARD, 5, SEED)
    record = env.record(seats=[f"side{int(role)}-bot" for role in env.game.roles])
    assert record.finished and len(set(record.seats)) == 2
    path = tmp_path_factory.mktemp("view") / "telling.json"
    record.save(path)
    return path, record


def test_no_seat_or_spectator_is_sent_the_seed_or_labels_that_tell_the_sides_before_the_end(telling_record):
    _, record = telling_record
    data = ReplayData(record, ABOARD)
    meta = json.dumps(data.meta())
    assert str(SEED) not in meta and "-bot" not in meta and data.meta()["players"] is None
    for view in view_names(5)[:-1]:
        for step in range(data.last):
            text = json.dumps(data.step_with_history(view, step))
            assert str(SEED) not in text and "-bot" not in text, (view, step)
        end = json.dumps(data.step(view, data.last))
        assert str(SEED) in end and "side" in end, view  # the end tells everything
    assert str(SEED) in data.step("all", 0)["title"] and data.step("all", 1)["seats"][0]["player"] == record.seats[0]
    alike = ReplayData(record.model_copy(update={"seats": ["heuristic"] * 5}), ABOARD)
    assert alike.meta()["players"] == ["heuristic"] * 5  # labels alike tell nothing: shown
    assert alike.step("seat1", 1)["seats"][3]["player"] == "heuristic"


def test_traitors_replay_shows_the_seed_and_side_labels_only_revealed_or_at_the_end(telling_record):
    from rich.console import Console

    from traitors_env.table.replay import main as replay_main

    path, record = telling_record
    last = len(record.decisions)
    for argv, told in ((["--seat", "1"], False), ([], False), (["--reveal"], True)):
        console = Console(record=True, width=200, color_system=None)
        assert replay_main([str(path), "--no-pause", *argv], console=console) == 0
        text = console.export_text()
        before, end = text.split(f"step {last}/{last}")
        assert (str(SEED) in before) == told and ("side0-bot" in before) == told, argv
        assert str(SEED) in end or told, argv


def test_the_served_page_holds_no_seed_and_answers_only_its_own_host(telling_record):
    ViewerServer = server_modules()
    from traitors_env.web.server import allowed_hosts

    _, record = telling_record
    data = ReplayData(record, ABOARD)
    title = f"{ABOARD.type.env_id}: 5 players"
    with ViewerServer(data, title, "127.0.0.1", 0) as server:
        for route in ("", "api/meta", "api/step?view=seat1&step=0"):
            with urllib.request.urlopen(server.url + route, timeout=30) as response:
                body = response.read().decode("utf-8")
                assert response.status == 200 and str(SEED) not in body, route
                assert "default-src 'self'" in response.headers["Content-Security-Policy"]
                assert response.headers["X-Content-Type-Options"] == "nosniff"
        for host in ("attacker.example", f"attacker.example:{server.port}"):
            request = urllib.request.Request(server.url + "api/meta", headers={"Host": host})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 400, host
        request = urllib.request.Request(server.url + "api/meta", headers={"Host": f"localhost:{server.port}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
    assert allowed_hosts("::1") == ["[::1]", "localhost", "127.0.0.1", "[::1]"]
    assert allowed_hosts("192.168.1.5") == ["192.168.1.5"] and allowed_hosts("0.0.0.0") == ["*"]


def test_the_web_view_page_title_names_no_seed(telling_record, tmp_path, capsys, monkeypatch):
    path, _ = telling_record
    titles = []
    monkeypatch.setattr("traitors_env.web.export.page_html", lambda title, *rest: titles.append(title) or "")
    assert main([str(path), "--html", str(tmp_path / "site")]) == 0
    assert titles and str(SEED) not in titles[0]


# ---------------------------------------------------------------------------------------------------- the export's safety
def test_the_export_embeds_any_record_string_safely(aboard_record, tmp_path, browser_page_if_any):
    _, record = aboard_record
    odd = record.model_copy(update={"seats": ["<!--<script>", "</script><b>&amp;", "x", "y", "z"]})
    data = ReplayData(odd, ABOARD)
    index = write_export(data, "a game", tmp_path / "site")
    text = index.read_text(encoding="utf-8")
    block = text.split('<script type="application/json" id="viewer-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block) == json.loads(json.dumps(export_data(data)))
    if browser_page_if_any is not None:
        page, errors = browser_page_if_any
        page.goto(index.as_uri() + "#step=1&view=all")
        wait_for(page, 1, "all")
        assert "<!--<script>" in page.inner_text("#table") and errors == []


def test_the_export_replaces_no_files_and_refuses_an_empty_folder_name(aboard_record, tmp_path, capsys):
    path, _ = aboard_record
    out = tmp_path / "mine"
    out.mkdir()
    (out / "index.html").write_text("my page", encoding="utf-8")
    (out / "viewer.css").write_text("my style", encoding="utf-8")
    assert main([str(path), "--html", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--html {out}: {out} already holds index.html, viewer.css; expected a new or empty folder" in err
    assert err.count("--html") == 1
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "viewer.css"]
    assert (out / "index.html").read_text(encoding="utf-8") == "my page"
    assert main([str(path), "--html", ""]) == 2
    assert "--html '': an empty folder name; expected a new or empty folder" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main([str(path), "--html", str(blocker / "site")]) == 2
    assert capsys.readouterr().err.count("--html") == 1
    (tmp_path / "empty").mkdir()
    assert main([str(path), "--html", str(tmp_path / "empty")]) == 0


# ---------------------------------------------------------------------------------------------------- reading the record
def test_a_piped_record_is_read_once_by_the_viewer_and_the_replay(aboard_record, tmp_path, capsys):
    import os
    import threading

    from traitors_env.table.replay import main as replay_main

    path, _ = aboard_record
    for run, name in ((lambda fifo: main([fifo, "--html", str(tmp_path / "site")]), "view"),
                      (lambda fifo: replay_main([fifo, "--no-pause", "--seat", "1"]), "replay")):
        fifo = tmp_path / f"pipe-{name}"
        os.mkfifo(fifo)

        def feed(fifo=fifo):
            with open(fifo, "wb") as pipe:  # as <(cat rec.json) does: the bytes once, then the end
                pipe.write(path.read_bytes())

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        status: list[int] = []
        reader = threading.Thread(target=lambda run=run, fifo=fifo, status=status: status.append(run(str(fifo))),
                                  daemon=True)
        reader.start()
        writer.join(30)
        reader.join(30)
        if reader.is_alive():  # it opened the pipe a second time and waits for a writer: end that wait, then fail
            with open(fifo, "wb"):
                pass
            reader.join(30)
        assert status == [0], (name, capsys.readouterr())
    assert (tmp_path / "site" / "index.html").exists()


def test_a_huge_number_or_file_is_refused_in_words(tmp_path, capsys, monkeypatch):
    from traitors_env.core import records

    huge = tmp_path / "huge.json"
    huge.write_text('{"format": "traitors-aboard-record", "seed": ' + "9" * 5000 + "}", encoding="utf-8")
    assert main([str(huge)]) == 2
    assert "holds a number with more than 4300 digits" in capsys.readouterr().err
    big = tmp_path / "big.json"
    big.write_text("{" + " " * 2000 + "}", encoding="utf-8")
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 1024)
    for source in (str(big), "/dev/zero"):
        if not Path(source).exists():
            continue
        assert main([source]) == 2
        assert f"record file {source!r} holds more than" in capsys.readouterr().err


def test_a_host_that_is_empty_or_has_a_port_is_refused_and_any_loopback_counts_as_this_machine(aboard_record, capsys):
    from traitors_env.table.web_view import is_loopback

    path, _ = aboard_record
    with pytest.raises(SystemExit):
        main([str(path), "--host", ""])
    assert "an empty host would serve on every interface" in capsys.readouterr().err
    for host in ("127.0.0.1:80", "[::1]"):
        with pytest.raises(SystemExit):
            main([str(path), "--host", host])
        assert f"{host!r} is not an address; expected an address without a port" in capsys.readouterr().err
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "LocalHost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.5", "example.org", "::"))


# ---------------------------------------------------------------------------------------------------- a folder of records
def test_a_folder_of_records_of_any_games_is_served_one_record_at_a_time(aboard_record, avalon_record, tmp_path):
    """``traitors-view FOLDER`` (issue 53: RECORD_OR_FOLDER): every record in it, nested folders too, chosen by
    ``record=R``; a file that is no record is left out, named; the export holds one record."""
    from traitors_env.web.payload import RecordShelf

    server_modules()
    folder = tmp_path / "games"
    (folder / "avalon").mkdir(parents=True)
    (folder / "aboard.json").write_text(aboard_record[0].read_text())
    (folder / "avalon" / "game.json").write_text(avalon_record[0].read_text())
    (folder / "notes.json").write_text('{"not": "a record"}')
    shelf = RecordShelf([("aboard.json", aboard_record[1], ABOARD, None),
                         ("avalon/game.json", avalon_record[1], AVALON, None)])
    from traitors_env.web.server import ViewerServer

    with ViewerServer(shelf, "2 records", "127.0.0.1", 0) as server:
        status, listing = get(server.url + "api/records")
        assert status == 200 and [r["name"] for r in json.loads(listing)] == ["aboard.json", "avalon/game.json"]
        status, meta = get(server.url + "api/meta?record=1")
        assert status == 200 and json.loads(meta)["game"] == AVALON.type.env_id
        status, step = get(server.url + "api/step?record=1&view=seat0&step=3")
        assert status == 200
        assert json.loads(step) == json.loads(json.dumps(ReplayData(avalon_record[1], AVALON).step_with_history("seat0", 3)))
        status, error = get(server.url + "api/step?record=2&view=seat0&step=3")
        assert status == 400 and "record 2 is not a record of this viewer; expected 0–1" in json.loads(error)["error"]
    # The command: the non-record is left out, named; --html refuses a folder.
    assert main([str(folder), "--html", str(tmp_path / "site")]) == 2


def test_the_command_names_what_it_leaves_out_of_a_folder(aboard_record, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "aboard.json").write_text(aboard_record[0].read_text())
    (folder / "broken.json").write_text("{not json")
    served = {}

    def fake_serve(data, title, args, what):
        served.update(data=data, title=title, what=what)
        return 0

    monkeypatch.setattr("traitors_env.table.web_view._serve", fake_serve)
    assert main([str(folder)]) == 0
    assert f"left out {folder / 'broken.json'}" in capsys.readouterr().err
    assert [e[0] for e in served["data"].entries] == ["aboard.json"] and served["title"] == "1 record in games"
    (folder / "aboard.json").unlink()
    assert main([str(folder)]) == 2 and "no record in" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(empty)]) == 2 and "no game record (.json) in" in capsys.readouterr().err
    assert main([str(folder), "--html", str(tmp_path / "out")]) == 2
    assert "the static export holds one record" in capsys.readouterr().err


def test_a_browser_picks_a_record_of_a_folder_from_the_menu(browser_page, aboard_record, avalon_record):
    from traitors_env.web.payload import RecordShelf
    from traitors_env.web.server import ViewerServer

    page, errors = browser_page
    shelf = RecordShelf([("aboard.json", aboard_record[1], ABOARD, None), ("avalon.json", avalon_record[1], AVALON, None)])
    with ViewerServer(shelf, "2 records", "127.0.0.1", 0) as server:
        page.goto(server.url)
        wait_for(page, 0, "spectator")
        assert page.is_visible("#record") and page.locator("#record option").count() == 2
        page.select_option("#record", "1")
        for _ in range(200):  # (the page's CSP allows no evaluated string, so no wait_for_function)
            if page.title().startswith("avalon.json"):
                break
            page.wait_for_timeout(50)
        wait_for(page, 0, "spectator")
        assert page.title().startswith("avalon.json") and "Avalon" in page.inner_text("#content")
        page.keyboard.press("End")
        last = ReplayData(avalon_record[1], AVALON).last
        wait_for(page, last, "spectator")
        assert "record=1" in page.eval_on_selector("#link", "a => a.getAttribute('href')")
        page.goto(server.url + "#record=0&step=2&view=seat1")
        page.reload()
        wait_for(page, 2, "seat1")
        assert page.input_value("#record") == "0" and page.locator("#table svg .seat").count() == 5
    assert errors == []
