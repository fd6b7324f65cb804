"""The observation of one seat of ``avalon_v0``: a fixed-length ``float32`` vector of what it may know (A17).

The layout is declared once in :data:`LAYOUT`; the docs' table (:func:`layout_table`), the offsets and the ``Box``
bounds come from it. Seats are *relative* to the observer (row 0 is the observer, row 1 the next seat to the left),
padded to 10 seats, so one policy serves every seat and every table size (5–10).

What a seat may know is decided here alone (:func:`encode`): the public record kept by the engine (every proposal's
leader and team, every vote once revealed, every quest's number of Fails and result, the leader and the rejection
count, the claims, the assassination) plus its own role and what A03 tells it (:meth:`GameState.known_evil`,
:meth:`GameState.merlin_candidates`). It never reads another seat's role beyond A03, a vote of the current vote
before the last is cast (A07), a quest card, or who played a Fail (A11).
"""

from __future__ import annotations

import numpy as np

from ...core.layout import Layout, Piece
from . import actions as A
from .engine import NUM_PHASES, GameState, Phase
from .roles import MAX_PLAYERS, MAX_PROPOSALS, MIN_PLAYERS, NUM_QUESTS, NUM_ROLES, OPTIONAL_ROLES, Role, side_of_role

__all__ = ["LAYOUT", "OBS_SIZE", "OFFSETS", "encode", "layout_table", "phase_of_observation", "piece",
           "role_of_observation", "side_of_observation"]

R = MAX_PLAYERS
OPTIONS = ("Merlin and the Assassin", *(name.capitalize() for name in OPTIONAL_ROLES), "claims")
PROPOSAL_FEATURES = 2 + 4 * R  # made, approved, leader[R], team[R], approve[R], reject[R]
EVIDENCE_FEATURES = 8  # see the "evidence" piece

LAYOUT: tuple[Piece, ...] = (
    Piece("role", (NUM_ROLES,), 0, 1, "own role, one-hot: Servant, Merlin, Percival, Minion, Assassin, Morgana, "
          "Mordred, Oberon (A02, A03)"),
    Piece("phase", (NUM_PHASES,), 0, 1, "decision asked of me, one-hot: propose, claim, vote, quest, assassinate "
          "(all 0 when I am not acting)"),
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), 0, 1, "table size 5–10, one-hot (A01)"),
    Piece("options", (len(OPTIONS),), 0, 1, "roles in play and options: " + ", ".join(OPTIONS) + " (A02, A16)"),
    Piece("knowledge", (R, 2), 0, 1, "per relative seat: I see it as Evil (A03: Evil but Oberon for Evil, Evil "
          "but Mordred for Merlin); it is Merlin or Morgana (Percival, A03)"),
    Piece("quest", (NUM_QUESTS,), 0, 1, "the quest being played, 1–5, one-hot"),
    Piece("leader", (R,), 0, 1, "the leader, relative seat one-hot (A06, A09, A12)"),
    Piece("rejections", (MAX_PROPOSALS,), 0, 1, "rejected proposals in a row on this quest, 0–4, one-hot (A09)"),
    Piece("team_sizes", (NUM_QUESTS,), 0, 5, "each quest's team size at this table (A05; 0 past a shorter quest "
          "track, S04)"),
    Piece("fails_needed", (NUM_QUESTS,), 0, 2, "Fails that make each quest fail (A11: 2 on quest 4 at 7+)"),
    Piece("score", (2,), 0, 3, "quests succeeded, quests failed (A13, A14)"),
    Piece("team", (R,), 0, 1, "the proposal being made, per relative seat: picked (the leader sees its picks; "
          "everyone once complete, A06)"),
    Piece("quest_results", (NUM_QUESTS, 3), 0, 5, "[quest]: succeeded; failed; number of Fails played (A11)"),
    Piece("quest_teams", (NUM_QUESTS, R), 0, 1, "[quest, relative seat]: on the team that went on the quest"),
    Piece("proposals", (NUM_QUESTS, MAX_PROPOSALS, PROPOSAL_FEATURES), 0, 1,
          "[quest, proposal]: made; approved; leader (relative seat one-hot 10); team (10); approved by (10); "
          "rejected by (10) (A06–A08; votes only once all are cast)"),
    Piece("claims", (NUM_QUESTS, R, R, 2), 0, MAX_PROPOSALS,
          "[quest, relative claimant, relative subject]: claims 'is Evil', 'is Good' made on that quest (A16)"),
    Piece("role_claims", (NUM_QUESTS, R, 2), 0, MAX_PROPOSALS,
          "[quest, relative claimant]: claims 'I am Merlin', 'I am Percival' made on that quest (A16)"),
    Piece("assassinated", (R,), 0, 1, "the seat the Assassin named, relative (A14)"),
    Piece("winner", (2,), 0, 1, "the game is over and Good won; Evil won (A13–A15)"),
    Piece("evidence", (R, EVIDENCE_FEATURES), -1, 1,
          "[relative seat], derived from the public record and my A03 knowledge (K: the seats I see as Evil, and "
          "I when Evil): vote agreement with 'the team holds K' (+1 per reject of a team with K or approve of one "
          "without, −1 otherwise, over the revealed votes); share of approvals of teams with K; of teams without; "
          "proposals led with K, without (/5); quests succeeded, failed that it went on (/5); Fails on them (/5)"),
    Piece("now", (4,), 0, 1, "the proposal being made (once complete) against K: it holds K; K members on it "
          "(/5); I am on it; I am among the first K members on it, counting from the leader's left, that the "
          "quest needs Fails of (A11)"),
)

