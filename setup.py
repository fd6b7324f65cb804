"""The packages, the data folders they carry, and the optional compiled observation encoder; metadata is in pyproject.toml.

Packages: ``traitors_env`` and ``training`` (with their subpackages), plus two folders of the repository that keep
their place at its top and ship inside the packages (docs/packaging.md, "Data inside the package"):

- ``configs/`` becomes ``training.configs`` (the run configs, chosen by name: ``traitors-train --config quick``,
  read through ``importlib.resources`` by :mod:`training.config_files`);
- ``examples/`` becomes ``traitors_env.examples`` (the example agents the docs name:
  ``traitors-eval --agents heuristic traitors_env.examples.plank_pirate:make``).

setuptools maps a package to any folder (``package_dir``), and does so for a wheel, an sdist build and an editable
install alike (its editable finder maps ``training.configs`` to ``configs/``), so the files exist once, where they are.

The encoder (``traitors_env.games.traitors_aboard._encoder``): where it cannot be built (no C compiler, no Cython),
the install goes on without it and the package uses its pure-Python encoder: the same observations, more slowly
(``observation.COMPILED_ENCODER``).
"""

import sys
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """``build_ext`` that warns instead of failing: the extension only speeds the package up."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # any failure to build leaves the pure-Python encoder
            self._skip(error)

    def build_extension(self, ext):
        if self.compiler.compiler_type == "unix":  # gcc, clang: no debug information (the .so is 1.4 MB with it, 0.26 without)
            ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]
        try:
            super().build_extension(ext)
        except Exception as error:
            self._skip(error)

    @staticmethod
    def _skip(error):
        print(
            f"WARNING: the compiled observation encoder was not built ({error}); "
            "traitors_env uses its pure-Python encoder (same observations, slower).",
            file=sys.stderr,
        )


try:
    from Cython.Build import cythonize
except ImportError:  # no Cython in the build environment: pure Python only
    extensions = []
else:
    extensions = cythonize(
        [Extension("traitors_env.games.traitors_aboard._encoder", ["traitors_env/games/traitors_aboard/_encoder.pyx"])],
        compiler_directives={"language_level": 3},
        quiet=True,
    )

#: Packages built from a folder of the repository outside the package tree: package name -> folder.
#: Each folder has an ``__init__.py``: setuptools' editable install maps only regular packages to another folder.
DATA_PACKAGES = {
    "training.configs": "configs",
    "traitors_env.examples": "examples",
}

packages = find_namespace_packages(include=["traitors_env*", "training*"], exclude=["*.__pycache__"])
# Every folder under configs/ (ablation/, …) is a package of its own, so its YAML files are its package data.
here = Path(__file__).resolve().parent
config_packages = ["training.configs"] + [
    "training.configs." + ".".join(folder.relative_to(here / "configs").parts)
    for folder in sorted((here / "configs").rglob("*"))
    if folder.is_dir() and folder.name != "__pycache__"
]

setup(
    packages=packages + config_packages + ["traitors_env.examples"],
    package_dir=DATA_PACKAGES,
    # The viewer's page (traitors-view): its script and style sheet, read through importlib.resources.
    package_data={**{name: ["*.yaml"] for name in config_packages}, "traitors_env.web": ["static/*.js", "static/*.css"]},
    exclude_package_data={"traitors_env.games.traitors_aboard": ["*.c", "*.pyx"]},  # sources: the sdist's, not the wheel's
    ext_modules=extensions,
    cmdclass={"build_ext": OptionalBuildExt},
)
