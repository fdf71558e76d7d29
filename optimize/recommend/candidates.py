"""The candidates :func:`optimize.recommend` chooses among: the baseline, the other standard configurations, the
tuned families and the regularised full vectors, each with a ``fit(topics) -> (vector, label)``
(:mod:`optimize.recommend.nested` runs the cross-validation over them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

import metrics

from ..solvers import JointModel
from ..solvers import FAMILIES, fit_family
from ..solvers import fit_vector, reference_vector
from .validation import STANDARD_CONFIGS

__all__ = ["Candidate", "JOINT_ROUNDS", "FIT_TOL", "LAMBDAS"]

#: coordinate-ascent rounds (discount, then gain) of a joint candidate
JOINT_ROUNDS = 2

#: L-BFGS-B tolerance (ftol; gtol 100x it) of the regularised fits inside the cross-validation: held-out
#: differences are read to 1e-4, so fitting to 1e-11 (the stand-alone tuner's) only costs iterations
FIT_TOL = 1e-7

#: default penalty strengths of the regularised candidates (0 is the unregularised full vector)
LAMBDAS = (1.0, 0.1, 0.0)


@dataclass
class Candidate:
    """One configuration the nested cross-validation can choose: ``fit(topics) -> (x, label)``."""

    name: str
    kind: str  # "standard", "family", "regularised"
    complexity: float
    fit: Callable[[NDArray | None], tuple[NDArray, str]]
    n_params: int
    #: messages of the fits whose optimiser did not converge (regularised vectors: L-BFGS-B's iteration limit)
    failures: list[str] = field(default_factory=list)
    #: (gain, discount) specs of a fixed configuration (the baseline, the standards); None for tuned ones
    spec: tuple | None = None
    #: the fitted family parameters by topic set (``b"all"``: the whole pool), for the adopted measure's spec
    thetas: dict = field(default_factory=dict)
    #: the family of a family candidate (:data:`optimize.solvers.families.FAMILIES`)
    family: Any = None


def _named(spec: Any) -> str | None:
    """A gain or discount given by name (``"log2"``, ``"rbp(p=0.8)"``) as that name; None for vectors etc."""
    return spec if isinstance(spec, str) else None


def _std_vectors(model, what: str, g: Any, d: Any) -> NDArray:
    """The normalised tuned-part vector of a (gain, discount) configuration."""
    if what == "joint":
        dv = np.asarray(metrics.discount_vector(d, model.k, cutoff=model.k), dtype=np.float64)
        gv = np.asarray(metrics.gain_vector(g, model.levels), dtype=np.float64)[model.positive]
        return np.r_[dv / dv.sum(), gv / gv.sum()]
    v = (metrics.discount_vector(d, model.n, cutoff=model.n) if what == "discount"
         else metrics.gain_vector(g, model.levels)[model.positive])
    v = np.asarray(v, dtype=np.float64)
    return v / v.sum()


def _standard_candidates(model, what: str, base_gain: Any, base_discount: Any) -> list[Candidate]:
    """The baseline first (complexity 0, named by its spec), then the other standard configurations."""
    base_name = _config_name(what, base_gain, base_discount)
    xb = _std_vectors(model, what, base_gain, base_discount)
    out = [Candidate(base_name, "baseline", 0.0, lambda idx, x=xb, n=base_name: (x, n), 0)]
    for name, (g, d) in STANDARD_CONFIGS[what].items():
        g = base_gain if g is None else g
        d = base_discount if d is None else d
        x = _std_vectors(model, what, g, d)
        if name == base_name or np.allclose(x, xb, rtol=0, atol=1e-15):
            continue
        out.append(Candidate(name, "standard", 0.1, lambda idx, x=x, name=name: (x, name), 0,
                             spec=(g, d)))
    out[0].spec = (base_gain, base_discount)
    return out


def _config_name(what: str, g: Any, d: Any) -> str:
    """The candidate name of a baseline: the tuned part's spec (``"log2"``, ``"linear"``, ``"linear+log2"``)."""
    gn = _named(g) or "given gains"
    dn = _named(d) or "given discount"
    return {"discount": dn, "gain": gn, "joint": f"{gn}+{dn}"}[what]


