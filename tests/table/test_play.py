"""Play and watch (issue 5): a human seat in the terminal, game records saved, replays.

The scripted human answers through the prompt (``PlaySession``'s ``read_line``), sprinkling bad
input. At every prompt it takes the text the terminal received since the previous prompt and
checks it against the same screen drawn from a *hidden variant* of the game: everything the
human cannot know redrawn (other hands and roles, unseen chest values, draw pile; see
``game_helpers.hidden_variant``) and the private part of the other players' decisions redrawn
too (which loot card was placed, the Spyglass order, the cards returned). The text must not
change, so it cannot show another player's hand or role, or a chest card the human did not see.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from game_helpers import hidden_variant
from rich.console import Console

from traitors_env.agents import make_agent
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard import view as aboard_view
from traitors_env.games.traitors_aboard.observation import decode, encode
from traitors_env.games.traitors_aboard.records import load_record, replay
from traitors_env.games.traitors_aboard.view import CONFIRM_PROMPT, HAND_PROMPT
from traitors_env.table import play
from traitors_env.table.play import BotSpecError, GameAbandoned, PlaySession, make_bot
from traitors_env.table.replay import main as replay_main
from traitors_env.table.replay import record_states, step_view

WIDTH = 140
BAD_INPUTS = ("", "abc", "0", "999", "-1", "1.5", "²", "2 3", "1" * 5000, "[bold]x[/bold]")


def console() -> Console:
    return Console(file=io.StringIO(), width=WIDTH, color_system=None, highlight=False)


def text_of(renderable) -> str:
    c = console()
    c.print(renderable)
    return c.file.getvalue()


def private_variant(action: int, rng: np.random.Generator) -> int:
    """``action`` with its private part redrawn: another loot card with the same announcement,
    another Spyglass order, another returned card."""
    if A.LOOT_BASE <= action < A.PLANK_BASE + 1:
        announced = (action - A.LOOT_BASE) % 3
        return A.loot_action(int(rng.integers(3)), announced)
    if A.SPYGLASS_ORDER_BASE <= action < A.RETURN_BASE:
        return A.SPYGLASS_ORDER_BASE + int(rng.integers(len(A.SPYGLASS_PERMUTATIONS)))
    if A.RETURN_BASE <= action < A.CLAIM_NONE:
        return A.RETURN_BASE + int(rng.integers(8))
    return action


class ScriptedHuman:
    """Answers the prompts of a :class:`PlaySession`; checks the screen at every decision."""

    def __init__(
        self, seed: int, bad_input_rate: float = 0.15, open_rate: float = 0.05, check: bool = True, hand_rate: float = 0.3
    ):
        self.rng = np.random.default_rng(seed)
        self.hand_rate = hand_rate
        self.bad_input_rate = bad_input_rate
        self.open_rate = open_rate
        self.check = check
        self.session: PlaySession | None = None
        self.position = 0
        self.prompts = 0
        self.bad_answers = 0
        self.answers = 0
        self.hand_lists = 0
        self.confirmations = 0
        self.last_bad = False
        self.screens: list[str] = []

    def read_line(self, prompt: str) -> str:
        session = self.session
        out = session.console.file.getvalue()
        chunk, self.position = out[self.position :], len(out)
        k = int(re.search(r"\(1–(\d+)", prompt).group(1))
        hand_list = prompt == HAND_PROMPT.format(k=k)
        if prompt == CONFIRM_PROMPT.format(k=k):  # the human chose to open the chest: confirm or not
            assert "ends the game" in chunk and not self.last_bad
            self.prompts += 1
            self.confirmations += 1
            return "1\n" if self.rng.random() < 0.5 else "2\n"
        if self.last_bad:
            # After bad input: the complaint naming it, then the same list of choices again.
            assert "is not one of the choices" in chunk and f"from 1 to {k}" in chunk
            assert chunk.count(f"{k:>3}. ") == 1
        elif hand_list:
            assert chunk.startswith("Which hand do you claim") and k == 120
            self.hand_lists += 1
        elif chunk.startswith("─"):  # a new decision: its frame opens with a rule
            self.screens.append(chunk)
            if self.check:
                self.check_screen(chunk)
        self.prompts += 1
        first_bad = self.prompts == 1 and self.bad_input_rate > 0  # at least one bad answer per game
        if first_bad or self.rng.random() < self.bad_input_rate:
            self.last_bad = True
            self.bad_answers += 1
            bad = BAD_INPUTS[int(self.rng.integers(len(BAD_INPUTS)))]
            return ("abc" if hand_list and bad == "0" else bad) + "\n"  # 0 goes back from the hand list
        self.last_bad = False
        self.answers += 1
        if hand_list and self.rng.random() < 0.2:
            return "0\n"  # back to the other claims
        if not hand_list and f"{k:>3}. my hand is {{…}}" in chunk and self.rng.random() < self.hand_rate:
            return f"{k}\n"  # open the list of hand claims
        choices = list(range(1, k + 1))
        if not hand_list and session.env.game.legal_actions()[0] == A.OPEN_CHEST and k > 1:
            if self.rng.random() > self.open_rate:
                choices = choices[1:]  # mostly keep the game going
        return f"{choices[int(self.rng.integers(len(choices)))]}\n"

    def check_screen(self, chunk: str) -> None:
        session = self.session
        seat = session.human_seat
        game = session.env.game
        if not self.screens[:-1]:  # the first screen opens with the title (no seed), the seat and who plays each seat
            opening, rule, chunk = chunk.partition("\n─")
            chunk = rule[1:] + chunk
            title, seat_line, *seats = opening.split("\n")
            assert "Traitors Aboard" in title and str(session.seed) not in title
            assert seat_line.startswith(f"You play player_{seat}.") and "? at any prompt for the rules" in seat_line
            assert seats[0].split() == ["seat", "played", "by"] and len(seats) == 1 + session.n
            for other, line in enumerate(seats[1:]):
                assert line.split() == [f"player_{other}", "you" if other == seat else type(session.bots[other]).__name__]
        expected = text_of(session.frame(session.frame_events, decode(encode(game, seat)), game.legal_actions()))
        assert chunk == expected, "the screen is not what the human's frame draws"
        for _ in range(2):
            variant = hidden_variant(game, seat, self.rng)
            events = [
                (actor, a if actor == seat else private_variant(a, self.rng), notes)
                for actor, a, notes in session.frame_events
            ]
            session.env.game = variant  # whatever the frame reads, it reads from the variant
            try:
                redrawn = text_of(session.frame(events, decode(encode(variant, seat)), variant.legal_actions()))
            finally:
                session.env.game = game
            assert redrawn == chunk, "the human's screen depends on something the human cannot know"


def run_session(num_players: int, seat: int, seed: int, human: ScriptedHuman, bots=None, claims: bool = True):
    bots = bots or [None if s == seat else make_agent("heuristic", seed=s) for s in range(num_players)]
    session = PlaySession(num_players, seat, bots, seed, console(), human.read_line, claims=claims)
    human.session = session
    record = session.run()
    return session, record


# ---------------------------------------------------------------- a whole game through the prompt
@pytest.mark.parametrize(("num_players", "seat", "seed"), [(3, 0, 1), (3, 2, 5), (8, 0, 2), (8, 5, 9)])
def test_scripted_human_finishes_a_game_and_sees_only_what_it_may(num_players, seat, seed):
    human = ScriptedHuman(seed)
    session, record = run_session(num_players, seat, seed, human)
    out = session.console.file.getvalue()
    assert record.finished and len(human.screens) >= 1 and human.bad_answers >= 1
    human_decisions = [d for d in record.decisions if d.agent == f"player_{seat}"]
    assert len(human.screens) == len(human_decisions)
    # The end reveals the chest and every role, then the record replays to the same game.
    assert "Game over" in out and out.count("Game over") == 1
    assert out.index("Game over") > out.rindex("Your hand")
    ending = out[out.index("Game over") :]
    for other in range(num_players):
        assert f"player_{other}" in ending
    assert "The chest holds" in ending and f"Seed {seed}." in ending
    # Every fall overboard was announced with the role it revealed (R11).
    game = session.env.game
    for other in range(num_players):
        if not game.aboard[other]:
            assert f"player_{other} goes overboard: a {['Pirate', 'Mutineer'][game.roles[other]]}" in out
    assert replay(load_record(record.to_json())).fingerprint() == session.env.game.fingerprint()
    assert record.seats is None or record.seats[seat] == "human"


def test_game_without_claims_and_with_random_bots():
    human = ScriptedHuman(3)
    bots = [None] + [make_agent("random", seed=s) for s in range(1, 4)]
    session, record = run_session(4, 0, 3, human, bots=bots, claims=False)
    assert record.finished and not record.options.claims
    assert not any("claim" in d.meaning for d in record.decisions)


def test_the_screen_check_has_teeth(monkeypatch):
    """A screen that also draws the hidden table is caught by the check at the first prompt."""
    from traitors_env.games.traitors_aboard.render import render_text

    original = PlaySession.frame

    def leaky(self, events, view, legal):
        from rich.console import Group
        from rich.text import Text

        return Group(original(self, events, view, legal), Text(render_text(self.env.game, show_hidden=True)))

    monkeypatch.setattr(PlaySession, "frame", leaky)
    with pytest.raises(AssertionError, match="cannot know"):
        run_session(5, 0, 4, ScriptedHuman(4, bad_input_rate=0.0))


@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_public_description_hides_exactly_the_private_part(num_players):
    """Every decision shown to others: the same text whatever its private part (R04, R07, R09); the
    public parts (announced value, targets, claims) still tell actions apart."""
    rng = np.random.default_rng(num_players)
    for actor in range(num_players):
        texts = {}
        for action in range(A.NUM_ACTIONS):
            text = A.public_description(action, actor, num_players)
            for _ in range(4):
                assert A.public_description(private_variant(action, rng), actor, num_players) == text
            texts.setdefault(text, set()).add(action)
        loot = {A.public_description(A.loot_action(0, a), actor, num_players) for a in range(3)}
        assert len(loot) == 3  # the announced value is public
        assert "+1" in A.public_description(A.loot_action(2, 0), actor, num_players)  # a -2 announced as +1
        if num_players == 8:  # (smaller tables name one seat by several offsets)
            # Only the private parts are merged: loot (9 actions, 3 texts), Spyglass orders (6, 1), returns (8, 1).
            assert len(texts) == A.NUM_ACTIONS - 6 - 5 - 7


# ---------------------------------------------------------------- bad input, quitting
def test_quit_and_end_of_input_abandon_the_game_and_keep_the_record(tmp_path):
    path = tmp_path / "quit.json"
    c = console()
    status = play.main(["--players", "3", "--seed", "4", "--record", str(path)], console=c, stdin=io.StringIO("2\nq\n"))
    assert status == 1 and "Game abandoned (quit at the prompt)" in c.file.getvalue()
    record = load_record(path)
    assert not record.finished and record.decisions
    replay(record)
    path2 = tmp_path / "eof.json"
    status = play.main(["--players", "3", "--seed", "4", "--record", str(path2)], console=console(), stdin=io.StringIO("2\n"))
    assert status == 1 and not load_record(path2).finished


def test_cli_plays_a_whole_game_from_standard_input(tmp_path):
    path = tmp_path / "game.json"
    c = console()
    answers = io.StringIO("\n".join(["x", "1"] * 400) + "\n")  # bad input, then always the first choice
    status = play.main(
        ["--players", "3", "--seat", "1", "--seed", "11", "--bots", "random", "--bot", "2=heuristic", "--record", str(path)],
        console=c,
        stdin=answers,
    )
    out = c.file.getvalue()
    assert status == 0, out[-2000:]
    record = load_record(path)
    assert record.finished and record.seats == ["random", "human", "heuristic"] and record.seed == 11
    assert f"Game record saved to {path}" in out
    assert "'x' is not one of the choices" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "9"], "--players 9: expected 3–8"),
        (["--players", "3", "--seat", "3"], "--seat 3: expected a seat in 0–2"),
        (["--seed", "-1"], "--seed -1"),
        (["--bot", "0=random"], "seat 0 is yours"),
        (["--bot", "7=random"], "seat 7 is not a seat"),
        (["--bot", "two=random"], "expected SEAT=SPEC"),
        (["--bot", "1=random", "--bot", "1=heuristic"], "seat 1 was given a bot already"),
        (["--bots", "genius"], "'genius' is neither a bot name"),
        (["--bots", "/nonexistent/run"], "'/nonexistent/run' is neither a bot name"),
    ],
)
def test_bad_command_lines_are_refused_clearly(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        play.main(argv, console=console(), stdin=io.StringIO(""))
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_folder_without_checkpoints_is_refused(tmp_path):
    with pytest.raises(BotSpecError, match="no pirates.zip and mutineers.zip"):
        make_bot(str(tmp_path), np.random.default_rng(0))
    (tmp_path / "checkpoints").mkdir()
    with pytest.raises(BotSpecError, match="no generation"):
        make_bot(str(tmp_path), np.random.default_rng(0))


def test_abandoning_keeps_the_unfinished_record_on_the_session():
    human = ScriptedHuman(0, bad_input_rate=0.0)

    def quit_at_second_prompt(prompt: str) -> str:
        if human.prompts >= 1:
            return "q\n"
        return human.read_line(prompt)

    session = PlaySession(5, 0, [None] + [make_agent("random", seed=s) for s in range(1, 5)], 6, console(), quit_at_second_prompt)
    human.session = session
    with pytest.raises(GameAbandoned):
        session.run()
    assert session.record is not None and not session.record.finished
    assert replay(session.record).fingerprint() == session.env.game.fingerprint()


# ---------------------------------------------------------------- trained checkpoints as bots
def test_trained_checkpoints_play_as_bots(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from training.agents import OpponentPool
    from training.storage import RunFolder
    from training.team_env import TeamEnv

    generation = tmp_path / "run" / "checkpoints" / "gen_001"
    generation.mkdir(parents=True)
    for team in ("pirates", "mutineers"):
        env = TeamEnv(team, OpponentPool({"random": 1.0}, seed=0), player_counts=[5])
        model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, n_steps=32, batch_size=32, seed=0)
        model.save(generation / f"{team}.zip")
    RunFolder(tmp_path / "run").write_state({"completed_generations": 1})  # what traitors-train writes last
    for spec in (generation / "pirates.zip", generation, tmp_path / "run"):
        label, agent = make_bot(str(spec), np.random.default_rng(0))
        assert label.startswith("policy:")
    path = tmp_path / "game.json"
    status = play.main(
        ["--players", "5", "--seed", "3", "--bots", str(tmp_path / "run"), "--bot", "1=heuristic", "--record", str(path)],
        console=console(),
        stdin=io.StringIO("1\n" * 400),
    )
    assert status == 0
    record = load_record(path)
    assert record.finished and record.seats[1] == "heuristic" and record.seats[2] == f"policy:{generation}"
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(BotSpecError, match="not a MaskablePPO snapshot"):
        make_bot(str(broken), np.random.default_rng(0))
    import gymnasium

    other = MaskablePPO("MlpPolicy", gymnasium.make("CartPole-v1"), n_steps=32, batch_size=32)
    other.save(tmp_path / "cartpole.zip")
    with pytest.raises(BotSpecError, match=r"observations of shape \(4,\) and 2 actions"):
        make_bot(str(tmp_path / "cartpole.zip"), np.random.default_rng(0))


# ---------------------------------------------------------------- replay
@pytest.fixture(scope="module")
def saved_game(tmp_path_factory):
    human = ScriptedHuman(7, bad_input_rate=0.0, check=False)
    _, record = run_session(6, 2, 7, human)
    path = tmp_path_factory.mktemp("replay") / "game.json"
    record.save(path)
    return path, record


def replay_text(*argv) -> tuple[int, str]:
    c = console()
    status = replay_main([*map(str, argv), "--no-pause"], console=c)
    return status, c.file.getvalue()


def test_replay_views(saved_game):
    path, record = saved_game
    status, spectator = replay_text(path)
    assert status == 0
    steps = len(record.decisions)
    assert spectator.count("step ") >= steps and f"step {steps}/{steps}" in spectator
    before_end = spectator[: spectator.index("Game over")]
    assert "You are" not in before_end and "you know" not in before_end and "Your hand" not in before_end
    status, seat_view = replay_text(path, "--seat", 2)
    assert status == 0 and "You are player_2" in seat_view and "(you)" in seat_view
    status, revealed = replay_text(path, "--reveal")
    assert status == 0 and "hand [" in revealed and "chest value" in revealed
    # Every decision is shown in full in the revealed view.
    for decision in record.decisions:
        assert decision.meaning in revealed


def test_replay_spectator_and_seat_views_hide_what_they_must(saved_game):
    _, record = saved_game
    states = record_states(record)
    rng = np.random.default_rng(0)
    for step in range(len(states)):
        if states[step].is_terminal:
            continue
        for seat in (None, 0, 2):
            expected = text_of(step_view(record, states, step, seat, reveal=False))
            variants = list(states)
            variants[step] = hidden_variant(states[step], seat, rng)
            assert text_of(step_view(record, variants, step, seat, reveal=False)) == expected


def test_replay_refuses_a_corrupted_record_naming_the_step(saved_game, tmp_path):
    path, record = saved_game
    data = record.model_dump()
    data["decisions"][3]["action"] = 195
    bad = tmp_path / "bad.json"
    bad.write_text(__import__("json").dumps(data), encoding="utf-8")
    status, out = replay_text(bad)
    assert status == 2 and "step 4 (" in out and "not legal" in out
    status, out = replay_text(tmp_path / "missing.json")
    assert status == 2 and "does not exist" in out


def test_replay_steps_on_request(saved_game):
    path, record = saved_game
    states = record_states(record)
    answers = iter(["", "", "b", "5", "zz", "9999", "q"])
    c = console()

    def read_line(prompt: str) -> str:
        return next(answers)

    from traitors_env.table.replay import browse

    browse(record, states, c, None, False, read_line)
    out = c.file.getvalue()
    for title in ("the deal", "step 1/", "step 2/", "step 5/"):
        assert title in out
    assert "'zz': press Enter" in out and "'9999': press Enter" in out


def test_an_unwritable_record_path_is_refused_before_the_game(tmp_path, capsys):
    existing = tmp_path / "file.txt"
    existing.write_text("keep me", encoding="utf-8")
    cases = (
        (tmp_path, "is a folder"),
        (existing / "game.json", "is not a folder"),
        (existing, "a file is already there"),
        (Path("/dev/null"), "a special file is already there"),
    )
    for target, message in cases:
        with pytest.raises(SystemExit):
            play.main(["--players", "3", "--record", str(target)], console=console(), stdin=io.StringIO("1\n"))
        err = capsys.readouterr().err
        assert f"--record {target}: " in err and message in err
    assert existing.read_text(encoding="utf-8") == "keep me"
    # Missing folders are made only when a game is saved, not for a command line that is refused.
    with pytest.raises(SystemExit):
        play.main(["--players", "9", "--record", str(tmp_path / "new" / "g.json")], console=console())
    assert not (tmp_path / "new").exists()
    status = play.main(
        ["--players", "3", "--seed", "1", "--record", str(tmp_path / "new" / "g.json")],
        console=console(),
        stdin=io.StringIO("1\n" * 300),
    )
    assert status == 0 and load_record(tmp_path / "new" / "g.json").finished


def test_interrupts_and_failing_bots_keep_the_record():
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    bots = [None] + [make_agent("random", seed=s) for s in range(1, 3)]
    session = PlaySession(3, 0, bots, 5, console(), interrupt)
    with pytest.raises(GameAbandoned, match="interrupted"):
        session.run()
    assert session.record is not None and "Game abandoned (interrupted)" in session.console.file.getvalue()

    class Broken:
        def act(self, observation, action_mask):
            raise RuntimeError("the bot failed")

    session = PlaySession(3, 0, [None, Broken(), Broken()], 5, console(), lambda prompt: "2\n")
    with pytest.raises(RuntimeError, match="the bot failed"):
        session.run()
    assert session.record is not None and not session.record.finished
    with pytest.raises(ValueError, match=r"no bot for seat\(s\) \[2\]"):
        PlaySession(3, 0, [None, Broken()], 5, console(), interrupt)


def test_no_standard_input_is_refused(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", None)
    with pytest.raises(SystemExit):
        play.main(["--players", "3"], console=console())
    assert "no standard input" in capsys.readouterr().err


def test_hand_claims_come_as_their_own_list():
    human = ScriptedHuman(12, bad_input_rate=0.1, hand_rate=1.0)
    session, record = run_session(5, 1, 12, human)
    assert human.hand_lists >= 2
    out = session.console.file.getvalue()
    assert "my hand is {…}: choose three cards from a list" in out
    hand_claims = [d for d in record.decisions if d.agent == "player_1" and "my hand is" in d.meaning]
    assert hand_claims  # some were made through the second list


def test_ctrl_c_while_the_end_is_shown_still_saves_the_finished_record(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(aboard_view, "result_view", interrupted)  # the game's view draws the end
    path = tmp_path / "g.json"
    status = play.main(["--players", "3", "--seed", "2", "--record", str(path)], console=console(), stdin=io.StringIO("1\n" * 300))
    assert status == 130 and load_record(path).finished


# ---------------------------------------------------------------- frictions of a new user (issue 10)
def seed_where(num_players: int, seat: int, role: int, claims: bool = True) -> int:
    """A seed whose deal gives ``seat`` the ``role`` and the first turn (R01: drawn from the seed)."""
    from traitors_env.games.traitors_aboard.engine import GameConfig, GameState

    config = GameConfig(num_players=num_players, claims=claims)
    return next(
        s for s in range(1000) if (g := GameState.new(config, seed=s)).roles[seat] == role and g.current_player == seat
    )


def scripted(answers):
    """A ``read_line`` giving ``answers`` in turn, then quitting; the prompts it was shown are kept."""
    answers = iter(answers)
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers, "q")

    return read_line, prompts


def test_opening_the_chest_asks_for_confirmation_first():
    """R03: opening ends the game at once, so the human confirms it; "no" goes back to the same choices."""
    from traitors_env.games.traitors_aboard.cards import Role

    seed = seed_where(4, 0, Role.PIRATE, claims=False)
    read_line, prompts = scripted(["1", "2", "1", "1"])  # open? no; open? yes
    bots = [None] + [make_agent("random", seed=s) for s in range(1, 4)]
    session = PlaySession(4, 0, bots, seed, console(), read_line, claims=False)
    record = session.run()
    out = session.console.file.getvalue()
    assert [p.split(" (")[0] for p in prompts] == ["Your choice", "Open the chest?", "Your choice", "Open the chest?"]
    assert out.count("Opening the chest ends the game at once") == 2
    assert record.finished and record.decisions[0].action == A.OPEN_CHEST and len(record.decisions) == 1
    assert session.env.game.end_condition.name == "CHEST_OPENED"


def test_no_confirmation_is_asked_for_other_choices():
    from traitors_env.games.traitors_aboard.cards import Role

    seed = seed_where(4, 0, Role.PIRATE, claims=False)
    read_line, prompts = scripted(["2"])  # place loot, then quit at the next decision
    bots = [None] + [make_agent("random", seed=s) for s in range(1, 4)]
    with pytest.raises(GameAbandoned):
        PlaySession(4, 0, bots, seed, console(), read_line, claims=False).run()
    assert not any(p.startswith("Open the chest?") for p in prompts)


@pytest.mark.parametrize("key", ["?", "help", "r"])
def test_the_rules_key_shows_the_rules_then_the_choices(key):
    read_line, prompts = scripted([key])
    session = PlaySession(5, 0, [None] + [make_agent("random", seed=s) for s in range(1, 5)], 3, console(), read_line)
    with pytest.raises(GameAbandoned):
        session.run()
    out = session.console.file.getvalue()
    assert "? for the rules" in prompts[0] and len(prompts) == 2  # the rules, then the same prompt again
    after = out[out.index("THE RULES IN SHORT") :]
    assert "is not one of the choices" not in out
    assert "3 Planks in front of a player send them" in after and "→ 5 players: 4 Pirates, 1 Mutineer, chest target 11" in after
    assert "  1. " in after  # the choices again


def test_the_table_says_how_many_planks_send_a_player_overboard():
    read_line, _ = scripted([])
    session = PlaySession(3, 0, [None] + [make_agent("random", seed=s) for s in range(1, 3)], 1, console(), read_line)
    with pytest.raises(GameAbandoned):
        session.run()
    out = session.console.file.getvalue()
    assert "3 Planks send a player overboard (R11)" in out and "planks (of 3)" in out


@pytest.mark.parametrize(("role", "opens"), [(0, True), (1, False)])
def test_the_main_turn_prompt_fits_the_role(role, opens):
    """R03: only a Pirate may open the chest, so only a Pirate's main turn offers it in words."""
    seed = seed_where(5, 0, role)
    read_line, _ = scripted([])
    session = PlaySession(5, 0, [None] + [make_agent("random", seed=s) for s in range(1, 5)], seed, console(), read_line)
    with pytest.raises(GameAbandoned):
        session.run()
    out = session.console.file.getvalue()
    line = next(line for line in out.splitlines() if line.startswith("your turn:"))
    assert ("open the chest" in line.split("(")[0]) is opens
    assert "place loot" in line or "play an action card" in line
    assert ("a Mutineer never opens the chest" in line) is (not opens)


