"""*Avalon* in words for language-model agents (``GAME.text``; the protocol of :mod:`traitors_env.core.text`).

Everything here reads one seat's observation (:mod:`traitors_env.games.avalon.observation`, A17), never the
engine's state: the seat's role and what A03 tells it, the options in play, and the public record (every proposal's
leader and team, the votes once all are cast (A07), each quest's team, number of Fails and result (A11), the
rejections in a row (A09), the claims (A16), the assassination (A14)). Seats are named relative to the reader, as the
observation and the actions are: *you* are seat 0, *seat 1* is the next seat to your left (the next leader after
you, A12), *seat n-1* the one to your right; so ``assassinate seat 3`` names the player three seats to your left.

Canonical action texts (:func:`action_text`): ``pick seat 2`` (``pick myself``), ``approve``, ``reject``,
``success``, ``fail``, ``assassinate seat 3``, ``claim: nothing``, ``claim: seat 2 is Evil``, ``claim: seat 2 is
Good``, ``claim: I am Good``, ``claim: I am Merlin``, ``claim: I am Percival``.

Events (:func:`events`) are what became public between two observations of the seat, in the order of the game:
proposals of the other seats, every revealed vote (the reader's own too: they are revealed together), the other
seats' claims, quest results, the assassination and the end. The observation counts claims per quest (not per
proposal), so a quest's new claims are told after its newest proposal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import actions as A
from .engine import Phase
from .observation import OPTIONS, phase_of_observation, piece
from .roles import EVIL_COUNT, MAX_PLAYERS, MAX_PROPOSALS, MIN_PLAYERS, NUM_QUESTS, ROLE_NAMES, Role, side_of_role

__all__ = ["action_text", "action_texts", "conventions", "decision_kind", "decision_text", "events", "num_players",
           "private_text", "same_game", "state_text"]

R = MAX_PLAYERS
SIDES = ("Good", "Evil")


def seat(relative: int) -> str:
    """The name of the seat ``relative`` places to the reader's left: ``you`` for 0, else ``seat k``."""
    return "you" if relative == 0 else f"seat {relative}"


def _seats(relatives: Sequence[int]) -> str:
    return ", ".join(seat(r) for r in relatives) or "nobody"


# ------------------------------------------------------------------------------------------------ decoding
@dataclass(frozen=True)
class ProposalView:
    """One proposal as the observation shows it (seats relative to the reader); votes ``None`` until revealed."""

    quest: int
    number: int
    leader: int
    team: tuple[int, ...]
    approve: tuple[int, ...] | None
    reject: tuple[int, ...] | None
    approved: bool | None


@dataclass(frozen=True)
class QuestView:
    quest: int
    team: tuple[int, ...]
    success: bool
    fails: int


@dataclass(frozen=True)
class View:
    """A seat's observation decoded (relative seats)."""

    role: Role
    phase: Phase | None
    num_players: int
    options: dict[str, bool]
    known_evil: tuple[int, ...]
    merlin_or_morgana: tuple[int, ...]
    quest: int
    leader: int
    rejections: int
    team_sizes: tuple[int, ...]
    fails_needed: tuple[int, ...]
    successes: int
    failures: int
    team: tuple[int, ...]
    quests: tuple[QuestView, ...]
    proposals: tuple[ProposalView, ...]
    #: per quest (0-based): {(claimant, text): count}, texts in the claimant's words ("seat 2 is Evil", "I am Merlin").
    claims: tuple[dict[tuple[int, str], int], ...]
    assassinated: int | None
    winner: int | None


def _on(values: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.flatnonzero(np.asarray(values) > 0.5))


def _one(values: np.ndarray) -> int | None:
    hits = _on(values)
    return hits[0] if hits else None


def _claim_words(claimant: int, subject: int, evil: bool, n: int) -> str:
    """A claim in the claimant's words, the subject named relative to the reader."""
    if subject == claimant:
        return f"I am {'Evil' if evil else 'Good'}"
    return f"{seat(subject)} {'are' if subject == 0 else 'is'} {'Evil' if evil else 'Good'}"


