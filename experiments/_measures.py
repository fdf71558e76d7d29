"""Measures of the incompleteness study: a name (through :func:`metrics.parse_measure` and
:func:`metrics.evaluate`) or a callable, evaluated on plain or condensed lists and checked."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Union

import numpy as np
import pandas as pd

import metrics
from metrics import FixableError, JudgedRuns

__all__: list[str] = []  # private module

Measure = Union[str, Callable[[JudgedRuns], Any]]


def _measure_name(measure: Measure) -> str:
    return measure if isinstance(measure, str) else getattr(measure, "__name__", repr(measure))


def _resolve_measure(measure: Measure, key: str) -> Callable[[JudgedRuns, bool], pd.DataFrame]:
    """A function (judged, condensed) -> systems x topics DataFrame for a name or a callable."""
    if isinstance(measure, str):
        metrics.parse_measure(measure)  # every name through the one parser: an unknown name fails before any work

        def fn(j: JudgedRuns, condensed: bool) -> pd.DataFrame:
            try:
                return metrics.evaluate(j, measure, judged_only=condensed)
            except ValueError as exc:
                if getattr(exc, "param", None) == "judged_only":  # a prime in the name: the study condenses itself
                    raise ValueError(
                        f"`measures[{key!r}]`: {exc} -- name the plain measure (e.g. 'AP', not \"AP'\"); "
                        "the study evaluates the condensed lists itself (`judged_only`)."
                    ) from None
                raise

        return fn
    if callable(measure):
        return lambda j, condensed: measure(j.condensed() if condensed else j)
    raise TypeError(
        f"`measures[{key!r}]` must be a measure name (e.g. 'nDCG@20', 'AP') or a callable "
        f"f(judged) -> systems x topics DataFrame; got {type(measure).__name__}."
    )


def _check_measures(measures: Any) -> dict[str, Measure]:
    if isinstance(measures, str) or callable(measures):
        measures = [measures]
    if isinstance(measures, Mapping):
        out = {str(k): v for k, v in measures.items()}
    elif isinstance(measures, Iterable):
        out = {_measure_name(m): m for m in measures}
    else:
        raise TypeError(
            "`measures` must be a name, a callable, a sequence of them or a mapping name -> measure; "
            f"got {type(measures).__name__}."
        )
    if not out:
        raise ValueError("`measures` must not be empty.")
    return out


def _scores(fn: Callable, judged: JudgedRuns, condensed: bool, key: str) -> np.ndarray:
    """Evaluate and check: a finite float (n_systems, n_topics) array in the tensor's system/topic order."""
    res = fn(judged, condensed)
    if isinstance(res, pd.DataFrame):
        if res.shape == (judged.n_systems, judged.n_topics) and list(map(str, res.index)) != list(judged.systems):
            res = res.reindex(index=list(judged.systems))
        values = res.to_numpy(dtype=np.float64)
    else:
        values = np.asarray(res, dtype=np.float64)
    if values.shape != (judged.n_systems, judged.n_topics):
        raise ValueError(
            f"measure {key!r} returned shape {values.shape}; expected (n_systems, n_topics) = "
            f"({judged.n_systems}, {judged.n_topics})."
        )
    if not np.isfinite(values).all():
        raise FixableError(
            f"measure {key!r} returned NaN or infinite scores (is `judged` read with `missing='exclude'`?), but the "
            "study needs a complete systems x topics matrix", param="judged", fix={"missing": "zero"},
            fix_effect="score a topic a run does not return 0",
        )
    return values
