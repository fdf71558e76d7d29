"""``python -m gtheory``: the ``gtheory`` command line (same as the ``gtheory`` script).

The command line lives in :mod:`experiments.cli`, which sits on top of every package. The library package
``gtheory`` imports nothing from its siblings; this entry point is not library code (it runs only as
``python -m gtheory``) and imports the CLI inside :func:`_main`, so ``import gtheory`` never loads it.
"""
from __future__ import annotations

import sys


def _main() -> int:
    from experiments.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(_main())
