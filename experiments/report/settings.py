r"""What the report computes and what it is called: :class:`ReportSettings` (the settings of
:func:`experiments.run_study`, checked against the data), the standard discounts it compares, whether the data is
the paper's TREC-9 collection, and the report's title (:func:`default_title` from the runs' folder, the collection's
own name otherwise).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from metrics import JudgedRuns
from gtheory.kit.params import check_param

__all__ = ["ReportSettings", "STANDARD_DISCOUNTS", "is_trec9", "default_title"]

#: standard discounts compared with the optimal one (paper §3.1)
STANDARD_DISCOUNTS: tuple[str, ...] = ("zipf", "linear", "log2")


@dataclass(frozen=True)
class ReportSettings:
    """What :func:`run_study` computes and how hard it tries.

    Attributes
    ----------
    cutoff : the main cut-off k (Tables 1, 3, 4, Figs. 4, 7, 8; default 100 as in the paper).
    discount_cutoffs : cut-offs of the discount curves (Fig. 2; paper: 10, 20, 100).
    gain_cutoffs : cut-offs of the gain-ratio table (Table 2; paper: 3, 10, 20, 100, 200).
    asl_cutoff : cut-off of the ASL curves and the unconstrained / joint discounts (Figs. 3, 6, 9; 20).
    joint_cutoffs : cut-offs where gain and discount are tuned jointly (Table 2's third column); None:
        ``gain_cutoffs`` (``asl_cutoff`` is always added).
    top_k : systems kept (best by mean) for the bootstrap (Sakai / the paper: 30).
    n_resamples : bootstrap replicates of the ASLs and draws of the swap method (1000).
    alpha : significance level of the discriminative power.
    n_splits : random topic splits of the out-of-sample check.
    target : Φ target of the topics-needed columns (0.95).
    starts : optimiser starting points.
    seed : seed of everything random (bootstrap, splits, random starts).
    """

    cutoff: int = 100
    discount_cutoffs: tuple[int, ...] = (10, 20, 100)
    gain_cutoffs: tuple[int, ...] = (3, 10, 20, 100, 200)
    asl_cutoff: int = 20
    joint_cutoffs: tuple[int, ...] | None = None
    top_k: int = 30
    n_resamples: int = 1000
    alpha: float = 0.05
    n_splits: int = 10
    target: float = 0.95
    starts: int = 4
    seed: int = 0

    @classmethod
    def default(cls, cutoff: int = 100, **overrides: Any) -> "ReportSettings":
        """The full study (a few minutes on TREC-9): the paper's cut-offs plus ``cutoff``."""
        s = cls(cutoff=cutoff, discount_cutoffs=tuple(sorted({10, 20, cutoff})),
                gain_cutoffs=tuple(sorted({3, 10, 20, 100, 200, cutoff})))
        return replace(s, **overrides)

    @classmethod
    def quick(cls, cutoff: int = 100, **overrides: Any) -> "ReportSettings":
        """A fast study for tests and CI (under a minute on TREC-9): fewer cut-offs, 200 resamples, 3 splits."""
        s = cls(cutoff=cutoff, discount_cutoffs=tuple(sorted({10, cutoff})),
                gain_cutoffs=tuple(sorted({10, cutoff})), joint_cutoffs=(10,), n_resamples=200, n_splits=3, starts=2)
        return replace(s, **overrides)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ReportSettings":
        """The settings of a report's ``tables.json`` (``Study.to_dict()["settings"]``), lists back to tuples."""
        d = dict(d)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"report settings: unknown field(s) {unknown}; known: {sorted(names)}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})

    def fit_depth(self, depth: int) -> "ReportSettings":
        """These settings without the cut-offs deeper than the runs' ``depth`` (a list left empty keeps
        ``min(depth, cutoff)``; ``asl_cutoff`` at most ``depth``), instead of :meth:`validate` refusing them."""
        def keep(ks: tuple[int, ...] | None) -> tuple[int, ...] | None:
            if ks is None:
                return None
            return tuple(k for k in ks if k <= depth) or (min(depth, self.cutoff),)

        return replace(self, discount_cutoffs=keep(self.discount_cutoffs), gain_cutoffs=keep(self.gain_cutoffs),
                       joint_cutoffs=keep(self.joint_cutoffs), asl_cutoff=min(self.asl_cutoff, depth))

    def validate(self, judged: JudgedRuns) -> None:
        """Raise ``ValueError`` naming the first setting that does not fit ``judged``."""
        depth = judged.grades.shape[2] if hasattr(judged, "grades") else None
        for name in ("cutoff", "asl_cutoff", "top_k", "n_resamples", "n_splits", "starts"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"`{name}` must be a positive integer; got {v!r}.")
        for name in ("discount_cutoffs", "gain_cutoffs", "joint_cutoffs"):
            v = getattr(self, name)
            if v is None and name == "joint_cutoffs":
                continue
            if not v or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in v):
                raise ValueError(f"`{name}` must be a non-empty sequence of positive integers; got {v!r}.")
        if depth is not None:
            too_deep = [k for k in (self.cutoff, self.asl_cutoff, *self.discount_cutoffs, *self.gain_cutoffs,
                                    *(self.joint_cutoffs or ())) if k > depth]
            if too_deep:
                raise ValueError(f"cut-offs must not exceed the run depth {depth}; got {sorted(set(too_deep))}.")
        check_param("target", self.target)  # the parameter table's rules (gtheory.kit.params)
        check_param("alpha", self.alpha)
        if judged.n_systems < 3 or judged.n_topics < 6:
            raise ValueError(
                f"the study needs at least 3 systems and 6 topics; got {judged.n_systems} x {judged.n_topics}.")
        if not np.any(judged.levels > 0):
            raise ValueError("the judgments have no positive grade; nothing to tune.")


