"""Population training (a league) for the JAX backend: PSRO-style iterations over a meta-game solved by LP.

A config with a ``league:`` section (:class:`training.config.LeagueSection`, ``backend: jax`` and a game with a
JAX twin only) runs :func:`train_league` instead of the plain generation loop:

1. The population of each side starts with the fixed members (``league.fixed``): ``random``, ``heuristic`` (both
   sides) and the twin's scripted probes (:attr:`~.engine.Engine.probes`; a probe joins its own side only).
   Their cross-play matrix is played and the meta-game solved: the Nash mixture of each side (iteration 0).
2. Iteration ``k`` (1-based) trains each side in the game's training order (``league.order`` sets another), for
   its ``training`` steps, starting from its previous policy (``league.warm_start``), against opponents drawn per
   game: the other side's newest policy with probability ``league.latest`` (for the side trained second, the first
   side's policy of this iteration; none at iteration 1 for the side trained first), otherwise a member
   of the other side's population drawn by its Nash weights: a policy member through the rollout's stacked
   ``past`` snapshots (:attr:`.rollout.Opponents.past_weights`: at most :data:`.rollout.PAST_POOL` of them, the
   heaviest; the rest of their weight goes to those kept), the heuristic and random bots and the probes as the
   rollout's own opponent kinds. The new policies are saved as generation ``k``
   (``checkpoints/gen_00k/<side>.msgpack``), so agents by spec load a league's run folder like any other.
   With ``league.exploiters``, each named side then also trains an *exploiter* from fresh parameters against
   the other side's newest policy alone (``checkpoints/gen_00k/exploiter_<side>.msgpack``, member
   ``exploiter_k``): AlphaStar's main exploiters, which find what beats the newest policies so that the next
   iteration's policies meet it through the Nash mixture. Exploiters never become a side's newest policy. With
   ``league.final_exploiters: false`` the last iteration trains none: no policy of the league would ever meet them.
3. The new members join the populations (:class:`.population.Population`); only the new cells of the cross-play
   matrix are played (members are frozen), in JAX (:func:`.cross_play.cross_play`: whole games of one member against another in one compiled loop, table
   sizes mixed in one batch, ``league.games`` per cell); the meta-game is solved again with the kit's LP
   (:func:`traitors_env.evaluation.metagame.solve_zero_sum`) and ``league.json`` is rewritten, with ``league.png``
   beside it (the Nash weights over iterations, :func:`traitors_env.evaluation.plots.plot_league`).

With ``league.meta_game: per_size`` the meta-game is also solved at each table size on that size's games of every
cell, and each side's training draws a game's opponent from the other side's mixture at the size the game is
dealt (:func:`.league_mix.opponent_mix_by_size`; the rollout's per-size rows, :class:`.rollout.Opponents`). The pooled mixture
is still solved and recorded (the plots read it; the kit's agent of ``league.json`` and ``traitors-exploit``'s
league target play ``nash_by_size``, or the pooled mixture with the ``:pooled`` suffix).

``league.json`` (in the run folder, rewritten after every iteration; floats rounded to 6 decimals)::

    {
      "schema": 1,
      "game": "traitors_aboard",              # registry name
      "sides": ["pirates", "mutineers"],      # row side, column side (GameType.sides)
      "side_labels": ["Pirates", "Mutineers"],
      "games_per_cell": 200, "player_counts": [3, ..., 8], "deterministic": false,
      "members": {                            # per side, in the order of the matrix's rows (row side) / columns
        "pirates": [{"name": "random", "kind": "random", "iteration": 0, "checkpoint": null},
                    {"name": "plank", "kind": "probe", "iteration": 0, "checkpoint": null},
                    {"name": "league_1", "kind": "policy", "iteration": 1,
                     "checkpoint": "checkpoints/gen_001/pirates.msgpack", "exploiter": false},
                    {"name": "exploiter_1", ..., "exploiter": true}, ...],   # with league.exploiters
        "mutineers": [...]},
      "matrix": {                             # the full current matrix: rows = row side's members, columns = column's
        "win_rate": [[...]],                  # the row side's win rate in the cell (games it won / games)
        "wins": [[...]], "games": [[...]],
        "ci_low": [[...]], "ci_high": [[...]]},   # 95 % Wilson interval of win_rate
      "matrix_by_size": {"3": {"wins": [[...]], "games": [[...]]}, ...},   # the same cells split by table size
      "iterations": [                         # one entry per solved meta-game: iteration 0 (fixed members), 1, ...
        {"iteration": 0,
         "value": 0.41,                       # the row side's equilibrium win rate
         "nash": {"pirates": {"random": 0.0, "heuristic": 1.0, ...}, "mutineers": {...}},   # members of that
                                              # iteration's population only (a prefix of "members")
         "unused": {"pirates": [...], "mutineers": [...]},   # members no equilibrium uses
         "nash_by_size": {"3": {"pirates": {...}, "mutineers": {...}}, ...},   # league.meta_game: per_size only
         "value_by_size": {"3": 0.52, ...},                                    # (as "nash" and "value", per size)
         "training": {"pirates": {"latest": 0.1, "past": 0.5, ...}, ...,  # the opponent mix each side's new
                      "exploiters": {"mutineers": {"latest": 1.0}}},   # policy trained against in this iteration
                                              # (absent for iteration 0; "exploiters" with league.exploiters only,
                                              # not in the last iteration with league.final_exploiters: false)
         "newest_met": {"pirates": "league_1", "mutineers": "league_2"},   # the other side's newest policy when
                                              # each side's new policy trained, its "latest" opponent (null: none
                                              # yet; absent for iteration 0; league.order decides which)
         "seconds": {"train": 812.3, "exploiters": 120.5, "cross_play": 41.0}},   # "exploiters": as in "training"
        ...]
    }

Nash weights over iterations: ``[it["nash"][side].get(name, 0.0) for it in iterations]`` for each member name.

Resuming (``--resume``) reads ``league.json`` back: the members and cells of completed iterations are kept. A league
that ended without exploiters in its last iteration (``league.final_exploiters: false``) is not resumed to more
iterations: the longer league trains exploiters there.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from ..config import ConfigError, RunConfig
from ..evaluate import complete_generation, vs_heuristic
from ..run import RunError, all_trained, derive_seed, prepare_run_folder
from ..storage import RunFolder
from ..table_sizes import table_size_probabilities
from .cross_play import HEURISTIC, MAX_DECISIONS, POLICY, RANDOM, cross_play
from .engine import Engine
from .league_mix import mix_record, mix_record_by_size, opponent_mix, opponent_mix_by_size
from .population import BOTS, LEAGUE_FILE, Member, Population, check_fixed_shares, fixed_members, read_league

__all__ = ["BOTS", "HEURISTIC", "LEAGUE_FILE", "MAX_DECISIONS", "POLICY", "RANDOM", "Member", "cross_play",
           "fixed_members", "opponent_mix", "opponent_mix_by_size", "read_league", "train_league"]


def train_league(config: RunConfig, resume: bool = False, force: bool = False, engine: Engine | None = None
                 ) -> RunFolder:
    """Run (or resume) the iterations of ``config.league`` (see the module doc); returns the run folder.

    Raises:
        ConfigError: for ``league.fixed`` naming no bot or probe of the engine, or a side's ``league.fixed_share``
            naming a member the other side lacks (before the run folder is made).
        training.train.RunError: see :func:`training.run.prepare_run_folder`; resuming a league that ended without
            final exploiters to more iterations.
        training.jax_backend.engine.EngineUnavailableError: without the JAX engine.
    """
    from .train import resolve_engine

    engine = resolve_engine(engine, config.env.claims, config.game.name)
    sides = config.game.type.sides
    try:  # a bad name fails before the run folder is made
        check_fixed_shares(config.league.fixed_share, fixed_members(config.league.fixed, engine, sides), sides)
    except ValueError as error:  # fixed_members' (a ConfigError passes as it is)
        raise error if isinstance(error, ConfigError) else ConfigError(str(error)) from None
    saved = _saved_league(config, engine, sides) if resume else None  # read and checked before the folder is touched
    if saved is not None:
        _check_extension(config, saved)
    run, state = prepare_run_folder(config, resume, force)
    start = state["completed_generations"]
    if all_trained(config, start):
        return run
    league = _LeagueRun(config, engine, run)
    if start > 0:
        league.restore(saved, start)
    else:
        league.start()
    if config.evaluation.games_per_generation and state.get("baselines_vs_heuristic") is None:
        state["baselines_vs_heuristic"] = vs_heuristic(config, None, baselines=True)
    league.iterate(start, state)
    return run


class _LeagueRun:
    """One league run: the populations, each side's line of policies (``teams``) and the iterations that grow them."""

    def __init__(self, config: RunConfig, engine: Engine, run: RunFolder) -> None:
        from .rollout import PAST_POOL
        from .train import Trainer

        self.config, self.engine, self.run = config, engine, run
        sides = self.sides = config.game.type.sides
        league_config = config.league
        self.order = (config.game.sides_in_training_order if league_config.order is None
                      else tuple(list(sides).index(name) for name in league_config.order))
        self.probes = [name for name, _, _ in engine.probes]
        self.exploiters = {sides[side]: league_config.exploiters[sides[side]] for side in self.order
                           if sides[side] in league_config.exploiters}
        self.pool = min(PAST_POOL, league_config.iterations * (2 if self.exploiters else 1))
        self.population = Population(config, engine, sides)
        self.base = Trainer(config, engine, past_pool=self.pool)
        #: per side: its newest policy's parameters and optimiser state, its timesteps, the newest member's name
        self.teams: dict[str, dict] = {}
        for index, side in enumerate(self.order):
            params, opt_state = self.base.init_params(derive_seed(config.seed, 1, index))
            self.teams[sides[side]] = {"params": params, "opt_state": opt_state, "timesteps": 0, "newest_name": None}
        self.any_params = self.teams[sides[self.order[0]]]["params"]

    def start(self) -> None:
        """Iteration 0: the fixed members' cross-play and meta-game."""
        seconds = self.population.play_missing(self.any_params)
        self.population.solve(0, {"seconds": {"cross_play": round(seconds, 2)}})
        self.population.write(self.run)

    def restore(self, saved: dict, start: int) -> None:
        """The populations of the ``start`` completed iterations of ``saved`` (``league.json``), their policies'
        parameters read back, each side's newest policy as the one its training goes on from."""
        from .train import _load

        self.population.restore(saved, start)
        for team, entry in self.teams.items():
            for member in self.population.members[team]:
                if member.kind == "policy":
                    params, opt_state, steps = _load(self.run.path / member.checkpoint, entry["params"],
                                                     entry["opt_state"])
                    self.population.params[(team, member.name)] = params
                    if not member.exploiter:
                        entry.update(params=params, opt_state=opt_state, timesteps=steps, newest_name=member.name)

    def iterate(self, start: int, state: dict) -> None:
        """The iterations after the ``start`` completed ones, each a generation of the run folder."""
        from .train import _Logs, progress_bar

        config, league_config = self.config, self.config.league
        exploiting_iterations = sum(_exploiting(league_config, generation + 1)
                                    for generation in range(start, league_config.iterations))
        self.bar = progress_bar(
            config, (league_config.iterations - start) * sum(config.training.steps_for(t) for t in self.sides)
            + exploiting_iterations * sum(self.exploiters.values()))
        self.logs = _Logs(self.run)
        try:
            for generation in range(start, league_config.iterations):
                self.iteration(generation, state)
        finally:
            self.bar.close()
            self.logs.close()

    def iteration(self, generation: int, state: dict) -> None:
        """Iteration ``generation + 1``: each side's new policy, the exploiters, the new cells, the meta-game."""
        from .train import generation_check

        config, population, sides, iteration = self.config, self.population, self.sides, generation + 1
        began = time.perf_counter()
        record = {"generation": iteration, "teams": {}}
        nash = population.iterations[-1]["nash"]
        mixes = {}
        met = {}  # the other side's newest policy each side's new policy met (league.order decides which)
        for index, side in enumerate(self.order):
            met[sides[side]] = self.teams[sides[1 - side]]["newest_name"]
            record["teams"][sides[side]], mixes[sides[side]] = self.train_side(generation, index, side, nash)
        trained = time.perf_counter() - began
        exploiting = bool(self.exploiters) and _exploiting(config.league, iteration)
        if exploiting:
            record["exploiters"] = self.train_exploiters(generation)
            mixes["exploiters"] = {team: {"latest": 1.0} for team in self.exploiters}
        exploited = time.perf_counter() - began - trained
        seconds = population.play_missing(self.any_params)
        spent = {"train": round(trained, 2), "cross_play": round(seconds, 2)}
        if exploiting:
            spent["exploiters"] = round(exploited, 2)
        solved = population.solve(iteration, {"training": mixes, "newest_met": met, "seconds": spent})
        population.write(self.run)
        record["league"] = {"value": solved["value"], "nash": solved["nash"]}
        self.bar.write(f"league {iteration}: Nash weight of the newest policies: "
                       + ", ".join(f"{s} {solved['nash'][s].get(f'league_{iteration}', 0.0):.2f}" for s in sides)
                       + f"; value {solved['value']:.3f}")
        check = generation_check(config, self.run, generation, sides, state)
        if check is not None:
            record["vs_heuristic"] = check
        record["seconds"] = round(time.perf_counter() - began, 2)
        complete_generation(self.run, state, record, config.game)

    def train_side(self, generation: int, index: int, side: int, nash: dict) -> tuple[dict, dict]:
        """Side ``side``'s new policy of iteration ``generation + 1`` (``index``: its place in the training order),
        trained against the other side's mixture and saved as a member; returns its generation record and
        ``league.json``'s record of the mix it met."""
        from .train import Trainer, iteration_logger, save_team, team_record

        config, population, iteration = self.config, self.population, generation + 1
        team, other = self.sides[side], self.sides[1 - side]
        entry = self.teams[team]
        if not config.league.warm_start and generation > 0:
            params, opt_state = self.base.init_params(derive_seed(config.seed, 1, index, iteration))
            entry.update(params=params, opt_state=opt_state)
        met = self.teams[other]["newest_name"]
        newest = None if met is None else population.params[(other, met)]
        opponents, sizing, mix = _opponents(config, population, nash, team, other, newest, self.probes, self.pool,
                                            entry["params"])
        trainer = Trainer(config, self.engine, mix=sizing, past_pool=self.pool)
        self.bar.set_description(f"league {iteration}/{config.league.iterations} {team}")
        steps = config.training.steps_for(team)
        on_iteration = iteration_logger(config, self.logs, self.bar, entry, team, generation, steps)
        params, opt_state, summary = trainer.train_team(
            side, entry["params"], entry["opt_state"], [], derive_seed(config.seed, generation, index),
            steps, on_iteration, opponents=opponents,
        )
        path = save_team(config, self.run, generation, team, params, opt_state, entry["timesteps"])
        name = f"league_{iteration}"
        population.members[team].append(Member(name, "policy", iteration, path.relative_to(self.run.path).as_posix()))
        population.params[(team, name)] = params
        entry.update(params=params, opt_state=opt_state, newest_name=name)
        return team_record(summary, entry["timesteps"]), mix

    def train_exploiters(self, generation: int) -> dict:
        """The exploiters of iteration ``generation + 1`` (``league.exploiters``), each against the other side's
        newest policy and saved as a member; returns their generation records."""
        from .train import team_record

        config, population, iteration = self.config, self.population, generation + 1
        records = {}
        for index, side in enumerate(self.order):
            team, other = self.sides[side], self.sides[1 - side]
            if team not in self.exploiters:
                continue
            target = population.params[(other, self.teams[other]["newest_name"])]
            params, summary, path = _train_exploiter(
                config, self.engine, self.run, generation, side, team, target, self.pool, self.bar, self.logs,
                derive_seed(config.seed, 3, index, iteration), self.exploiters[team])
            name = f"exploiter_{iteration}"
            population.members[team].append(Member(name, "policy", iteration, path.relative_to(self.run.path).as_posix(),
                                                   exploiter=True))
            population.params[(team, name)] = params
            records[team] = team_record(summary, self.exploiters[team])
        return records


