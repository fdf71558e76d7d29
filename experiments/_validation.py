"""Input validation shared by :mod:`experiments.agreement`, :mod:`experiments.discriminative`,
:mod:`experiments.compare.pairwise_tests` and :mod:`experiments.swap`.

Every public function in those modules takes *score matrices*: systems x topics, as a NumPy array or a
pandas DataFrame, read by the one rule of every score-matrix input (``gtheory.gstudy.score_matrix.coerce_matrix``, documented at
:func:`gtheory.as_score_matrix`: named axes honoured, a long table pivoted, an unnamed labelled frame refused
with the fix — these functions have no ``orientation``, so name the axes), and some also accept per-system mean
scores (1-D array or Series). The helpers here turn whatever was given into a :class:`Scores` value
(a float array plus labels) or raise an error that names the parameter, states the rule and shows what
was given, so that the numerical code after them can assume clean input.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gtheory.kit.ties import tie_values
from gtheory.kit.params import check_param

if TYPE_CHECKING:
    import pandas as pd

__all__: list[str] = []  # private module


class Labels:
    """System or topic labels without pandas: an immutable sequence with the position of each label (what
    :func:`experiments.compare` asks of a :class:`pandas.Index`: membership, positions, selection, append).

    The labels of a :class:`LabelledMatrix` (the command line's computed scores); pandas input keeps its own
    :class:`pandas.Index`. Membership and positions are by equality and hash, as in a dict (``1`` and ``"1"``
    differ; ``np.int64(1)`` is ``1``), the first position of a repeated label (repeats are refused before use)."""

    __slots__ = ("_items", "_pos")

    def __init__(self, items: Any) -> None:
        self._items = tuple(items)
        self._pos: dict[Any, int] | None = None

    def _positions(self) -> dict[Any, int]:
        if self._pos is None:
            pos: dict[Any, int] = {}
            for k, x in enumerate(self._items):
                pos.setdefault(x, k)
            self._pos = pos
        return self._pos

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Any:
        return iter(self._items)

    def __contains__(self, label: Any) -> bool:
        return label in self._positions()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, np.integer)):
            return self._items[key]
        if isinstance(key, slice):
            return Labels(self._items[key])
        key = np.asarray(key)
        if key.dtype == bool:  # a mask, as an index takes one: one entry per label
            if key.shape != (len(self._items),):
                raise IndexError(f"a boolean mask of {len(self._items)} labels must have {len(self._items)} "
                                 f"entries; got shape {key.shape}")
            key = np.flatnonzero(key)
        return Labels(self._items[k] for k in key.astype(np.intp).tolist())

    def __repr__(self) -> str:
        return f"Labels({list(self._items)!r})"

    def get_loc(self, label: Any) -> int:
        """The position of ``label`` (KeyError if absent)."""
        return self._positions()[label]

    def get_indexer(self, wanted: Any) -> np.ndarray:
        """The position of each of ``wanted``, -1 where absent (as :meth:`pandas.Index.get_indexer`)."""
        pos = self._positions()
        return np.array([pos.get(w, -1) for w in wanted], dtype=np.intp)

    def append(self, labels: Any) -> "Labels":
        """These labels followed by ``labels``."""
        return Labels((*self._items, *labels))

    def tolist(self) -> list[Any]:
        return list(self._items)


@dataclass(frozen=True)
class LabelledMatrix:
    """A systems x topics float64 array with its system and topic labels, for :func:`as_scores` without pandas (the
    command line's scores of a measure, :func:`metrics.measures.measure_scores`): checked as the frame
    ``pd.DataFrame(values, index=systems, columns=topics)`` with named axes would be (the same rules and messages,
    :func:`gtheory.gstudy.score_matrix.checked_matrix`)."""

    values: np.ndarray
    systems: Any
    topics: Any

    def frame(self) -> "pd.DataFrame":
        """The labelled frame the matrix stands for (index ``system``, columns ``topic``)."""
        import pandas as pd

        return pd.DataFrame(self.values, index=pd.Index(list(self.systems), name="system"),
                            columns=pd.Index(list(self.topics), name="topic"))


@dataclass(frozen=True)
class Scores:
    """Validated scores: ``values`` is float64, systems along axis 0.

    ``values`` is 2-D (systems x topics) for matrices and 1-D for per-system means; ``topics`` is
    ``None`` for the latter. ``labelled`` says whether the system labels came from the caller (pandas
    input) or were made up (``0 .. m-1`` for NumPy input); only labelled inputs are aligned by label.
    """

    values: np.ndarray
    systems: pd.Index | Labels
    topics: pd.Index | Labels | None
    labelled: bool

    @property
    def means(self) -> np.ndarray:
        """Per-system mean score over topics (the values themselves for 1-D input)."""
        return self.values if self.values.ndim == 1 else self.values.mean(axis=1)

    def take(self, positions: np.ndarray) -> "Scores":
        """The same scores restricted to the systems at ``positions`` (in that order)."""
        return Scores(self.values[positions], self.systems[positions], self.topics, self.labelled)


def _preview(items: Any, limit: int = 5) -> str:
    items = list(items)
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (", ..." if len(items) > limit else "")


_NAN_ADVICE = ("drop or impute them before calling (e.g. fill missing topics with 0 if that is the metric's "
               "convention).")


def as_scores(
    x: Any,
    name: str,
    *,
    allow_means: bool = True,
    require_matrix: bool = False,
    min_systems: int = 2,
    min_topics: int = 1,
    arrays: bool = False,
) -> Scores:
    """Validate one score argument.

    Parameters
    ----------
    x : DataFrame, Series, ndarray or array-like
        Systems x topics matrix (2-D) or per-system means (1-D).
    name : str
        The parameter's name, used in error messages.
    allow_means : bool
        Accept 1-D input (per-system means).
    require_matrix : bool
        Same as ``allow_means=False`` but with a message that says why a matrix is needed.
    min_systems, min_topics : int
        Smallest acceptable numbers of systems and topics.
    arrays : bool
        The caller works with :class:`Labels` (:func:`experiments.compare` and its table): a :class:`LabelledMatrix`
        is checked and kept as arrays, without pandas. Otherwise it is read as its labelled frame.
    """
    allow_means = allow_means and not require_matrix
    if isinstance(x, LabelledMatrix):
        if arrays:
            return _labelled_scores(x, name, min_systems, min_topics)
        x = x.frame()
    import pandas as pd  # imported here: best_first serves the command line's --sort without pandas

    from gtheory.gstudy import coerce_matrix

    if isinstance(x, pd.Series):
        try:
            values = x.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must hold numeric scores; got dtype {x.dtype}.") from None
        systems, topics, labelled = x.index, None, True
    elif isinstance(x, pd.DataFrame):
        # the one rule of every score-matrix input (gtheory.as_score_matrix): axis names decide, a long table is
        # pivoted, an unnamed labelled frame or a long-looking one is refused with the fix
        values, systems, topics, labelled = coerce_matrix(x, name=name, min_systems=min_systems,
                                                           min_topics=min_topics, can_orient=False,
                                                           nan_advice=_NAN_ADVICE)
    else:
        if isinstance(x, (str, bytes, dict)) or x is None or np.isscalar(x):
            raise TypeError(
                f"`{name}` must be a systems x topics matrix (ndarray or DataFrame) or per-system "
                f"means (1-D array or Series); got {type(x).__name__}."
            )
        try:
            values = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"`{name}` must be numeric array-like (systems x topics); got {type(x).__name__} "
                "that NumPy cannot convert to float."
            ) from None
        if values.ndim == 2:  # an array: rows = systems, by the same coercion (long-looking arrays refused)
            values, systems, topics, labelled = coerce_matrix(values, name=name, min_systems=min_systems,
                                                               min_topics=min_topics, can_orient=False,
                                                               nan_advice=_NAN_ADVICE)
        else:
            systems, topics, labelled = None, None, False

    if values.ndim == 1:
        if not allow_means:
            need = "it needs per-topic scores" if require_matrix else "1-D input is not accepted here"
            raise ValueError(
                f"`{name}` must be a 2-D systems x topics matrix ({need}); got a 1-D array of "
                f"length {values.shape[0]}. Pass the per-topic scores, not the means."
            )
    elif values.ndim != 2:
        raise ValueError(
            f"`{name}` must be 2-D (systems x topics) or 1-D (per-system means); got "
            f"{values.ndim}-D with shape {values.shape}."
        )

    n_systems = values.shape[0]
    if systems is None:
        systems = pd.RangeIndex(n_systems)
    if values.ndim == 2 and topics is None:
        topics = pd.RangeIndex(values.shape[1])

    if n_systems < min_systems:
        raise ValueError(
            f"`{name}` must cover at least {min_systems} systems (rows); got {n_systems}."
        )
    if values.ndim == 2 and values.shape[1] < min_topics:
        raise ValueError(
            f"`{name}` must cover at least {min_topics} topics (columns); got {values.shape[1]}."
        )
    if systems.has_duplicates:
        raise ValueError(
            f"`{name}` has duplicate system labels: {_preview(systems[systems.duplicated()].unique())}."
        )

    bad = ~np.isfinite(values)
    if bad.any():
        where = np.argwhere(bad)[0]
        at = f"system {systems[where[0]]!r}" + (
            f", topic {topics[where[1]]!r}" if values.ndim == 2 else ""
        )
        raise ValueError(
            f"`{name}` contains {int(bad.sum())} NaN or infinite value(s) (first at {at}); "
            "drop or impute them before calling (e.g. fill missing topics with 0 if that is the "
            "metric's convention)."
        )
    return Scores(values, pd.Index(systems), None if topics is None else pd.Index(topics), labelled)


def _labelled_scores(x: LabelledMatrix, name: str, min_systems: int, min_topics: int) -> Scores:
    """The :class:`Scores` of a :class:`LabelledMatrix`, checked as the labelled frame of its values would be by
    :func:`as_scores` (named axes: rows are systems), without pandas."""
    from gtheory.gstudy import checked_matrix

    bad = [v for v in (*x.systems, *x.topics) if not isinstance(v, str)]
    if bad:  # the command line's labels are run and topic names; others go through the frame's rules
        raise TypeError(f"`{name}`: a LabelledMatrix's labels must be strings; got {bad[0]!r}")
    raw = np.asarray(x.values)
    if raw.dtype.kind not in "iuf":  # the frame path refuses text, booleans and complex numbers alike
        raise TypeError(f"`{name}` must hold real numbers only; got an array of dtype {raw.dtype}")
    values = np.asarray(raw, dtype=np.float64)
    if values.ndim != 2 or values.shape != (len(x.systems), len(x.topics)):
        raise ValueError(f"`{name}` must be a systems x topics matrix with one label per row and column; got shape "
                         f"{values.shape} with {len(x.systems)} system and {len(x.topics)} topic labels.")
    checked_matrix(values, list(x.systems), list(x.topics), name=name, labelled=True,
                   min_systems=max(min_systems, 1), min_topics=max(min_topics, 1), nan_advice=_NAN_ADVICE)
    return Scores(values, Labels(x.systems), Labels(x.topics), True)


def align_pair(a: Scores, b: Scores, names: tuple[str, str] = ("a", "b")) -> tuple[Scores, Scores]:
    """Put ``b`` in ``a``'s system order; both must cover the same systems.

    Labelled inputs (pandas) are aligned by label. If either input is unlabelled (NumPy), rows are
    matched by position, so the lengths must agree.
    """
    na, nb = names
    if a.labelled and b.labelled:
        missing_in_b = a.systems.difference(b.systems, sort=False)
        missing_in_a = b.systems.difference(a.systems, sort=False)
        if len(missing_in_b) or len(missing_in_a):
            parts = []
            if len(missing_in_b):
                parts.append(
                    f"{len(missing_in_b)} systems in `{na}` are missing from `{nb}`: "
                    f"{_preview(missing_in_b)}"
                )
            if len(missing_in_a):
                parts.append(
                    f"{len(missing_in_a)} systems in `{nb}` are missing from `{na}`: "
                    f"{_preview(missing_in_a)}"
                )
            raise ValueError(f"`{na}` and `{nb}` must cover the same systems; " + "; ".join(parts) + ".")
        return a, b.take(b.systems.get_indexer(a.systems))
    if len(a.systems) != len(b.systems):
        raise ValueError(
            f"`{na}` and `{nb}` must cover the same systems; got {len(a.systems)} systems in `{na}` "
            f"and {len(b.systems)} in `{nb}`."
        )
    labels = a.systems if a.labelled else b.systems
    labelled = a.labelled or b.labelled
    return (
        Scores(a.values, labels, a.topics, labelled),
        Scores(b.values, labels, b.topics, labelled),
    )


def best_first(means: np.ndarray) -> np.ndarray:
    """Indices of the systems by mean score, best first; means equal up to rounding keep their input order.

    Means that are equal in exact arithmetic often differ in the last bits (P@10 means of 0.302 computed from
    different per-topic values), so a plain ``argsort`` would order them by rounding. They are made exactly equal
    first (:func:`gtheory.kit.ties.tie_values`: within :data:`gtheory.kit.ties.TIE_REL` of the largest |mean|, the rule of
    the rank correlations of :mod:`experiments.agreement`), then sorted stably: ties go in input order, as documented by every
    ``top_k`` parameter.
    """
    return np.argsort(-tie_values(np.asarray(means, dtype=np.float64)), kind="stable")


def keep_top_k(scores: Scores, top_k: int | None) -> Scores:
    """The ``top_k`` systems by mean score (best first); all systems, in input order, if ``None``.

    Ties at the cut are broken by input order (:func:`best_first`: means equal up to rounding are ties).
    """
    if top_k is None:
        return scores
    k = check_param("top_k", top_k)  # the parameter table's rule (gtheory.kit.params)
    if k > len(scores.systems):
        raise ValueError(
            f"`top_k` must not exceed the number of systems ({len(scores.systems)}); got {k}."
        )
    return scores.take(best_first(scores.means)[:k])


def pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of all ``m (m - 1) / 2`` pairs ``i < j``, in row-major order."""
    return np.triu_indices(m, k=1)


def score_matrix(scores: Any, top_k: int | None = None, name: str = "scores", *, arrays: bool = False) -> Scores:
    """The systems x topics matrix of every pairwise test (at least 2 systems and 2 topics; :func:`as_scores`, whose
    ``arrays`` it passes), cut to its ``top_k`` best systems (:func:`keep_top_k`)."""
    return keep_top_k(as_scores(scores, name, require_matrix=True, min_systems=2, min_topics=2, arrays=arrays),
                      top_k)


def pair_frame(s: Scores, I: np.ndarray, J: np.ndarray, **columns: np.ndarray) -> pd.DataFrame:
    """One row per system pair ``(I[k], J[k])``: ``system_a``, ``system_b``, ``mean_diff`` (mean a - mean b), then
    ``columns``."""
    import pandas as pd

    means = s.means
    return pd.DataFrame({"system_a": s.systems[I].to_numpy(), "system_b": s.systems[J].to_numpy(),
                         "mean_diff": means[I] - means[J], **columns})