def test_the_opening_screen_names_the_bot_at_each_seat(tmp_path):
    c = console()
    play.main(
        ["--players", "4", "--seat", "1", "--bots", "random", "--bot", "3=heuristic", "--seed", "2",
         "--record", str(tmp_path / "g.json")],
        console=c,
        stdin=io.StringIO("q\n"),
    )
    opening = c.file.getvalue().split("\n─")[0].splitlines()
    rows = [line.split() for line in opening if line.startswith("player_")]
    assert rows == [["player_0", "random"], ["player_1", "you"], ["player_2", "random"], ["player_3", "heuristic"]]


# ------------------------------------------------------------------ --show-beliefs (issue 27, item 2)
def test_show_beliefs_shows_the_advisors_beliefs_from_the_humans_observation(tmp_path):
    """The beliefs shown are the advisor's reading of the human's own observation (nothing else), one line per
    other seat with P(Mutineers)."""
    from traitors_env.games.traitors_aboard.bots import HeuristicAgent

    shown = []

    class Watching(PlaySession):
        def frame(self, events, view, legal):
            expected = HeuristicAgent(0).beliefs(encode(self.env.game, self.human_seat))
            np.testing.assert_array_equal(self.frame_beliefs, expected)
            shown.append(self.frame_beliefs)
            return super().frame(events, view, legal)

    c = console()
    bots = [None] + [make_agent("heuristic", seed=s) for s in range(1, 6)]
    session = Watching(6, 0, bots, 3, c, lambda prompt: "1\n", advisor=HeuristicAgent(9), advisor_label="heuristic")
    session.run()
    out = c.file.getvalue()
    assert shown and "heuristic's beliefs, read from your observation only: P(Mutineers) per seat" in out
    assert re.search(r"player_5 +\d+ %", out)