def decode(observation: np.ndarray) -> View:
    """The observation of one seat in named fields (seats relative to it)."""
    obs = np.asarray(observation, dtype=np.float32)
    n = MIN_PLAYERS + int(np.argmax(piece(obs, "num_players")))
    flags = piece(obs, "options")
    options = {name: bool(flags[i] > 0.5) for i, name in enumerate(OPTIONS)}
    knowledge = piece(obs, "knowledge")
    proposals = []
    block = piece(obs, "proposals")
    for q in range(NUM_QUESTS):
        for p in range(MAX_PROPOSALS):
            row = block[q, p]
            if row[0] < 0.5:
                continue
            approve, reject = _on(row[2 + 2 * R: 2 + 3 * R]), _on(row[2 + 3 * R: 2 + 4 * R])
            revealed = bool(approve or reject)
            proposals.append(ProposalView(q + 1, p + 1, _one(row[2: 2 + R]) or 0, _on(row[2 + R: 2 + 2 * R]),
                                          approve if revealed else None, reject if revealed else None,
                                          bool(row[1] > 0.5) if revealed else None))
    results = piece(obs, "quest_results")
    teams = piece(obs, "quest_teams")
    quests = tuple(QuestView(q + 1, _on(teams[q]), bool(results[q, 0] > 0.5), int(round(float(results[q, 2]))))
                   for q in range(NUM_QUESTS) if results[q, 0] > 0.5 or results[q, 1] > 0.5)
    subject_claims, role_claims = piece(obs, "claims"), piece(obs, "role_claims")
    claims = []
    for q in range(NUM_QUESTS):
        counts: dict[tuple[int, str], int] = {}
        for claimant in range(n):
            for subject in range(n):
                for kind, evil in ((0, True), (1, False)):
                    c = int(round(float(subject_claims[q, claimant, subject, kind])))
                    if c:
                        counts[claimant, _claim_words(claimant, subject, evil, n)] = c
            for kind, name in ((0, "Merlin"), (1, "Percival")):
                c = int(round(float(role_claims[q, claimant, kind])))
                if c:
                    counts[claimant, f"I am {name}"] = c
        claims.append(counts)
    score = piece(obs, "score")
    winner = _one(piece(obs, "winner"))
    return View(
        role=Role(int(np.argmax(piece(obs, "role")))),
        phase=phase_of_observation(obs),
        num_players=n,
        options=options,
        known_evil=_on(knowledge[:, 0]),
        merlin_or_morgana=_on(knowledge[:, 1]),
        quest=1 + int(np.argmax(piece(obs, "quest"))),
        leader=_one(piece(obs, "leader")) or 0,
        rejections=int(np.argmax(piece(obs, "rejections"))),
        team_sizes=tuple(int(round(float(v))) for v in piece(obs, "team_sizes")),
        fails_needed=tuple(int(round(float(v))) for v in piece(obs, "fails_needed")),
        successes=int(round(float(score[0]))),
        failures=int(round(float(score[1]))),
        team=_on(piece(obs, "team")),
        quests=quests,
        proposals=tuple(proposals),
        claims=tuple(claims),
        assassinated=_one(piece(obs, "assassinated")),
        winner=winner,
    )


