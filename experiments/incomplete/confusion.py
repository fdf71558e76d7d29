r"""Bompada et al.'s confusion matrix of significance decisions: full vs reduced qrels [2]_.

:func:`significance_confusion` tests every system pair with the full and with the reduced judgments and
counts how often the decisions agree (:class:`SignificanceConfusion`: the 3 x 3 directional counts, accuracy
and g-mean). Used per (measure, fraction, seed) by :func:`experiments.incompleteness_study`.

References
----------
.. [2] T. Bompada, C.-C. Chang, J. Chen, R. Kumar and R. Shenoy. On the robustness of relevance measures with
   incomplete judgments. SIGIR 2007, pp. 359-366.
.. [6] T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006, pp. 525-532.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from gtheory.kit.display import fmt, html_table, kv_table
from gtheory.kit.checks import fixed_seed
from gtheory.kit.jsonio import JsonResult
from gtheory.kit.checks import check_choice
from experiments._validation import align_pair, as_scores, best_first, pair_indices
from experiments.discriminative import bootstrap_asl
from experiments.compare import paired_ttest, wilcoxon_test
from gtheory.kit.params import validate_params

__all__ = ["significance_confusion", "SignificanceConfusion"]

Test = Literal["bootstrap", "t", "wilcoxon"]

_DECISION_LABELS = ("a>b", "n.s.", "a<b")  # significant with a better / not significant / b better


def _decisions(values: np.ndarray, test: str, alpha: float, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i < j (triu order): p-value (or ASL) and the decision +1 (i better), 0 (n.s.), -1 (j better)."""
    if test == "bootstrap":
        table = bootstrap_asl(values, n_resamples=n_resamples, seed=seed)
        p = table["asl"].to_numpy()
    elif test == "t":
        table = paired_ttest(values)
        p = table["p_value"].to_numpy()
    else:
        table = wilcoxon_test(values)
        p = table["p_value"].to_numpy()
    sign = np.sign(table["mean_diff"].to_numpy())
    return p, np.where(p < alpha, sign, 0.0).astype(np.int8)


def _confusion_counts(full: np.ndarray, reduced: np.ndarray) -> np.ndarray:
    """3 x 3 counts: rows = full-qrels decision (a>b, n.s., a<b), columns = reduced-qrels decision."""
    code = lambda d: 1 - d.astype(np.int64)  # +1 -> 0, 0 -> 1, -1 -> 2
    return np.bincount(3 * code(full) + code(reduced), minlength=9).reshape(3, 3)


def _confusion_stats(c: np.ndarray) -> dict[str, float]:
    """Bompada's cells and rates from the 3 x 3 directional counts (see SignificanceConfusion)."""
    ns_ns = c[1, 1]
    ns_sig = c[1, 0] + c[1, 2]  # C(1,2): H0 accepted with the full qrels, rejected with the reduced
    sig_ns = c[0, 1] + c[2, 1]  # C(2,1): H0 rejected with the full qrels, accepted with the reduced
    same = c[0, 0] + c[2, 2]
    opposite = c[0, 2] + c[2, 0]
    total = c.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        tp = ns_ns / (ns_ns + ns_sig) if ns_ns + ns_sig else math.nan
        ppv = ns_ns / (ns_ns + sig_ns) if ns_ns + sig_ns else math.nan
        tnr = same / (same + opposite + sig_ns) if same + opposite + sig_ns else math.nan
    return dict(
        n_pairs=int(total),
        ns_ns=int(ns_ns),
        ns_sig=int(ns_sig),
        sig_ns=int(sig_ns),
        sig_same=int(same),
        sig_opposite=int(opposite),
        accuracy=float((ns_ns + same) / total) if total else math.nan,
        tp_rate=float(tp),
        predicted_positive_rate=float(ppv),
        g_mean=float(math.sqrt(tp * ppv)) if not (math.isnan(tp) or math.isnan(ppv)) else math.nan,
        tn_rate=float(tnr),
    )


