r"""Result objects: :class:`SolverRun` (one start of one solver) and :class:`Tuning` (the answer).

A :class:`Tuning` holds the stability-optimal gain (per grade) and discount (per rank), both
normalised to sum 1 (nDCG is scale-free in each, Kanoulas & Aslam 2009 §2.3), the coefficients
they reach, the solver's record (SciPy-style ``x``, ``fun``, ``success``, ``message``, ``nit``,
``nfev``) and the multi-start agreement. It can evaluate the tuned nDCG on any
:class:`metrics.JudgedRuns` and round-trips through JSON.
"""
from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

import gtheory
from gtheory.gstudy import (  # phi(n), erho2(n), topics_needed and the JSON of plain fields: GStudy's code
    Coefficients, fields_document, read_fields, why_never_reached)
import metrics
from gtheory.kit.display import fmt, html_table, kv_table
from gtheory.kit.jsonio import JsonResult, jsonable, number

from ..errors import DataMismatchWarning, FailedTuningWarning, GradeMismatchWarning
from .result_document import _fmt_grades, read_tuning_document

__all__ = ["SolverRun", "Tuning", "gstudy_ratios"]


def package_version() -> str:
    """The installed gtheory distribution's version ("unknown" when run from an uninstalled tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gtheory")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, eq=False)
class SolverRun(JsonResult):
    """One solver run from one start (frozen: a changed run is a new one, :func:`dataclasses.replace`).

    Attributes
    ----------
    x : feasible variables (each block sums to 1); ``fun`` = f(x) = Φ(1) or Eρ²(1) (maximised).
    success, message, nit, nfev, njev : as :class:`scipy.optimize.OptimizeResult`.
    solver : "slsqp", "lbfgsb" or "cvxpy".
    seconds : wall time.
    start : name of the start ("log2", "random-3", …).
    """

    x: NDArray[np.float64]
    fun: float
    success: bool
    message: str
    nit: int
    nfev: int
    njev: int
    solver: str
    seconds: float
    start: str = ""

    def __repr__(self) -> str:
        state = "converged" if self.success else "not converged"
        return (f"SolverRun({self.solver} from {self.start or '?'}: f = {fmt(self.fun)}, {state}, "
                f"{self.nit} iterations, {self.seconds:.2f} s)")

    def summary(self) -> str:
        """The run as text: the repr's line and the solver's message."""
        return f"{self!r}\n  {self.message}"

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.optimize.SolverRun/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values (``x`` a list) plus ``"format"``; a non-finite ``fun`` is None."""
        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike) -> "SolverRun":
        """A :class:`SolverRun` from :meth:`to_json` output (text or a file path); ``null`` numbers are NaN."""
        d = read_fields(cls, text_or_path)
        d["x"] = np.asarray(d["x"], dtype=np.float64)
        d["fun"], d["seconds"] = float(number(d["fun"])), float(number(d["seconds"]))
        return cls(**d)

    def _repr_html_(self) -> str:
        return kv_table("SolverRun", {"solver": self.solver, "start": self.start, "f(x)": self.fun,
                                      "converged": bool(self.success), "message": self.message,
                                      "iterations": self.nit, "seconds": self.seconds})


def gstudy_ratios(var_system: float, var_topic: float, var_residual: float) -> tuple[float, float]:
    r"""``(phi_ratio, erho2_ratio)`` by the G-study convention of :func:`gtheory.gstudy`: negative
    component estimates, and estimates within rounding error of 0 (at most
    :data:`gtheory.errors.ROUNDING_TOLERANCE` of the components' total size), set to 0 (Brennan 2001,
    §3.4); Φ's ratio 0 when :math:`\sigma^2_s = 0`, ``inf`` when the error variance is 0 (as
    :attr:`gtheory.GStudy.phi_ratio`); Eρ²'s ratio NaN when :math:`\sigma^2_s = \sigma^2_{st} = 0`
    (0/0: undefined, where :func:`gtheory.gstudy` refuses the data)."""
    from gtheory.errors import is_rounding_noise

    raw = [float(v) for v in (var_system, var_topic, var_residual)]
    if any(math.isnan(v) for v in raw):
        return math.nan, math.nan
    scale = sum(abs(v) for v in raw)
    vs, vt, ve = (0.0 if v < 0 or is_rounding_noise(v, scale) else v for v in raw)
    if vs == 0:
        return 0.0, (0.0 if ve > 0 else math.nan)
    err = vt + ve
    return (vs / err if err > 0 else math.inf), (vs / ve if ve > 0 else math.inf)