# ------------------------------------------------------------------------------------------------ actions
def action_text(action: int) -> str:
    """The canonical text of ``action``; seats relative to the actor (``seat k``: k seats to its left).

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    group, k = A.group_of(action)
    name = group.name
    if name == "PICK":
        return "pick myself" if k == 0 else f"pick seat {k}"
    if name in ("APPROVE", "REJECT", "SUCCESS", "FAIL"):
        return name.lower()
    if name == "ASSASSINATE":
        return f"assassinate seat {k}"
    if name == "CLAIM_NONE":
        return "claim: nothing"
    if name == "CLAIM_EVIL":
        return f"claim: seat {k} is Evil"
    if name == "CLAIM_GOOD":
        return "claim: I am Good" if k == 0 else f"claim: seat {k} is Good"
    return "claim: I am Merlin" if name == "CLAIM_MERLIN" else "claim: I am Percival"


def action_texts(observation: np.ndarray, legal: Sequence[int]) -> list[str]:
    """The canonical text of each legal action (:func:`action_text`)."""
    return [action_text(a) for a in legal]


# ------------------------------------------------------------------------------------------------ the seat's view
def conventions(num_players: int | None = None) -> str:
    """How the text names seats (for the system prompt)."""
    last = f"seat {num_players - 1}" if num_players else "the last seat"
    return ("Seats are named from where you sit: you are seat 0 (\"you\"); seat 1 is the next player to your left "
            f"(leadership passes to the left, A12), seat 2 the one after, and so on; {last} sits just to your right. "
            "So \"pick seat 2\" puts the player two seats to your left on the team, and \"seat 1 claims: seat 2 is Evil\" is a "
            "claim about that same player (in others' claims too, seats are named from where you sit). Votes are shown once everyone "
            "has voted (A07); of a quest only the number of Fails is shown, never who played them (A11).")


def num_players(observation: np.ndarray) -> int:
    """The table size the observation shows (A01)."""
    return MIN_PLAYERS + int(np.argmax(piece(np.asarray(observation), "num_players")))


def _roles_in_play(view: View) -> str:
    n = view.num_players
    evil, good = EVIL_COUNT[n], n - EVIL_COUNT[n]
    o = view.options
    good_special = ["Merlin"] * o["Merlin and the Assassin"] + ["Percival"] * o["Percival"]
    evil_special = (["the Assassin"] * o["Merlin and the Assassin"]
                    + [name for name in ("Morgana", "Mordred", "Oberon") if o[name]])
    servants, minions = good - len(good_special), evil - len(evil_special)
    good_text = good_special + ([f"{servants} Loyal Servant{'s' if servants != 1 else ''}"] if servants else [])
    evil_text = evil_special + ([f"{minions} Minion{'s' if minions != 1 else ''}"] if minions else [])
    return (f"Good ({good}): {', '.join(good_text)}; Evil ({evil}): {', '.join(evil_text)}"
            + ("; claims are on (A16)" if o["claims"] else ""))


def private_text(observation: np.ndarray) -> str:
    """The seat's role, side and goal, and what A03 tells it: shown at its first decision."""
    view = decode(observation)
    role, side = view.role, side_of_role(view.role)
    name = ROLE_NAMES[role]
    lines = [f"You are {'a ' if role in (Role.SERVANT, Role.MINION) else ''}{name}, on the {SIDES[side]} side. "
             + ("Good wins with three successful quests (and, with Merlin in play, if the Assassin then fails to "
                "name Merlin, A14)." if side == 0 else
                "Evil wins with three failed quests, five rejected proposals in a row on one quest (A09), or by "
                "naming Merlin after three successes (A14).")]
    if role == Role.MERLIN:
        lines.append("As Merlin you see the Evil players (all but Mordred, A03): "
                     + _seats(view.known_evil) + ". Do not give yourself away: the Assassin may name you at the end.")
    elif role == Role.PERCIVAL:
        lines.append("As Percival you see Merlin and Morgana without knowing which is which (A03): "
                     + _seats(view.merlin_or_morgana) + ".")
    elif side == 1 and role != Role.OBERON:
        lines.append("You see your fellow Evil players (all but Oberon, A03): " + _seats(view.known_evil) + ".")
        if role == Role.ASSASSIN:
            lines.append("As the Assassin, if Good succeeds three quests you name the player you think is Merlin "
                         "(A14).")
    elif role == Role.OBERON:
        lines.append("As Oberon you do not know the other Evil players, nor they you (A03).")
    else:
        lines.append("You know nobody's role (A03).")
    if role in (Role.MINION, Role.ASSASSIN, Role.MORGANA, Role.MORDRED, Role.OBERON):
        lines.append("On a quest you may play Fail or Success (A10).")
    lines.append("Roles in play: " + _roles_in_play(view) + ".")
    return "\n".join(lines)


def _votes(p: ProposalView) -> str:
    count = f"{len(p.approve or ())}–{len(p.reject or ())}"
    result = f"approved ({count})" if p.approved else f"rejected ({count})"
    return f"{result}: approve {_seats(p.approve or ())}; reject {_seats(p.reject or ())}"


def _quest_line(q: QuestView, needed: int) -> str:
    fails = f"{q.fails} Fail{'s' if q.fails != 1 else ''}"
    return (f"quest {q.quest} (team {_seats(q.team)}): {'succeeded' if q.success else 'failed'}, {fails} played"
            + (f" ({needed} needed to fail)" if needed > 1 else ""))