def _joint_candidates(model: JointModel, objective: str, lambdas, families, penalty: str, base_gain: Any,
                      base_discount: Any, rounds: int = JOINT_ROUNDS) -> list[Candidate]:
    """Baseline and standards, (discount family × gain power) and regularised (discount, gain) pairs, each pair
    fitted by coordinate ascent: ``rounds`` alternations of the discount (gain fixed) and the gain (discount fixed)."""
    out = _standard_candidates(model, "joint", base_gain, base_discount)
    gfam = FAMILIES["gain"]["power"]
    g0 = metrics.gain_vector("linear", model.levels)[model.positive]
    g0 = g0 / g0.sum()
    for fname in families:
        dfam = FAMILIES["discount"][fname]

        def fit(idx, dfam=dfam):
            g = g0
            for _ in range(rounds):
                td, d, _ = fit_family(model.discount_view(g, idx), dfam, None, objective)
                tg, g, _ = fit_family(model.gain_view(d, idx), gfam, None, objective)
            return np.r_[d, g], f"{dfam.label(td)}+{gfam.label(tg)}"

        two = fname == "topflat"
        out.append(Candidate(f"{fname}({dfam.param})+power(gamma)", "family", 3.0 if two else 2.0, fit,
                             3 if two else 2))
    dref = metrics.discount_vector("log2", model.k)
    dref = dref / dref.sum()
    warm: dict[bytes, tuple] = {}
    for lam in sorted(lambdas, reverse=True):
        name = "full vectors" if lam == 0 else f"{penalty}(λ={lam:g})"
        failures: list[str] = []

        def fit(idx, lam=lam, failures=failures):
            key = b"all" if idx is None else np.asarray(idx).tobytes()
            d, g = warm.get(key, (dref, g0))
            for _ in range(rounds):
                d, _, ok, msg, _ = fit_vector(model.discount_view(g, idx), None, objective, lam, dref, penalty, x0=d,
                                              tol=FIT_TOL)
                if not ok:
                    failures.append(f"discount: {msg}")
                g, _, ok, msg, _ = fit_vector(model.gain_view(d, idx), None, objective, lam, g0, penalty, x0=g,
                                              tol=FIT_TOL)
                if not ok:
                    failures.append(f"gain: {msg}")
            warm.clear()
            warm[key] = (d, g)
            return np.r_[d, g], ("tuned gain and discount vectors" if lam == 0 else f"{penalty}(λ={lam:g})")

        out.append(Candidate(name, "regularised", 4.0 + 1.0 / (1.0 + lam), fit, model.n - 2, failures))
    return out


def _candidates(model, what: str, objective: str, gain, discount, lambdas, families, penalty: str) -> list[Candidate]:
    """The candidates, the baseline (``gain``, ``discount``) first."""
    if what == "joint":
        return _joint_candidates(model, objective, lambdas, families, penalty, gain, discount)
    out = _standard_candidates(model, what, gain, discount)
    for fname in families:
        fam = FAMILIES[what][fname]

        cand = Candidate(f"{fname}({fam.param})", "family", 2.0 if fname == "topflat" else 1.0, None,
                         2 if fname == "topflat" else 1)

        def fit(idx, fam=fam, cand=cand):
            theta, x, _ = fit_family(model, fam, idx, objective)
            cand.thetas[b"all" if idx is None or len(idx) == model.n_topics else np.asarray(idx).tobytes()] = theta
            return x, fam.label(theta)

        cand.fit = fit
        cand.family = fam
        out.append(cand)
    ref = reference_vector(model, "log2" if what == "discount" else "linear")
    warm: dict[bytes, NDArray] = {}  # decreasing λ on the same topics: each fit starts from the previous one
    for lam in sorted(lambdas, reverse=True):
        name = "full vector" if lam == 0 else f"{penalty}(λ={lam:g})"
        failures: list[str] = []

        def fit(idx, lam=lam, failures=failures):
            key = b"all" if idx is None else np.asarray(idx).tobytes()
            x, f, ok, msg, nit = fit_vector(model, idx, objective, lam, ref, penalty, x0=warm.get(key), tol=FIT_TOL)
            if not ok:
                failures.append(msg)
            warm.clear()
            warm[key] = x
            return x, (f"tuned {what} vector" if lam == 0 else f"{penalty}(λ={lam:g})")

        out.append(Candidate(name, "regularised", 3.0 + 1.0 / (1.0 + lam), fit, model.n - 1, failures))
    return out


def _jsonable_spec(spec: Any) -> Any:
    """A gain or discount spec as JSON: a name, a list of numbers or a {grade: gain} mapping with text keys."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        return {str(float(k)): float(v) for k, v in spec.items()}
    try:
        return [float(v) for v in spec]
    except TypeError:
        return None


def _use_spec(c: Candidate, label: str, what: str, gain: Any, discount: Any) -> tuple[Any, Any]:
    """(gain, discount) names of an adopted candidate when it has named forms; (None, None) otherwise."""
    if c.spec is not None:
        return c.spec
    fam = getattr(c, "family", None)
    theta = c.thetas.get(b"all") if fam is not None else None
    if what == "discount" and fam is not None and fam.name in ("rbp", "jarvelin") and theta:
        (k, v), = theta.items()
        return gain, f"{fam.name}({k}={v!r})"
    return None, None


def _vectors_of(model, what: str, x: NDArray, gain: Any, discount: Any, cutoff: int):
    """The full gain (per grade) and discount (per rank) vectors of a candidate's tuned-part vector ``x``."""
    k = int(cutoff)
    if what == "joint":
        d, g = model.split(x)
        gv = np.zeros(model.levels.size)
        gv[model.positive] = g
        return tuple(float(v) for v in gv), tuple(float(v) for v in d)
    if what == "discount":
        return tuple(float(v) for v in metrics.gain_vector(gain, model.levels)), tuple(float(v) for v in x)
    gv = np.zeros(model.levels.size)
    gv[model.positive] = x
    return tuple(float(v) for v in gv), tuple(float(v) for v in metrics.discount_vector(discount, k, cutoff=k))
