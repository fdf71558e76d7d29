"""What a saved judged tensor was made from (``gtheory judge``), and whether those files changed since.

``gtheory judge`` records, in the tensor's ``sources`` (:meth:`metrics.JudgedRuns.save`), every run file and the
qrels file with its absolute path, size, modification time and SHA-256 hash, and the judging options (depth,
grades, duplicates, missing). A subcommand given ``--judged`` compares them with the files as they are now
(:func:`changed_sources`): a file that is gone, or whose size or hash differs, is named in one warning — the tensor
still holds the old judgments, and its numbers are those of the files it was made from. A file whose size and
modification time are unchanged is taken as unchanged without hashing it, so the check costs a ``stat`` per file.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable

#: version of the ``sources`` record
SOURCES_VERSION = 1


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _entry(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": _sha256(path)}


def _run_files(runs: Iterable[str]) -> list[Path]:
    """The run files of ``--runs``: the files given, or the regular, non-hidden files of one directory (as
    :func:`metrics.judge` reads it)."""
    out: list[Path] = []
    for r in runs:
        p = Path(r)
        if p.is_dir():
            out.extend(sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")))
        else:
            out.append(p)
    return out


def record_sources(runs: list[str], qrels: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ``sources`` record of a tensor judged from the run files ``runs`` (files or one directory) and the
    qrels file ``qrels`` with the judging ``options``."""
    dirs = [str(Path(r).resolve()) for r in runs if Path(r).is_dir()]
    return {"version": SOURCES_VERSION, "runs": [_entry(p) for p in _run_files(runs)],
            "run_directories": dirs, "qrels": _entry(Path(qrels)), "options": dict(options)}


def changed_sources(sources: dict[str, Any]) -> list[str]:
    """What changed since ``sources`` was recorded: one phrase per file that is gone or differs (size or SHA-256),
    and per file added to a run directory; empty when everything is as recorded (or nothing was recorded)."""
    problems: list[str] = []
    entries = [e for e in sources.get("runs", []) if isinstance(e, dict)]
    if isinstance(sources.get("qrels"), dict):
        entries.append({**sources["qrels"], "_qrels": True})
    for e in entries:
        p = Path(str(e.get("path", "")))
        what = "qrels " if e.get("_qrels") else ""
        try:
            st = p.stat()
        except OSError:
            problems.append(f"{what}{p} is gone")
            continue
        if st.st_size != e.get("size"):
            problems.append(f"{what}{p} changed (size {e.get('size')} → {st.st_size} bytes)")
        elif st.st_mtime_ns != e.get("mtime_ns") and _sha256(p) != e.get("sha256"):
            problems.append(f"{what}{p} changed (another SHA-256)")
    known = {str(e.get("path")) for e in sources.get("runs", []) if isinstance(e, dict)}
    for d in sources.get("run_directories", []) or []:
        if Path(d).is_dir():
            added = [str(f.resolve()) for f in _run_files([d]) if str(f.resolve()) not in known]
            if added:
                problems.append(f"{d} has {len(added)} run file{'s' * (len(added) != 1)} more ({Path(added[0]).name}"
                                f"{', ...' if len(added) > 1 else ''})")
    return problems


def sources_warning(path: str, sources: dict[str, Any] | None) -> str | None:
    """The one warning of ``--judged path`` whose sources changed (None when they did not, or were not
    recorded)."""
    if not sources:
        return None
    problems = changed_sources(sources)
    if not problems:
        return None
    shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
    return (f"--judged {path} was judged from files that changed since: {shown}. Its numbers are those of the old "
            f"files; run 'gtheory judge' again for the current ones.")