def state_text(observation: np.ndarray) -> str:
    """The table as the seat knows it: the quest, score, leader and rejections; the quests played; every proposal
    with its votes; the claims; the team being proposed or voted; the assassination."""
    view = decode(observation)
    n = view.num_players
    track = [s for s in view.team_sizes if s]  # a small variant's shorter quest track leaves 0s (S04)
    sizes = ", ".join(f"{s}" + (" (2 Fails to fail)" if f > 1 else "") for s, f in zip(track, view.fails_needed))
    decide = "three of one kind decide" if len(track) == NUM_QUESTS else f"{len(track) // 2 + 1} successes win"
    lines = [f"{n} players ({_roles_in_play(view)}). Team sizes of quests 1–{len(track)}: {sizes}.",
             f"Quest {view.quest} of {len(track)}; {view.successes} succeeded, {view.failures} failed ({decide}, "
             f"A13, A14). Leader: {seat(view.leader)}. Rejected proposals in a row on this quest: "
             f"{view.rejections} (the fifth wins for Evil, A09)."]
    if view.quests:
        lines.append("Quests played:")
        lines += [f"- {_quest_line(q, view.fails_needed[q.quest - 1])}" for q in view.quests]
    if view.proposals:
        lines.append("Proposals (leader: team; votes):")
        for p in view.proposals:
            votes = _votes(p) if p.approve is not None else "votes not yet revealed"
            lines.append(f"- quest {p.quest} #{p.number}, {seat(p.leader)}: {_seats(p.team)}; {votes}")
    claimed: dict[int, list[str]] = {}
    for q, counts in enumerate(view.claims):
        for (claimant, words), count in counts.items():
            claimed.setdefault(claimant, []).append(f"\"{words}\" (quest {q + 1}{f' ×{count}' if count > 1 else ''})")
    if claimed:
        lines.append("Claims (A16; they may be false):")
        lines += [f"- {seat(c)}: " + ", ".join(texts) for c, texts in sorted(claimed.items())]
    if view.phase is Phase.PROPOSE:
        size = view.team_sizes[view.quest - 1]
        lines.append(f"You are the leader: picked so far {_seats(view.team)} ({size - len(view.team)} more to pick).")
    elif view.team and view.phase in (Phase.CLAIM, Phase.VOTE, Phase.QUEST):
        lines.append(f"The proposed team: {_seats(view.team)}.")
    if view.assassinated is not None:
        lines.append(f"The Assassin named {seat(view.assassinated)} as Merlin (A14).")
    if view.winner is not None:
        lines.append(f"The game is over: {SIDES[view.winner]} won.")
    return "\n".join(lines)


def decision_text(observation: np.ndarray, legal: Sequence[int]) -> str:
    """The decision asked in words (A06, A07, A10, A14, A16)."""
    view = decode(observation)
    phase, q = view.phase, view.quest
    if phase is Phase.PROPOSE:
        size = view.team_sizes[q - 1]
        return (f"You lead quest {q} (proposal {view.rejections + 1} of at most {MAX_PROPOSALS}): pick a team of "
                f"{size}, one member per decision ({len(view.team)} picked so far, A06).")
    if phase is Phase.CLAIM:
        return ("Your claim to the table about the proposed team's players or yourself: everybody sees it, and it "
                "may be false (A16).")
    if phase is Phase.VOTE:
        last = " If it is rejected, Evil wins at once (the fifth rejection in a row, A09)." if (
            view.rejections == MAX_PROPOSALS - 1) else ""
        return (f"Vote on {seat(view.leader) if view.leader else 'your'}{'' if not view.leader else chr(39) + 's'} "
                f"proposal for quest {q} (team {_seats(view.team)}): approve or reject; a strict majority approves "
                f"(A07, A08).{last}")
    if phase is Phase.QUEST:
        needed = view.fails_needed[q - 1]
        return (f"You are on quest {q}'s team: play a card in secret (A10: Good must play Success). "
                f"{needed} Fail{'s' if needed > 1 else ''} make{'' if needed > 1 else 's'} the quest fail (A11).")
    if phase is Phase.ASSASSINATE:
        return ("Good has succeeded three quests: as the Assassin, name the player you think is Merlin (A14). "
                "Naming Merlin wins for Evil; anyone else, Good wins.")
    return "Your decision."


