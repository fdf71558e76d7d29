r"""G-studies and D-studies for general balanced designs: crossed and nested facets.

IR reliability studies add facets to systems × topics — assessors, query variants, collections.
This module estimates variance components for any *balanced* random-effects design written in
Brennan's notation and computes Φ and Eρ² for a chosen object of measurement with random or fixed
facets and any D-study sample sizes.

The design is written in Brennan's notation (``"p x i"``, ``"p x (r:t)"``) and parsed by
:func:`gtheory.parse_design` (:mod:`gtheory.gstudy.design_parse`).

Algorithm (Brennan 2001, ch. 3, "algorithms for balanced designs")
------------------------------------------------------------------
Effects are the sets of *primary* facets :math:`P` in which no facet is nested within another;
an effect's nesting facets :math:`N(P)` are all facets its primary facets are nested in, and its
index set is :math:`I = P \cup N(P)` (e.g. ``p x r:t`` has :math:`P=\{p,r\}`, :math:`N=\{t\}`).

* :math:`df(\alpha) = \prod_{f\in P}(n_f-1)\prod_{f\in N} n_f` (:math:`n_f` counts levels
  *within* a nest).
* :math:`SS(\alpha)` is the sum of squares of the effect's score estimate
  :math:`\sum_{Q\subseteq P}(-1)^{|P|-|Q|}\bar X_{Q\cup N}` over all cells (equivalent to
  Brennan's T-value formula, but centred, so nothing is lost to cancellation).
* Expected mean squares (Cornfield–Tukey rules for random models):
  :math:`E\,MS(\alpha) = \sum_{\beta:\, I(\beta)\supseteq I(\alpha)} \pi(\bar\beta)\,\sigma^2(\beta)`,
  :math:`\pi(\bar\beta)` the product of the sample sizes of the facets not in :math:`I(\beta)`.
  This triangular system is solved exactly; negative solutions are then set to 0 with a
  :class:`~gtheory.NegativeVarianceWarning` (Brennan §3.4: other estimates use the raw values).

D-study (Brennan 2001, ch. 4), object of measurement :math:`p`, D-study sizes :math:`n'`,
:math:`\pi'(S) = \prod_{f\in S} n'_f`, fixed facets :math:`F`, random facets :math:`R`:

.. math::

    \sigma^2(\tau) &= \sum_{\beta:\ p\in I(\beta),\ I(\beta)\setminus\{p\}\subseteq F}
                      \sigma^2(\beta)/\pi'(I(\beta)\setminus\{p\}) \\
    \sigma^2(\delta) &= \sum_{\beta:\ p\in I(\beta),\ I(\beta)\cap R\neq\emptyset}
                      \sigma^2(\beta)/\pi'(I(\beta)\setminus\{p\}) \\
    \sigma^2(\Delta) &= \sigma^2(\delta) + \sum_{\beta:\ p\notin I(\beta),\ I(\beta)\cap R\neq\emptyset}
                      \sigma^2(\beta)/\pi'(I(\beta)) \\
    E\rho^2 &= \frac{\sigma^2(\tau)}{\sigma^2(\tau)+\sigma^2(\delta)}, \qquad
    \Phi = \frac{\sigma^2(\tau)}{\sigma^2(\tau)+\sigma^2(\Delta)}.

The D-study keeps the G-study's structure (a crossed facet stays crossed).

Missing cells and unbalanced nesting are **refused** with a ``ValueError`` (ANOVA estimators for
unbalanced data — Henderson's methods, Brennan ch. 7 — are not implemented); so are duplicate
cells.

Checked against every published variance component, mean square, sum of squares and coefficient
for Brennan's synthetic data sets 1–4 (random and fixed facets) in
``tests/test_gtheory_gstudy_designs.py``.

References
----------
.. [1] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 3 (balanced designs,
       EMS), ch. 4 (D-studies, fixed facets), ch. 7 (unbalanced designs).
.. [2] J. Cornfield and J. W. Tukey (1956). Average values of mean squares in factorials.
       *Ann. Math. Statist.* 27(4):907–949.
"""
from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..kit.display import fmt, html_table, kv_table
from ..kit.jsonio import JsonResult
from ..errors import is_rounding_noise, precision_lost, warn_negative, warn_precision_loss

