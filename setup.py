"""Builds the optional compiled observation encoder (``traitors_env.games.traitors_aboard._encoder``); metadata is in pyproject.toml.

Where it cannot be built (no C compiler, no Cython), the install goes on without it and the package
uses its pure-Python encoder: the same observations, more slowly (``observation.COMPILED_ENCODER``).
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """``build_ext`` that warns instead of failing: the extension only speeds the package up."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # any failure to build leaves the pure-Python encoder
            self._skip(error)

    def build_extension(self, ext):
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

setup(ext_modules=extensions, cmdclass={"build_ext": OptionalBuildExt})
