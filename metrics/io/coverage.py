r"""Judgment coverage of judged runs: how much of what the runs retrieved the qrels judge, and which topics match.

Runs and qrels that do not belong together (another collection's qrels, docnos with a prefix the qrels lack, topic
ids written differently) do not fail by themselves: every retrieved document is simply unjudged and every measure
is 0. :func:`metrics.judge` therefore checks the coverage of what it builds
(:func:`metrics.io.judge.check_coverage`):

* no run returns a topic of the qrels, or no run retrieved a single judged document: :class:`InputMismatchError`,
  with an example topic / docno from each side;
* a run that retrieved no judged document, or less than half of the top-10 documents judged over all runs:
  :class:`LowCoverageWarning`.

The coverage itself, :class:`Coverage` (``JudgedRuns.coverage``), is computed from the judged-grade tensor, so it is
the same after ``save``/``load`` and is recomputed for a ``subset``; only the run topics absent from the qrels are
known to :func:`metrics.judge` alone (``None`` on a loaded tensor).

Definition (Buckley & Voorhees 2004 call its per-topic form "judged fraction"; ir_measures ``Judged@k``): for run
:math:`s` and cut-off :math:`k`,

.. math::

    \mathrm{coverage}_s(k) = \frac{\sum_t |\{r \le k : d_{s,t,r}\ \text{judged}\}|}{\sum_t |\{r \le k : d_{s,t,r}\
    \text{retrieved}\}|},

the share of the documents retrieved in the top :math:`k` over the qrels topics that have a judgment (any grade);
the overall coverage pools every run.

References
----------
.. [1] C. Buckley and E. M. Voorhees, "Retrieval evaluation with incomplete information", SIGIR 2004.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ._grades import ABSENT
from .trec_lines import natural_topic_order
from gtheory.kit.errors import FixableWarning

__all__ = ["Coverage", "coverage", "InputMismatchError", "LowCoverageWarning", "CUTOFFS", "coverage_warnings"]

#: cut-offs reported by :class:`Coverage` (those below the tensor's depth, and the depth itself)
CUTOFFS: tuple[int, ...] = (1, 5, 10, 20, 50, 100, 200, 500, 1000)
#: overall coverage of the top 10 below which :func:`check_coverage` warns
LOW_COVERAGE = 0.5
_FORMAT = "gtheory.metrics.Coverage/1"


class InputMismatchError(ValueError):
    """Runs and qrels that share no topic, or of which no run retrieved a single judged document."""


class LowCoverageWarning(FixableWarning):
    """A run retrieved no judged document, or few of the runs' top documents are judged: scores near 0 that say
    more about the judgments than about the systems. Few judged documents carry their fix as data
    (``fix={"judged_only": True}``, module :mod:`gtheory.kit.errors`)."""


def _share(judged: np.ndarray, retrieved: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(retrieved > 0, judged / np.maximum(retrieved, 1), np.nan)


@dataclass(frozen=True, eq=False)
class Coverage:
    r"""Coverage of judged runs by their qrels: of the documents run :math:`s` retrieved in its top :math:`k` over
    the qrels topics, the share that the qrels judge (any grade), per run and pooled over runs (``overall``); and the
    topics found on one side only. ``JudgedRuns.coverage`` computes it; :func:`metrics.judge` refuses runs and qrels
    that do not match and warns :class:`LowCoverageWarning` below 50 % judged in the top 10 (module
    :mod:`metrics.io.coverage`).

    Attributes
    ----------
    systems : run names.
    cutoffs : cut-offs ``k`` (ascending; the last is the tensor's depth).
    n_retrieved, n_judged : int arrays (n_systems, n_cutoffs): documents each run retrieved in its top ``k`` over the
        qrels topics, and how many of them are judged.
    n_topics : number of qrels topics.
    topics_not_retrieved : qrels topics that no run returns.
    run_topics_not_in_qrels : topics some run returns that the qrels do not hold (ignored, as trec_eval does);
        ``None`` when unknown (a tensor loaded from a file).
    """

    systems: tuple[str, ...]
    cutoffs: tuple[int, ...]
    n_retrieved: np.ndarray
    n_judged: np.ndarray
    n_topics: int
    topics_not_retrieved: tuple[str, ...]
    run_topics_not_in_qrels: tuple[str, ...] | None

    @property
    def share(self) -> np.ndarray:
        """(n_systems, n_cutoffs) float: judged share of each run's retrieved documents at each cut-off (NaN if the
        run retrieved nothing)."""
        return _share(self.n_judged, self.n_retrieved)

    @property
    def overall(self) -> np.ndarray:
        """(n_cutoffs,) float: judged share of all runs' retrieved documents at each cut-off."""
        return _share(self.n_judged.sum(axis=0), self.n_retrieved.sum(axis=0))

    def at(self, k: int) -> float:
        """Overall coverage at cut-off ``k`` (one of :attr:`cutoffs`)."""
        if k not in self.cutoffs:
            raise ValueError(f"`k` must be one of the cut-offs {list(self.cutoffs)}; got {k!r}")
        return float(self.overall[self.cutoffs.index(k)])

    def to_frame(self):
        """Long DataFrame ``system, cutoff, retrieved, judged, share`` (one row per run and cut-off)."""
        import pandas as pd

        S, C = self.n_retrieved.shape
        return pd.DataFrame({
            "system": np.repeat(np.array(self.systems, dtype=object), C),
            "cutoff": np.tile(np.array(self.cutoffs, dtype=np.int64), S),
            "retrieved": self.n_retrieved.ravel(),
            "judged": self.n_judged.ravel(),
            "share": self.share.ravel(),
        })

    # ------------------------------------------------------------------------------------------ presentation
    def _shown_cutoffs(self) -> list[int]:
        return [k for k in self.cutoffs if k in (10, 100, 1000)] or [self.cutoffs[-1]]

    def one_line(self) -> str:
        """One line for a log: overall coverage at 10/100/1000, the least covered run, and topic mismatches."""
        ov = self.overall
        parts = [f"{100 * ov[self.cutoffs.index(k)]:.1f}% @{k}" for k in self._shown_cutoffs()]
        text = (f"coverage: {len(self.systems)} run{'s' * (len(self.systems) != 1)} x {self.n_topics} topics, "
                f"judged share of retrieved documents {', '.join(parts)}")
        k = 10 if 10 in self.cutoffs else self.cutoffs[-1]
        share = self.share[:, self.cutoffs.index(k)]
        if len(self.systems) > 1 and np.isfinite(share).any():
            i = int(np.nanargmin(share))
            text += f"; lowest {self.systems[i]} {100 * share[i]:.1f}% @{k}"
        if self.topics_not_retrieved:
            text += f"; {len(self.topics_not_retrieved)} qrels topic(s) retrieved by no run"
        if self.run_topics_not_in_qrels:
            text += f"; {len(self.run_topics_not_in_qrels)} run topic(s) not in the qrels (ignored)"
        return text

    def summary(self) -> str:
        """A text table: the judged share of each run at each cut-off, the overall row, and the topic mismatches."""
        width = max([len(s) for s in self.systems] + [7])
        head = f"{'run':<{width}}  " + "  ".join(f"{'@' + str(k):>7}" for k in self.cutoffs)
        rows = [f"Judgment coverage: {len(self.systems)} runs x {self.n_topics} qrels topics", head]

        def fmt(v: float) -> str:
            return f"{100 * v:6.1f}%" if math.isfinite(v) else f"{'-':>7}"

        for s, row in zip(self.systems, self.share):
            rows.append(f"{s:<{width}}  " + "  ".join(fmt(v) for v in row))
        rows.append(f"{'overall':<{width}}  " + "  ".join(fmt(v) for v in self.overall))
        rows.append(f"qrels topics retrieved by no run: {_listed(self.topics_not_retrieved)}")
        rows.append("run topics not in the qrels: " + ("unknown (not built by judge)" if
                                                       self.run_topics_not_in_qrels is None else
                                                       _listed(self.run_topics_not_in_qrels)))
        return "\n".join(rows)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"Coverage({self.one_line()})"

    def _repr_html_(self) -> str:
        import html

        cells = "".join(f"<th>@{k}</th>" for k in self.cutoffs)
        body = "".join(
            f"<tr><td>{html.escape(s)}</td>"
            + "".join(f"<td>{100 * v:.1f}%</td>" if math.isfinite(v) else "<td>–</td>" for v in row) + "</tr>"
            for s, row in zip(("overall",) + self.systems, np.vstack([self.overall, self.share]))
        )
        return (f"<p>{html.escape(self.one_line())}</p><table><tr><th>run</th>{cells}</tr>{body}</table>")

    def plot(self, ax: Any = None) -> Any:
        """Judged share against the cut-off (log scale): one thin line per run, the overall share in bold."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        for row in self.share:
            ax.plot(self.cutoffs, row, color="0.7", lw=0.8)
        ax.plot(self.cutoffs, self.overall, color="C0", lw=2.5, label="all runs")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("cut-off k")
        ax.set_ylabel("judged share of retrieved documents")
        ax.set_title("Judgment coverage")
        ax.legend(loc="lower left")
        return ax

    # --------------------------------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (counts, not shares: the shares follow) plus ``"format"``."""
        return {
            "format": _FORMAT,
            "systems": list(self.systems),
            "cutoffs": list(self.cutoffs),
            "n_retrieved": self.n_retrieved.tolist(),
            "n_judged": self.n_judged.tolist(),
            "n_topics": int(self.n_topics),
            "topics_not_retrieved": list(self.topics_not_retrieved),
            "run_topics_not_in_qrels": None if self.run_topics_not_in_qrels is None
            else list(self.run_topics_not_in_qrels),
        }

    def to_json(self, path: str | None = None, *, indent: int | None = 2) -> str:
        """Strict JSON text of :meth:`to_dict` (also written to ``path`` if given, by the package's one writer,
        :func:`gtheory.kit.output.write_text`: atomically for a regular file — a temporary file beside it renamed at
        the end —, written through for a device or a named pipe). The counts are integers, so there is no non-finite
        number to encode."""
        from gtheory.kit.jsonio import json_text  # imported here: `import metrics` does not load it

        return json_text(self.to_dict(), path, indent=indent)

    @classmethod
    def from_json(cls, text_or_path: str) -> "Coverage":
        """A :class:`Coverage` from :meth:`to_json` output (JSON text or a file path)."""
        from gtheory.kit.jsonio import read_json  # text or a file; bad or too deeply nested JSON: ValueError

        d = read_json(text_or_path, "gtheory metrics.Coverage")
        if not isinstance(d, dict) or d.get("format") != _FORMAT:
            raise ValueError("not a gtheory metrics.Coverage JSON document (missing 'format').")
        try:
            S, C = len(d["systems"]), len(d["cutoffs"])
            ret = np.asarray(d["n_retrieved"], dtype=np.int64).reshape(S, C)
            jud = np.asarray(d["n_judged"], dtype=np.int64).reshape(S, C)
            rt = d["run_topics_not_in_qrels"]
            return cls(tuple(map(str, d["systems"])), tuple(int(k) for k in d["cutoffs"]), ret, jud,
                       int(d["n_topics"]), tuple(map(str, d["topics_not_retrieved"])),
                       None if rt is None else tuple(map(str, rt)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"invalid metrics.Coverage JSON document: {exc}") from None


def _listed(items: Sequence[str] | None, show: int = 8) -> str:
    if not items:
        return "none"
    items = list(items)
    return ", ".join(items[:show]) + (f" and {len(items) - show} more" if len(items) > show else "")


def _per_rank(g: np.ndarray, test) -> np.ndarray:
    """(n_systems, depth) int64: how many topics' cells pass ``test``, a few systems at a time (no boolean copy of
    the whole tensor: judging stays within its memory bound)."""
    S, T, K = g.shape
    out = np.empty((S, K), dtype=np.int64)
    step = max(1, (1 << 24) // max(T * K, 1))
    for a in range(0, S, step):
        out[a : a + step] = test(g[a : a + step]).sum(axis=1, dtype=np.int64)
    return out


def coverage(grades: np.ndarray, retrieved: np.ndarray, systems: Sequence[str], topics: Sequence[str],
             run_topics_not_in_qrels: Mapping[str, Sequence[str]] | None) -> Coverage:
    """The :class:`Coverage` of a judged-grade tensor (``JudgedRuns.coverage``), from its cell codes ``grades``
    (systems × topics × ranks), ``retrieved`` (systems × topics: the run returned the topic), its labels and, when
    known, the run topics absent from the qrels per system (vectorised over the tensor: one cumulative count per
    rank)."""
    g = grades
    K = g.shape[2]
    cutoffs = tuple(k for k in CUTOFFS if k < K) + (K,)
    idx = np.array(cutoffs) - 1
    ret = np.cumsum(_per_rank(g, lambda x: x != ABSENT), axis=1)[:, idx]
    jud = np.cumsum(_per_rank(g, lambda x: x >= 0), axis=1)[:, idx]
    none = ~retrieved.any(axis=0)
    if run_topics_not_in_qrels is None:
        run_only = None
    else:
        keep = set(systems)
        seen = dict.fromkeys(t for s, ts in run_topics_not_in_qrels.items() if s in keep for t in ts)
        run_only = tuple(natural_topic_order(seen))
    return Coverage(tuple(systems), cutoffs, ret, jud, len(topics), tuple(t for t, n in zip(topics, none) if n),
                    run_only)


def coverage_warnings(judged: Any, *, stacklevel: int = 2) -> None:
    """The warnings of :func:`check_coverage` that the tensor alone gives (:class:`LowCoverageWarning`): runs that
    retrieved no judged document (their scores are 0 whatever they ranked), and an overall judged share of the top
    10 below :data:`metrics.io.coverage.LOW_COVERAGE`. :func:`metrics.judge` warns them when it reads the runs; a
    command given a saved tensor (``--judged``) warns them again from it."""
    n_ret = judged.n_retrieved
    cov = judged.coverage
    judged_any = cov.n_judged[:, -1]
    zero = [s for s, n in zip(cov.systems, judged_any) if n == 0]
    if zero:
        no_topic = [s for s, row in zip(cov.systems, n_ret) if not row.any()]
        why = (f" ({_listed(no_topic, 5)} return{'s' * (len(no_topic) == 1)} no qrels topic)" if no_topic else "")
        warnings.warn(
            f"{len(zero)} of {len(cov.systems)} runs retrieved no judged document ({_listed(zero, 5)}){why}: their "
            "scores are 0 whatever they ranked; check their docnos and topic ids against the qrels.",
            LowCoverageWarning, stacklevel=stacklevel,
        )
    k = 10 if 10 in cov.cutoffs else cov.cutoffs[-1]
    share = cov.at(k)
    if share < LOW_COVERAGE:
        warnings.warn(LowCoverageWarning(
            f"only {100 * share:.1f}% of the documents the runs retrieved in their top {k} are judged (below "
            f"{100 * LOW_COVERAGE:.0f}%): unjudged documents count as non-relevant, so scores are low and rankings "
            "unreliable (check that these are the qrels of these runs)", fix={"judged_only": True},
            fix_effect="evaluate condensed lists (the usual remedy, with bpref)",
        ), stacklevel=stacklevel)