from .design_parse import Design, parse_design

__all__ = ["gstudy_design", "DesignGStudy", "DesignDStudy"]


@dataclass(frozen=True)
class DesignDStudy(JsonResult):
    """D-study result for a general design.

    Attributes
    ----------
    object : str
        Object of measurement.
    sizes : dict
        D-study sample size per facet.
    fixed : tuple of str
        Fixed facets.
    var_tau, var_delta, var_Delta : float
        Universe-score variance σ²(τ), relative error variance σ²(δ), absolute error variance σ²(Δ).
    erho2, phi : float
        Generalizability coefficient and dependability index.
    terms : pandas.DataFrame
        Per effect: variance, divisor and whether it enters τ, δ or Δ.
    """

    object: str
    sizes: Mapping[str, int]
    fixed: tuple[str, ...]
    var_tau: float
    var_delta: float
    var_Delta: float
    erho2: float
    phi: float
    terms: pd.DataFrame = field(repr=False)

    def __repr__(self) -> str:
        sizes = ", ".join(f"n'_{f}={v}" for f, v in self.sizes.items() if f != self.object)
        fixed = f", fixed {', '.join(self.fixed)}" if self.fixed else ""
        return (f"DesignDStudy(object {self.object}, {sizes}{fixed}; Eρ² = {fmt(self.erho2)}, "
                f"Φ = {fmt(self.phi)})")

    def summary(self) -> str:
        """The D-study as text: the design, σ²(τ), σ²(δ), σ²(Δ), Eρ² and Φ, and the per-effect terms."""
        sizes = ", ".join(f"n'_{f}={v}" for f, v in self.sizes.items() if f != self.object)
        lines = [f"D-study: object of measurement {self.object}; {sizes or 'no other facet'}"
                 + (f"; fixed {', '.join(self.fixed)}" if self.fixed else ""),
                 f"  σ²(τ) = {fmt(self.var_tau)}, σ²(δ) = {fmt(self.var_delta)}, σ²(Δ) = {fmt(self.var_Delta)}",
                 f"  Eρ² = {fmt(self.erho2)}, Φ = {fmt(self.phi)}", "", self.terms.to_string()]
        return "\n".join(lines)

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.DesignDStudy/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values (``terms`` a :func:`gtheory.kit.jsonio.table`) plus ``"format"``; non-finite
        numbers are None."""
        from ..kit.jsonio import jsonable, table

        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "terms"}
        return jsonable({"format": self.JSON_FORMAT, **d, "terms": table(self.terms)})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "DesignDStudy":
        """A :class:`DesignDStudy` from :meth:`to_json` output (text or a file path); null numbers are NaN."""
        from ..kit.jsonio import load_document, number, table_back

        d = load_document(text_or_path, cls.JSON_FORMAT)
        if missing := [f.name for f in fields(cls) if f.name not in d]:
            raise ValueError(f"incomplete {cls.JSON_FORMAT} document: missing {', '.join(missing)}.")
        return cls(object=str(d["object"]), sizes={str(k): int(v) for k, v in d["sizes"].items()},
                   fixed=tuple(d["fixed"]), **{k: float(number(d[k])) for k in
                                               ("var_tau", "var_delta", "var_Delta", "erho2", "phi")},
                   terms=table_back(d["terms"], "terms", ("variance", "divisor")))

    def _repr_html_(self) -> str:
        sizes = ", ".join(f"n'_{f}={v}" for f, v in self.sizes.items() if f != self.object)
        items = {"object": self.object, "sizes": sizes, "fixed": ", ".join(self.fixed) or "none",
                 "σ²(τ)": self.var_tau, "σ²(δ)": self.var_delta, "σ²(Δ)": self.var_Delta,
                 "Eρ²": self.erho2, "Φ": self.phi}
        return kv_table("DesignDStudy", items)


@dataclass(frozen=True)
class DesignGStudy(JsonResult):
    """Result of :func:`gstudy_design`: ANOVA table and variance components of a balanced design.

    Attributes
    ----------
    design : Design
    sizes : dict
        G-study sample size of each facet (within its nest for nested facets).
    components : pandas.DataFrame
        Indexed by effect name: ``df``, ``ss``, ``ms``, ``variance`` (negatives set to 0),
        ``variance_raw``, ``clipped``, ``percent``; unrounded.
    grand_mean : float
    ss_total : float
    """

    design: Design
    sizes: Mapping[str, int]
    components: pd.DataFrame = field(repr=False)
    grand_mean: float
    ss_total: float

    def variance(self, effect: str) -> float:
        """Variance component of ``effect`` (an effect name, e.g. ``"p x r:t"``; spaces optional)."""
        key = _effect_key(effect)
        for name in self.components.index:
            if _effect_key(name) == key:
                return float(self.components.at[name, "variance"])
        raise KeyError(f"no effect {effect!r} in design {self.design.text!r}; effects: "
                       f"{list(self.components.index)}.")

    def dstudy(
        self,
        object: str | None = None,
        sizes: Mapping[str, int] | None = None,
        fixed: Iterable[str] = (),
    ) -> DesignDStudy:
        """Φ and Eρ² for an object of measurement, D-study sample sizes and fixed facets.

        Parameters
        ----------
        object : str, optional
            Object of measurement (default: the first facet of the design, e.g. ``p``). Must
            not be nested within another facet.
        sizes : mapping, optional
            D-study sample size per facet (default: the G-study sizes). Facets not given keep
            their G-study size.
        fixed : iterable of str
            Facets treated as fixed (universe of generalization = the levels observed).

        Returns
        -------
        DesignDStudy

        Notes
        -----
        Formulas for σ²(τ), σ²(δ), σ²(Δ) in the module docstring (Brennan 2001, §4.3–4.4).
        """
        design = self.design
        obj = design.facets[0] if object is None else object
        if obj not in design.facets:
            raise ValueError(f"`object` must be one of the facets {design.facets}; got {obj!r}.")
        if design.nested_in[obj]:
            raise ValueError(f"object of measurement {obj!r} is nested within "
                             f"{sorted(design.nested_in[obj])}; this is not supported.")
        fixed_t = tuple(fixed)
        for f in fixed_t:
            if f not in design.facets or f == obj:
                raise ValueError(f"`fixed` must name facets other than the object {obj!r} from "
                                 f"{design.facets}; got {f!r}.")
        n = dict(self.sizes)
        for f, v in (sizes or {}).items():
            if f not in design.facets:
                raise ValueError(f"`sizes` names unknown facet {f!r}; facets: {design.facets}.")
            if not (isinstance(v, (int, np.integer, float)) and v >= 1):
                raise ValueError(f"`sizes[{f!r}]` must be ≥ 1; got {v!r}.")
            n[f] = v
        random = set(design.facets) - set(fixed_t) - {obj}
        tau = delta = Delta = 0.0
        rows = []
        for eff in design.effects:
            var = float(self.components.at[eff.name, "variance"])
            idx = eff.facets
            rest = idx - {obj}
            divisor = float(math.prod(n[f] for f in rest))
            if obj in idx and not (rest & random):
                tau += var / divisor
                role = "tau"
            elif obj in idx:
                delta += var / divisor
                Delta += var / divisor
                role = "delta"
            elif rest & random:
                Delta += var / divisor
                role = "Delta"
            else:
                role = "-"
            rows.append((eff.name, var, divisor, role))
        terms = pd.DataFrame(rows, columns=["effect", "variance", "divisor", "enters"]).set_index("effect")
        erho2 = tau / (tau + delta) if tau + delta > 0 else math.nan
        phi = tau / (tau + Delta) if tau + Delta > 0 else math.nan
        return DesignDStudy(obj, n, fixed_t, tau, delta, Delta, erho2, phi, terms)

    def summary(self, object: str | None = None, sizes: Mapping[str, int] | None = None,
                fixed: Iterable[str] = ()) -> str:
        """ANOVA table and the D-study for ``object``/``sizes``/``fixed``, as text."""
        c = self.components
        lines = [f"G-study: design {self.design.text}, random effects, "
                 + ", ".join(f"n_{f}={v}" for f, v in self.sizes.items()), "",
                 f"  {'effect':<16}{'df':>6}{'SS':>14}{'MS':>14}{'variance':>14}{'%':>8}"]
        for name, r in c.iterrows():
            flag = "  (negative estimate set to 0)" if r["clipped"] else ""
            lines.append(f"  {name:<16}{int(r['df']):6d}{r['ss']:14.6g}{r['ms']:14.6g}"
                         f"{r['variance']:14.6g}{r['percent']:8.1f}{flag}")
        d = self.dstudy(object, sizes, fixed)
        lines += ["", f"D-study: object {d.object}, " + ", ".join(f"n'_{f}={v}" for f, v in d.sizes.items()
                                                                   if f != d.object)
                  + (f", fixed: {', '.join(d.fixed)}" if d.fixed else ", all facets random"),
                  f"  σ²(τ)={d.var_tau:.6g}  σ²(δ)={d.var_delta:.6g}  σ²(Δ)={d.var_Delta:.6g}",
                  f"  Eρ² = {d.erho2:.4f}   Φ = {d.phi:.4f}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        sizes = ", ".join(f"n_{f}={v}" for f, v in self.sizes.items())
        return (f"DesignGStudy({self.design.text!r}, {sizes}; {len(self.components)} effects, "
                f"grand mean {fmt(self.grand_mean)})")

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.DesignGStudy/1"

    def to_dict(self) -> dict[str, Any]:
        """``design`` (its text), ``sizes``, the ANOVA table ``components`` (:func:`gtheory.kit.jsonio.table`),
        ``grand_mean`` and ``ss_total`` as plain JSON values plus ``"format"``; non-finite numbers are None."""
        from ..kit.jsonio import jsonable, table

        return jsonable({"format": self.JSON_FORMAT, "design": self.design.text, "sizes": dict(self.sizes),
                         "components": table(self.components), "grand_mean": self.grand_mean,
                         "ss_total": self.ss_total})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "DesignGStudy":
        """A :class:`DesignGStudy` from :meth:`to_json` output (text or a file path): the design parsed again
        (:func:`parse_design`), null numbers NaN; :meth:`dstudy` works on it."""
        from ..kit.jsonio import load_document, number, table_back

        d = load_document(text_or_path, cls.JSON_FORMAT)
        if missing := [f.name for f in fields(cls) if f.name not in d]:
            raise ValueError(f"incomplete {cls.JSON_FORMAT} document: missing {', '.join(missing)}.")
        comps = table_back(d["components"], "components", ("ss", "ms", "variance", "variance_raw", "percent"))
        return cls(design=parse_design(str(d["design"])), sizes={str(k): int(v) for k, v in d["sizes"].items()},
                   components=comps, grand_mean=float(number(d["grand_mean"])), ss_total=float(number(d["ss_total"])))

    def _repr_html_(self) -> str:
        rows = [(name, int(r["df"]), r["ms"], r["variance"], r["percent"]) for name, r in self.components.iterrows()]
        sizes = ", ".join(f"n_{f}={v}" for f, v in self.sizes.items())
        return html_table(rows, header=["effect", "df", "MS", "variance", "%"],
                          caption=f"DesignGStudy: {self.design.text} ({sizes}), random effects")


def _lab(v: object) -> str:
    """A label as the user wrote it: 3 or 'h1' (not np.int64(3))."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def _effect_key(name: str) -> str:
    return re.sub(r"[\s()]", "", str(name)).replace("×", "x")


