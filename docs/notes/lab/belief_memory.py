"""Does the fixed observation lose information that matters for role beliefs? (issue 27, item 5)

The belief head of a feedforward policy reads one observation. If a model that reads the whole sequence of an
agent's observations predicts the roles better than one that reads the latest observation alone, trained on the same
games with the same budget, the observation drops evidence a recurrent policy (or a history feature) could use; if
not, a GRU policy would not see more than the feedforward one does.

The side that does not know the roles (Traitors Aboard's Pirates) is played by ``--observer``, the hidden side by
``--against``; every decision of an observer seat is recorded (its observation, and the game master's true roles as
the label: the data of a supervised probe, never an agent's input). Two probes are fitted on 80 % of the games
(split by game) and scored on the rest, by table size and game phase as ``traitors-eval``'s deduction section
(Brier against the true roles, and over the base rate's, :mod:`traitors_env.evaluation.deduction`):

- ``latest``: an MLP on the latest observation (what a feedforward belief head can know);
- ``sequence``: a GRU over the observations so far, with the same first layer, width and training budget.

::

    PYTHONPATH=. python docs/notes/lab/belief_memory.py --observer heuristic --against heuristic --games 1500
    PYTHONPATH=. python docs/notes/lab/belief_memory.py --observer runs/jax_league --against runs/jax_league --games 1000

(a run folder plays its newest policies; its ``league.json`` would play the league's Nash mixture)

Prints one line per (table size, phase): held-out decisions, Brier of each probe, the base rate's, each over the
base rate; ``--json PATH`` writes the same rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from traitors_env.agents.spec import agent_maker
from traitors_env.core import load_game
from traitors_env.core.agent import agent_beliefs
from traitors_env.evaluation.deduction import PHASES, base_rate, phase_of
from traitors_env.evaluation.games import play_game


class _Recorder:
    """Plays as ``agent`` and passes on its beliefs (NaN where it has none), so :func:`play_game` hands every
    decision's state to the hook."""

    def __init__(self, agent, size: int) -> None:
        self.agent, self.size = agent, size

    def act(self, observation, action_mask):
        return self.agent.act(observation, action_mask)

    def beliefs(self, observation):
        values = agent_beliefs(self.agent, observation, self.size)
        return np.full(self.size, np.nan, np.float32) if values is None else values


def collect(game, observer: str, against: str, sizes: list[int], games: int, seed: int):
    """Sequences ``(observations float32 (T, obs), labels float32 (8,), num_players, phases (T,), game index,
    the observer's own beliefs float32 (T, 8), NaN where it has none)``, one per observer seat and game."""
    hidden = game.require("hidden_side")
    observer_side = 1 - hidden
    _, make_observer = agent_maker(observer, game=game)
    _, make_other = agent_maker(against, game=game)
    sequences, index = [], 0
    for n in sizes:
        env = game.raw_env(num_players=n)
        for i in tqdm(range(games), desc=f"{n} players", leave=False, disable=None):
            game_seed = seed + 10_000 * n + i
            per_seat: dict[int, dict] = {}

            def seated(state, game_seed=game_seed, n=n):
                me = _Recorder(make_observer(game_seed), game.belief_size)
                other = make_other(game_seed + 1)
                return [me if game.side_of_seat(state, s) == observer_side else other for s in range(n)]

            def hook(seat, observation, mask, values, state, agent, per_seat=per_seat, n=n):
                # the hidden side's agents may have beliefs of their own (the heuristic has): not the observer's
                if game.side_of_seat(state, seat) != observer_side or (
                        game.skip_forced_moves and np.count_nonzero(mask) <= 1):
                    return
                entry = per_seat.setdefault(seat, {"obs": [], "phase": [], "beliefs": []})
                if "label" not in entry:
                    label = np.full(game.belief_size, np.nan, np.float32)
                    for r in range(1, n):
                        label[r] = float(game.side_of_seat(state, (seat + r) % n) == hidden)
                    entry["label"] = label
                entry["obs"].append(np.asarray(observation, np.float32).copy())
                entry["phase"].append(PHASES.index(phase_of(game.progress(state))))
                entry["beliefs"].append(np.asarray(values, np.float32))

            play_game(env, seated, game_seed, game=game, beliefs=hook)
            for entry in per_seat.values():
                sequences.append((np.stack(entry["obs"]), entry["label"], n, np.array(entry["phase"]), index,
                                  np.stack(entry["beliefs"])))
            index += 1
    return sequences


def split(sequences, seed: int, held_out_share: float = 0.2):
    """``(train, test)``: the sequences of a seeded fifth of the games held out, at each table size (a game's
    sequences all on one side, so no game is seen in training and scored).

    Raises:
        ValueError: naming the table size, when it has too few games to hold one out.
    """
    train, test = [], []
    rng = np.random.default_rng(seed)
    for n in sorted({s[2] for s in sequences}):
        games = sorted({s[4] for s in sequences if s[2] == n})
        held_out = set(rng.permutation(games)[: int(len(games) * held_out_share)].tolist())
        if not held_out:
            raise ValueError(f"{len(games)} games at {n} players hold none out; expected --games >= "
                             f"{int(np.ceil(1 / held_out_share))}")
        for s in sequences:
            if s[2] == n:
                (test if s[4] in held_out else train).append(s)
    return train, test


