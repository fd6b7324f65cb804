"""Histories of the variants next larger than ``avalon:mini5`` (docs/solve.md#avalon), counted without building them.

``python scripts/avalon_larger_variants.py`` (about a minute): ``mini5`` walked whole as a check (216,121), then
``max_proposals=2`` and ``quest_track=(2, 3)``, each by walking the engine to where the larger variant grows and
multiplying by the one subtree that grows there (its shape is the same wherever it grows within a deal).
"""
import dataclasses
import time

from traitors_env.games.avalon.engine import AvalonConfig, GameState
from traitors_env.solve.avalon import _copy_engine, _deals, _NoShuffle


def engine(config, roles):
    e = GameState.new(config, seed=0, roles=roles)
    e.rng = _NoShuffle()
    return e


def count(e, stop=None):
    """Nodes of the subtree at e (every node, as build_tree counts); ``stop(e)`` true: count e as a leaf and report it."""
    nodes, stack, stopped = 0, [e], []
    while stack:
        s = stack.pop()
        nodes += 1
        if s.is_terminal or (stop is not None and stop(s)):
            if not s.is_terminal:
                stopped.append(s)
            continue
        for a in s.legal_actions():
            c = _copy_engine(s)
            c.apply_action(a)
            stack.append(c)
    return nodes, stopped


def main() -> None:
    start = time.time()
    mini5 = AvalonConfig(quest_track=(2,), max_proposals=1, first_leader=0)
    deals = _deals(mini5)
    check = 1 + sum(count(engine(mini5, roles))[0] for roles in deals)
    print("mini5 histories (check: 216,121)", check, flush=True)
    # max_proposals=2: every rejected first proposal opens a second proposal, led by seat 1 (A09), of mini5's shape
    two = dataclasses.replace(mini5, max_proposals=2)
    total_mp2 = 1
    for roles in deals:
        first, second = count(engine(two, roles), stop=lambda s: s.rejections >= 1)
        one = count(engine(dataclasses.replace(mini5, first_leader=1), roles))[0]
        total_mp2 += first + len(second) * (one - 1)  # each stopped node is the root of a subtree of `one` nodes
    print("max_proposals=2 histories", total_mp2, round(time.time() - start, 1), "s", flush=True)
    # quest_track=(2, 3): a successful first quest opens a second quest (team of 3, led by seat 1): Good needs both
    track = dataclasses.replace(mini5, quest_track=(2, 3))
    total_track = 1
    for roles in deals:
        first, second = count(engine(track, roles), stop=lambda s: s.quest == 2)
        if second:
            sub = count(second[0])[0]  # the second quest's subtree has the same shape after every first quest
            total_track += first - len(second) + len(second) * sub
        else:
            total_track += first
    print("quest_track=(2,3) histories", total_track, round(time.time() - start, 1), "s", flush=True)


if __name__ == "__main__":
    main()