_LAYOUT = Layout(LAYOUT)
OFFSETS: dict[str, int] = _LAYOUT.offsets
OBS_SIZE: int = _LAYOUT.size
layout_table = _LAYOUT.table
piece = _LAYOUT.piece

_O = OFFSETS
_REL = {(n, seat): tuple((other - seat) % n for other in range(n))
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for seat in range(n)}
_PROPOSAL_QUEST = MAX_PROPOSALS * PROPOSAL_FEATURES
_CLAIMS_QUEST = R * R * 2


def encode(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat``, shape ``(OBS_SIZE,)``, dtype ``float32`` (A17).

    Reads only public information and ``seat``'s own knowledge (see the module doc). Writes into ``out`` if given
    (overwritten entirely) and returns it.

    Raises:
        ValueError: if ``seat`` is not an int seat of the table, or ``out`` is not a writeable ``float32`` array of
            shape ``(OBS_SIZE,)``.
    """
    n = state.num_players
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not a seat of this {n}-player table; expected an int in 0–{n - 1}")
    seat = int(seat)
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (OBS_SIZE,) or not out.flags.writeable:
            raise ValueError(f"out must be a writeable float32 array of shape ({OBS_SIZE},)")
        out.fill(0.0)
    mv = memoryview(out)
    rel = _REL[n, seat]
    config = state.config

    mv[_O["role"] + int(state.roles[seat])] = 1.0
    acting = not state.is_terminal and state.current_player == seat
    if acting:
        mv[_O["phase"] + int(state.phase)] = 1.0
    mv[_O["num_players"] + n - MIN_PLAYERS] = 1.0
    for i, on in enumerate((config.merlin, *(getattr(config, name) for name in OPTIONAL_ROLES), config.claims)):
        mv[_O["options"] + i] = float(on)
    for other in state.known_evil(seat):
        mv[_O["knowledge"] + 2 * rel[other]] = 1.0
    for other in state.merlin_candidates(seat):
        mv[_O["knowledge"] + 2 * rel[other] + 1] = 1.0
    mv[_O["quest"] + state.quest - 1] = 1.0
    mv[_O["leader"] + rel[state.leader]] = 1.0
    mv[_O["rejections"] + min(state.rejections, MAX_PROPOSALS - 1)] = 1.0
    for q in range(len(state.team_sizes)):  # a shorter quest_track (S04) leaves the later slots 0
        mv[_O["team_sizes"] + q] = state.team_sizes[q]
        mv[_O["fails_needed"] + q] = state.fails_needed(q + 1)
    mv[_O["score"]] = state.successes
    mv[_O["score"] + 1] = state.failures
    # A06: the picks so far are the leader's own knowledge; the complete team is public.
    if state.phase is Phase.PROPOSE:
        if acting:
            for member in state.team:
                mv[_O["team"] + rel[member]] = 1.0
    elif state.proposals:
        for member in state.proposals[-1].team:
            mv[_O["team"] + rel[member]] = 1.0
    # K: what A03 tells me is Evil, and myself when I am Evil; the derived pieces "evidence" and "now" are tallied
    # in the same passes over the quests and proposals that write the record
    known = set(state.known_evil(seat))
    if side_of_role(state.roles[seat]):
        known.add(seat)
    agree = [0.0] * n
    votes_k, approve_k, votes_clean, approve_clean = [0] * n, [0] * n, [0] * n, [0] * n
    led_k, led_clean = [0] * n, [0] * n
    revealed = 0
    on_success, on_failure, fails_on = [0] * n, [0] * n, [0] * n
    for result in state.quests:
        q = result.quest - 1
        base = _O["quest_results"] + 3 * q
        mv[base + (0 if result.success else 1)] = 1.0
        mv[base + 2] = result.fails
        for member in result.team:
            mv[_O["quest_teams"] + q * R + rel[member]] = 1.0
            if result.success:
                on_success[member] += 1
            else:
                on_failure[member] += 1
            fails_on[member] += result.fails
    for proposal in state.proposals:
        q = proposal.quest - 1
        base = _O["proposals"] + q * _PROPOSAL_QUEST + (proposal.number - 1) * PROPOSAL_FEATURES
        mv[base] = 1.0
        mv[base + 2 + rel[proposal.leader]] = 1.0
        for member in proposal.team:
            mv[base + 2 + R + rel[member]] = 1.0
        has_k = any(member in known for member in proposal.team)
        if has_k:
            led_k[proposal.leader] += 1
        else:
            led_clean[proposal.leader] += 1
        if proposal.votes is not None:  # A07: only once every vote is cast
            mv[base + 1] = float(proposal.approved)
            revealed += 1
            for voter, approve in enumerate(proposal.votes):
                mv[base + 2 + (2 if approve else 3) * R + rel[voter]] = 1.0
                agree[voter] += 1.0 if approve != has_k else -1.0
                if has_k:
                    votes_k[voter] += 1
                    approve_k[voter] += approve
                else:
                    votes_clean[voter] += 1
                    approve_clean[voter] += approve
        for claimant, action in enumerate(proposal.claims):
            if action < 0 or action == A.CLAIM_NONE:
                continue
            if action in (A.CLAIM_MERLIN, A.CLAIM_PERCIVAL):
                i = _O["role_claims"] + q * R * 2 + rel[claimant] * 2 + (0 if action == A.CLAIM_MERLIN else 1)
            else:
                group, offset = A.group_of(action)
                subject = (claimant + offset) % n
                i = (_O["claims"] + q * _CLAIMS_QUEST + rel[claimant] * R * 2 + rel[subject] * 2
                     + (0 if group.name == "CLAIM_EVIL" else 1))
            mv[i] += 1.0
    ev = _O["evidence"]
    for other in range(n):
        row = ev + rel[other] * EVIDENCE_FEATURES
        mv[row] = agree[other] / max(revealed, 1)
        mv[row + 1] = approve_k[other] / max(votes_k[other], 1)
        mv[row + 2] = approve_clean[other] / max(votes_clean[other], 1)
        mv[row + 3] = min(led_k[other], NUM_QUESTS) / NUM_QUESTS
        mv[row + 4] = min(led_clean[other], NUM_QUESTS) / NUM_QUESTS
        mv[row + 5] = on_success[other] / NUM_QUESTS
        mv[row + 6] = on_failure[other] / NUM_QUESTS
        mv[row + 7] = min(fails_on[other], NUM_QUESTS) / NUM_QUESTS
    if state.phase in (Phase.CLAIM, Phase.VOTE, Phase.QUEST) and state.proposals and not state.is_terminal:
        team = state.proposals[-1].team
        k_members = sorted((m for m in team if m in known), key=lambda m: (m - state.leader) % n)
        mv[_O["now"]] = float(bool(k_members))
        mv[_O["now"] + 1] = len(k_members) / NUM_QUESTS
        mv[_O["now"] + 2] = float(seat in team)
        mv[_O["now"] + 3] = float(seat in k_members[:state.fails_needed(state.quest)])
    if state.assassin_target is not None:
        mv[_O["assassinated"] + rel[state.assassin_target]] = 1.0
    if state.is_terminal:
        mv[_O["winner"] + state.winning_side] = 1.0
    return out


def role_of_observation(observation: np.ndarray) -> Role:
    """The observer's own role read back from an observation."""
    return Role(int(np.argmax(piece(observation, "role"))))


def side_of_observation(observation: np.ndarray) -> int:
    """0 Good, 1 Evil: the observer's own side (its role)."""
    return side_of_role(role_of_observation(observation))


def phase_of_observation(observation: np.ndarray) -> Phase | None:
    """The decision asked of the observer, or ``None`` when it is not acting."""
    hits = np.flatnonzero(piece(observation, "phase") > 0.5)
    return Phase(int(hits[0])) if hits.size else None