def _exploiting(league_config, iteration: int) -> bool:
    """Whether league iteration ``iteration`` (1-based) trains exploiters: all do, but with
    ``league.final_exploiters: false`` the last does not (the progress bar's total and the loop both ask here)."""
    return league_config.final_exploiters or iteration < league_config.iterations


def _saved_league(config: RunConfig, engine: Engine, sides) -> dict | None:
    """The saved ``league.json`` of the run folder a resumed league continues, or ``None`` where no iteration is
    complete (``state.json``).

    Raises:
        RunError: for a missing, unreadable or damaged file (before the run folder is touched: its ``config.yaml``
            stays as it was)."""
    run = RunFolder(config.run_dir)
    state = run.read_state() if run.config_path.exists() else None
    completed = (state or {}).get("completed_generations", 0)
    if not completed:
        return None
    path = run.path / LEAGUE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        Population(config, engine, sides).restore(data, completed)  # every field a resumed league reads
        if not data["iterations"]:
            raise ValueError("no iterations")
    except FileNotFoundError:
        raise RunError(f"cannot resume {str(run.path)!r}: {LEAGUE_FILE} is missing, though state.json counts "
                       f"{completed} completed iteration(s); start the league again with --force") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError) as error:
        raise RunError(f"cannot resume {str(run.path)!r}: {LEAGUE_FILE} is damaged ({type(error).__name__}: "
                       f"{error}); start the league again with --force") from None
    return data


