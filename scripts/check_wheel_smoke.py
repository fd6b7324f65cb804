"""The Python half of scripts/check_wheel.sh: checks run by the INSTALLED package, from a folder outside the checkout.

check_wheel.sh feeds this file on standard input (``python - CHECK ARGS… < check_wheel_smoke.py``), so the first
entry of ``sys.path`` is the temporary folder, not the checkout's ``scripts/``: every import below comes from the
wheel installed in the fresh virtual environment. Checks (each exits non-zero with a message when it fails):

- ``installed``: the package is imported from this environment's site-packages; prints the version and whether
  the compiled encoder loaded; ``--require-compiled`` fails where it did not.
- ``configs NAME…``: the shipped configs are exactly ``NAME…`` (the checkout's configs/, listed by the shell
  script), and each one loads and validates.
- ``encoder DIGEST_FILE``: every observation of random games at every table size, with and without claims, is
  the same from ``encode`` (compiled, where built) and ``encode_python``; their SHA-256 goes to DIGEST_FILE, or is
  compared with it where it exists (the wheel built without a compiler must give the same observations).
- ``api``: ``pettingzoo.test.api_test`` on each registered game's ``env()``.
- ``snapshot FILE``: the installed packages' files (``__pycache__`` aside), to show that no command wrote inside them.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def fail(message: str) -> None:
    print(f"check_wheel: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def installed(args: list[str]) -> None:
    import training
    import traitors_env
    from traitors_env.games.traitors_aboard import observation

    for package in (traitors_env, training):
        if not Path(package.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()):
            fail(f"{package.__name__} was imported from {package.__file__}, not from this environment ({sys.prefix})")
    print(f"traitors_env {traitors_env.__version__} from {Path(traitors_env.__file__).parent}")
    print(f"compiled observation encoder loaded: {observation.COMPILED_ENCODER}")
    if "--require-compiled" in args and not observation.COMPILED_ENCODER:
        fail("a C compiler was present at build time, but the wheel's compiled encoder did not load")
    if "--require-python" in args and observation.COMPILED_ENCODER:
        fail("this wheel was built without a compiler, yet a compiled encoder loaded")


def configs(names: list[str]) -> None:
    from training.config import ConfigError, load_config
    from training.config_files import list_configs, resolve_config

    shipped = list_configs()
    needs_extra: list[str] = []
    missing, extra = sorted(set(names) - set(shipped)), sorted(set(shipped) - set(names))
    if missing or extra:
        fail(f"configs left out of the wheel: {missing}; in the wheel but not in configs/: {extra}")
    for name in shipped:
        path = resolve_config(name)
        if not path.resolve().is_relative_to(Path(sys.prefix).resolve()):
            fail(f"config {name!r} resolved to {path}, outside this environment ({sys.prefix})")
        try:
            load_config(name)
        except ConfigError as error:  # a game of an optional extra not installed here: refused, naming the extra
            if "needs the optional extra" not in str(error):
                raise
            needs_extra.append(name)
    loaded = [name for name in shipped if name not in needs_extra]
    print(f"{len(loaded)} configs shipped and valid: {', '.join(loaded)}")
    if needs_extra:
        print(f"{len(needs_extra)} refused for an optional extra not installed here, saying how to install it: "
              f"{', '.join(needs_extra)}")


def encoder(args: list[str]) -> None:
    import numpy as np

    from traitors_env.games.traitors_aboard import actions as A
    from traitors_env.games.traitors_aboard.engine import GameConfig, GameState
    from traitors_env.games.traitors_aboard.observation import COMPILED_ENCODER, encode, encode_python

    digest, observations = hashlib.sha256(), 0
    for num_players in range(3, 9):
        for claims in (True, False):
            for seed in range(3):
                rng = np.random.default_rng(seed)
                state = GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)
                for _ in range(5000):
                    for seat in range(num_players):
                        fast, reference = encode(state, seat), encode_python(state, seat)
                        if fast.dtype != np.float32 or not np.array_equal(fast, reference):
                            fail(f"{num_players} players, claims={claims}, seed {seed}, seat {seat}: encode differs "
                                 "from encode_python")
                        digest.update(fast.tobytes())
                        observations += 1
                    if state.is_terminal:
                        break
                    legal = [a for a in state.legal_actions() if a != A.OPEN_CHEST] or list(state.legal_actions())
                    state.apply_action(int(legal[rng.integers(len(legal))]))
    path = Path(args[0])
    kind = "compiled" if COMPILED_ENCODER else "pure-Python"
    if path.exists():
        if path.read_text().strip() != digest.hexdigest():
            fail(f"the {kind} encoder's {observations} observations differ from those recorded in {path}")
        print(f"{observations} observations from the {kind} encoder: the same as recorded ({digest.hexdigest()[:16]}…)")
    else:
        path.write_text(digest.hexdigest() + "\n")
        print(f"{observations} observations from the {kind} encoder, equal to encode_python ({digest.hexdigest()[:16]}…)")


def api(args: list[str]) -> None:
    from pettingzoo.test import api_test

    from traitors_env.core.registry import load_game, registered_games

    names = registered_games()
    if not names:
        fail("no game is registered")
    for name in names:
        api_test(load_game(name).env(), num_cycles=100)
    print(f"pettingzoo.test.api_test passed: {', '.join(names)}")


def snapshot(args: list[str]) -> None:
    import training
    import traitors_env

    files = sorted(  # name, size and modification time: a file added, removed or rewritten shows
        f"{path} {path.stat().st_size} {path.stat().st_mtime_ns}"
        for package in (traitors_env, training)
        for path in Path(package.__file__).parent.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )
    Path(args[0]).write_text("\n".join(files) + "\n")


if __name__ == "__main__":
    checks = {"installed": installed, "configs": configs, "encoder": encoder, "api": api, "snapshot": snapshot}
    if len(sys.argv) < 2 or sys.argv[1] not in checks:
        fail(f"expected one of {', '.join(checks)} as the first argument, got {sys.argv[1:]}")
    checks[sys.argv[1]](sys.argv[2:])
