"""``python -m gtheory``: the ``gtheory`` command line (same as the ``gtheory`` script).

The command line lives in :mod:`experiments.cli`, which sits on top of every package. The library package
``gtheory`` imports nothing from its siblings; this entry point is not library code (it runs only as
``python -m gtheory``) and imports the CLI inside :func:`_main`, so ``import gtheory`` never loads it.
"""
from __future__ import annotations

import sys


def _main() -> int:
    from .kit.siblings import ShadowedPackageError, require_siblings

    try:  # `python -m` puts the current directory first on sys.path: a project's experiments/ would shadow ours
        require_siblings("python -m gtheory", "metrics", "optimize", "experiments")
    except ShadowedPackageError as exc:
        print(f"gtheory: error: {exc}", file=sys.stderr)
        return 1
    from experiments.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(_main())