def _check_extension(config: RunConfig, saved: dict) -> None:
    """Refuse to resume a league past an iteration that ended it without exploiters (``league.final_exploiters:
    false``): the uninterrupted longer league trains them there, so the resumed one would be another league.

    Raises:
        RunError: before the run folder is touched."""
    league_config = config.league
    path = Path(config.run_dir) / LEAGUE_FILE
    if league_config.final_exploiters or not league_config.exploiters:
        return
    last = saved["iterations"][-1]
    if last["iteration"] > 0 and "exploiters" not in last.get("training", {}) \
            and last["iteration"] < league_config.iterations:
        raise RunError(
            f"{path} ended at iteration {last['iteration']} without exploiters (league.final_exploiters: false), "
            f"which a league of {league_config.iterations} iterations trains there; train the longer league "
            f"from the start (--force), or resume with league.iterations {last['iteration']}"
        )


def _opponents(config: RunConfig, league: Population, nash: dict, team: str, other: str, newest, probes: list[str],
               pool: int, filler) -> tuple:
    """The opponents ``team``'s new policy trains against this iteration (the last meta-game's Nash mixture of
    ``other``'s members, pooled or per table size, its ``newest`` policy's share and the fixed shares), the player
    sizing of the rollout for that mix, and ``league.json``'s record of it. ``filler``: any network, where a slot of
    the opponents is never drawn (no newest policy yet, no past member). Returns ``(Opponents, sizing, record)``."""
    import jax
    import jax.numpy as jnp

    from .rollout import Opponents, mix_sizing

    league_config = config.league
    if league_config.meta_game == "per_size":
        counts = list(config.env.player_counts)
        at = league.iterations[-1]["nash_by_size"]
        size_p = table_size_probabilities(config.env.count_weights_for(team), counts)
        probabilities, pooled, past_weights = opponent_mix_by_size(
            {n: at[str(n)][other] for n in counts}, league.members[other], probes, league_config.latest,
            newest is not None, pool, league_config.shares_for(team), counts, size_p,
        )
        average = size_p @ probabilities  # sized for the mix a game meets on average over the team's size draw
        record = mix_record_by_size(probabilities, past_weights, pooled, probes, counts, size_p)
    else:
        probabilities, pooled, past_weights = opponent_mix(
            nash[other], league.members[other], probes, league_config.latest, newest is not None, pool,
            league_config.shares_for(team),
        )
        average = probabilities
        record = mix_record(probabilities, past_weights, pooled, probes)
    newest = filler if newest is None else newest
    stacked = [league.params[(other, name)] for name in pooled] or [newest]
    stacked = stacked + [stacked[0]] * (pool - len(stacked))
    opponents = Opponents(
        jnp.asarray(probabilities), newest,
        jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *stacked),
        jnp.int32(max(1, len(pooled))), jnp.asarray(past_weights),
    )
    # the players sized for this mix only (so a resumed run compiles the same rollout)
    return opponents, tuple(mix_sizing(average).tolist()), record