@dataclass(frozen=True, eq=False)
class SignificanceConfusion(JsonResult):
    r"""Bompada et al.'s confusion matrix of significance decisions, full vs reduced qrels [2]_.

    Every system pair :math:`(a, b)` is tested twice, with the full and with the reduced judgments, and
    each test decides *a>b* (significant, :math:`a` better), *n.s.* (:math:`H_0` accepted) or *a<b*.

    Attributes
    ----------
    matrix : DataFrame
        3 x 3 counts; rows = decision with the full qrels, columns = with the reduced qrels, both in the
        order ``("a>b", "n.s.", "a<b")``.
    alpha : float
        Significance level.
    test : str
        ``"bootstrap"`` (Sakai's paired bootstrap, [6]_), ``"t"`` (paired t-test) or ``"wilcoxon"``
        (Bompada et al.'s choice).
    table : DataFrame
        One row per pair: ``system_a``, ``system_b``, ``mean_diff_full``, ``mean_diff_reduced``,
        ``p_full``, ``p_reduced`` (ASL or p-value), ``decision_full``, ``decision_reduced`` (+1, 0, -1).

    Notes
    -----
    Bompada's 2 x 2 matrix (:attr:`bompada`) indexes by :math:`H_0` accepted (1) / rejected (2), rows for
    the full qrels, columns for the :math:`f`-qrels: :math:`C(1,2)` are pairs significant only with the
    reduced qrels, :math:`C(2,1)` pairs significant only with the full qrels (the paper's false
    positive and false negative errors respectively). A pair significant with both but in *opposite*
    directions sits in :math:`C(2,2)` of the paper; here it is counted separately
    (:attr:`sig_opposite`) and is **not** a correct prediction:

    .. math::

        \text{accuracy} = \frac{C(1,1) + C_{\text{same}}(2,2)}{\sum C}, \qquad
        TP = \frac{C(1,1)}{C(1,1) + C(1,2)}, \qquad P = \frac{C(1,1)}{C(1,1) + C(2,1)}, \qquad
        \text{g-mean} = \sqrt{TP \cdot P}.

    Without opposite-direction pairs (the usual case) the accuracy is Bompada's. :math:`TP` is the paper's
    "fraction of null hypothesis accepted cases that were correctly predicted"; the formula of its
    "predicted positive rate" :math:`P` did not survive in our copy of the paper and is read here as the
    share of the reduced qrels' acceptances that are correct (the positive predictive value), so that
    neither factor depends on the large :math:`C(2,2)` the g-mean is meant to discount. The rates are NaN
    when their denominator is 0. :attr:`tn_rate` (pairs significant with the full qrels that keep the same
    significant direction) is also reported.
    """

    matrix: pd.DataFrame
    alpha: float
    test: str
    table: pd.DataFrame = field(repr=False)

    @property
    def _stats(self) -> dict[str, float]:
        return _confusion_stats(self.matrix.to_numpy())

    @property
    def bompada(self) -> pd.DataFrame:
        """Bompada's 2 x 2 matrix: rows full qrels, columns reduced; "H0 accepted" / "H0 rejected"."""
        s = self._stats
        idx = ["H0 accepted", "H0 rejected"]
        return pd.DataFrame(
            [[s["ns_ns"], s["ns_sig"]], [s["sig_ns"], s["sig_same"] + s["sig_opposite"]]],
            index=pd.Index(idx, name="full qrels"),
            columns=pd.Index(idx, name="reduced qrels"),
        )

    n_pairs = property(lambda self: self._stats["n_pairs"], doc="Number of system pairs.")
    sig_same = property(lambda self: self._stats["sig_same"], doc="Pairs significant with both, same direction.")
    sig_opposite = property(lambda self: self._stats["sig_opposite"], doc="Pairs significant with both, opposite directions.")
    false_positive = property(lambda self: self._stats["sig_ns"], doc="C(2,1): significant with the full qrels only.")
    false_negative = property(lambda self: self._stats["ns_sig"], doc="C(1,2): significant with the reduced qrels only.")
    accuracy = property(lambda self: self._stats["accuracy"], doc="Share of pairs with the same decision.")
    tp_rate = property(lambda self: self._stats["tp_rate"], doc="C(1,1) / (C(1,1) + C(1,2)).")
    predicted_positive_rate = property(lambda self: self._stats["predicted_positive_rate"], doc="C(1,1) / (C(1,1) + C(2,1)).")
    g_mean = property(lambda self: self._stats["g_mean"], doc="sqrt(tp_rate * predicted_positive_rate).")
    tn_rate = property(lambda self: self._stats["tn_rate"], doc="Same significant direction among pairs significant with the full qrels.")

    def summary(self) -> str:
        """A short text report (numbers rounded for display only)."""
        return (
            f"Significance decisions, full vs reduced qrels ({self.test}, alpha={self.alpha:g}, "
            f"{self.n_pairs} pairs)\n{self.matrix.to_string()}\n"
            f"  accuracy {self.accuracy:.4f}   g-mean {self.g_mean:.4f}   "
            f"significant in opposite directions: {self.sig_opposite}"
        )

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"SignificanceConfusion({self.test}, alpha = {self.alpha:g}, {self.n_pairs} pairs: accuracy "
                f"{fmt(self.accuracy)}, g-mean {fmt(self.g_mean)}, opposite directions {self.sig_opposite})")

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.SignificanceConfusion/1"

    def to_dict(self) -> dict[str, Any]:
        """``alpha``, ``test``, the 3 x 3 ``matrix`` and the per-pair ``table`` (:func:`gtheory.kit.jsonio.table`) as plain
        JSON values plus ``"format"``; non-finite numbers (a p-value of a constant difference) are None."""
        from gtheory.kit.jsonio import jsonable, table

        m = self.matrix
        return jsonable({"format": self.JSON_FORMAT, "alpha": self.alpha, "test": self.test,
                         "matrix": {"index": m.index.name, "columns": m.columns.name, "labels": list(m.index),
                                    "counts": m.to_numpy().tolist()},
                         "table": table(self.table)})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "SignificanceConfusion":
        """A :class:`SignificanceConfusion` from :meth:`to_json` output (text or a file path)."""
        from gtheory.kit.errors import DocumentError
        from gtheory.kit.jsonio import table_back
        from gtheory.kit.schema import read_document

        d = read_document(text_or_path, cls.JSON_FORMAT, _CONFUSION_SCHEMA)  # DocumentError naming the field
        m = d["matrix"]
        if m["labels"] != list(_DECISION_LABELS) or len(m["counts"]) != 3 or any(len(r) != 3 for r in m["counts"]):
            raise DocumentError(cls.JSON_FORMAT, "matrix", f"must be the 3 x 3 counts of {list(_DECISION_LABELS)}")
        matrix = pd.DataFrame(m["counts"], index=pd.Index(m["labels"], name=m["index"]),
                              columns=pd.Index(m["labels"], name=m["columns"]))
        frame = table_back(d["table"], "table", ("mean_diff_full", "mean_diff_reduced", "p_full", "p_reduced"))
        for c in ("decision_full", "decision_reduced"):  # +1, 0, -1
            frame[c] = frame[c].astype(np.int8)
        return cls(matrix=matrix, alpha=d["alpha"], test=d["test"], table=frame)

    def _repr_html_(self) -> str:
        m = self.matrix
        rows = [(f"full: {i}", *m.loc[i].tolist()) for i in m.index]
        matrix = html_table(rows, header=["", *(f"reduced: {c}" for c in m.columns)],
                            caption=f"SignificanceConfusion ({self.test}, alpha = {self.alpha:g}, "
                                    f"{self.n_pairs} pairs)")
        return matrix + kv_table("", {"accuracy": self.accuracy, "g-mean": self.g_mean,
                                      "significant in opposite directions": self.sig_opposite})