#: the one encoder of the result types (non-finite numbers as None, NumPy as plain values): gtheory.kit.jsonio


@dataclass(frozen=True, eq=False)
class Tuning(Coefficients, JsonResult):
    r"""Stability-optimal nDCG configuration.

    A frozen dataclass (a changed tuning is a new one: :func:`dataclasses.replace`) with the coefficient API of
    :class:`gtheory.GStudy`: :meth:`phi`, :meth:`erho2` and :meth:`topics_needed` of the tuned nDCG, computed
    from its variance components without the data.

    Attributes
    ----------
    what : "discount", "gain" or "joint"; ``objective`` "phi" or "erho2".
    cutoff : the nDCG cut-off k — the length of ``discount``; for a minimax over cut-offs the
        largest one (``binding_cutoff`` is the cut-off of the worst problem).
    levels : the grades (ascending) that ``gain`` is aligned with.
    gain : per-grade gains, summing to 1 over the grades (grade ≤ 0 has gain 0).
    discount : per-rank discounts ``d[r-1]``, summing to 1.
    phi_1, erho2_1 : Φ and Eρ² of the tuned nDCG at one topic; :meth:`phi` and :meth:`erho2` give them at
        any number of topics (default the data's ``n_topics``). All follow the G-study convention of
        :func:`gtheory.gstudy` (a negative variance estimate counts as 0), so ``phi() == gstudy.phi()`` and
        ``phi_1 == gstudy.phi(1)`` always; they are never negative. The raw single-topic coefficient the
        optimiser maximised is :attr:`fun`.
    var_system, var_topic, var_residual : raw (unclipped) ANOVA variance components of the tuned
        nDCG; :attr:`phi_ratio_raw`/:attr:`erho2_ratio_raw` are the ratios the optimiser sees.
    success, message : whether the optimiser converged (and the best start succeeded) and the data
        could be tuned at all (``success`` is False when the systems are indistinguishable under
        every configuration, σ²(system) = 0). The coefficients of a failed tuning are consistent with
        its components, in memory and in JSON: for indistinguishable systems Φ = 0 and Eρ² = 0 (or
        NaN, ``null`` in JSON, when σ²(st,e) is 0 too: 0/0), never a ratio of rounding noise. Applying
        a failed tuning (:meth:`ndcg`, :meth:`evaluate`, :attr:`gstudy`) warns
        :class:`FailedTuningWarning`; the CLI refuses it unless ``--allow-failed``.
    nit, nfev, njev : iterations and evaluations, summed over starts.
    solver : the solver; ``starts`` : number of starts; ``n_agree`` : starts within ``agree_tol``
        of the best objective; ``start_values`` : objective reached from each start.
    monotone_gain, monotone_discount : the constraints in force.
    per_problem : for a minimax tuning, one dict per problem (collection × cut-off): ``label``,
        ``cutoff``, ``fun`` (its Φ(1) or Eρ²(1), the quantity whose worst case was maximised),
        ``phi`` (or ``erho2``: a number) at the problem's own ``n_topics``, and ``n_topics``.
    negative_components : names (``"system"``, ``"topic"``, ``"residual"``) of the raw variance
        components of the tuned nDCG that are negative on the tuning data (Brennan 2001, §3.4).
        The front ends warn :class:`gtheory.NegativeVarianceWarning` once for them — about this
        final configuration only; the many intermediate G-studies (starts, cross-validation
        splits, standard configurations) never warn.
    gain_family : for a discount tuning with a named gain family (``"linear"``,
        ``"exponential"``, …), the family; :meth:`ndcg` then applies it to the target's grades,
        so the tuning transfers to judgments with other grades. None otherwise (``gain`` is a
        per-grade table and the target must not have positive grades outside ``levels``).
    binding_cutoff, binding_label : for a minimax tuning, the cut-off and label of the binding
        (worst) problem, whose coefficients :meth:`phi`, ``phi_1``, … and ``gstudy`` report; None
        otherwise.
    version, measure, fingerprint : provenance — the gtheory version that made the tuning, the measure tuned
        (``"nDCG@k"``; ``"nDCG'@k"`` on condensed lists) and :attr:`metrics.JudgedRuns.fingerprint` of the data it
        was tuned on (for a minimax tuning, of the binding problem's data). Filled in when the tuning is made from
        data (``None`` for a Tuning built by hand); every document has the three keys. :meth:`ndcg` (and :meth:`evaluate`) warn
        :class:`DataMismatchWarning` when applied to data with another fingerprint.

    Notes
    -----
    ``phi(n) = n r/(1 + n r)`` with :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})` (components
    clipped at 0); the maximiser of Φ(1) maximises Φ(n) for every n (Kanoulas & Aslam 2009, §2.3).
    """

    what: str
    objective: str
    cutoff: int
    levels: NDArray[np.float64]
    gain: NDArray[np.float64]
    discount: NDArray[np.float64]
    phi_1: float
    erho2_1: float
    var_system: float
    var_topic: float
    var_residual: float
    n_systems: int
    n_topics: int
    success: bool
    message: str
    nit: int
    nfev: int
    njev: int
    solver: str
    starts: int
    n_agree: int
    agree_tol: float
    start_values: dict[str, float] = field(default_factory=dict)
    monotone_gain: bool = True
    monotone_discount: bool = True
    judged_only: bool = False
    seconds: float = 0.0
    per_problem: list[dict[str, Any]] = field(default_factory=list)
    negative_components: list[str] = field(default_factory=list)
    gain_family: str | None = None
    binding_cutoff: int | None = None
    binding_label: str | None = None
    version: str | None = None
    measure: str | None = None
    fingerprint: str | None = None
    _judged: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._judged is not None:  # made from data now (not read from a document): record the provenance
            if self.version is None:  # frozen: set once, here, as the dataclass's own __init__ does
                object.__setattr__(self, "version", package_version())
            if self.measure is None:
                object.__setattr__(self, "measure",
                                   f"nDCG{chr(39) if self.judged_only else ''}@{self.binding_cutoff or self.cutoff}")

    @property
    def data_fingerprint(self) -> str | None:
        """:attr:`fingerprint`, computed from the tuning data on first use (hashing is deferred until needed);
        None for a document that did not record it."""
        if self.fingerprint is None and self._judged is not None:  # the lazy provenance of a frozen result
            object.__setattr__(self, "fingerprint", self._judged.fingerprint)
        return self.fingerprint

    def _check_data(self, judged: metrics.JudgedRuns, stacklevel: int) -> None:
        """Warn :class:`DataMismatchWarning` if ``judged`` is not the data this tuning was made on."""
        if judged is self._judged or self.data_fingerprint is None:
            return
        if judged.fingerprint != self.data_fingerprint:
            warnings.warn(
                f"{self._describe()} was tuned on other data (fingerprint {self.data_fingerprint}, "
                f"{self.n_systems} systems x {self.n_topics} topics) than the judged runs it is applied to "
                f"(fingerprint {judged.fingerprint}, {judged.n_systems} x {judged.n_topics}); fine for a transfer or "
                "held-out study, a mistake if the data were meant to be the same.",
                DataMismatchWarning, stacklevel=stacklevel,
            )

    # ------------------------------------------------------------- views
    @property
    def x(self) -> NDArray[np.float64]:
        """The tuned variables as one vector (discount then positive-grade gains, whichever were tuned)."""
        parts = []
        if self.what in ("discount", "joint"):
            parts.append(self.discount)
        if self.what in ("gain", "joint"):
            parts.append(self.gain[self.levels > 0])
        return np.concatenate(parts)

    @property
    def fun(self) -> float:
        """The maximised objective: Φ(1) or Eρ²(1) from the raw components, :math:`r/(1+r)` with
        :attr:`phi_ratio_raw` (or :attr:`erho2_ratio_raw`) — what the solvers see. Negative when
        σ²(system) is estimated negative; equal to ``phi_1`` (``erho2_1``) otherwise."""
        r = self.phi_ratio_raw if self.objective == "phi" else self.erho2_ratio_raw
        return r / (1.0 + r) if math.isfinite(r) else (1.0 if r > 0 else math.nan)

    @property
    def gain_mapping(self) -> dict[float, float]:
        """``{grade: gain}`` — a gain specification for :func:`metrics.ndcg`."""
        return {float(l): float(g) for l, g in zip(self.levels, self.gain)}

    @property
    def gain_ratios(self) -> dict[float, float]:
        """Gain of each positive grade over the gain of the lowest positive grade (e.g. hrel/rel)."""
        pos = self.levels > 0
        base = self.gain[pos][0]
        return {float(l): (float(g / base) if base > 0 else math.inf) for l, g in zip(self.levels[pos], self.gain[pos])}

    @property
    def discount_ratios(self) -> NDArray[np.float64]:
        """``discount / discount[0]``: the weight of rank r relative to rank 1."""
        return self.discount / self.discount[0] if self.discount[0] > 0 else np.full_like(self.discount, np.nan)

    @property
    def phi_ratio(self) -> float:
        """σ²(s)/(σ²(t)+σ²(st,e)) of the tuned nDCG, negative estimates set to 0 (as
        :attr:`gtheory.GStudy.phi_ratio`)."""
        return gstudy_ratios(self.var_system, self.var_topic, self.var_residual)[0]

    @property
    def erho2_ratio(self) -> float:
        """σ²(s)/σ²(st,e) of the tuned nDCG, negative estimates set to 0 (as
        :attr:`gtheory.GStudy.erho2_ratio`)."""
        return gstudy_ratios(self.var_system, self.var_topic, self.var_residual)[1]

    @property
    def phi_ratio_raw(self) -> float:
        """σ²(s)/(σ²(t)+σ²(st,e)) from the raw ANOVA components (the optimiser's ratio; can be < 0)."""
        den = self.var_topic + self.var_residual
        return self.var_system / den if den != 0 else math.nan

    @property
    def erho2_ratio_raw(self) -> float:
        """σ²(s)/σ²(st,e) from the raw ANOVA components (the optimiser's ratio; can be < 0)."""
        return self.var_system / self.var_residual if self.var_residual != 0 else math.nan

    @property
    def ms_system(self) -> float:
        """Mean square of systems of the tuned nDCG, σ²(st,e) + n_t σ²(s) from the raw components (the ANOVA's
        expected mean square, exact for the estimates): with :attr:`ms_topic` and :attr:`ms_residual`, what the
        confidence bounds of :meth:`topics_needed` need (Brennan 2001, §3.2)."""
        return self.var_residual + self.n_topics * self.var_system

    @property
    def ms_topic(self) -> float:
        """Mean square of topics of the tuned nDCG, σ²(st,e) + n_s σ²(t) from the raw components."""
        return self.var_residual + self.n_systems * self.var_topic

    @property
    def ms_residual(self) -> float:
        """Residual mean square of the tuned nDCG, σ²(st,e) (raw)."""
        return self.var_residual

    # phi(n_topics=None), erho2(n_topics=None) and topics_needed(target, coefficient, *, level) come from
    # gtheory.gstudy.coefficients.Coefficients, the code of GStudy.phi, GStudy.erho2 and GStudy.topics_needed: the same
    # checks, the same numbers (those of ``gstudy``, the G-study of the tuned nDCG on the tuning data). The
    # interval of topics_needed treats the configuration as fixed; it was chosen on these data, so it is optimistic.

    # --------------------------------------------------------- evaluation
    def _describe(self) -> str:
        return f"the tuned {self.what} of nDCG@{self.cutoff} (Tuning with gains for grades {_fmt_grades(self.levels)})"

    def _gain_for(self, judged: metrics.JudgedRuns) -> metrics.measures.gains.GainSpec:
        """The gain specification for ``judged``: the remembered family, or the per-grade table
        after checking it covers ``judged``'s positive grades (warn about gains it cannot use)."""
        if self.gain_family is not None:
            return self.gain_family
        target = np.asarray(judged.levels, dtype=np.float64)
        have = {float(l) for l in self.levels}
        missing = [float(l) for l in target if l > 0 and float(l) not in have]
        if missing:
            raise ValueError(
                f"{self._describe()} has no gain for grade(s) {_fmt_grades(missing)} of these judgments "
                f"(grades {_fmt_grades(target)}); tune on judgments with these grades, or tune the discount "
                "with a named gain family (optimize_discount(..., gain='linear')), which carries over to any grades."
            )
        present = {float(l) for l in target}
        unused = [float(l) for l, g in zip(self.levels, self.gain) if g > 0 and float(l) not in present]
        if unused:
            warnings.warn(
                f"{self._describe()} has gains for grade(s) {_fmt_grades(unused)} that these judgments "
                f"(grades {_fmt_grades(target)}) do not use; nDCG is computed without them.",
                GradeMismatchWarning, stacklevel=4,
            )
        return self.gain_mapping

    def ndcg(self, judged: metrics.JudgedRuns, *, cutoff: int | None = None) -> pd.DataFrame:
        """The tuned nDCG on any judged runs (systems × topics), through :func:`metrics.ndcg`.

        ``cutoff`` defaults to the tuned one; a smaller one truncates the discount (scale-free).

        Raises
        ------
        ValueError
            ``cutoff`` larger than the tuned one (the discount has no weights beyond it); ``judged``
            has a positive grade the tuning has no gain for (unless it remembers its
            ``gain_family``).

        Warns
        -----
        GradeMismatchWarning
            The tuning has positive gains for grades ``judged`` does not have.
        FailedTuningWarning
            The tuning failed (``success`` False): its vectors are not stability-optimal.
        DataMismatchWarning
            ``judged`` is not the data the tuning was made on (its :attr:`fingerprint` differs).
        """
        self._check_data(judged, stacklevel=3)
        k = self.cutoff if cutoff is None else cutoff
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"`cutoff` must be a positive integer; got {cutoff!r}.")
        self._warn_if_failed(stacklevel=3)
        if k > self.discount.size:
            raise ValueError(
                f"`cutoff` {k} exceeds the tuned cut-off {self.discount.size}: the tuned discount has no weights "
                f"beyond rank {self.discount.size} (nDCG@{k} would be nDCG@{self.discount.size}); "
                f"use cutoff <= {self.discount.size} or tune at {k}."
            )
        return metrics.ndcg(judged, gain=self._gain_for(judged), discount=self.discount[:k], cutoff=k,
                            judged_only=self.judged_only)

    def evaluate(self, judged: metrics.JudgedRuns, *, cutoff: int | None = None) -> gtheory.GStudy:
        """G-study of the tuned nDCG on ``judged`` (e.g. another collection or held-out topics).

        Silent about negative variance estimates: the returned G-study records them
        (``clipped_system``, ``clipped_topic``, ``clipped_residual`` and the ``*_raw`` values).
        Raises and warns as :meth:`ndcg`.
        """
        X = self.ndcg(judged, cutoff=cutoff)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
            return gtheory.gstudy(X)

    @cached_property
    def gstudy(self) -> gtheory.GStudy:
        """G-study of the tuned nDCG on the tuning data, recomputed with the public
        :func:`metrics.ndcg` and :func:`gtheory.gstudy` (an independent check of ``phi``); for a
        minimax tuning, of the binding problem (its collection at ``binding_cutoff``)."""
        if self._judged is None:
            raise ValueError("this Tuning was loaded from JSON and holds no data; use `evaluate(judged)`.")
        return self.evaluate(self._judged, cutoff=self.binding_cutoff)

    def _warn_if_failed(self, stacklevel: int) -> None:
        if not self.success:
            warnings.warn(
                f"applying a failed tuning ({self._status()}: {self.message}); its gain and discount are not "
                "stability-optimal, and its coefficients describe only what the optimiser stopped at.",
                FailedTuningWarning, stacklevel=stacklevel,
            )

    # -------------------------------------------------------- presentation
    def _status(self) -> str:
        if self.success:
            return "converged"
        return "CANNOT TUNE" if self.message.startswith("the systems are indistinguishable") else "NOT CONVERGED"

    def summary(self) -> str:
        name = {"phi": "Φ", "erho2": "Eρ²"}[self.objective]
        where = f"binding problem {self.binding_label}, " if self.binding_label else ""  # minimax
        lines = [
            f"Stability-optimal nDCG@{self.cutoff}: {self.what} tuned for {name} "
            f"({self.solver}, {self.starts} start(s), {self.n_agree} agree within {self.agree_tol:g})",
            f"  {self._status()}: {self.message}",
            f"  {where}{self.n_systems} systems x {self.n_topics} topics: Φ({self.n_topics}) = {self.phi():.4f}, "
            f"Eρ²({self.n_topics}) = {self.erho2():.4f}; Φ(1) = {self.phi_1:.4f}, Eρ²(1) = {self.erho2_1:.4f}",
            f"  topics needed: Φ ≥ 0.95: {self.topics_needed(0.95, level=None).n}, "
            f"Φ ≥ 0.90: {self.topics_needed(0.9, level=None).n}"
            + (f" ({why})" if (why := why_never_reached(self.phi_ratio, 0.9)) else ""),
            "  gain: " + ", ".join(f"{l:g}→{g:.4f}" for l, g in zip(self.levels, self.gain))
            + "   ratios: " + ", ".join(f"{l:g}:{r:.3f}" for l, r in self.gain_ratios.items())
            + (f"   (family {self.gain_family!r})" if self.gain_family else ""),
        ]
        if self.negative_components:
            lines.insert(3, "  negative estimate(s) set to 0 as in gtheory.gstudy: "
                         + ", ".join(f"σ²({c})" for c in self.negative_components)
                         + f"; raw objective {self.fun:.4f}")
        d = self.discount
        shown = ", ".join(f"{v:.4f}" for v in d[:10]) + (", …" if d.size > 10 else "")
        lines.append(f"  discount (sum 1): [{shown}]  d_k/d_1 = {self.discount_ratios[-1]:.3f}")
        if self.per_problem:
            lines.append(f"  maximised the worst {name}(1) of {len(self.per_problem)} problems "
                         f"[{name} at each problem's own number of topics]:")
            lines.extend(f"    {self._problem_text(p)}" for p in self.per_problem)
        from .bound import summary_line  # the bound is shown once Tuning.bound() has computed it

        if (line := summary_line(self)) is not None:
            lines.append(line)
        return "\n".join(lines)

    def bound(self, **kwargs: Any) -> Any:
        """Certified upper bound on Φ(1) over every feasible vector (Shor SDP relaxation, cvxpy),
        computed on first call and cached; see :func:`optimize.solvers.bound.optimality_bound`."""
        from .bound import bound_for_tuning

        return bound_for_tuning(self, **kwargs)

    @property
    def gap(self) -> float:
        """``bound().bound − fun``: how far the tuned Φ(1) can be from the global optimum (≥ 0)."""
        return self.bound().bound - self.fun

    def _problem_text(self, p: dict[str, Any]) -> str:
        """``label: Φ(1) [Φ(n)]`` of one ``per_problem`` entry (the coefficient at its own number of
        topics when the entry has it)."""
        name = {"phi": "Φ", "erho2": "Eρ²"}[self.objective]
        own = p.get(self.objective)
        at_n = f" [{name}({p['n_topics']}) = {own:.4f}]" if own is not None and "n_topics" in p else ""
        return f"{p.get('label', '?')}: {p.get('fun', math.nan):.4f}{at_n}"

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        name = {"phi": "Φ", "erho2": "Eρ²"}.get(self.objective, self.objective)
        value = self.phi() if self.objective == "phi" else self.erho2()
        return (f"Tuning({self.what} of nDCG@{self.cutoff} for {name}: {name}({self.n_topics}) = {fmt(value)}, "
                f"{self._status().lower()}, {self.n_systems} systems × {self.n_topics} topics)")

    def _repr_html_(self) -> str:
        name = {"phi": "Φ", "erho2": "Eρ²"}.get(self.objective, self.objective)
        items = {"status": f"{self._status().lower()}: {self.message}",
                 "data": f"{self.n_systems} systems × {self.n_topics} topics",
                 f"Φ({self.n_topics})": self.phi(), f"Eρ²({self.n_topics})": self.erho2(),
                 "topics for Φ ≥ 0.95": self.topics_needed(0.95, level=None).n,
                 "solver": f"{self.solver}, {self.starts} start(s), {self.n_agree} agree"}
        if self.gain_family:
            items["gain family"] = self.gain_family
        head = kv_table(f"Tuning: {self.what} of nDCG@{self.cutoff} for {name}", items)
        ratios = self.gain_ratios
        gains = html_table(((g, w, ratios.get(float(g), math.nan)) for g, w in zip(self.levels, self.gain)),
                           header=["grade", "gain (sum 1)", "ratio to lowest"])
        d = self.discount
        shown = list(range(min(d.size, 10))) + ([d.size - 1] if d.size > 10 else [])
        disc = html_table(((r + 1, d[r], self.discount_ratios[r]) for r in shown),
                          header=["rank", "discount (sum 1)", "d(r)/d(1)"])
        return head + gains + disc

    def plot(self, ax: Any = None) -> Any:
        """The tuned vector: the discount d(r) against the rank r (sum 1; ``what`` "discount" or "joint") or the gain
        of each grade (``what`` "gain"), the coefficient in the title. Returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 3.4))
        name = {"phi": "Φ", "erho2": "Eρ²"}.get(self.objective, self.objective)
        value = self.phi() if self.objective == "phi" else self.erho2()
        if self.what == "gain":
            ax.bar([f"{float(g):g}" for g in self.levels], self.gain, color="C0")
            ax.set_xlabel("grade")
            ax.set_ylabel("gain (sum 1)")
        else:
            ax.plot(np.arange(1, self.discount.size + 1), self.discount, "o-", ms=3, color="C0")
            ax.set_xlabel("rank r")
            ax.set_ylabel("discount d(r) (sum 1)")
        ax.set_title(f"tuned {self.what} of nDCG@{self.cutoff}: {name}({self.n_topics}) = {value:.3f}"
                     + ("" if self.success else f" ({self._status().lower()})"), fontsize=10)
        return ax

    # --------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values (lists, dicts, numbers, strings, None) plus ``"format"``.

        Beside the fields, ``"phi"`` and ``"erho2"`` hold :meth:`phi` and :meth:`erho2` at ``n_topics`` (after
        ``"discount"``, where documents have always had them); :meth:`from_json` checks them and recomputes both
        from the variance components. A number that is not finite (NaN, ±inf) — at any depth, e.g. in
        ``start_values`` or ``per_problem`` — is None, so the dict serialises to strict JSON (RFC 8259);
        :meth:`from_json` reads None back as NaN where the field is a number.
        """
        self.data_fingerprint  # noqa: B018 - computes the fingerprint of the tuning data if not yet done
        d: dict[str, Any] = {}
        for f in fields(self):
            if not f.name.startswith("_"):
                d[f.name] = getattr(self, f.name)
            if f.name == "discount":
                d["phi"], d["erho2"] = self.phi(), self.erho2()
        d = jsonable(d)
        d["format"] = "gtheory.optimize.Tuning/1"
        return d

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike) -> "Tuning":
        """A :class:`Tuning` from :meth:`to_json` output (a JSON string or a file path), or the
        recommended configuration of an :meth:`optimize.Recommendation.to_json` document.

        Every field is checked, so a hand-edited or foreign document cannot give a Tuning that fails
        (or silently computes something else) later: ``what`` and ``objective`` among their values;
        ``levels`` finite and strictly increasing with a positive grade; ``gain`` finite,
        non-negative, 0 for grades ≤ 0, positive for some grade; ``discount`` finite, non-negative,
        not all 0, one weight per rank up to ``cutoff``; counts non-negative integers
        (``n_agree`` ≤ ``starts``); flags booleans; numbers numbers (``null`` is NaN);
        ``gain_family`` a gain family :func:`metrics.gain_vector` knows; ``negative_components``
        among ``"system"``, ``"topic"``, ``"residual"``; ``binding_cutoff`` at most ``cutoff``.

        Raises
        ------
        TypeError
            ``text_or_path`` is neither a string nor a path.
        ValueError
            Not JSON, not a tuning document, or a field missing, unknown or invalid (named, with the
            rule and the value found).
        """
        return cls(**read_tuning_document(cls, text_or_path))


