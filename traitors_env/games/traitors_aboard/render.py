"""Text rendering of a game: the public table as a spectator sees it (optionally the hidden state)."""

from __future__ import annotations

from .cards import CARD_SHORT, LOOT_VALUES, ROLE_NAMES, CardKind
from .engine import GameState

_LOOT = ("+1", "0", "-2")


def _hand_text(hand: list[int]) -> str:
    return " ".join(CARD_SHORT[CardKind(k)] for k in range(len(hand)) for _ in range(hand[k])) or "-"


def render_text(state: GameState, show_hidden: bool = False) -> str:
    """The table as text. Public only, unless ``show_hidden`` (debugging: roles, hands, chest values)."""
    lines = [
        f"Traitors Aboard, {state.num_players} players, target {state.setup.target}, turn {state.turn}, "
        f"draw pile {len(state.draw_pile)}, discard {sum(state.discard)}, chest {len(state.chest)}",
    ]
    for seat in range(state.num_players):
        marker = ">" if seat == state.current_player and not state.is_terminal else " "
        status = "aboard" if state.aboard[seat] else "OVERBOARD"
        role = ROLE_NAMES[state.roles[seat]] if state.revealed[seat] or show_hidden else "?"
        text = (
            f"{marker} player_{seat}: {status}, role {role}, planks {state.planks[seat]}, "
            f"loot {state.loot_placed[seat]} announcing {state.announced_sum[seat]:+d}"
        )
        if state.last_claim[seat] >= 0:
            from .actions import describe_action

            text += f", last {describe_action(state.last_claim[seat], seat, state.num_players)}"
        if show_hidden:
            text += f", hand [{_hand_text(state.hands[seat])}]"
        lines.append(text)
    chest = []
    for card in reversed(state.chest):
        public = "?" if card.group is not None else f"p{card.placer}:{_LOOT[card.announced]}"
        chest.append(f"{public}={LOOT_VALUES[card.kind]:+d}" if show_hidden else public)
    lines.append("chest (top first): " + (" ".join(chest) or "empty"))
    if show_hidden:
        lines.append(f"chest value {state.chest_value():+d}")
    if state.is_terminal:
        result = state.result()
        lines.append(
            f"game over: {result['winner']}s win ({result['end_condition']}); chest value {result['chest_value']}, "
            f"roles {', '.join(result['roles'])}"
        )
    else:
        lines.append(f"to act: player_{state.current_player} ({state.phase.name.lower()})")
    return "\n".join(lines)
