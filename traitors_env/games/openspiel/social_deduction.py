"""OpenSpiel's ``social_deduction`` (open-spiel 2.0.2) as ``openspiel_social_deduction_v0``.

| Import | `load_game("openspiel_social_deduction")` (needs the `[solve]` extra: `pip install -e ".[solve]"`) |
|---|---|
| Agents | `player_0 … player_{n-1}`, n = 3–10 (default 6, OpenSpiel's) |
| Action shape | `Discrete(31)` at every table size |
| Observation shape | `{"observation": (2677,) float32, "action_mask": (31,) int8}` at every table size |

The game (OpenSpiel's own rules, ``open_spiel/games/social_deduction/social_deduction.cc``): hidden Innocents and
Imposters (``imposters``, default 1); Imposters know each other, Innocents only themselves. Each round a public
*signal* (a chance outcome) names a living seat as suspicious or clear: suspicious with probability
``1 − observation_noise`` for an Imposter and ``observation_noise`` for an Innocent. Then every living seat in seat
order sends one message (skip, claim to be innocent, accuse a living seat, defend a living seat), then every living
seat votes to eliminate another living seat; a strict plurality eliminates its seat (its role stays secret), a tie
nobody. Innocents win (+1 each, −1 each Imposter) once every Imposter is out; Imposters win at parity (as many
Imposters alive as Innocents) or when ``max_rounds`` (default 10) rounds have passed.

**Observation** (the declared :data:`LAYOUT`; seats relative to the observer, self first, padded to 10): read from
the seat's ``information_state_string`` and nothing else (the game provides no tensor): its role and, for an
Imposter, its team; the living seats; the table size, the Imposter count, the noise and the rounds left (public
parameters); the decision asked; then the record of the last :data:`HISTORY` rounds, newest first (the signal, each
seat's message and vote, who was eliminated). With ``max_rounds`` ≤ 10 (the default) that is the seat's whole
information state (perfect recall); beyond, the oldest rounds fall out of the vector.

**Actions** (:data:`NUM_ACTIONS` = 31, seats relative to the actor): 0 skip, 1 claim innocent, 2–11 accuse the seat
0–9 places to the left (0: oneself, as OpenSpiel allows), 12–21 defend it, 22–30 vote to eliminate the seat 1–9
places to the left. The mask allows exactly OpenSpiel's legal actions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from ...core.agent import RandomAgent, spread_to_count
from ...core.game import GameType, Variant
from ...core.layout import Layout, Piece
from .adapter import SmallSpielVariant, SpielSpec, make_game, make_raw_env, wrapped

__all__ = ["GAME", "HISTORY", "LAYOUT", "NUM_ACTIONS", "SMALL_VARIANTS", "SocialDeductionHeuristic", "raw_env", "env"]

MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 3, 10, 6
MAX_IMPOSTERS = (MAX_PLAYERS - 1) // 2  # imposters < innocents (OpenSpiel's check): 4 at 10 players
#: Rounds of the record in the observation, newest first (OpenSpiel's default max_rounds: all of them).
HISTORY = 10
MESSAGES = ("skip", "claim innocent", "accuse", "defend")
SKIP, CLAIM, ACCUSE, DEFEND, VOTE = 0, 1, 2, 2 + MAX_PLAYERS, 2 + 2 * MAX_PLAYERS
#: 0 skip, 1 claim, 2–11 accuse relative seat 0–9, 12–21 defend relative seat 0–9, 22–30 vote relative seat 1–9.
NUM_ACTIONS = VOTE + MAX_PLAYERS - 1
INNOCENTS, IMPOSTERS = 0, 1

LAYOUT = Layout((
    Piece("role", (2,), 0, 1, "one-hot: own role, Innocent, Imposter"),
    Piece("known_imposters", (MAX_PLAYERS,), 0, 1, "per relative seat: a known Imposter (an Imposter's team, itself included)"),
    Piece("alive", (MAX_PLAYERS,), 0, 1, "per relative seat: still in the game"),
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), 0, 1, f"one-hot: table size {MIN_PLAYERS}–{MAX_PLAYERS}"),
    Piece("imposters", (MAX_IMPOSTERS,), 0, 1, f"one-hot: Imposters dealt, 1–{MAX_IMPOSTERS} (the `imposters` parameter)"),
    Piece("observation_noise", (1,), 0, 1, "the `observation_noise` parameter"),
    Piece("rounds_left", (HISTORY,), 0, 1, f"one-hot: rounds left, this one included, 1–{HISTORY} ({HISTORY}: {HISTORY} or more)"),
    Piece("phase", (2,), 0, 1, "one-hot: the decision asked, message, vote (zeros once the game is over)"),
    Piece("round_seen", (HISTORY,), 0, 1, "per round, newest first: the round has begun"),
    Piece("signal_seat", (HISTORY, MAX_PLAYERS), 0, 1, "per round: the relative seat the public signal named"),
    Piece("signal", (HISTORY, 2), 0, 1, "per round: the signal, clear, suspicious"),
    Piece("message", (HISTORY, MAX_PLAYERS, len(MESSAGES)), 0, 1,
          "per round and relative speaker: its message, " + ", ".join(MESSAGES) + " (zeros: none yet, or out)"),
    Piece("message_target", (HISTORY, MAX_PLAYERS, MAX_PLAYERS), 0, 1,
          "per round and relative speaker: the relative seat it accused or defended"),
    Piece("vote", (HISTORY, MAX_PLAYERS, MAX_PLAYERS), 0, 1, "per round and relative voter: the relative seat voted"),
    Piece("eliminated", (HISTORY, MAX_PLAYERS), 0, 1, "per round: the relative seat eliminated (zeros: nobody)"),
))
_OFF = LAYOUT.offsets


# ------------------------------------------------------------------ the information state, read
def parse_information_state(text: str) -> dict[str, Any]:
    """OpenSpiel's ``information_state_string`` of one seat as a dict: ``player``, ``role`` (``"Innocent"``,
    ``"Imposter"``), ``team`` (seats, an Imposter's only), ``alive`` (seats), ``rounds``: per round ``signal``
    (``(seat, suspicious)`` or ``None``), ``messages`` (seat → (kind, target or None)), ``votes`` (seat → seat),
    ``eliminated`` (seat or ``None``).

    Raises:
        ValueError: for a line this reader does not know, quoting it (a pyspiel version that changed the format).
    """
    info: dict[str, Any] = {"team": [], "rounds": []}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        words = rest.split()
        if line.startswith("Round "):
            info["rounds"].append({"signal": None, "messages": {}, "votes": {}, "eliminated": None})
        elif key == "Player":
            info["player"] = int(words[0])
        elif key == "Role":
            info["role"] = words[0]
        elif key == "ImposterTeam":
            info["team"] = [int(w) for w in words]
        elif key == "Alive":
            info["alive"] = [int(w) for w in words]
        elif key == "Signal":
            info["rounds"][-1]["signal"] = (int(words[1]), words[2] == "suspicious")
        elif key == "Messages":
            for word in words:
                seat, _, message = word.partition("=")
                if message == "SKIP":
                    parsed = (0, None)
                elif message == "CLAIM_INNOCENT":
                    parsed = (1, None)
                elif message.startswith(("ACCUSE_PLAYER_", "DEFEND_PLAYER_")):
                    parsed = (2 if message.startswith("ACCUSE") else 3, int(message.rsplit("_", 1)[1]))
                else:
                    raise ValueError(f"unknown message {word!r} in social_deduction's information state")
                info["rounds"][-1]["messages"][int(seat)] = parsed
        elif key == "Votes":
            for word in words:
                voter, _, target = word.partition("->")
                info["rounds"][-1]["votes"][int(voter)] = int(target)
        elif key == "Eliminated":
            info["rounds"][-1]["eliminated"] = int(words[0])
        elif key == "InformationStatePlayer" or not line.strip():
            continue
        else:
            raise ValueError(f"unknown line {line!r} in social_deduction's information state")
    return info


def is_vote(spiel_state) -> bool:
    """Whether the seat to act votes (else it sends a message): a message's legal set always holds a defence, whose
    pyspiel index is ≥ the table size; a vote's indices are seats."""
    return max(spiel_state.legal_actions()) < spiel_state.num_players()


def encode(spiel_state, seat: int, options: Mapping[str, Any]) -> np.ndarray:
    """``seat``'s observation (:data:`LAYOUT`) from its information state string only."""
    n = spiel_state.num_players()
    info = parse_information_state(spiel_state.information_state_string(seat))
    out = np.zeros(LAYOUT.size, dtype=np.float32)
    M, K = MAX_PLAYERS, len(MESSAGES)

    def rel(target: int) -> int:
        return (target - seat) % n

    if info["role"] in ("Innocent", "Imposter"):
        out[_OFF["role"] + (info["role"] == "Imposter")] = 1.0
    for s in info["team"]:
        out[_OFF["known_imposters"] + rel(s)] = 1.0
    for s in info.get("alive", ()):
        out[_OFF["alive"] + rel(s)] = 1.0
    out[_OFF["num_players"] + n - MIN_PLAYERS] = 1.0
    out[_OFF["imposters"] + int(options["imposters"]) - 1] = 1.0
    out[_OFF["observation_noise"]] = float(options["observation_noise"])
    rounds = info["rounds"]
    if not spiel_state.is_terminal():
        left = int(options["max_rounds"]) - len(rounds) + 1
        out[_OFF["rounds_left"] + min(max(left, 1), HISTORY) - 1] = 1.0
        out[_OFF["phase"] + int(is_vote(spiel_state))] = 1.0
    for h, record in enumerate(reversed(rounds[-HISTORY:])):
        out[_OFF["round_seen"] + h] = 1.0
        if record["signal"] is not None:
            target, suspicious = record["signal"]
            out[_OFF["signal_seat"] + h * M + rel(target)] = 1.0
            out[_OFF["signal"] + h * 2 + int(suspicious)] = 1.0
        for speaker, (kind, target) in record["messages"].items():
            r = rel(speaker)
            out[_OFF["message"] + (h * M + r) * K + kind] = 1.0
            if target is not None:
                out[_OFF["message_target"] + (h * M + r) * M + rel(target)] = 1.0
        for voter, target in record["votes"].items():
            out[_OFF["vote"] + (h * M + rel(voter)) * M + rel(target)] = 1.0
        if record["eliminated"] is not None:
            out[_OFF["eliminated"] + h * M + rel(record["eliminated"])] = 1.0
    return out


def side_of_observation(observation: np.ndarray) -> int:
    """0 Innocent, 1 Imposter: the observer's own role."""
    return int(LAYOUT.piece(np.asarray(observation), "role")[1] > 0.5)


# ------------------------------------------------------------------ actions
def from_spiel(spiel_state, action: int) -> int:
    """Our index of pyspiel's ``action`` for the seat to act."""
    n, seat = spiel_state.num_players(), spiel_state.current_player()
    if is_vote(spiel_state):
        return VOTE + (action - seat) % n - 1
    if action < ACCUSE:
        return action
    if action < ACCUSE + n:
        return ACCUSE + (action - ACCUSE - seat) % n
    return DEFEND + (action - ACCUSE - n - seat) % n


def to_spiel(spiel_state, action: int) -> int:
    """pyspiel's index of our ``action`` for the seat to act (the inverse of :func:`from_spiel`)."""
    n, seat = spiel_state.num_players(), spiel_state.current_player()
    if action >= VOTE:
        return (seat + action - VOTE + 1) % n
    if action < ACCUSE:
        return action
    if action < DEFEND:
        return ACCUSE + (seat + action - ACCUSE) % n
    return ACCUSE + n + (seat + action - DEFEND) % n


def _seat_words(r: int) -> str:
    return "yourself" if r == 0 else f"the player {r} seat{'s' if r > 1 else ''} to your left"


def action_text(action: int) -> str:
    """Our action index in words.

    Raises:
        ValueError: for an index outside 0–30, naming it.
    """
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is not an action of openspiel_social_deduction_v0; expected an int "
                         f"0–{NUM_ACTIONS - 1}")
    if action == SKIP:
        return "skip: send no message"
    if action == CLAIM:
        return "claim to be innocent"
    if action < DEFEND:
        return f"accuse {_seat_words(action - ACCUSE)}"
    if action < VOTE:
        return f"defend {_seat_words(action - DEFEND)}"
    return f"vote to eliminate {_seat_words(action - VOTE + 1)}"


