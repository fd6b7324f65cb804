"""Builds the optional compiled observation encoder (``traitors_env._encoder``); metadata is in pyproject.toml.

Without a C compiler the build of the extension fails quietly (``optional=True``) and the package
uses its pure-Python encoder, which gives the same observations more slowly.
"""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython in the build environment: pure Python only
    extensions = []
else:
    extensions = cythonize(
        [Extension("traitors_env._encoder", ["traitors_env/_encoder.pyx"], optional=True)],
        compiler_directives={"language_level": 3},
        quiet=True,
    )

setup(ext_modules=extensions)