class _Probe(nn.Module):
    def __init__(self, size: int, width: int, outputs: int, recurrent: bool) -> None:
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(size, width), nn.Tanh())
        self.recurrent = recurrent
        self.core = nn.GRU(width, width, batch_first=True) if recurrent else nn.Sequential(
            nn.Linear(width, width), nn.Tanh())
        self.head = nn.Linear(width, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (B, T, obs) -> logits (B, T, outputs)
        h = self.embed(x)
        h = self.core(h)[0] if self.recurrent else self.core(h)
        return self.head(h)


def _batch(sequences, scale):
    length = max(len(s[0]) for s in sequences)
    x = np.zeros((len(sequences), length, sequences[0][0].shape[1]), np.float32)
    valid = np.zeros((len(sequences), length), bool)
    y = np.stack([s[1] for s in sequences])
    for i, s in enumerate(sequences):
        x[i, : len(s[0])] = s[0] / scale
        valid[i, : len(s[0])] = True
    return torch.from_numpy(x), torch.from_numpy(valid), torch.from_numpy(y)


def fit(train, scale, recurrent: bool, epochs: int, width: int, seed: int) -> _Probe:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    probe = _Probe(train[0][0].shape[1], width, train[0][1].shape[0], recurrent)
    optimizer = torch.optim.Adam(probe.parameters(), lr=1e-3)
    for _ in tqdm(range(epochs), desc="sequence" if recurrent else "latest", leave=False, disable=None):
        order = rng.permutation(len(train))
        for start in range(0, len(order), 64):
            x, valid, y = _batch([train[i] for i in order[start: start + 64]], scale)
            logits = probe(x)
            target = y[:, None, :].expand_as(logits)
            known = valid[:, :, None] & torch.isfinite(target)
            loss = nn.functional.binary_cross_entropy_with_logits(logits[known], target[known])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return probe


def predict(probe: _Probe, test, scale) -> list[np.ndarray]:
    """The probe's P(hidden side) per step and relative seat of each held-out sequence, float32 (T, 8)."""
    out = []
    with torch.no_grad():
        for start in range(0, len(test), 256):
            chunk = test[start: start + 256]
            p = torch.sigmoid(probe(_batch(chunk, scale)[0])).numpy()
            out.extend(p[i, : len(s[0])] for i, s in enumerate(chunk))
    return out


def tally(test, predictions: list[np.ndarray]) -> dict:
    """Squared errors and predictions per (num_players, phase), over the seats scored (finite label and
    prediction)."""
    totals: dict = {}
    for (_, label, n, phases, *_), p in zip(test, predictions):
        for t, phase in enumerate(phases):
            known = np.isfinite(label) & np.isfinite(p[t])
            if known.any():
                err, count = totals.get((n, PHASES[phase]), (0.0, 0))
                totals[(n, PHASES[phase])] = (err + float(((p[t, known] - label[known]) ** 2).sum()),
                                              count + int(known.sum()))
    return totals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="traitors_aboard")
    parser.add_argument("--observer", required=True, help="agent spec of the side that deduces")
    parser.add_argument("--against", required=True, help="agent spec of the hidden side")
    parser.add_argument("--players", nargs="+", type=int, default=[3, 4, 5])
    parser.add_argument("--games", type=int, default=1500, help="games per table size")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    game = load_game(args.game)
    sequences = collect(game, args.observer, args.against, args.players, args.games, args.seed)
    train, test = split(sequences, args.seed)
    games = 1 + max(s[4] for s in sequences)
    scale = np.maximum(np.abs(np.concatenate([s[0] for s in train])).max(axis=0), 1.0)
    hidden = game.require("hidden_side")
    predictions = {name: predict(fit(train, scale, name == "sequence", args.epochs, args.width, args.seed), test, scale)
                   for name in ("latest", "sequence")}
    predictions["base"] = [np.broadcast_to(np.where(np.isfinite(s[1]), base_rate(game, s[2], 1 - hidden), np.nan),
                                           s[5].shape) for s in test]
    predictions["own"] = [s[5] for s in test]  # the observer's own beliefs, where it has them
    totals = {name: tally(test, p) for name, p in predictions.items()}
    rows = []
    print(f"observer {args.observer} against {args.against}: {len(train)} training and {len(test)} held-out "
          f"sequences ({games} games)")
    print("players | phase | predictions | Brier latest | Brier sequence | base rate | observer's own | "
          "latest / base | sequence / base | own / base")
    for n in args.players:
        for phase in (*PHASES, "all"):
            keys = [(n, p) for p in PHASES] if phase == "all" else [(n, phase)]

            def mean(name, keys=keys):
                err = sum(totals[name].get(k, (0.0, 0))[0] for k in keys)
                count = sum(totals[name].get(k, (0.0, 0))[1] for k in keys)
                return (err / count if count else None), count

            (base, count), (latest, _), (sequence, _), (own, own_count) = (
                mean(name) for name in ("base", "latest", "sequence", "own"))
            if not count:
                continue
            # the observer's own beliefs are compared only where it gave them at every scored seat
            own = own if own_count == count else None
            row = {"num_players": n, "phase": phase, "predictions": count, "brier_latest": round(latest, 4),
                   "brier_sequence": round(sequence, 4), "base_brier": round(base, 4),
                   "brier_own": None if own is None else round(own, 4),
                   "latest_over_base": round(latest / base, 3), "sequence_over_base": round(sequence / base, 3),
                   "own_over_base": None if own is None else round(own / base, 3)}
            rows.append(row)
            print(" | ".join("–" if v is None else str(v) for v in row.values()), flush=True)
    if args.json:
        settings = {key: getattr(args, key) for key in ("observer", "against", "players", "games", "epochs", "width",
                                                         "seed")}
        args.json.write_text(json.dumps({**settings, "training_sequences": len(train), "held_out_sequences": len(test),
                                         "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
