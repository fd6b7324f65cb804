"""The pure rules engine of *The Traitors* board game: one game state, its legal actions and transitions.

No gymnasium or pettingzoo here. The state is a plain, deterministic state machine driven by
one seeded :class:`numpy.random.Generator` (the deal of roles, the reward deck, the mission
gold, the assignment's success, the mission signals, the Armoury, the spinning dagger's
tie-breaks). Vocabulary follows OpenSpiel: :attr:`GameState.current_player`,
:meth:`GameState.legal_actions`, :meth:`GameState.apply_action`, :attr:`GameState.is_terminal`,
:meth:`GameState.returns`, :meth:`GameState.action_to_string`.

A round (rulebook "Gameplay"; rulings T05–T12) is a fixed sequence of decisions and chance
events; the decisions are asked of seats one at a time, in seat order from the round's first
seat (seat ``r-1 mod n`` in round ``r``, T08):

1. **Mission** (phase ``MISSION``): the prize pot gains G gold (T05, chance). Then *every*
   player makes one blindfolded decision: the Traitor chooses to attempt the secret assignment
   or not (T06); a Faithful's only choice is "no attempt". Asking everyone keeps the turn order
   from revealing the Traitor (the rulebook's blindfold situation: everyone acts, so nobody can
   tell who did). Then chance: the attempt's success (told to the Traitor only) and every
   player's public signal (T07).
2. **Round Table**: claims (phase ``CLAIM``, T08; optional) then the secret vote (phase
   ``VOTE``, T09) by every player who takes part (T10); votes are revealed together after the
   last one and then scored.
3. **Armoury** (chance, T11).
4. **Night** (phase ``NIGHT``): every player again makes one blindfolded decision; only the
   Traitor after a successful assignment has more than "no murder" (T12).

After round 4, the End Game (T13, T14) scores and ranks the players, and the two finalists
make their statements (phase ``STATEMENT``) and their secret choices (phase ``FINAL``, T15).

Hidden state (roles, reward cards in hand, the assignment and its result, votes not yet
revealed, Final choices not yet revealed, the deck order) is kept here;
:mod:`traitors_env.games.the_traitors.observation` reads only what an agent may know.

A game starts from the shuffled deal (:meth:`GameState.new`) or from an explicit position at
the start of any round or at the End Game (:meth:`GameState.from_position`).
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...core.actions import as_index, illegal_action
from . import actions as A
from .cards import (
    BANISH_LOSS,
    CARD_GOLD,
    DAGGER_VOTE_REWARD,
    DAGGER_VOTE_WEIGHT,
    DEFAULT_PLAYERS,
    MURDER_LOSS,
    MURDER_REWARD,
    NUM_ROUNDS,
    REWARD_DECK_COUNTS,
    ROLE_NAMES,
    START_GOLD,
    TIE_LOSS,
    VOTE_REWARD,
    FinalOutcome,
    RewardCard,
    Role,
    check_num_players,
)


class Phase(IntEnum):
    """The decision the current player is asked to make."""

    MISSION = 0  # T06: attempt the secret assignment or not (everyone is asked)
    CLAIM = 1  # T08: one public claim
    VOTE = 2  # T09: one secret vote
    NIGHT = 3  # T12: murder or not (everyone is asked)
    STATEMENT = 4  # T15: a finalist's public statement
    FINAL = 5  # T15: a finalist's secret choice
    GAME_OVER = 6


NUM_PHASES = len(Phase) - 1  # phases in which a decision is asked
END_GAME_ROUND = NUM_ROUNDS + 1  # ``round`` once the four rounds are over
MAX_MISSION_GOLD = 15  # upper end of the configurable T05 range (keeps the observation bounds finite)


class IllegalActionError(ValueError):
    """An action index that is not legal in the current state."""


class PositionError(ValueError):
    """A malformed explicit position given to :meth:`GameState.from_position`."""


def _probability(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name}={value!r} is not a probability; expected a number in [0, 1]")
    return float(value)


@dataclass(frozen=True)
class GameConfig:
    """Options of one game; every default is the ruling's (``docs/rules/the-traitors-RULINGS.md``).

    Attributes:
        num_players: 3–6 (T01).
        claims: the claim step before each vote (T08); ``False`` skips it.
        mission_gold: ``(low, high)``: the prize pot gains G gold, G uniform in low–high inclusive (T05).
        assignment_success: probability that an attempted assignment succeeds (T06).
        signal_faithful: probability that a Faithful shows *suspicious* (T07).
        signal_traitor_idle: probability that the Traitor shows *suspicious* when not attempting (T07).
        signal_traitor_attempt: probability that the Traitor shows *suspicious* when attempting (T07).
        armoury: ``"single"`` (one winner drawn uniformly, T11) or ``"independent"`` (each player
            wins with probability 1/n; every winner draws a card).
        reward: ``"win"`` (+1 to each winner, T16) or ``"score"`` (a winner's score).

    Raises:
        ValueError: naming the bad option and what is allowed.
    """

    num_players: int = DEFAULT_PLAYERS
    claims: bool = True
    mission_gold: tuple[int, int] = (0, 6)
    assignment_success: float = 0.75
    signal_faithful: float = 0.2
    signal_traitor_idle: float = 0.2
    signal_traitor_attempt: float = 0.5
    armoury: str = "single"
    reward: str = "win"

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_num_players(self.num_players))
        if not isinstance(self.claims, (bool, np.bool_)):
            raise ValueError(f"claims={self.claims!r} is not supported; expected True or False")
        object.__setattr__(self, "claims", bool(self.claims))
        gold = self.mission_gold
        if (
            not isinstance(gold, (tuple, list))
            or len(gold) != 2
            or not all(isinstance(g, (int, np.integer)) and not isinstance(g, bool) for g in gold)
            or not 0 <= gold[0] <= gold[1] <= MAX_MISSION_GOLD
        ):
            raise ValueError(
                f"mission_gold={gold!r} is not a range; expected (low, high) ints with 0 <= low <= high <= {MAX_MISSION_GOLD}"
            )
        object.__setattr__(self, "mission_gold", (int(gold[0]), int(gold[1])))
        for name in ("assignment_success", "signal_faithful", "signal_traitor_idle", "signal_traitor_attempt"):
            object.__setattr__(self, name, _probability(name, getattr(self, name)))
        if self.armoury not in ("single", "independent"):
            raise ValueError(f"armoury={self.armoury!r} is not supported; expected 'single' or 'independent'")
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward={self.reward!r} is not supported; expected 'win' or 'score'")


class GameState:
    """One position of a game of *The Traitors*, and the rules that move it on.

    Seats are ``0 … n-1``; the reward deck is a list whose last item is the top. Build with
    :meth:`new` or :meth:`from_position`.

    Public attributes (read them, do not write them). Public to every player:
        num_players, config, round (1–4; 5 in the End Game), phase, current_player, gold (per
        seat), pot, mission_gold (per round), signals (per round, per seat: True = suspicious),
        claims (per round, per seat: action or −1), votes (per round, per seat: ``(target,
        dagger)`` or ``None``; public once ``votes_revealed[r]``), banished (per round: seat →
        gold lost), armoury (per round: ``(seat, card or -1)`` draws, the card public only for gold),
        night (per round: ``(victim or -1, saved)``), sits_out (seats that do not take part in
        this round's Round Table, T10), secret_drawn (per seat: Shields and Daggers drawn),
        shields_shown, daggers_shown, ranking, finalists, third, statements, final_choices
        (public once both are made), winners, scores.
    Hidden (never for an observation of another seat): roles, traitor, hands (per seat:
        Shields, Daggers held), deck, attempted, succeeded, murders, votes of the current
        round before they are revealed, final choices before both are made.
    Bookkeeping: from_bank, to_bank (gold in and out of the bank, T03), history.
    """

    # ------------------------------------------------------------------ setup
    def __init__(self, config: GameConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.rng = rng
        self.roles: list[Role] = [Role.FAITHFUL] * n
        self.traitor = 0
        self.gold = [START_GOLD] * n
        self.pot = 0
        self.from_bank = 0  # gold the bank paid into play (mission gold, gold cards, End Game scoring)
        self.to_bank = 0  # gold paid back to the bank (banished, murdered)
        self.hands = [[0, 0] for _ in range(n)]  # per seat: Shields, Daggers held (secret, T11)
        self.deck: list[int] = []  # reward cards, last = top
        self.round = 1
        self.phase = Phase.MISSION
        self.current_player = 0
        self._queue: list[int] = []  # seats still to decide in this phase, in order
        self.mission_gold = [0] * NUM_ROUNDS
        self.signals: list[list[bool] | None] = [None] * NUM_ROUNDS
        self.claims = [[-1] * n for _ in range(NUM_ROUNDS)]
        self.votes: list[list[tuple[int, bool] | None]] = [[None] * n for _ in range(NUM_ROUNDS)]
        self.votes_revealed = [False] * NUM_ROUNDS
        self.banished: list[dict[int, int]] = [{} for _ in range(NUM_ROUNDS)]
        self.armoury: list[list[tuple[int, int]]] = [[] for _ in range(NUM_ROUNDS)]
        self.night: list[tuple[int, bool] | None] = [None] * NUM_ROUNDS
        self.sits_out: set[int] = set()
        self.secret_drawn = [0] * n
        self.shields_shown = [0] * n
        self.daggers_shown = [0] * n
        self.attempted = [False] * NUM_ROUNDS
        self.succeeded = [False] * NUM_ROUNDS
        self.murders = 0  # murders of another player not prevented by a Shield (T13)
        self._night_choice = A.NO_MURDER
        self.ranking: list[int] = []
        self.finalists: tuple[int, int] | None = None
        self.third: int | None = None
        self.statements = [-1, -1]  # per finalist: STATEMENT kind, −1 before it is made
        self._choices = [-1, -1]  # per finalist: 0 Faithful / 1 Traitor (secret until both are made)
        self.final_choices: tuple[int, int] | None = None  # public once both are made
        self.end_game_gold: list[int] = []  # per seat: gold gained at the End Game scoring (T13)
        self.outcome: FinalOutcome | None = None
        self.winners: list[bool] = [False] * n
        self.scores: list[float] = [0.0] * n
        self.history: list[tuple[int, int]] = []  # (seat, action) of every decision

    @classmethod
    def new(cls, config: GameConfig | None = None, seed: int | np.random.Generator | None = None) -> GameState:
        """A new game: roles dealt (T02), the reward deck shuffled (T04), round 1 begun.

        Args:
            config: the options; default ``GameConfig()`` (5 players, the rulings' defaults).
            seed: an int, ``None`` (fresh entropy) or a ``numpy.random.Generator`` to own.
        """
        config = config or GameConfig()
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(config, rng)
        state._set_traitor(int(rng.integers(state.num_players)))
        deck = [kind for kind, count in enumerate(REWARD_DECK_COUNTS) for _ in range(count)]
        rng.shuffle(deck)
        state.deck = deck
        state._start_round(1)
        return state

    @classmethod
    def from_position(
        cls,
        num_players: int,
        traitor: int,
        gold: Sequence[int] | None = None,
        pot: int = 0,
        hands: Sequence[Sequence[int]] | None = None,
        deck: Sequence[int] | None = None,
        round: int = 1,  # noqa: A002  (the rulebook's word)
        sits_out: Sequence[int] = (),
        votes: Sequence[tuple[int, int, int, bool]] = (),
        murders: int = 0,
        config: GameConfig | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> GameState:
        """A game at an explicit position: the start of round ``round`` (1–4), or the End Game (5).

        Args:
            num_players: 3–6.
            traitor: the Traitor's seat (T02).
            gold: per seat, personal gold (>= 0); default 8 each (T03).
            pot: the prize pot before this round's mission gold.
            hands: per seat, ``(shields, daggers)`` held; default none.
            deck: the reward deck, card kinds (:class:`RewardCard`) from the **top** down; default
                the cards not in any hand, shuffled by ``seed``.
            round: 1–4 starts that round with its Mission (its mission gold is drawn at once);
                5 starts the End Game (T13 scoring and T14 ranking happen at once, then the Final).
            sits_out: seats murdered in the previous Night, who do not take part in this
                round's Round Table (T10).
            votes: earlier Round Table votes ``(round, voter, target, dagger)`` (rounds before
                ``round``); they are public and count at the End Game (T13).
            murders: the Traitor's murders of another player so far not prevented by a Shield (T13).
            config: options; its ``num_players`` must equal ``num_players`` (default: the rulings').
            seed: the RNG for every later chance event.

        Raises:
            PositionError: naming the bad field, for a position the rules cannot reach.
        """

        def fail(message: str) -> None:
            raise PositionError(message)

        try:
            n = check_num_players(num_players)
        except ValueError as error:
            raise PositionError(str(error)) from None
        config = config or GameConfig(num_players=n)
        if config.num_players != n:
            fail(f"config.num_players={config.num_players} differs from num_players={n}")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(config, rng)

        def is_int(value: object) -> bool:
            return isinstance(value, (int, np.integer)) and not isinstance(value, bool)

        def check_seat(value: object, name: str) -> int:
            if not (is_int(value) and 0 <= value < n):
                fail(f"{name}={value!r} is not a seat; expected an int in 0–{n - 1}")
            return int(value)

        state._set_traitor(check_seat(traitor, "traitor"))
        if not (is_int(round) and 1 <= round <= END_GAME_ROUND):
            fail(f"round={round!r} is not a round; expected 1–4, or 5 for the End Game")
        if gold is not None:
            if len(gold) != n or not all(is_int(g) and g >= 0 for g in gold):
                fail(f"gold={list(gold)!r} must hold one int >= 0 per seat ({n}); gold never goes below 0 (T03)")
            state.gold = [int(g) for g in gold]
        if not (is_int(pot) and pot >= 0):
            fail(f"pot={pot!r} must be an int >= 0")
        state.pot = int(pot)
        if hands is not None:
            if len(hands) != n or not all(len(h) == 2 and all(is_int(c) and c >= 0 for c in h) for h in hands):
                fail(f"hands={[list(h) for h in hands]!r} must hold one (shields, daggers) pair of ints >= 0 per seat")
            state.hands = [[int(h[0]), int(h[1])] for h in hands]
            state.secret_drawn = [sum(h) for h in state.hands]
        held = [sum(h[0] for h in state.hands), sum(h[1] for h in state.hands), 0, 0]
        if deck is None:
            cards = [k for k, count in enumerate(REWARD_DECK_COUNTS) for _ in range(count - held[k])]
            if any(count < 0 for count in (REWARD_DECK_COUNTS[k] - held[k] for k in range(2))):
                fail(f"hands hold {held[0]} Shields and {held[1]} Daggers; the deck has 3 of each (T04)")
            rng.shuffle(cards)
            state.deck = cards
        else:
            try:
                cards = [int(RewardCard(int(c))) for c in deck]
            except (TypeError, ValueError):
                fail(f"deck={list(deck)!r} holds a value that is not a RewardCard (0–3)")
            state.deck = cards[::-1]
        for kind in RewardCard:
            used = held[kind] + state.deck.count(kind)
            if used > REWARD_DECK_COUNTS[kind]:
                fail(
                    f"the position uses {used} {kind.name} cards; the reward deck has {REWARD_DECK_COUNTS[kind]} (T04)"
                )
        state.sits_out = {check_seat(s, "sits_out seat") for s in sits_out}
        for entry in votes:
            if len(entry) != 4:
                fail(f"vote {entry!r} is not (round, voter, target, dagger)")
            r, voter, target, dagger = entry
            if not (is_int(r) and 1 <= r < round):
                fail(f"vote {entry!r}: round {r!r} is not a round before round {round}")
            voter, target = check_seat(voter, "vote voter"), check_seat(target, "vote target")
            if voter == target:
                fail(f"vote {entry!r}: a player names another player, not themselves (T09)")
            state.votes[r - 1][voter] = (target, bool(dagger))
            state.votes_revealed[r - 1] = True
            state.daggers_shown[voter] += bool(dagger)
        if not (is_int(murders) and 0 <= murders < round):
            fail(f"murders={murders!r}: at most one murder per Night before round {round}")
        state.murders = int(murders)
        if round == END_GAME_ROUND:
            state.round = END_GAME_ROUND
            state._end_game()
        else:
            state._start_round(int(round))
        return state

    def _set_traitor(self, seat: int) -> None:
        self.traitor = seat
        self.roles = [Role.TRAITOR if s == seat else Role.FAITHFUL for s in range(self.num_players)]

    # ------------------------------------------------------------- queries
    @property
    def is_terminal(self) -> bool:
        """Whether the game has ended (after the Final)."""
        return self.phase is Phase.GAME_OVER

    @property
    def first_seat(self) -> int:
        """The round's first seat: ``r-1 mod n`` in round ``r`` (T08)."""
        return (min(self.round, NUM_ROUNDS) - 1) % self.num_players

    def seat_order(self) -> list[int]:
        """Every seat, in order from the round's first seat (T08)."""
        n, first = self.num_players, self.first_seat
        return [(first + i) % n for i in range(n)]

    def takes_part(self, seat: int) -> bool:
        """Whether ``seat`` claims and votes at this round's Round Table (T10)."""
        return seat not in self.sits_out

    def returns(self) -> list[float]:
        """Per seat: its reward (T16): +1 to each winner, else 0 (``reward="score"``: a winner's score); 0 while running."""
        if not self.is_terminal:
            return [0.0] * self.num_players
        if self.config.reward == "score":
            return [self.scores[s] if self.winners[s] else 0.0 for s in range(self.num_players)]
        return [1.0 if won else 0.0 for won in self.winners]

    def legal_actions(self) -> list[int]:
        """The legal action indices of the current player, sorted; empty once the game is over."""
        phase, seat, n = self.phase, self.current_player, self.num_players
        if phase is Phase.MISSION:
            return [A.NO_ATTEMPT, A.ATTEMPT] if seat == self.traitor else [A.NO_ATTEMPT]
        if phase is Phase.CLAIM:
            return (
                [A.CLAIM_NONE]
                + [A.claim_suspect_action(o) for o in range(1, n)]
                + [A.claim_faithful_action(o) for o in range(n)]
            )
        if phase is Phase.VOTE:
            legal = [A.vote_action(o) for o in range(1, n)]
            if self.hands[seat][1]:
                legal += [A.vote_action(o, dagger=True) for o in range(1, n)]
            return legal
        if phase is Phase.NIGHT:
            if seat == self.traitor and self.succeeded[self.round - 1]:
                return [A.NO_MURDER] + [A.murder_action(o) for o in range(n)]
            return [A.NO_MURDER]
        if phase is Phase.STATEMENT:
            return [A.statement_action(k) for k in range(3)]
        if phase is Phase.FINAL:
            return [A.write_action(False), A.write_action(True)]
        return []

    def legal_mask(self) -> np.ndarray:
        """The legal actions as an ``int8`` array of shape ``(NUM_ACTIONS,)``."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def action_to_string(self, action: int) -> str:
        """Readable text for ``action`` taken by the current player in this state."""
        return A.describe_action(action, self.current_player, self.num_players)

    def votes_received(self, r: int) -> list[int]:
        """Per seat, the weight of the revealed votes naming it in round ``r`` (1–4; a Dagger vote counts twice)."""
        counts = [0] * self.num_players
        if self.votes_revealed[r - 1]:
            for vote in self.votes[r - 1]:
                if vote is not None:
                    counts[vote[0]] += DAGGER_VOTE_WEIGHT if vote[1] else 1
        return counts

    def result(self) -> dict:
        """The end-of-game record: roles, gold, the Final, winners and scores (absolute seats).

        Raises:
            RuntimeError: while the game is still running.
        """
        if not self.is_terminal:
            raise RuntimeError("the game is still running; result() is available once it is over")
        return {
            "traitor": self.traitor,
            "roles": [ROLE_NAMES[r] for r in self.roles],
            "gold": list(self.gold),
            "pot": self.pot,
            "end_game_gold": list(self.end_game_gold),
            "finalists": list(self.finalists),
            "third": self.third,
            "statements": list(self.statements),
            "final_choices": list(self.final_choices),
            "outcome": self.outcome.name.lower(),
            "winners": [s for s in range(self.num_players) if self.winners[s]],
            "scores": list(self.scores),
            "murders": self.murders,
            "rewards": self.returns(),
        }

    def fingerprint(self) -> str:
        """A short hex digest of the whole state, hidden parts and RNG included (16 characters)."""
        parts = (
            self.config,
            self.traitor,
            self.gold,
            self.pot,
            self.from_bank,
            self.to_bank,
            self.hands,
            self.deck,
            self.round,
            int(self.phase),
            self.current_player,
            self._queue,
            self.mission_gold,
            self.signals,
            self.claims,
            self.votes,
            self.votes_revealed,
            self.banished,
            self.armoury,
            self.night,
            sorted(self.sits_out),
            self.secret_drawn,
            self.shields_shown,
            self.daggers_shown,
            self.attempted,
            self.succeeded,
            self.murders,
            self.ranking,
            self.statements,
            self._choices,
            self.winners,
            self.scores,
            self.history,
            repr(self.rng.bit_generator.state),
        )
        return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()

    # ---------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """Apply the current player's ``action`` (an index of :mod:`traitors_env.games.the_traitors.actions`).

        Raises:
            IllegalActionError: if ``action`` is not in :meth:`legal_actions` (the message names
                the action, the player, the phase and the legal set).
        """
        legal = self.legal_actions()
        action = self._checked_action(action, legal)
        seat = self.current_player
        self.history.append((seat, action))
        phase = self.phase
        if phase is Phase.MISSION:
            if seat == self.traitor:
                self.attempted[self.round - 1] = action == A.ATTEMPT
        elif phase is Phase.CLAIM:
            self.claims[self.round - 1][seat] = action
        elif phase is Phase.VOTE:
            group, offset = A.group_of(action)
            self.votes[self.round - 1][seat] = ((seat + offset) % self.num_players, group.name == "VOTE_DAGGER")
        elif phase is Phase.NIGHT:
            if seat == self.traitor:
                self._night_choice = action
        elif phase is Phase.STATEMENT:
            self.statements[self.finalists.index(seat)] = action - A.STATEMENT_BASE
        else:
            self._choices[self.finalists.index(seat)] = action - A.WRITE_BASE
        self._queue.pop(0)
        if self._queue:
            self.current_player = self._queue[0]
        else:
            self._end_of_phase()

    def _checked_action(self, action: object, legal: list[int]) -> int:
        action = as_index(action)
        if type(action) is int and action in legal:
            return action
        raise illegal_action(self, action, legal, A, IllegalActionError)

    def _ask(self, phase: Phase, seats: list[int]) -> None:
        self.phase = phase
        self._queue = list(seats)
        self.current_player = seats[0]

    def _end_of_phase(self) -> None:
        phase = self.phase
        if phase is Phase.MISSION:
            self._resolve_mission()
            participants = [s for s in self.seat_order() if self.takes_part(s)]
            self._ask(Phase.CLAIM if self.config.claims else Phase.VOTE, participants)
        elif phase is Phase.CLAIM:
            self._ask(Phase.VOTE, [s for s in self.seat_order() if self.takes_part(s)])
        elif phase is Phase.VOTE:
            self._resolve_round_table()
            self._armoury()
            self._night_choice = A.NO_MURDER
            self._ask(Phase.NIGHT, self.seat_order())
        elif phase is Phase.NIGHT:
            self._resolve_night()
            if self.round < NUM_ROUNDS:
                self._start_round(self.round + 1)
            else:
                self.round = END_GAME_ROUND
                self._end_game()
        elif phase is Phase.STATEMENT:
            self._ask(Phase.FINAL, list(self.finalists))
        else:
            self._resolve_final()

    def _start_round(self, r: int) -> None:
        """T05: the prize pot gains G gold from the bank; then every player's Mission decision (T06)."""
        self.round = r
        low, high = self.config.mission_gold
        g = int(self.rng.integers(low, high + 1))
        self.mission_gold[r - 1] = g
        self.pot += g
        self.from_bank += g
        self._ask(Phase.MISSION, self.seat_order())

    def _resolve_mission(self) -> None:
        """T06: an attempt succeeds with its probability (the Traitor alone learns it); T07: the signals."""
        i = self.round - 1
        config = self.config
        if self.attempted[i]:
            self.succeeded[i] = bool(self.rng.random() < config.assignment_success)
        signals = []
        for seat in range(self.num_players):
            if seat != self.traitor:
                p = config.signal_faithful
            else:
                p = config.signal_traitor_attempt if self.attempted[i] else config.signal_traitor_idle
            signals.append(bool(self.rng.random() < p))
        self.signals[i] = signals

    def _lose(self, seat: int, amount: int) -> int:
        """T03: a loss takes min(loss, what the player holds) back to the bank; returns what was lost."""
        lost = min(amount, self.gold[seat])
        self.gold[seat] -= lost
        self.to_bank += lost
        return lost

    def _resolve_round_table(self) -> None:
        """T09: votes revealed together; Daggers used up; most votes lose 2, a tie for most loses 1 each."""
        i = self.round - 1
        self.votes_revealed[i] = True
        for seat, vote in enumerate(self.votes[i]):
            if vote is not None and vote[1]:
                self.hands[seat][1] -= 1
                self.daggers_shown[seat] += 1
        counts = self.votes_received(self.round)
        most = max(counts)
        top = [s for s in range(self.num_players) if counts[s] == most]
        loss = BANISH_LOSS if len(top) == 1 else TIE_LOSS
        for seat in top:
            self.banished[i][seat] = self._lose(seat, loss)
        self.sits_out = set()  # T10: only for the Round Table right after the Night

    def _armoury(self) -> None:
        """T11: one winner drawn uniformly (or each wins with probability 1/n); each winner draws the top card."""
        n = self.num_players
        if self.config.armoury == "single":
            winners = [int(self.rng.integers(n))]
        else:
            draws = self.rng.random(n)
            winners = [s for s in range(n) if draws[s] < 1.0 / n]
        for seat in winners:
            if not self.deck:
                self.armoury[self.round - 1].append((seat, -1))
                continue
            card = self.deck.pop()
            self.armoury[self.round - 1].append((seat, card))
            if card in CARD_GOLD:
                self.gold[seat] += CARD_GOLD[card]
                self.from_bank += CARD_GOLD[card]
            else:
                self.hands[seat][card] += 1
                self.secret_drawn[seat] += 1

    def _resolve_night(self) -> None:
        """T12: the Traitor's choice; a Shield saves its holder (shown, discarded); else −2 gold and T10."""
        i = self.round - 1
        choice = self._night_choice
        if choice == A.NO_MURDER:
            self.night[i] = (-1, False)
            return
        victim = (self.traitor + choice - A.MURDER_BASE) % self.num_players
        if self.hands[victim][0]:
            self.hands[victim][0] -= 1
            self.shields_shown[victim] += 1
            self.night[i] = (victim, True)
            return
        self._lose(victim, MURDER_LOSS)
        self.sits_out = {victim}
        if victim != self.traitor:
            self.murders += 1
        self.night[i] = (victim, False)

    def _end_game(self) -> None:
        """T13: the Traitor revealed and the scoring; T14: the finalists and third place; then the statements."""
        n = self.num_players
        gained = [0] * n
        for i in range(NUM_ROUNDS):
            for voter, vote in enumerate(self.votes[i]):
                if vote is not None and vote[0] == self.traitor and voter != self.traitor:
                    gained[voter] += DAGGER_VOTE_REWARD if vote[1] else VOTE_REWARD
        gained[self.traitor] += MURDER_REWARD * self.murders
        for seat in range(n):
            self.gold[seat] += gained[seat]
            self.from_bank += gained[seat]
        self.end_game_gold = gained
        # T14: the spinning dagger breaks ties: one uniform key per seat, drawn whether or not there is a tie.
        keys = self.rng.random(n)
        self.ranking = sorted(range(n), key=lambda s: (-self.gold[s], keys[s]))
        self.finalists = (self.ranking[0], self.ranking[1])
        self.third = self.ranking[2]
        self._ask(Phase.STATEMENT, list(self.finalists))

    def _resolve_final(self) -> None:
        """T15: both choices revealed; the three outcomes and their scores."""
        a, b = self.finalists
        ca, cb = self._choices
        self.final_choices = (ca, cb)
        pot = self.pot
        if ca == 0 and cb == 0:
            self.outcome = FinalOutcome.BOTH_FAITHFUL
            share = (pot + self.gold[a] + self.gold[b]) / 2
            for seat in (a, b):
                self.winners[seat] = True
                self.scores[seat] = share
        elif ca + cb == 1:
            self.outcome = FinalOutcome.ONE_TRAITOR
            winner = a if ca == 1 else b
            self.winners[winner] = True
            self.scores[winner] = float(pot + self.gold[winner])
        else:
            self.outcome = FinalOutcome.BOTH_TRAITOR
            self.winners[self.third] = True
            self.scores[self.third] = float(pot + self.gold[self.third])
        self.phase = Phase.GAME_OVER
        self._queue = []
