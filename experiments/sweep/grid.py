"""The grid of a sensitivity sweep (:class:`SweepGrid`): the product of cut-offs, gains, discounts, qrels fractions
and seeds, its axes validated and normalised, its tasks (one per ``(fraction, seed)``) and its JSON.

One concept: what a sweep evaluates. How the tasks run is :mod:`experiments.sweep.tasks`; the sweep itself, its
table and its notes are :mod:`experiments.sweep.run`; :mod:`experiments.sweep` is the front of all three.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Iterable, Mapping, Sequence, Union

import numpy as np
import pandas as pd

import metrics
from metrics.measures import parse_family
from gtheory.kit.display import kv_table
from gtheory.kit.jsonio import JsonResult
from gtheory.errors import ParameterError
from gtheory.kit.params import check_param

__all__ = ["SweepGrid", "Cutoff", "parse_cutoff"]

Cutoff = Union[int, None]


def _check_cutoffs(cutoffs: Any) -> tuple[Cutoff, ...]:
    if cutoffs is None or isinstance(cutoffs, (Integral, str)):
        cutoffs = [cutoffs]
    out: list[Cutoff] = []
    for k in cutoffs:
        if k is None:
            out.append(None)
            continue
        if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
            raise ValueError(f"`cutoffs` must hold positive integers (or None for the whole list); got {k!r}.")
        out.append(int(k))
    return _distinct(out, "cutoffs")


def _distinct(values: list, name: str) -> tuple:
    if not values:
        raise ValueError(f"`{name}` must not be empty.")
    dup = sorted({repr(v) for v in values if values.count(v) > 1})
    if dup:
        raise ValueError(f"`{name}` must be distinct; {', '.join(dup)} repeated.")
    return tuple(values)


def _check_specs(specs: Any, name: str, known: Mapping[str, tuple[str, ...]], what: str) -> tuple[tuple[str, Any], ...]:
    """``(label, spec)`` pairs: family names label themselves; a mapping gives ``{label: spec}``."""
    if isinstance(specs, str):
        specs = [specs]
    items = list(specs.items()) if isinstance(specs, Mapping) else [(s, s) for s in specs]
    grammar = ", ".join(f"{n}({', '.join(p + '=…' for p in ps)})" if ps else n for n, ps in known.items())
    out = []
    for label, spec in items:
        if not isinstance(label, str):
            raise TypeError(
                f"`{name}` must hold {what} names such as {grammar} (or be a mapping {{label: {what}}}); "
                f"got {type(label).__name__} {label!r}."
            )
        if isinstance(spec, str):
            try:
                parse_family(spec, dict(known), what)
            except ValueError as exc:
                raise ValueError(f"`{name}`: {exc}") from None
        out.append((label, spec))
    labels = [lab for lab, _ in out]
    _distinct(labels, name)
    return tuple(out)


def _check_seed_list(seeds: Any) -> tuple[int, ...]:
    if isinstance(seeds, Integral) and not isinstance(seeds, bool) and seeds < 1:
        raise ValueError(
            f"`seeds` must be a number of seeds >= 1 (n means 0 .. n-1) or a sequence of seeds; got {seeds!r} "
            f"(for the single seed {seeds!r} pass [{seeds!r}])."
        )
    return check_param("seeds", seeds)


def _check_fraction_list(fractions: Any) -> tuple[float, ...]:
    if isinstance(fractions, Real) and not isinstance(fractions, bool):
        fractions = [fractions]
    if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Iterable):
        raise TypeError(f"`fractions` must be a sequence of numbers in (0, 1]; got {fractions!r}.")
    out = []
    for f in fractions:
        if isinstance(f, bool) or not isinstance(f, Real) or not (0.0 < float(f) <= 1.0):
            raise ValueError(f"`fractions` must hold numbers in (0, 1] (the share of judgments kept); got {f!r}.")
        out.append(float(f))
    return _distinct(out, "fractions")


def _grades_back(spec: Any) -> Any:
    """A specification read from JSON: a ``{grade: gain}`` mapping gets its numeric keys back (JSON keys are
    strings)."""
    if isinstance(spec, dict):
        try:
            return {(int(k) if k.lstrip("-").isdigit() else float(k)): v for k, v in spec.items()}
        except ValueError:
            return spec
    return spec


@dataclass(frozen=True)
class SweepGrid(JsonResult):
    """The configurations of a sensitivity sweep: the product of five axes.

    Attributes
    ----------
    cutoffs : tuple of int or None
        nDCG cut-offs k (``None``: the whole ranked list, trec_eval ``ndcg``).
    gains : tuple of (label, spec)
        Gain families (:data:`metrics.GAIN_FAMILIES`, e.g. ``"exponential(base=3)"``) or, from a mapping,
        any gain specification of :func:`metrics.ndcg` under a label.
    discounts : tuple of (label, spec)
        Discount families (:data:`metrics.DISCOUNT_FAMILIES`) or labelled discount vectors.
    fractions : tuple of float
        Shares of the judgments kept (:func:`metrics.reduce_qrels`); 1.0 is the full qrels.
    seeds : tuple of int
        Seeds of the qrels reduction (at fraction 1 every seed gives the full qrels).

    Build it with :meth:`SweepGrid.of`, which validates and normalises the axes. The grid order — the row
    order of :func:`sweep` — is fraction, seed, cut-off, gain, discount (the last varies fastest).

    Examples
    --------
    >>> from experiments import SweepGrid
    >>> g = SweepGrid.of(cutoffs=[10, 100], gains=["linear", "exponential"], discounts=["log2", "zipf"],
    ...                  fractions=[1.0, 0.5], seeds=[0, 1])
    >>> len(g), len(g.tasks())
    (32, 4)
    >>> g.points().columns.tolist()
    ['cutoff', 'gain', 'discount', 'fraction', 'seed']
    """

    cutoffs: tuple[Cutoff, ...]
    gains: tuple[tuple[str, Any], ...]
    discounts: tuple[tuple[str, Any], ...]
    fractions: tuple[float, ...]
    seeds: tuple[int, ...]

    @classmethod
    def of(
        cls,
        cutoffs: int | None | Sequence[int | None] = (10, 20, 100),
        gains: str | Sequence[str] | Mapping[str, Any] = ("linear", "exponential"),
        discounts: str | Sequence[str] | Mapping[str, Any] = ("log2", "zipf", "linear"),
        fractions: float | Sequence[float] = (1.0,),
        seeds: int | Sequence[int] = (0,),
    ) -> "SweepGrid":
        """Validate the axes and build the grid (see the class docstring; scalars are one-point axes).

        Raises
        ------
        ValueError
            An empty or repeated axis value, a cut-off that is not a positive integer or None, an unknown
            gain or discount family (the message lists the known ones), a fraction outside (0, 1], a
            negative seed.
        TypeError
            An axis of the wrong type.
        """
        return cls(
            cutoffs=_check_cutoffs(cutoffs),
            gains=_check_specs(gains, "gains", metrics.GAIN_FAMILIES, "gain family"),
            discounts=_check_specs(discounts, "discounts", metrics.DISCOUNT_FAMILIES, "discount family"),
            fractions=_check_fraction_list(fractions),
            seeds=_check_seed_list(seeds),
        )

    def __len__(self) -> int:
        return len(self.fractions) * len(self.seeds) * len(self.cutoffs) * len(self.gains) * len(self.discounts)

    def _axes(self) -> dict[str, str]:
        return {"cut-offs": ", ".join("all" if k is None else str(k) for k in self.cutoffs),
                "gains": ", ".join(g for g, _ in self.gains), "discounts": ", ".join(d for d, _ in self.discounts),
                "fractions": ", ".join(f"{f:g}" for f in self.fractions),
                "seeds": ", ".join(str(s) for s in self.seeds)}

    def __repr__(self) -> str:
        return f"SweepGrid({len(self)} points; " + "; ".join(f"{k} {v}" for k, v in self._axes().items()) + ")"

    def summary(self) -> str:
        """The grid as text: its size and one line per axis (labelled specifications show their value)."""
        configs = len(self.cutoffs) * len(self.gains) * len(self.discounts)
        lines = [f"SweepGrid: {len(self)} points ({len(self.tasks())} task(s) of {configs} configuration(s))"]
        for name, value in self._axes().items():
            lines.append(f"  {name:<10} {value}")
        for axis, pairs in (("gain", self.gains), ("discount", self.discounts)):
            lines += [f"  {axis} {label!r} = {spec!r}" for label, spec in pairs if not isinstance(spec, str) or spec != label]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT = "gtheory.experiments.SweepGrid/1"

    def to_dict(self) -> dict[str, Any]:
        """The axes as plain JSON values plus ``"format"``: ``cutoffs`` (null for the whole list), ``gains`` and
        ``discounts`` as ``[label, spec]`` pairs, ``fractions``, ``seeds``. A specification that is not a family
        name, a list of numbers or a ``{grade: gain}`` mapping (e.g. a callable) cannot be written: TypeError."""
        from gtheory.kit.jsonio import jsonable

        def pairs(axis: str, items: tuple[tuple[str, Any], ...]) -> list[list[Any]]:
            out = []
            for label, spec in items:
                value = jsonable(spec)
                if not isinstance(spec, (str, list, tuple, Mapping, np.ndarray)):
                    raise TypeError(f"`{axis}` {label!r}: a {type(spec).__name__} specification cannot be written as JSON "
                                    "(give a family name, a list of numbers or a {grade: gain} mapping).")
                out.append([label, value])
            return out

        return {"format": self.JSON_FORMAT, "cutoffs": list(self.cutoffs), "gains": pairs("gains", self.gains),
                "discounts": pairs("discounts", self.discounts), "fractions": list(self.fractions),
                "seeds": list(self.seeds)}

    @classmethod
    def from_json(cls, text_or_path: Any) -> "SweepGrid":
        """The grid of a :meth:`to_json` document (JSON text or a file path), validated by :meth:`of`.

        Raises ValueError for a document that is not a SweepGrid or whose axes :meth:`of` refuses."""
        from gtheory.kit.jsonio import load_document

        d = load_document(text_or_path, cls.JSON_FORMAT)
        axes = ("cutoffs", "gains", "discounts", "fractions", "seeds")
        missing = [k for k in axes if k not in d]
        if missing:
            raise ValueError(f"incomplete {cls.JSON_FORMAT} document: missing {', '.join(missing)}.")

        def labelled(axis: str) -> dict[str, Any]:
            items = d[axis]
            if not isinstance(items, list) or not all(isinstance(p, list) and len(p) == 2 for p in items):
                raise ValueError(f"invalid {cls.JSON_FORMAT} document: {axis!r} must be a list of [label, spec] pairs.")
            return {label: _grades_back(spec) for label, spec in items}

        return cls.of(cutoffs=d["cutoffs"], gains=labelled("gains"), discounts=labelled("discounts"),
                      fractions=d["fractions"], seeds=list(d["seeds"]))

    def _repr_html_(self) -> str:
        return kv_table(f"SweepGrid: {len(self)} points", self._axes())

    def tasks(self) -> list[tuple[float, int]]:
        """The ``(fraction, seed)`` pairs: one parallel task each, in grid order."""
        return list(itertools.product(self.fractions, self.seeds))

    def configurations(self) -> list[tuple[Cutoff, tuple[str, Any], tuple[str, Any]]]:
        """The ``(cutoff, (gain label, spec), (discount label, spec))`` triples evaluated by every task."""
        return list(itertools.product(self.cutoffs, self.gains, self.discounts))

    def points(self) -> pd.DataFrame:
        """One row per grid point (columns cutoff, gain, discount, fraction, seed), in grid order."""
        rows = [
            dict(cutoff=k, gain=g[0], discount=d[0], fraction=f, seed=s)
            for f, s in self.tasks()
            for k, g, d in self.configurations()
        ]
        return pd.DataFrame(rows, columns=["cutoff", "gain", "discount", "fraction", "seed"]).astype({"cutoff": object})



def parse_cutoff(text: str) -> Cutoff:
    """A cut-off written as text: a positive integer, or ``none`` / ``all`` / ``full`` (any case) for the whole
    list (``None``); anything else is :class:`gtheory.ParameterError` (``param="cutoffs"``).

    >>> parse_cutoff("20"), parse_cutoff("none")
    (20, None)
    """
    if text.strip().lower() in ("none", "all", "full"):
        return None
    try:
        k = int(text)
    except ValueError:
        raise ParameterError("cutoffs", f"`cutoffs` takes positive integers or 'none'; got {text!r}.") from None
    if k < 1:
        raise ParameterError("cutoffs", f"`cutoffs` takes positive integers or 'none'; got {k}.")
    return k
