"""Text rendering of a game of *The Traitors*: the public table as a spectator sees it (optionally the hidden state)."""

from __future__ import annotations

from . import actions as A
from .cards import NUM_ROUNDS, REWARD_CARD_NAMES, ROLE_NAMES, RewardCard
from .engine import END_GAME_ROUND, GameState


def render_text(state: GameState, show_hidden: bool = False) -> str:
    """The table as text. Public only, unless ``show_hidden`` (debugging: roles, cards in hand, the assignment)."""
    n = state.num_players
    where = "End Game" if state.round == END_GAME_ROUND else f"round {state.round}/{NUM_ROUNDS}"
    lines = [f"The Traitors, {n} players, {where}, prize pot {state.pot}, reward deck {len(state.deck)}"]
    end_game = state.round == END_GAME_ROUND
    for seat in range(n):
        marker = ">" if seat == state.current_player and not state.is_terminal else " "
        role = ROLE_NAMES[state.roles[seat]] if end_game or show_hidden else "?"
        text = f"{marker} player_{seat}: gold {state.gold[seat]:2d}, role {role}"
        held = state.secret_drawn[seat] - state.shields_shown[seat] - state.daggers_shown[seat]
        if held:
            text += f", {held} secret card{'s' if held > 1 else ''}"
        if show_hidden and any(state.hands[seat]):
            text += f" (Shields {state.hands[seat][0]}, Daggers {state.hands[seat][1]})"
        if not state.takes_part(seat) and not end_game:
            text += ", sits out this Round Table"
        if state.finalists is not None and seat in state.finalists:
            text += ", finalist"
        if state.third == seat:
            text += ", third"
        if state.winners[seat]:
            text += f", WINNER (score {state.scores[seat]:g})"
        lines.append(text)
    for i in range(min(state.round, NUM_ROUNDS)):
        parts = [f"round {i + 1}: mission +{state.mission_gold[i]}"]
        if state.signals[i] is not None:
            parts.append("suspicious: " + (", ".join(f"p{s}" for s in range(n) if state.signals[i][s]) or "none"))
        claims = [
            f"p{s} {A.describe_action(a, s, n).replace('claim: ', '')}"
            for s, a in enumerate(state.claims[i])
            if a >= 0 and a != A.CLAIM_NONE
        ]
        if claims:
            parts.append("claims: " + "; ".join(claims))
        if state.votes_revealed[i]:
            votes = [f"p{s}->p{v[0]}{'(D)' if v[1] else ''}" for s, v in enumerate(state.votes[i]) if v is not None]
            parts.append("votes " + " ".join(votes))
            parts.append("lost " + (", ".join(f"p{s} -{g}" for s, g in state.banished[i].items()) or "none"))
        for seat, card in state.armoury[i]:
            if card < 0:
                drew = "nothing (deck empty)"
            elif card in (RewardCard.SHIELD, RewardCard.DAGGER):
                drew = REWARD_CARD_NAMES[RewardCard(card)] if show_hidden else "a secret card"
            else:
                drew = REWARD_CARD_NAMES[RewardCard(card)]
            parts.append(f"Armoury p{seat}: {drew}")
        night = state.night[i]
        if night is not None:
            parts.append(
                "no murder" if night[0] < 0 else f"p{night[0]} murdered" + (" (saved by a Shield)" if night[1] else "")
            )
        if show_hidden:
            parts.append(
                f"[assignment {'attempted' if state.attempted[i] else 'not attempted'}"
                + (f", {'success' if state.succeeded[i] else 'failure'}]" if state.attempted[i] else "]")
            )
        lines.append("  " + " | ".join(parts))
    if end_game:
        lines.append(
            f"End Game: the Traitor was player_{state.traitor}; scoring "
            + ", ".join(f"p{s} +{g}" for s, g in enumerate(state.end_game_gold) if g)
            + f"; finalists p{state.finalists[0]}, p{state.finalists[1]}, third p{state.third}"
        )
        for k, seat in enumerate(state.finalists):
            if state.statements[k] >= 0:
                lines.append(f"  p{seat}: {A.STATEMENT_TEXT[state.statements[k]]}")
    if state.is_terminal:
        choices = ", ".join(f"p{s} wrote {A.WRITE_TEXT[c]}" for s, c in zip(state.finalists, state.final_choices))
        winners = ", ".join(f"player_{s}" for s in range(n) if state.winners[s])
        lines.append(f"game over: {choices}; {state.outcome.name.lower()}; winners {winners}")
    else:
        lines.append(f"to act: player_{state.current_player} ({state.phase.name.lower()})")
    return "\n".join(lines)
