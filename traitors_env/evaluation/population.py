"""A population of agents by spec: from the command line or a YAML file, with seed groups.

Every entry is ``SPEC`` or ``NAME=SPEC`` (a spec as in :mod:`traitors_env.agents.spec`: ``random``,
``heuristic``, a checkpoint path, ``package.module:function``). ``NAME=SPEC1,SPEC2,…`` is one agent
trained with several seeds: each spec plays as its own agent (``NAME/1``, ``NAME/2`` …) and the report
aggregates them over seeds (bootstrap interval). A YAML file holds the same::

    agents:
      - random
      - heuristic
      - quick: runs/quick                 # a name for a spec
      - claims-on:                        # a seed group
          - runs/ablation/seed0/claims-on
          - runs/ablation/seed1/claims-on

A file's specs are read as data: one that names code (``package.module:function``, ``file.py:function``) is
refused unless the reader allows it (``traitors-eval --allow-code-specs``; docs/security.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..agents.run_folder import RunFolder, RunFolderError

__all__ = ["Population", "PopulationError", "load_population_file", "parse_population"]


class PopulationError(ValueError):
    """A population that cannot be read: a malformed entry, a repeated name, an unreadable file."""


@dataclass
class Population:
    """Agents in order (``names`` → ``specs``) and seed groups (group name → member names)."""

    specs: dict[str, str] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def add(self, name: str, specs: list[str]) -> None:
        if not name or any(c in name for c in "\n\r\t"):
            raise PopulationError(f"agent name {name!r} is empty or holds a control character")
        if not specs or any(not s.strip() for s in specs):
            raise PopulationError(f"agent {name!r} has an empty spec; expected NAME=SPEC or NAME=SPEC1,SPEC2,…")
        same = [_same_run(s) for s in specs]
        twice = list(dict.fromkeys(s.strip() for s, key in zip(specs, same) if same.count(key) > 1))
        if twice:  # one run counted as two seeds would narrow the interval over seeds for nothing
            raise PopulationError(f"agent {name!r} groups one run more than once ({', '.join(map(repr, twice))}: "
                                  "a path given twice, two spellings of one, or a run folder and the generation it "
                                  "plays); give each training seed's run once (NAME=SPEC1,SPEC2,…)")
        members = [name] if len(specs) == 1 else [f"{name}/{i}" for i in range(1, len(specs) + 1)]
        for member in dict.fromkeys([name, *members]):
            if member in self.specs or member in self.groups:
                raise PopulationError(f"agent name {member!r} is given twice; names must be unique")
        for member, spec in zip(members, specs):
            self.specs[member] = spec.strip()
        if len(specs) > 1:
            self.groups[name] = members

    def extend(self, other: Population) -> None:
        mine = {*self.specs, *self.groups}
        for name in [n for n in [*other.specs, *other.groups] if n in mine]:  # an agent's, or a seed group's name
            raise PopulationError(f"agent name {name!r} is given twice; names must be unique")
        self.specs.update(other.specs)
        self.groups.update(other.groups)


def _same_run(spec: str) -> str:
    """A key equal for two spellings of one path (relative or absolute, a trailing slash) and for a run folder and
    the generation folder it plays (its newest completed one); the spec otherwise."""
    spec = spec.strip()
    path = Path(spec)
    if not path.exists():
        head, colon, tail = spec.rpartition(":")  # league.json:pooled, league.json:per_size
        if colon and head and Path(head).exists():
            return f"{_same_run(head)}:{tail}"
        return spec.rstrip("/")
    if (path / "checkpoints").is_dir():
        try:
            path = RunFolder(path).newest_generation_dir() or path
        except RunFolderError:
            pass  # the agent's loader names the damaged state.json
    return str(path.resolve())


def _default_name(spec: str) -> str:
    return spec.rstrip("/")


def parse_population(entries: list[str]) -> Population:
    """A population from command-line entries ``SPEC``, ``NAME=SPEC`` or ``NAME=SPEC1,SPEC2,…``.

    Raises:
        PopulationError: for an empty entry or a name given twice.
    """
    population = Population()
    for entry in entries:
        name, sep, rest = entry.partition("=")
        if sep:
            population.add(name.strip(), rest.split(","))
        else:
            population.add(_default_name(entry.strip()), [entry])
    return population


def load_population_file(path: str | Path, allow_code_specs: bool = False) -> Population:
    """A population from a YAML file (see the module doc).

    An agents file may come from someone else: a spec in it that names code (``package.module:function``,
    ``path/to/file.py:function``, which would be imported and run) is refused unless ``allow_code_specs``
    (``traitors-eval --allow-code-specs``); every other spec is read as data (docs/security.md).

    Raises:
        PopulationError: naming the file and the bad entry (also a name that is not text, YAML's ``null:``, and an
            ``openai:MODEL`` entry without the llm extra).
    """
    import importlib.util

    import yaml

    from ..agents.llm import is_llm_spec
    from ..agents.spec import is_code_spec

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PopulationError(f"agents file {str(path)!r} cannot be read: {error.strerror or error}") from None
    except yaml.YAMLError as error:
        raise PopulationError(f"agents file {str(path)!r} is not valid YAML: {error}") from None
    entries = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise PopulationError(f"agents file {str(path)!r}: expected a top-level key 'agents' holding a list")
    population = Population()
    for entry in entries:
        if isinstance(entry, str):
            name, specs = _default_name(entry), [entry]
        elif isinstance(entry, dict) and len(entry) == 1:
            (name, value), = entry.items()
            if isinstance(name, bool) or not isinstance(name, (str, int)):  # YAML's `null:`/`yes:` keys
                raise PopulationError(f"agents file {str(path)!r}: entry {entry!r} has the name {name!r}; expected "
                                      "a text name (quote it: 'null': SPEC)")
            specs = value if isinstance(value, list) else [value]
            if not all(isinstance(s, str) for s in specs):
                raise PopulationError(f"agents file {str(path)!r}: agent {name!r} needs a spec string or a list of them")
        else:
            raise PopulationError(
                f"agents file {str(path)!r}: entry {entry!r} is neither a spec nor a one-key mapping NAME: SPEC(S)"
            )
        code = next((s for s in specs if is_code_spec(s.strip())), None) if not allow_code_specs else None
        if code is not None:  # checked before any spec is resolved: nothing of the file's is imported
            raise PopulationError(
                f"agents file {str(path)!r}: agent {name!r} names code ({code.strip()!r}: a factory, imported and run "
                "when loaded); a file may name bots, checkpoints, league files and openai:MODEL only. If you trust "
                "the file, pass --allow-code-specs; or give that spec with --agents")
        llm = next((s for s in specs if is_llm_spec(s.strip())), None)
        if llm is not None and importlib.util.find_spec("openai") is None:  # name the entry, not only the extra
            raise PopulationError(f"agents file {str(path)!r}: agent {name!r} ({llm.strip()!r}) is a language model; "
                                  "openai:MODEL agents need the llm extra (pip install -e '.[llm]')")
        population.add(str(name), specs)
    return population
