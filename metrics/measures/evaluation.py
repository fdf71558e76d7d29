"""The result of :func:`metrics.evaluate` for several measures: per-topic scores and trec_eval's per-run rows.

:class:`Evaluation` is a read-only mapping from each measure's canonical name to its systems × topics frame (so code
written for the plain dict ``evaluate`` used to return — ``res["AP"]``, ``list(res)``, ``res.items()``,
``pd.concat(res, names=["measure"])`` — keeps working), plus what a user of trec_eval expects to see first: the
per-run table (:meth:`Evaluation.means`, trec_eval's ``all`` rows), :meth:`~Evaluation.summary`, a notebook table,
CSV and JSON export.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Evaluation", "TOTALLED", "run_means", "evaluation_summary"]

_FORMAT = "gtheory.metrics.Evaluation/1"

#: measures whose per-run row is the total over topics, not the mean: trec_eval's ``all`` row sums its counts
#: (``num_ret``, ``num_rel``, ``num_rel_ret``; trec_eval 9.0.8, ``te_calc_avg_meas_empty`` of m_num_*.c)
TOTALLED = ("NumRet", "NumRel")


def _is_total(name: str) -> bool:
    """Is ``name`` one of the counts whose per-run row is a total (``NumRet``, ``NumRel``, ``NumRelRet`` — which is
    ``NumRet(rel=1)`` —, in any spelling :func:`metrics.parse_measure` reads)? A label it does not read: no."""
    from .names import parse_measure

    try:
        return parse_measure(name).name in TOTALLED
    except (ValueError, TypeError):
        return False


def run_means(measure: str, scores: np.ndarray) -> np.ndarray:
    """trec_eval's per-run ``all`` row of one measure from its (n_systems, n_topics) scores: each run's mean over the
    topics with a score (NaN: no score), or for the counts (NumRet, NumRel, NumRelRet) their total; NaN for a run
    with no scored topic."""
    a = np.asarray(scores, dtype=np.float64)
    has = ~np.isnan(a)
    n = has.sum(axis=1)
    # the sum pandas' DataFrame.mean makes of the frame that wraps `a` (to the last bit, from 6 runs on): over the
    # topics in the array's memory order, or with excluded cells, of a copy with the cells of a topic together
    total = (np.add.reduce(a.T, axis=0) if has.all() else
             np.add.reduce(np.ascontiguousarray(np.where(has, a, 0.0).T), axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total if _is_total(measure) else total / n, np.nan)


def evaluation_summary(scores: Mapping[str, np.ndarray], systems: Sequence[str], digits: int = 4) -> str:
    """The per-run table of :meth:`Evaluation.summary` from each measure's (n_systems, n_topics) scores (in the
    order given) and the systems' names (the rows, in their order): one line saying what it is, then ``system``,
    ``num_q`` (topics with a score, from the first measure) and each measure's :func:`run_means`, laid out as pandas'
    ``DataFrame.to_string`` lays out a frame with named index and columns (the names escaped as pandas does)."""
    names = list(scores)
    arrays = [np.asarray(a, dtype=np.float64) for a in scores.values()]
    n_topics = arrays[0].shape[1]
    num_q = (~np.isnan(arrays[0])).sum(axis=1)
    head = (f"Evaluation: {len(systems)} runs x {n_topics} topics, "
            f"{len(names)} measure{'s' * (len(names) != 1)}; per-run mean over topics "
            "(trec_eval's 'all' rows" + ("; NumRet/NumRel/NumRelRet: totals)" if any(map(_is_total, names)) else ")"))
    columns = [(" num_q", [f"{int(q): d}" for q in num_q])]  # an integer column: a sign's place before each
    for name, a in zip(names, arrays):
        spec = "{:.0f}" if _is_total(name) else f"{{:.{digits}f}}"
        columns.append((_escaped(name), ["NaN" if math.isnan(v) else spec.format(v) for v in run_means(name, a)]))
    labels = [_escaped(s) for s in systems]
    while labels and all(labels) and all(s[0] == " " for s in labels):  # pandas' trim_front: the labels' common indent
        labels = [s[1:] for s in labels]
    width = max(len("measure"), len("system"), *map(len, labels))
    widths = [max(len(h), *map(len, cells)) for h, cells in columns]
    lines = ["measure".ljust(width) + "".join(" " + h.rjust(w) for (h, _), w in zip(columns, widths)),
             "system".ljust(width) + "".join(" " * (w + 1) for w in widths)]
    for i, label in enumerate(labels):
        lines.append(label.ljust(width) + "".join(" " + cells[i].rjust(w) for (_, cells), w in zip(columns, widths)))
    return head + "\n" + "\n".join(lines)


def _escaped(label: Any) -> str:
    """A row or column label as pandas prints it in a table: tabs and line breaks written as ``\\t``, ``\\n``, ``\\r``."""
    return str(label).replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


@dataclass(frozen=True, eq=False)
class Evaluation(Mapping):
    """Scores of several measures for every system and topic (what :func:`metrics.evaluate` returns for a list).

    Attributes
    ----------
    scores : dict from each measure's canonical name, in the order given, to its systems × topics DataFrame
        (index ``system``, columns ``topic``; NaN for a topic excluded by ``judge(missing="exclude")``).

    A mapping: ``ev["AP"]`` is that frame, ``list(ev)`` the measure names, ``len(ev)`` their number.

    Per-run rows (:meth:`means`) are trec_eval's ``all`` rows (trec_eval 9.0.8): for each
    run, the mean over the topics that have a score, except the counts (``NumRet``, ``NumRel``, ``NumRelRet``), which
    trec_eval sums. Which topics have a score follows :func:`metrics.judge`'s ``missing``: with ``"zero"`` (default)
    every qrels topic (a topic the run does not return scores 0), which is ``trec_eval -c``; with ``"exclude"`` the
    qrels topics the run returns, which is trec_eval's default. Topics only in the runs are never evaluated (as in
    trec_eval).
    """

    scores: Mapping[str, pd.DataFrame]
    _means: pd.DataFrame = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import pandas as pd

        scores = dict(self.scores)
        if not scores:
            raise ValueError("an Evaluation needs at least one measure")
        for name, df in scores.items():
            if not isinstance(df, pd.DataFrame):
                raise TypeError(f"the scores of {name!r} must be a systems x topics DataFrame; got {type(df).__name__}")
        first_name, first = next(iter(scores.items()))
        for name, df in scores.items():
            if not (df.index.equals(first.index) and df.columns.equals(first.columns)):
                raise ValueError(f"the scores of {name!r} are not over the systems and topics of {first_name!r} "
                                 "(every measure's frame must have the same index and columns)")
        object.__setattr__(self, "scores", scores)
        means = pd.DataFrame({name: run_means(name, df.to_numpy(dtype=float)) for name, df in scores.items()},
                             index=first.index)
        means.index.name = "system"
        means.columns.name = "measure"
        object.__setattr__(self, "_means", means)

    # ------------------------------------------------------------------------------------------- mapping
    def __getitem__(self, name: str) -> pd.DataFrame:
        try:
            return self.scores[name]
        except KeyError:
            raise KeyError(f"{name!r} is not a measure of this evaluation; it has {list(self.scores)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.scores)

    def __len__(self) -> int:
        return len(self.scores)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Evaluation):
            return NotImplemented
        return list(self) == list(other) and all(self[k].equals(other[k]) for k in self)

    __hash__ = None  # type: ignore[assignment]  # holds DataFrames

    # ------------------------------------------------------------------------------------------- tables
    @property
    def measures(self) -> list[str]:
        """The measures' canonical names, in the order given."""
        return list(self.scores)

    @property
    def systems(self) -> list[str]:
        """The systems (runs), in the frames' order."""
        return [str(s) for s in next(iter(self.scores.values())).index]

    @property
    def topics(self) -> list[str]:
        """The topics, in the frames' order."""
        return [str(t) for t in next(iter(self.scores.values())).columns]

    def means(self) -> pd.DataFrame:
        """Systems × measures: each run's ``all`` row as trec_eval prints it — the mean over the topics with a score
        (the counts NumRet, NumRel, NumRelRet: their total). A copy; see the class docstring for which topics."""
        return self._means.copy()

    def num_q(self) -> pd.Series:
        """Topics with a score, per run (trec_eval's ``num_q``), from the first measure's frame."""
        first = next(iter(self.scores.values()))
        return first.notna().sum(axis=1).rename("num_q")

    def per_topic(self) -> pd.DataFrame:
        """One long table ``system, topic, measure, score`` (the rows ``gtheory evaluate`` writes); NaN cells
        (excluded topics) are kept."""
        import pandas as pd

        frames = []
        for name, df in self.scores.items():
            S, T = df.shape
            frames.append(pd.DataFrame({"system": np.repeat(df.index.to_numpy(), T),
                                        "topic": np.tile(df.columns.to_numpy(), S),
                                        "measure": name, "score": df.to_numpy(dtype=float).ravel()}))
        return pd.concat(frames, ignore_index=True)

    # ------------------------------------------------------------------------------------------- text
    def summary(self, digits: int = 4) -> str:
        """The per-run table (:meth:`means`) as text, with one line saying what it is (:func:`evaluation_summary`)."""
        return evaluation_summary({name: df.to_numpy(dtype=float) for name, df in self.scores.items()}, self.systems,
                                  digits)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"Evaluation({len(self.systems)} systems × {len(self.topics)} topics; "
                f"measures {', '.join(self.measures)})")

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        m = self.means()
        n = self.num_q()
        rows = [[s, int(n.loc[s]), *m.loc[s].tolist()] for s in m.index]
        return html_table(rows, header=["system", "num_q", *m.columns],
                          caption=f"{len(self.systems)} runs × {len(self.topics)} topics: per-run means "
                                  "(trec_eval's all rows)")

    # ------------------------------------------------------------------------------------------- export
    def to_csv(self, path: str | Path | None = None, *, what: str = "topics", float_format: str = "%.10g") -> str:
        """CSV text (also written atomically to ``path`` if given).

        ``what="topics"`` (default): the long per-topic rows ``system,topic,measure,score`` (:meth:`per_topic`);
        ``what="means"``: the per-run rows, ``system,num_q,<measure>...`` (:meth:`means`).
        """
        if what == "topics":
            text = self.per_topic().to_csv(index=False, float_format=float_format)
        elif what == "means":
            table = self.means()
            table.insert(0, "num_q", self.num_q())
            text = table.to_csv(float_format=float_format)
        else:
            raise ValueError(f"`what` must be 'topics' or 'means'; got {what!r}")
        if path is not None:
            from gtheory.kit.output import write_text  # the one writer (here: `import metrics` does not load it)

            write_text(path, text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values: ``format``, ``systems``, ``topics`` and, per measure, its scores (systems × topics
        lists; ``None`` for NaN) and ``judged_only``."""
        def cells(df: pd.DataFrame) -> list[list[float | None]]:
            a = df.reindex(index=df.index, columns=df.columns).to_numpy(dtype=float)
            return [[float(v) if math.isfinite(v) else None for v in row] for row in a]

        return {
            "format": _FORMAT,
            "systems": self.systems,
            "topics": self.topics,
            "measures": {name: {"judged_only": bool(df.attrs.get("judged_only", False)), "scores": cells(df)}
                         for name, df in self.scores.items()},
        }

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str:
        """Strict JSON text of :meth:`to_dict` (NaN as ``null``); also written to ``path`` if given (the result
        protocol's one encoder and writer, :func:`gtheory.kit.jsonio.json_text`: atomically for a regular file)."""
        from gtheory.kit.jsonio import json_text  # imported here: `import metrics` does not load it

        return json_text(self.to_dict(), path, indent=indent)

    @classmethod
    def from_json(cls, text_or_path: str | Path) -> "Evaluation":
        """An :class:`Evaluation` from :meth:`to_json` output (JSON text or a file path)."""
        from gtheory.kit.jsonio import read_json  # text or a file; bad or too deeply nested JSON: ValueError

        import pandas as pd

        d = read_json(text_or_path, "gtheory metrics.Evaluation")
        if not isinstance(d, dict) or d.get("format") != _FORMAT:
            raise ValueError(f"not a gtheory metrics.Evaluation JSON document (no 'format': {_FORMAT!r}).")
        try:
            systems = pd.Index([str(x) for x in d["systems"]], name="system")
            topics = pd.Index([str(x) for x in d["topics"]], name="topic")
            scores = {}
            for name, m in d["measures"].items():
                a = np.array([[np.nan if v is None else float(v) for v in row] for row in m["scores"]], dtype=float)
                if a.shape != (len(systems), len(topics)):
                    raise ValueError(f"{name!r}: scores of shape {a.shape}, expected {(len(systems), len(topics))}")
                df = pd.DataFrame(a, index=systems, columns=topics)
                df.attrs.update(measure=name, judged_only=bool(m.get("judged_only", False)))
                scores[str(name)] = df
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"invalid metrics.Evaluation JSON document: {exc!r}") from None
        return cls(scores)

