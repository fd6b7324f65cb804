"""Text rendering of a game of *Avalon*: the public table as a spectator sees it (optionally the hidden state)."""

from __future__ import annotations

from .engine import GameState, Phase
from .roles import ROLE_NAMES


def render_text(state: GameState, show_hidden: bool = False) -> str:
    """The table as text: public only (A17), unless ``show_hidden`` (debugging: roles, pending votes and cards)."""
    n = state.num_players
    sizes = " ".join(f"{s}{'*' if state.fails_needed(q + 1) == 2 else ''}" for q, s in enumerate(state.team_sizes))
    lines = [f"Avalon, {n} players, quest {state.quest}/{len(state.team_sizes)} (team sizes {sizes}; * needs two "
             f"Fails), successes {state.successes}, failures {state.failures}, rejections in a row "
             f"{state.rejections}/{state.config.max_proposals}"]
    for seat in range(n):
        marker = ">" if seat == state.current_player and not state.is_terminal else " "
        role = ROLE_NAMES[state.roles[seat]] if show_hidden or state.is_terminal else "?"
        text = f"{marker} player_{seat}: {role}"
        if seat == state.leader:
            text += ", leader"
        if state.is_terminal and state.winners[seat]:
            text += ", WINNER"
        lines.append(text)
    for event in state.events:  # the public log, in order (A17)
        kind = event["kind"]
        if kind == "proposal":
            team = ",".join(f"p{s}" for s in event["team"])
            lines.append(f"  quest {event['quest']} proposal {event['number']}: leader p{event['leader']} proposes [{team}]")
        elif kind == "claim" and not event["claim"].startswith("nothing"):
            lines.append(f"    claim p{event['seat']}: {event['claim']}")
        elif kind == "votes":
            yes = ",".join(f"p{s}" for s, v in enumerate(event["votes"]) if v) or "nobody"
            lines.append(f"    {'APPROVED' if event['approved'] else 'rejected'} (approved by {yes})")
        elif kind == "quest":
            lines.append(f"  quest {event['quest']}: {'SUCCESS' if event['success'] else 'FAIL'} "
                         f"({event['fails']} Fail card{'s' if event['fails'] != 1 else ''})")
        elif kind == "assassination":
            lines.append(f"  the Assassin p{event['assassin']} names p{event['target']}: "
                         f"{'Merlin, hit' if event['hit'] else 'not Merlin, missed'}")
    if state.phase is Phase.PROPOSE and show_hidden and state.team:
        lines.append("  [picked so far: " + ",".join(f"p{s}" for s in state.team) + "]")
    if show_hidden and state.phase is Phase.VOTE:
        lines.append("  [votes so far: " + " ".join(f"p{s}={'Y' if v else 'N'}" for s, v in enumerate(state.pending_votes)
                                                  if v is not None) + "]")
    if show_hidden and state.played_cards:
        lines.append("  [Fails played by: " + "; ".join(
            f"q{i + 1} " + (",".join(f"p{s}" for s, f in sorted(c.items()) if f) or "none")
            for i, c in enumerate(state.played_cards)) + "]")
    if state.is_terminal:
        winners = ", ".join(f"player_{s}" for s in range(n) if state.winners[s])
        lines.append(f"game over: {state.outcome.replace('_', ' ')}; "
                     f"{'Good' if state.winning_side == 0 else 'Evil'} wins ({winners})")
    else:
        lines.append(f"to act: player_{state.current_player} ({state.phase.name.lower()})")
    return "\n".join(lines)