def test_show_beliefs_on_the_command_line(tmp_path):
    c = console()
    status = play.main(["--players", "4", "--seed", "2", "--show-beliefs", "--record", str(tmp_path / "g.json")],
                       console=c, stdin=io.StringIO("1\n" * 400))
    assert status == 0 and "P(Mutineers) per seat" in c.file.getvalue()


def test_show_beliefs_refuses_an_agent_without_beliefs(capsys):
    with pytest.raises(SystemExit) as exit_:
        play.main(["--show-beliefs", "random"], console=console(), stdin=io.StringIO(""))
    assert exit_.value.code == 2 and "--show-beliefs random: this agent has no role beliefs" in capsys.readouterr().err


def test_a_small_variant_is_played_to_its_end_without_a_record(capsys):
    """A small variant (S01–S03) plays through ``--game traitors_aboard:mini3`` and shows the result; it has no
    records (a record replays the full game's deal), so ``--record`` is refused before the game and the variant's
    table size is checked with the other arguments."""
    c = console()
    status = play.main(["--game", "traitors_aboard:mini3", "--seed", "1"], console=c,
                       stdin=io.StringIO("1\n" * 50))
    out = c.file.getvalue()
    assert status == 0, out[-2000:]
    assert "Seed 1." in out
    for argv, message in ((["--players", "4"], "--players 4: expected 3 (traitors_aboard_v0:mini3)"),
                          (["--record", "x.json"], "has no game records")):
        with pytest.raises(SystemExit):
            play.main(["--game", "traitors_aboard:mini3", *argv], console=console(), stdin=io.StringIO(""))
        assert message in capsys.readouterr().err


def test_web_play_without_the_web_extra_says_what_to_install(monkeypatch, capsys):
    import sys

    for name in ("starlette", "uvicorn", "traitors_env.web.play_server", "traitors_env.web.server"):
        monkeypatch.setitem(sys.modules, name, None)  # as if the web extra were not installed
    assert play.main(["--web", "--players", "5", "--seat", "1"], console=console()) == 2
    assert "--web needs the web extra" in capsys.readouterr().err