#: The kind of each decision, in words (the docs show one prompt of each).
PHASE_KIND = {Phase.PROPOSE: "leader picks a team member", Phase.CLAIM: "claim", Phase.VOTE: "vote on a team",
              Phase.QUEST: "quest card", Phase.ASSASSINATE: "assassination"}


def decision_kind(observation: np.ndarray) -> str:
    """The kind of decision asked: its phase in words (:data:`PHASE_KIND`)."""
    phase = phase_of_observation(np.asarray(observation))
    return "no decision" if phase is None else PHASE_KIND[phase]


# ------------------------------------------------------------------------------------------------ events
def events(previous: np.ndarray | None, current: np.ndarray) -> list[str]:
    """What became public between two observations of the seat (``previous`` ``None``: since the deal), in the
    game's order: the other seats' proposals (A06), their claims (A16), each revealed vote (A07–A09), quest results
    (A11), the assassination (A14) and the end (A13–A15)."""
    now = decode(current)
    before = decode(previous) if previous is not None else None
    old_proposals = {(p.quest, p.number): p for p in (before.proposals if before else ())}
    old_quests = {q.quest for q in (before.quests if before else ())}
    texts: list[str] = []
    for quest in range(1, NUM_QUESTS + 1):
        proposals = [p for p in now.proposals if p.quest == quest]
        new = [p for p in proposals if (p.quest, p.number) not in old_proposals]
        old_counts = before.claims[quest - 1] if before else {}
        claims = []
        for (claimant, words), count in now.claims[quest - 1].items():
            if claimant:
                claims += [f"{seat(claimant)} claims: {words}"] * (count - old_counts.get((claimant, words), 0))
        anchor = new[-1] if new else None
        if anchor is None:
            texts += claims
        for p in proposals:
            if p in new and p.leader:
                texts.append(f"quest {quest}, proposal {p.number}: {seat(p.leader)} proposes the team "
                             f"{_seats(p.team)}")
            if p is anchor:
                texts += claims
            was = old_proposals.get((p.quest, p.number))
            if p.approve is not None and (was is None or was.approve is None):
                texts.append(f"the votes on {seat(p.leader) if p.leader else 'your'}"
                             f"{chr(39) + 's' if p.leader else ''} proposal for quest {quest}: {_votes(p)}"
                             + ("" if p.approved else f" (rejections in a row: {p.number})"))
        for q in now.quests:
            if q.quest == quest and quest not in old_quests:
                texts.append(_quest_line(q, now.fails_needed[quest - 1]))
    if now.assassinated is not None and (before is None or before.assassinated is None):
        texts.append(f"the Assassin names {seat(now.assassinated)} as Merlin (A14)")
    if now.winner is not None and (before is None or before.winner is None):
        texts.append(f"the game is over: {SIDES[now.winner]} wins")
    return texts


def _progress(view: View) -> tuple[int, ...]:
    """How far the game is, growing with every decision of one seat: proposals made, votes revealed, quests played,
    the phase of the decision, the leader's picks."""
    phase = -1 if view.phase is None else int(view.phase)
    revealed = sum(p.approve is not None for p in view.proposals)
    picks = len(view.team) if view.phase is Phase.PROPOSE else 0
    return len(view.proposals), revealed, len(view.quests), phase, picks


def same_game(previous: np.ndarray, current: np.ndarray) -> bool:
    """Whether ``current`` follows ``previous`` in one game of the seat: the same table, options, role and A03
    knowledge; every proposal and quest of ``previous`` still there alike; and the game further on
    (:func:`_progress`: more proposals, votes revealed or quests played, or a later phase, or more picks). A new game's first decision is on its first proposal,
    and a seat's last decision of a game is on its third proposal or later (every seat votes on every proposal)."""
    before, now = decode(previous), decode(current)
    if (before.num_players, before.role, before.options, before.known_evil, before.merlin_or_morgana) != (
            now.num_players, now.role, now.options, now.known_evil, now.merlin_or_morgana):
        return False
    kept = {(p.quest, p.number, p.leader, p.team) for p in now.proposals}
    if any((p.quest, p.number, p.leader, p.team) not in kept for p in before.proposals):
        return False
    if not set(before.quests) <= set(now.quests):
        return False
    return _progress(now) > _progress(before)