def action_table() -> str:
    """The action table as markdown, for the docs page."""
    return "\n".join([
        "| index | action | when |", "|---|---|---|",
        f"| {SKIP} | skip: send no message | message |",
        f"| {CLAIM} | claim to be innocent | message |",
        f"| {ACCUSE}–{DEFEND - 1} | accuse the living seat r = index − {ACCUSE} places to the left (0: oneself) | message |",
        f"| {DEFEND}–{VOTE - 1} | defend the living seat r = index − {DEFEND} places to the left (0: oneself) | message |",
        f"| {VOTE}–{NUM_ACTIONS - 1} | vote to eliminate the living seat r = index − {VOTE - 1} places to the left (r ≥ 1) | vote |",
    ])


# ------------------------------------------------------------------ sides, outcome, parameters
def sides(spiel_state, num_players: int) -> list[int]:
    """Each seat's side from the deal: OpenSpiel's first chance outcome is the bitmask of the Imposters' seats."""
    history = spiel_state.history()
    if not history:
        raise ValueError("social_deduction: the roles are not dealt yet (no chance outcome in the history)")
    return [(int(history[0]) >> seat) & 1 for seat in range(num_players)]


def end_condition(spiel_state) -> str:
    """``"imposters_eliminated"`` (Innocents win), ``"parity"`` or ``"round_limit"`` (Imposters win); ``"running"``."""
    if not spiel_state.is_terminal():
        return "running"
    n = spiel_state.num_players()
    team = sides(spiel_state, n)
    text = str(spiel_state)
    alive = next(line for line in text.splitlines() if line.startswith("Alive:")).split()[1:]
    alive_imposters = sum(team[int(s)] for s in alive)
    if alive_imposters == 0:
        return "imposters_eliminated"
    return "parity" if alive_imposters >= len(alive) - alive_imposters else "round_limit"