def _to_array(data: pd.DataFrame, design: Design, score: str) -> tuple[NDArray[np.float64], dict[str, int]]:
    missing_cols = [c for c in (*design.facets, score) if c not in data.columns]
    if missing_cols:
        raise ValueError(f"`data` lacks column(s) {missing_cols} needed by design {design.text!r} "
                         f"(one column per facet plus {score!r}); it has {list(data.columns)}.")
    y = pd.to_numeric(data[score], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(y)
    if bad.any():
        first = data.iloc[int(np.argmax(bad))]
        cell = ", ".join(f"{f}={_lab(first[f])}" for f in design.facets)
        raise ValueError(f"`data[{score!r}]` has {int(bad.sum())} missing or non-finite scores "
                         f"(first at {cell}); missing data are not supported — the ANOVA "
                         "estimators here need a complete, balanced design.")
    codes = np.empty((len(data), len(design.facets)), dtype=np.int64)
    sizes: dict[str, int] = {}
    for j, f in enumerate(design.facets):
        outer = [g for g in design.facets if g in design.nested_in[f]]
        if not outer:
            cat = pd.Categorical(data[f])
            codes[:, j] = cat.codes
            sizes[f] = len(cat.categories)
            continue
        counts = {}
        col = np.empty(len(data), dtype=np.int64)
        for key, idx in data.groupby(outer, sort=True, observed=True).indices.items():
            cat = pd.Categorical(data[f].iloc[idx])
            col[idx] = cat.codes
            counts[key if isinstance(key, tuple) else (key,)] = len(cat.categories)
        if len(set(counts.values())) > 1:
            by_size = sorted(counts.items(), key=lambda kv: kv[1])
            (k1, v1), (k2, v2) = by_size[0], by_size[-1]
            where = lambda k: ", ".join(f"{g}={_lab(v)}" for g, v in zip(outer, k))  # noqa: E731
            raise ValueError(f"unbalanced design: facet {f!r} has {v1} levels within {where(k1)} "
                             f"but {v2} within {where(k2)}; only balanced designs are supported.")
        codes[:, j] = col
        sizes[f] = next(iter(counts.values()))
    shape = tuple(sizes[f] for f in design.facets)
    flat = np.ravel_multi_index(codes.T, shape)
    uniq, first_idx, cnt = np.unique(flat, return_index=True, return_counts=True)
    if (cnt > 1).any():
        r = data.iloc[int(first_idx[np.argmax(cnt > 1)])]
        cell = ", ".join(f"{f}={_lab(r[f])}" for f in design.facets)
        raise ValueError(f"`data` has {int((cnt > 1).sum())} cell(s) with more than one score "
                         f"(first: {cell}); the design needs exactly one score per cell.")
    total = math.prod(shape)
    if len(uniq) != total:
        have = np.zeros(total, dtype=bool)
        have[uniq] = True
        first = np.unravel_index(int(np.argmin(have)), shape)
        raise ValueError(f"`data` has {total - len(uniq)} of {total} cells without a score "
                         f"(first missing: " + ", ".join(f"{f} #{k + 1}" for f, k in zip(design.facets, first))
                         + "); missing data are not supported (unbalanced ANOVA not implemented).")
    arr = np.empty(total, dtype=np.float64)
    arr[flat] = y
    return arr.reshape(shape), sizes


def gstudy_design(
    data: pd.DataFrame | NDArray[np.float64], design: str | Design, *, score: str = "score",
    warn: bool = True,
) -> DesignGStudy:
    """G-study of a balanced crossed/nested random-effects design from long-format data.

    Parameters
    ----------
    data : pandas.DataFrame or ndarray
        A DataFrame in long format: one row per observation, one column per facet (named as in
        ``design``) and a ``score`` column. For a nested facet, levels are identified within
        their nest, so labels may either repeat across nests (``r1``–``r4`` in every task) or be
        unique. Or a complete array with one axis per facet, in the order the facets appear in
        ``design`` (a nested facet's axis indexes its levels within each nest).
    design : str or Design
        Design string, e.g. ``"p x i"``, ``"i:p"``, ``"p x i x o"``, ``"p x (r:t)"``.
    score : str
        Name of the score column.
    warn : bool
        Emit :class:`~gtheory.NegativeVarianceWarning` for negative estimates (default True).

    Returns
    -------
    DesignGStudy

    Raises
    ------
    ValueError
        Bad design string; missing columns; missing, non-finite or duplicate scores;
        unbalanced nesting; a facet with fewer than 2 levels; all scores equal.
    TypeError
        If ``data`` is not a DataFrame.

    Notes
    -----
    Algorithm and formulas in the module docstring (Brennan 2001, ch. 3–4).

    Examples
    --------
    >>> import pandas as pd
    >>> from gtheory import gstudy_design
    >>> df = pd.DataFrame({"p": [1, 1, 2, 2, 3, 3], "i": ["a", "b"] * 3,
    ...                    "score": [1.0, 2.0, 2.0, 2.5, 4.0, 5.0]})
    >>> g = gstudy_design(df, "p x i")
    >>> round(g.dstudy("p").erho2, 4)        # = 116/117: σ²(p) = 29/12, σ²(pi) = 1/24, n_i = 2
    0.9915
    >>> round(g.dstudy("p", {"i": 1}).phi, 4)  # = 58/67
    0.8657
    """
    d = parse_design(design) if isinstance(design, str) else design
    if isinstance(data, pd.DataFrame):
        y, sizes = _to_array(data, d, score)
    elif isinstance(data, np.ndarray):
        y = np.asarray(data, dtype=np.float64)
        if y.ndim != len(d.facets):
            raise ValueError(f"`data` array must have one axis per facet {d.facets}; got shape {y.shape}.")
        if not np.all(np.isfinite(y)):
            raise ValueError(f"`data` has {int((~np.isfinite(y)).sum())} missing or non-finite scores; "
                             "missing data are not supported.")
        sizes = dict(zip(d.facets, y.shape))
    else:
        raise TypeError("`data` must be a pandas DataFrame in long format or an array with one axis "
                        f"per facet; got {type(data).__name__}.")
    for f, v in sizes.items():
        if v < 2:
            raise ValueError(f"facet {f!r} has {v} level(s); at least 2 are needed to estimate its variance.")
    if np.ptp(y) == 0:
        raise ValueError(f"all scores are equal ({float(y.flat[0]):g}); every variance component is 0 and "
                         "the coefficients are 0/0 — undefined.")
    axis = {f: k for k, f in enumerate(d.facets)}
    n_cells = y.size
    grand, ss_total = _centred(y)
    y_given, y = y, y - grand  # every effect is a contrast of means: shift-invariant, and centred data lose nothing to 1e12

    cache: dict[frozenset[str], NDArray[np.float64]] = {}

    def mean_over(keep: frozenset[str]) -> NDArray[np.float64]:
        if keep not in cache:
            drop = tuple(axis[f] for f in d.facets if f not in keep)
            cache[keep] = y.mean(axis=drop, keepdims=True) if drop else y
        return cache[keep]

    effects = d.effects
    df_, ss_ = [], []
    for eff in effects:
        nest = frozenset(eff.nesting)
        est = 0.0
        for k in range(len(eff.primary) + 1):
            for q in itertools.combinations(eff.primary, k):
                est = est + (-1) ** (len(eff.primary) - k) * mean_over(nest | frozenset(q))
        ss_.append(float(np.sum(est**2)) * n_cells / est.size)
        df_.append(math.prod(sizes[f] - 1 for f in eff.primary) * math.prod(sizes[f] for f in eff.nesting))
    ms = np.array(ss_) / np.array(df_)
    coef = np.zeros((len(effects), len(effects)))
    for a, ea in enumerate(effects):
        for b, eb in enumerate(effects):
            if ea.facets <= eb.facets:
                coef[a, b] = math.prod(sizes[f] for f in d.facets if f not in eb.facets)
    raw = np.linalg.solve(coef, ms)
    clipped = raw < 0
    if warn:
        lost = precision_lost(y_given, ss_total / y.size)
        if lost is not None:  # rounded before we saw them: say so instead of "negative estimate"
            warn_precision_loss(*lost, ss_total / y.size, {e.name: float(r) for e, r, c in zip(effects, raw, clipped)
                                                          if c and not is_rounding_noise(r, ss_total / y.size)})
        for eff, r, c in zip(effects, raw, clipped):
            if c and lost is None:
                warn_negative(eff.name, r, ss_total / y.size)
    var = np.where(clipped, 0.0, raw)
    comp = pd.DataFrame(
        {"df": df_, "ss": ss_, "ms": ms, "variance": var, "variance_raw": raw, "clipped": clipped,
         "percent": 100 * var / var.sum()},
        index=pd.Index([e.name for e in effects], name="effect"),
    )
    return DesignGStudy(d, sizes, comp, grand, ss_total)


def _centred(y: NDArray[np.float64]) -> tuple[float, float]:
    """Grand mean and total sum of squares of ``y`` from deviations (two passes; see gtheory.gstudy)."""
    m0 = float(y.mean())
    dev = y - m0
    e = float(dev.mean())
    dev -= e
    return m0 + e, float(np.sum(dev * dev))