def _train_exploiter(config: RunConfig, engine: Engine, run: RunFolder, generation: int, side: int, team: str,
                     target, pool: int, bar, logs, seed: int, steps: int):
    """Train side ``team``'s exploiter of iteration ``generation + 1`` from fresh parameters (``seed``) for ``steps``
    learner decisions against ``target`` (the other side's newest policy's parameters) in every game, and save it
    as ``checkpoints/gen_NNN/exploiter_<team>.msgpack``; returns ``(params, summary, checkpoint path)``. Plain PPO
    (:func:`.train.plain_ppo`): an exploiter exploits, whatever the league's policies are regularised with."""
    import jax
    import jax.numpy as jnp

    from .rollout import Opponents, mix_sizing
    from .train import Trainer, iteration_logger, plain_ppo, save_team

    probabilities = np.zeros(4 + len(engine.probes), np.float32)
    probabilities[0] = 1.0  # the newest policy alone
    trainer = Trainer(plain_ppo(config), engine, mix=tuple(mix_sizing(probabilities).tolist()), past_pool=pool)
    params, opt_state = trainer.init_params(seed)
    opponents = Opponents(jnp.asarray(probabilities), target,
                          jax.tree_util.tree_map(lambda leaf: jnp.stack([leaf] * pool), target),
                          jnp.int32(1), jnp.asarray(np.eye(1, pool, dtype=np.float32)[0]))
    entry = {"timesteps": 0}
    label = f"exploiter_{team}"
    bar.set_description(f"league {generation + 1}/{config.league.iterations} {label}")
    on_iteration = iteration_logger(config, logs, bar, entry, label, generation, steps)
    params, opt_state, summary = trainer.train_team(side, params, opt_state, [], seed, steps, on_iteration,
                                                    opponents=opponents)
    path = save_team(config, run, generation, team, params, opt_state, entry["timesteps"], file=label)
    return params, summary, path