def progress(spiel_state, options: Mapping[str, Any]) -> float:
    """Rounds begun / ``max_rounds``, in [0, 1] (the deduction metrics' phases)."""
    begun = str(spiel_state).count("\nRound ")
    return min(1.0, max(0, begun - 1) / int(options["max_rounds"]))


#: OpenSpiel reads game parameters as C++ ``int``: a larger value fails there with a cast error that names nothing.
INT_MAX = 2**31 - 1


def _int_at_least(name: str, low: int, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= INT_MAX:
        raise ValueError(f"{name}={value!r} is not valid; expected an int from {low} to {INT_MAX:,}")
    return int(value)


def _probability(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(value) <= 1.0 or math.isnan(float(value)):
        raise ValueError(f"observation_noise={value!r} is not valid; expected a number in [0, 1]")
    return float(value)


def check_table(num_players: int, options: Mapping[str, Any]) -> None:
    """OpenSpiel's checks, said in words: fewer Imposters than Innocents."""
    if options["imposters"] >= num_players - options["imposters"]:
        raise ValueError(f"imposters={options['imposters']} is not valid at {num_players} players; expected fewer "
                         f"Imposters than Innocents: 1–{(num_players - 1) // 2}")


def public_text(spiel_state) -> str:
    """The public record: any seat's observation string without its own lines."""
    return "\n".join(line for line in spiel_state.observation_string(0).splitlines()
                     if not line.startswith(("Player:", "Role:", "ImposterTeam:")))


def rules_summary(num_players: int | None = None) -> str:
    """The rules of OpenSpiel's ``social_deduction`` in a few lines."""
    table = f" at {num_players} players" if num_players else ""
    return f"""\
SOCIAL DEDUCTION (OpenSpiel's social_deduction{table})
Roles. Hidden Innocents and Imposters (default 1 Imposter). Imposters know each other; Innocents only themselves.
Each round:
  Signal: a public chance event names one living player as suspicious or clear. An Imposter shows suspicious with
    probability 1 - noise, an Innocent with probability noise (default noise 0.1).
  Messages: each living player, in seat order, sends one: skip, claim to be innocent, accuse or defend a living player.
  Vote: each living player, in seat order, votes to eliminate another living player. A strict plurality eliminates
    that player (the role stays secret); a tie eliminates nobody.
End. Innocents win once every Imposter is eliminated; Imposters win at parity (as many Imposters alive as
  Innocents) or after the last round (default 10). Reward: +1 to each winner, -1 to each loser."""


# ------------------------------------------------------------------ text
_RECORD = ("signal_seat", "signal", "message", "message_target", "vote", "eliminated")
_FIXED = ("role", "known_imposters", "num_players", "imposters", "observation_noise")


def same_game(previous: np.ndarray, current: np.ndarray) -> bool:
    """Whether ``current`` follows ``previous`` in one game of the seat (the text view's new-conversation test): the
    same table, parameters, role and team; every round of ``previous`` still in ``current`` alike (shifted by the
    rounds begun since) with nothing taken away; and something more (the seat's own decision at least)."""
    before, now = np.asarray(previous), np.asarray(current)
    if any(not np.array_equal(LAYOUT.piece(before, name), LAYOUT.piece(now, name)) for name in _FIXED):
        return False
    shift = int(LAYOUT.piece(now, "round_seen").sum() - LAYOUT.piece(before, "round_seen").sum())
    if shift < 0:
        return False
    kept = HISTORY - shift
    grown = False
    for name in _RECORD:
        old, new = LAYOUT.piece(before, name)[:kept], LAYOUT.piece(now, name)[shift:]
        if np.any(old > new):
            return False
        grown |= bool(np.any(new > old))
    return grown or shift > 0


class _Text:
    """The game's text renderer (``Game.text``): the generic one, with :func:`same_game`."""

    same_game = staticmethod(same_game)


# ------------------------------------------------------------------ bots
class SocialDeductionHeuristic:
    """A cheap reader of the public record (its observation only): each seat's suspicion is the log-likelihood ratio
    of its signals (suspicious ``log((1 − noise) / noise)``, clear the opposite; negative above noise ½, where a
    "suspicious" signal points at the Innocents; ±5 at noise 0 and 1, 0 at ½), plus half a
    point per accusation and minus a third per defence it received from others.

    An Innocent accuses the most suspect living seat (claims innocence where no seat is suspect) and votes for it. An
    Imposter accuses the most suspect living Innocent (a teammate never) and votes with the round's leading vote against
    an Innocent (so that a plurality eliminates one), else for the most suspect Innocent. Ties are
    broken by its seeded generator. ``beliefs``: P(Imposter) per relative seat, the suspicion's softmax spread to the
    Imposter count (exact for an Imposter, who knows its team).
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    @staticmethod
    def suspicion(observation: np.ndarray) -> np.ndarray:
        """Per relative seat (padded to 10): the suspicion score described in the class doc."""
        noise = float(LAYOUT.piece(observation, "observation_noise")[0])
        # Above noise ½ a "suspicious" signal is evidence of innocence, as informative as below it: the sign turns.
        weight = math.log((1 - noise) / noise) if 0.0 < noise < 1.0 else (5.0 if noise == 0.0 else -5.0)
        seen = LAYOUT.piece(observation, "signal_seat")
        signal = LAYOUT.piece(observation, "signal")
        score = weight * (seen * (signal[:, 1:2] - signal[:, 0:1])).sum(axis=0)
        message = LAYOUT.piece(observation, "message")
        target = LAYOUT.piece(observation, "message_target")
        accused = (target * message[:, :, 2:3]).sum(axis=(0, 1))
        defended = (target * message[:, :, 3:4]).sum(axis=(0, 1))
        own_accused = (target[:, 0, :] * message[:, 0, 2:3]).sum(axis=0)
        own_defended = (target[:, 0, :] * message[:, 0, 3:4]).sum(axis=0)
        return score + 0.5 * (accused - own_accused) - (defended - own_defended) / 3.0

    @staticmethod
    def _tied(values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """The relative seats among ``allowed`` with the highest value (one is drawn)."""
        seats = np.flatnonzero(allowed)
        best = values[seats].max()
        return seats[np.isclose(values[seats], best)]

    def _plan(self, observation: np.ndarray) -> tuple[np.ndarray, Any] | None:
        """``(tied seats, seat -> action)``: the seats one of which is drawn and the action taken on it; ``None``
        where no seat is a target (the heuristic then plays uniformly over the mask)."""
        imposter = side_of_observation(observation) == IMPOSTERS
        known = LAYOUT.piece(observation, "known_imposters") > 0.5
        alive = LAYOUT.piece(observation, "alive") > 0.5
        score = self.suspicion(observation)
        targets = alive.copy()
        targets[0] = False
        if imposter:
            targets &= ~known
        if not targets.any():
            return None
        voting = LAYOUT.piece(observation, "phase")[1] > 0.5
        if voting and imposter:  # join the vote that leads this round against an Innocent (a plurality eliminates)
            score = score + 10.0 * LAYOUT.piece(observation, "vote")[0].sum(axis=0)

        def action_on(seat: int) -> int:
            if voting:
                return VOTE + seat - 1
            if imposter or score[seat] > 0:
                return ACCUSE + seat if (not imposter or score[seat] > 0) else CLAIM
            return CLAIM

        return self._tied(score, targets), action_on

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("action_mask allows no action")
        plan = self._plan(observation)
        if plan is None:
            return int(self.rng.choice(np.flatnonzero(mask)))
        seats, action_on = plan
        action = action_on(int(self.rng.choice(seats)))
        return action if mask[action] else int(self.rng.choice(np.flatnonzero(mask)))

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The distribution :meth:`act` draws from (its ties and fallbacks uniform), over the actions: for exact
        solvers (``traitors-exact``), which would otherwise count seeded copies' actions."""
        observation = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("action_mask allows no action")
        p = np.zeros(mask.size)
        plan = self._plan(observation)
        if plan is None:
            p[legal] = 1.0 / legal.size
            return p
        seats, action_on = plan
        for seat in seats:
            action = action_on(int(seat))
            if mask[action]:
                p[action] += 1.0 / seats.size
            else:
                p[legal] += 1.0 / (seats.size * legal.size)
        return p

    def beliefs(self, observation: np.ndarray) -> np.ndarray:
        observation = np.asarray(observation, dtype=np.float32)
        n = MIN_PLAYERS + int(np.argmax(LAYOUT.piece(observation, "num_players")))
        count = 1 + int(np.argmax(LAYOUT.piece(observation, "imposters")))
        out = np.full(MAX_PLAYERS, np.nan, dtype=np.float32)
        if side_of_observation(observation) == IMPOSTERS:
            out[1:n] = LAYOUT.piece(observation, "known_imposters")[1:n]
            return out
        score = self.suspicion(observation)[1:n]
        weights = np.exp(np.clip(score - score.max(), -30, 0))
        out[1:n] = spread_to_count(weights, count)
        return out


# ------------------------------------------------------------------ the declaration
#: The small variants ``traitors-exact`` solves exactly (tree sizes and figures: docs/solve.md, "social_deduction").
#: Two rounds do not fit: at 3 players a round ends the game unless the vote ties, and each tied first round opens
#: a second round (857,559,334 histories in all, measured in docs/solve.md).
SMALL_VARIANTS: dict[str, SmallSpielVariant] = {
    v.name: v
    for v in (
        SmallSpielVariant(
            "mini3",
            "3 players (2 Innocents, 1 Imposter), one round (max_rounds=1), observation noise 0.1: one signal, one "
            "message and one vote per seat; the Innocents win only by voting the Imposter out in that round",
            num_players=3, options={"imposters": 1, "max_rounds": 1, "observation_noise": 0.1},
        ),
    )
}

TYPE = GameType(
    short_name="openspiel_social_deduction",
    env_id="openspiel_social_deduction_v0",
    long_name="Social Deduction (OpenSpiel)",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=DEFAULT_PLAYERS,
    num_actions=NUM_ACTIONS,
    observation_shape=(LAYOUT.size,),
    sides=("innocents", "imposters"),  # the honest majority is the row side, as Traitors Aboard's Pirates
    side_labels=("Innocents", "Imposters"),
    utility="zero_sum_teams",  # OpenSpiel declares kGeneralSum, but its returns are +1 / -1 by team
    rules="open_spiel/games/social_deduction/social_deduction.cc (open-spiel 2.0.2)",
)


class _Encoder:
    layout = LAYOUT
    encode = staticmethod(encode)


SPEC = SpielSpec(
    spiel_name="social_deduction",
    type=TYPE,
    players_parameter="players",
    sides=sides,
    encoder=_Encoder(),
    action_text=action_text,
    end_condition=end_condition,
    rules_summary=rules_summary,
    bots={"random": RandomAgent, "heuristic": SocialDeductionHeuristic},
    options={
        "imposters": (1, partial(_int_at_least, "imposters", 1)),
        "max_rounds": (10, partial(_int_at_least, "max_rounds", 1)),
        "observation_noise": (0.1, _probability),
    },
    check_table=check_table,
    to_spiel=to_spiel,
    from_spiel=from_spiel,
    # Variants keep one Imposter (Game.side_sizes is per table size); more Imposters are the `imposters` keyword.
    variants={
        "short": Variant({"max_rounds": 3}),
        "noiseless": Variant({"observation_noise": 0.0}),
        "noisy": Variant({"observation_noise": 0.3, "max_rounds": 4}, (3, 4, 5, 6)),
        # the small variants traitors-exact solves, as games of their own (openspiel_social_deduction:mini3)
        **{name: Variant(dict(v.options), (v.num_players,)) for name, v in SMALL_VARIANTS.items()},
    },
    hidden_side=IMPOSTERS,
    progress=progress,
    public_text=public_text,
    small_variants=SMALL_VARIANTS,
)

raw_env = make_raw_env(SPEC)
raw_env.__module__ = __name__
env = wrapped(raw_env)
env.__module__ = __name__

GAME = make_game(SPEC, raw_env, env, side_of_observation=side_of_observation, action_table=action_table,
                 text=lambda: _Text)