def _check_test(test: Any) -> str:
    """``test`` of :func:`significance_confusion` and the incompleteness study (their ``n_resamples`` and ``alpha``
    are checked by the parameter table, :mod:`gtheory.kit.params`)."""
    return check_choice(test, "test", ("bootstrap", "t", "wilcoxon"))


@validate_params()
def significance_confusion(
    full_scores: Any,
    reduced_scores: Any,
    *,
    alpha: float = 0.05,
    test: Test = "bootstrap",
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    top_k: int | None = None,
) -> SignificanceConfusion:
    r"""Bompada et al.'s confusion matrix: do the full and the reduced qrels reach the same verdicts? [2]_

    Parameters
    ----------
    full_scores, reduced_scores : ndarray or DataFrame
        Systems x topics score matrices of one measure with the full and with the reduced judgments
        (DataFrames are aligned by system label; arrays by row).
    alpha : float
        Significance level.
    test : {"bootstrap", "t", "wilcoxon"}
        Sakai's paired bootstrap (:func:`experiments.bootstrap_asl`, ASL < alpha), the paired t-test or the
        Wilcoxon signed-rank test (Bompada et al.'s) on every system pair.
    n_resamples : int
        Bootstrap replicates (``test="bootstrap"`` only).
    seed : int, Generator or None
        Seed of the bootstrap (``test="bootstrap"`` only). The *same* seed is used for both matrices, so
        identical matrices give identical decisions (a Generator gives one seed, drawn from it).
    top_k : int, optional
        Test only the ``top_k`` systems by mean score *with the full qrels* (the same systems for both).

    Returns
    -------
    SignificanceConfusion
        The 3 x 3 matrix, Bompada's 2 x 2, accuracy, g-mean and the per-pair table.

    Notes
    -----
    See :class:`SignificanceConfusion` for the definitions. Bompada et al. drew 300 random pairs; here
    every pair is tested.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import significance_confusion
    >>> rng = np.random.default_rng(0)
    >>> full = rng.random((5, 30)) + np.linspace(0.5, 0, 5)[:, None]
    >>> cm = significance_confusion(full, full, test="t")
    >>> cm.accuracy
    1.0
    """
    test = _check_test(test)
    seed = fixed_seed(seed)  # the same seed serves both matrices
    a = as_scores(full_scores, "full_scores", require_matrix=True, min_topics=2)
    b = as_scores(reduced_scores, "reduced_scores", require_matrix=True, min_topics=2)
    a, b = align_pair(a, b, ("full_scores", "reduced_scores"))
    if a.values.shape != b.values.shape:
        raise ValueError(
            f"`full_scores` and `reduced_scores` must have the same topics; got {a.values.shape[1]} and "
            f"{b.values.shape[1]} columns."
        )
    if top_k is not None:
        k = top_k  # an integer >= 2: the parameter table
        if k > len(a.systems):
            raise ValueError(f"`top_k` must not exceed the number of systems ({len(a.systems)}); got {k}.")
        keep = best_first(a.means)[:k]
        a, b = a.take(keep), b.take(keep)
    p_full, d_full = _decisions(a.values, test, alpha, n_resamples, seed)
    p_red, d_red = _decisions(b.values, test, alpha, n_resamples, seed)
    I, J = pair_indices(len(a.systems))
    table = pd.DataFrame(
        {
            "system_a": a.systems[I].to_numpy(),
            "system_b": a.systems[J].to_numpy(),
            "mean_diff_full": a.means[I] - a.means[J],
            "mean_diff_reduced": b.means[I] - b.means[J],
            "p_full": p_full,
            "p_reduced": p_red,
            "decision_full": d_full,
            "decision_reduced": d_red,
        }
    )
    counts = _confusion_counts(d_full, d_red)
    matrix = pd.DataFrame(
        counts,
        index=pd.Index(list(_DECISION_LABELS), name="full qrels"),
        columns=pd.Index(list(_DECISION_LABELS), name="reduced qrels"),
    )
    return SignificanceConfusion(matrix=matrix, alpha=alpha, test=test, table=table)


def _confusion_schema() -> dict:
    from gtheory.kit.schema import anything, choice, integer, list_of, obj, real, table, text

    p = real(0.0, 1.0, nullable=True, null_as=np.nan)
    diff = real(nullable=True, null_as=np.nan)
    return {"alpha": real(0.0, 1.0, low_open=True, high_open=True), "test": choice("bootstrap", "t", "wilcoxon"),
            "matrix": obj({"index": text(nullable=True), "columns": text(nullable=True),
                           "labels": list_of(choice(*_DECISION_LABELS)), "counts": list_of(list_of(integer(0)))}),
            "table": table({"system_a": anything(), "system_b": anything(), "mean_diff_full": diff,
                            "mean_diff_reduced": diff, "p_full": p, "p_reduced": p,
                            "decision_full": integer(-1, 1), "decision_reduced": integer(-1, 1)})}


#: the declared schema of a :class:`SignificanceConfusion` document (:mod:`gtheory.kit.schema`)
_CONFUSION_SCHEMA = _confusion_schema()