def is_trec9(judged: JudgedRuns) -> bool:
    """True for the TREC-9 Web collection as the paper used it: 104 systems × 50 topics, grades 0/1/2
    (the embedded tensor or one judged from the same runs); a subset of it is not."""
    return (judged.n_systems == 104 and judged.n_topics == 50
            and [float(x) for x in judged.levels] == [0.0, 1.0, 2.0])


#: longest collection name in the report's title (a description is cut at its first ':' or ';' first)
_NAME_CHARS = 60


def _label(judged: JudgedRuns) -> str:
    """A short collection name for the title: the description up to its first ':' / ';' (the embedded
    TREC-9 data: "TREC-9 Web ad hoc (WT10g, topics 451-500)"), else the file it was loaded from, else
    "unnamed collection" (the command line passes the runs' folder, :func:`default_title`)."""
    desc = str(judged.report.get("description") or "").strip()
    if desc:
        name = desc.split(":")[0].split(";")[0].strip() or desc
    elif judged.report.get("loaded_from"):
        name = Path(str(judged.report["loaded_from"])).name.split(".")[0]
    else:
        name = "unnamed collection"  # never a bare "runs": run_study(title=...) / --title names it
    if len(name) > _NAME_CHARS:
        name = name[:_NAME_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;( ") + "…"
    part = judged.report.get("subset")  # JudgedRuns.subset: say which part of the collection this is
    if part:
        kept = [f"{k} of {n} {what}" for what, (k, n) in part.items() if k != n]
        if kept:
            name += f" ({', '.join(kept)})"
    return name


def default_title(paths: Sequence[str | Path]) -> str:
    """A collection name from the run files' location, for the report's title: the folder holding them (the
    folder given, or the run files' common folder); a generic folder name (``runs``, ``runs_judged_full_xz``,
    ``input``) is replaced by its parent's (``trec-dl-2019-passage``). "" when nothing better is known."""
    import os

    ps = [Path(p).resolve() for p in paths]
    if not ps:
        return ""
    folder = ps[0] if len(ps) == 1 and ps[0].is_dir() else Path(os.path.commonpath([p.parent for p in ps]))
    for part in (folder, *folder.parents):
        low = part.name.lower()
        if low and not (low.startswith(("run", "input", "submission")) or low in _GENERIC_FOLDERS):
            return part.name
    return folder.name


#: folder names that say nothing about the collection (the title uses the parent folder's instead)
_GENERIC_FOLDERS = frozenset({"data", "files", "trec", "tmp", "temp", "results"})


def _check_title(title: Any) -> str:
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"`title` must be a non-empty string; got {title!r}.")
    return " ".join(title.split())
