"""``--tuning FILE`` and ``--allow-failed``: a tuning written by ``gtheory tune --out``, read and checked."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import UsageError


def add_allow_failed(p: argparse.ArgumentParser) -> None:
    """``--allow-failed``: use a tuning whose optimiser failed (refused by default)."""
    p.add_argument("--allow-failed", action="store_true",
                   help="use a tuning that failed (success false in its JSON: not converged, or the systems "
                        "cannot be told apart); refused without this, and warned about with it")


def refuse_failed(tuning: Any, path: str, option: str, allow: bool) -> None:
    """A failed tuning (``success`` False) is refused unless ``--allow-failed``."""
    if tuning.success or allow:
        return
    raise UsageError(f"{option} {path}: this tuning failed ({tuning._status()}: {tuning.message}); its gain and "
                     "discount are not stability-optimal. Tune again (gtheory tune), or give --allow-failed to "
                     "use it anyway.")


def load_tuning(path: str, option: str = "--tuning", *, allow_failed: bool = False) -> Any:
    """The :class:`optimize.Tuning` in ``path``; a missing file or another JSON is one clear error, and a
    failed tuning is refused unless ``allow_failed`` (``--allow-failed``)."""
    import optimize

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a tuning JSON written by 'gtheory tune --out'.")
    if not p.is_file():
        raise UsageError(f"{option} {path}: no such file.")
    try:
        tuning = optimize.Tuning.from_json(p)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UsageError(f"{option} {path}: not a tuning written by 'gtheory tune --out' ({exc})") from None
    refuse_failed(tuning, path, option, allow_failed)
    return tuning
