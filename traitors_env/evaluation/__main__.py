"""``python -m traitors_env.evaluation``: the benchmark kit's command (same as ``traitors-eval --agents``)."""

import sys

from .cli import main

sys.exit(main())
