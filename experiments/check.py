"""Does a tuned nDCG configuration rank systems as the standard ones do, and is it as discriminative?

:func:`check_configurations` compares score matrices of several configurations on the same runs: stability
(G-study), agreement of the system rankings with a reference, discriminative power (paired bootstrap) and the
swap method. ``gtheory check`` prints its table.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, fields
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np
import pandas as pd

import gtheory
from gtheory.kit.checks import fixed_seed, progress_writer
from gtheory.kit.jsonio import JsonResult
from gtheory.errors import ParameterError

from experiments.agreement import kendall_tau, rmse, tau_ap
from experiments.discriminative import discriminative_power
from experiments.swap import min_difference_for_swap_rate, swap_rates
from gtheory.kit.params import validate_params

__all__ = ["check_configurations", "check_tuning", "parse_configuration", "ConfigurationCheck", "DEFAULT_AGAINST"]


@validate_params()
def check_configurations(
    configurations: dict[str, pd.DataFrame],
    reference: str,
    *,
    top_k: int = 30,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    target: float = 0.95,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> pd.DataFrame:
    r"""One row per configuration: stability, agreement with ``reference``, discriminative power, swap method.

    Parameters
    ----------
    configurations : name → systems × topics score matrix (same systems and topics).
    reference : the configuration the others are compared with (τ, τ_AP, RMSE).
    top_k : best systems (by mean) kept for the bootstrap.
    n_resamples : bootstrap replicates, and topic-subset pairs of the swap method.
    alpha : significance level.
    seed : seed of both resampling schemes, the same for every configuration (a Generator gives one seed, drawn
        from it: :func:`gtheory.kit.checks.fixed_seed`).
    target : Φ target of the topics needed.
    progress : a message before each configuration (the shared ``progress`` parameter, docs/architecture.md).

    Returns
    -------
    pandas.DataFrame
        Columns ``phi``, ``erho2``, ``topics_needed`` (G-study, [3]_), ``kendall_tau``, ``tau_ap``, ``rmse``
        (against ``reference``), ``power`` (share of top-k pairs with ASL < alpha, [1]_),
        ``difference_needed`` (Sakai's estimated difference), ``swap_min_difference`` and
        ``swap_share`` (smallest |Δ mean| with swap rate ≤ 5% at half the topics, and the share of
        comparisons reaching it, [2]_).

    References
    ----------
    .. [1] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    .. [2] E. M. Voorhees and C. Buckley (2002). The effect of topic set size on retrieval experiment error. SIGIR.
    .. [3] R. L. Brennan (2001). Generalizability Theory. Springer.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random((8, 20)) * 0.5 + np.linspace(0.4, 0, 8)[:, None]
    >>> from experiments import check_configurations
    >>> t = check_configurations({"a": pd.DataFrame(base), "b": pd.DataFrame(base ** 2)}, "a", n_resamples=100)
    >>> float(t.loc["b", "kendall_tau"])
    1.0
    """
    say = progress_writer(progress) or (lambda m: None)
    seed = fixed_seed(seed)
    rows = []
    ref = configurations[reference]
    n = ref.shape[1]
    for i, (name, X) in enumerate(configurations.items(), 1):
        say(f"[{i}/{len(configurations)}] {name}: G-study, τ, bootstrap (B={n_resamples}), swap method")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
            row = gtheory.gstudy(X).as_row(target=target)
        dp = discriminative_power(X, alpha, n_resamples=n_resamples, seed=seed, top_k=min(top_k, X.shape[0]))
        size = max(1, n // 2)
        sw = swap_rates(X, topic_set_sizes=[size], n_resamples=n_resamples, seed=seed)
        md = min_difference_for_swap_rate(sw, 0.05).iloc[0]
        rows.append({
            "configuration": name,
            "mean": float(np.nanmean(X.to_numpy())),
            **{key: row[key] for key in ("phi", "erho2", "topics_needed")},
            "kendall_tau": kendall_tau(ref, X),
            "tau_ap": tau_ap(ref, X, variant="b"),
            "rmse": rmse(ref, X),
            "power": dp.power, "n_significant": dp.n_significant, "n_pairs": dp.n_pairs,
            "difference_needed": dp.estimated_difference,
            "swap_topics": size,
            "swap_min_difference": float(md["min_difference"]),
            "swap_share": float(md["share_of_comparisons"]),
        })
    return pd.DataFrame(rows).set_index("configuration")


#: the standard configurations :func:`check_tuning` compares with by default (linear gains)
DEFAULT_AGAINST: tuple[str, ...] = ("zipf", "linear", "log2")


def parse_configuration(spec: str) -> tuple[str, str]:
    """``"log2"`` → ``("linear", "log2")``; ``"exponential+log2"`` → ``("exponential", "log2")``: a configuration
    as DISCOUNT (linear gains) or GAIN+DISCOUNT. ParameterError (``against``) for anything else."""
    if not isinstance(spec, str) or not spec or spec.count("+") > 1:
        raise ParameterError("against", f"`against` entries are DISCOUNT or GAIN+DISCOUNT (e.g. log2, "
                                        f"exponential+log2); got {spec!r}")
    if "+" in spec:
        g, d = spec.split("+")
        return g.strip(), d.strip()
    return "linear", spec.strip()


@validate_params()
def check_tuning(
    judged: Any,
    tuning: Any = None,
    against: Sequence[str] = DEFAULT_AGAINST,
    *,
    cutoff: int | None = None,
    top_k: int = 30,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> "ConfigurationCheck":
    """Does a tuned nDCG rank the systems as the standard configurations do, and is it as discriminative?

    :func:`check_configurations` of the tuned nDCG (``tuning``, an :class:`optimize.Tuning`; without it, the
    discount tuned here for Φ with linear gains, :func:`optimize.optimize_discount`) against the
    configurations ``against`` (DISCOUNT or GAIN+DISCOUNT, :func:`parse_configuration`) at nDCG@``cutoff``
    (default: the tuning's, else 100): what ``gtheory check`` prints.

    Warns (:class:`optimize.FailedTuningWarning`) when the tuning done here fails: its row is then not
    stability-optimal. A tuning's :class:`optimize.GradeMismatchWarning` comes through.

    Raises
    ------
    ParameterError
        ``cutoff`` beyond the runs' depth or the tuning's discount, an ``against`` entry nDCG cannot compute,
        a ``tuning`` that cannot score ``judged``.
    """
    import metrics
    import optimize

    say = progress_writer(progress) or (lambda m: None)
    seed = fixed_seed(seed)  # the tuning and every configuration's resampling: recorded in the result
    configs_against = [(spec, *parse_configuration(spec)) for spec in against]
    k = cutoff or (tuning.cutoff if tuning is not None else 100)
    if k > judged.depth:
        raise ParameterError("cutoff", f"`cutoff` {k} exceeds the run depth {judged.depth}; give a cut-off of at "
                                       f"most {judged.depth}")
    say(f"data: {judged.n_systems} systems x {judged.n_topics} topics; nDCG@{k}")
    standard: dict[str, pd.DataFrame] = {}  # first: a bad configuration fails before minutes of tuning
    for spec, g, d in configs_against:
        try:
            standard[spec] = metrics.ndcg(judged, gain=g, discount=d, cutoff=k)
        except ValueError as exc:
            raise ParameterError("against", f"`against` {spec!r}: {exc}") from None
    configs: dict[str, pd.DataFrame] = {}
    if tuning is not None:
        if k > tuning.discount.size:
            raise ParameterError("cutoff", f"`cutoff` {k} exceeds the tuning's discount length {tuning.discount.size}")
        name = f"tuned {tuning.what}"
        try:  # a grade the tuning has no gain for: Tuning.ndcg names the tuning and the grades
            configs[name] = tuning.ndcg(judged, cutoff=k)
        except ValueError as exc:
            raise ParameterError("tuning", f"`tuning`: {exc}") from None
    else:
        say(f"tuning the discount of nDCG@{k} (linear gains) for Φ; give --tuning to check a saved one")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tuning = optimize.optimize_discount(judged, gain="linear", cutoff=k, seed=seed)
        name = "tuned discount"
        if not tuning.success:  # e.g. indistinguishable systems: say so rather than compare with arbitrary vectors
            warnings.warn(f"the tuning failed ({tuning._status()}: {tuning.message}); the 'tuned discount' row is "
                          "not stability-optimal.", optimize.FailedTuningWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optimize.FailedTuningWarning)  # said just above
            configs[name] = tuning.ndcg(judged)
    configs.update(standard)
    table = check_configurations(configs, name, top_k=top_k, n_resamples=n_resamples, alpha=alpha, seed=seed,
                                 progress=say)
    return ConfigurationCheck(
        table=table, reference=name, cutoff=k, n_systems=judged.n_systems, n_topics=judged.n_topics,
        top_k=min(top_k, judged.n_systems), n_resamples=n_resamples, alpha=alpha, seed=seed,
        gain={f"{grade:g}": float(v) for grade, v in tuning.gain_mapping.items()})


#: columns of :func:`check_configurations` that count something: JSON integers
_COUNTS = ("topics_needed", "n_significant", "n_pairs", "swap_topics")


@dataclass(frozen=True, repr=False)
class ConfigurationCheck(JsonResult):
    """A :func:`check_configurations` table with what it was computed from: what ``gtheory check`` prints.

    Attributes
    ----------
    table : pandas.DataFrame
        :func:`check_configurations`' result, one row per configuration.
    reference : str
        The configuration the others are compared with.
    cutoff, n_systems, n_topics, top_k, n_resamples, seed : int
        nDCG cut-off, data size, systems kept for the bootstrap (at most ``n_systems``), replicates, seed.
    alpha : float
        Significance level.
    gain : dict
        Grade (as text) → gain of the reference configuration.
    """

    table: pd.DataFrame
    reference: str
    cutoff: int
    n_systems: int
    n_topics: int
    top_k: int
    n_resamples: int
    alpha: float
    seed: int
    gain: Mapping[str, float] = field(default_factory=dict)

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.ConfigurationCheck/1"

    def __repr__(self) -> str:
        return (f"ConfigurationCheck(nDCG@{self.cutoff}, {self.n_systems} systems × {self.n_topics} topics; "
                f"{len(self.table)} configurations against {self.reference!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfigurationCheck):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(self) if f.name != "table") \
            and self.table.equals(other.table)

    __hash__ = None  # type: ignore[assignment]  # holds a DataFrame

    def records(self) -> list[dict[str, Any]]:
        """The table's rows as dicts (``configuration`` first), counts as integers where finite."""
        out = []
        for rec in self.table.reset_index().to_dict(orient="records"):  # keeps each column's dtype
            for c, v in rec.items():
                v = v.item() if hasattr(v, "item") else v
                if c in _COUNTS and isinstance(v, float) and v.is_integer():
                    v = int(v)
                rec[c] = v
            out.append(rec)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``gtheory check --json`` document plus ``"format"``; non-finite numbers (topics needed that no
        number of topics reaches) are None (:mod:`gtheory.kit.jsonio`)."""
        from gtheory.kit.jsonio import jsonable

        d = jsonable({"cutoff": self.cutoff, "n_systems": self.n_systems, "n_topics": self.n_topics,
                      "reference": self.reference, "top_k": self.top_k, "n_resamples": self.n_resamples, "alpha": self.alpha,
                      "seed": self.seed, "gain": dict(self.gain), "configurations": self.records()})
        d["format"] = self.JSON_FORMAT
        return d

    @classmethod
    def from_json(cls, text_or_path: Any) -> "ConfigurationCheck":
        """A :class:`ConfigurationCheck` from :meth:`to_json` output (a ``null`` topics needed is ``inf``)."""
        from gtheory.kit.jsonio import load_document, number

        d = load_document(text_or_path, cls.JSON_FORMAT)
        rows = [{k: (number(v, math.inf) if k == "topics_needed" else v if k == "configuration" else number(v))
                 for k, v in r.items()} for r in d.pop("configurations")]
        table = pd.DataFrame(rows).set_index("configuration")
        return cls(table=table, **d)

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        rows = ((name, r.phi, r.topics_needed, r.kendall_tau, r.tau_ap, r.rmse, r.power) for name, r in self.table.iterrows())
        return html_table(rows, header=["configuration", f"Φ({self.n_topics})", "topics for Φ ≥ 0.95", "τ", "τ_AP",
                                        "RMSE", "power"],
                          caption=f"ConfigurationCheck: nDCG@{self.cutoff}, {self.n_systems} systems × {self.n_topics} "
                                  f"topics, against {self.reference!r}")

    def summary(self) -> str:
        """The table ``gtheory check`` prints, with a legend."""
        t = self.table
        lines = [f"nDCG@{self.cutoff}: {self.n_systems} systems x {self.n_topics} topics; agreement with "
                 f"'{self.reference}'; bootstrap on the top {self.top_k} systems (B={self.n_resamples}, α={self.alpha:g}); "
                 f"swap method at {int(t['swap_topics'].iloc[0])} topics"]
        head = (f"{'configuration':<22} {'Φ':>6} {'topics':>6} {'τ':>6} {'τ_AP':>6} {'RMSE':>7} "
                f"{'power':>6} {'Δ sig':>6} {'Δ swap':>7} {'reach':>6}")
        lines += [head, "-" * len(head)]
        for name, r in t.iterrows():
            lines.append(
                f"{str(name):<22} {_f(r.phi, '.3f'):>6} {_f(r.topics_needed, '.0f'):>6} {_f(r.kendall_tau, '.3f'):>6} "
                f"{_f(r.tau_ap, '.3f'):>6} {_f(r.rmse, '.4f'):>7} {_f(r.power, '.1%'):>6} "
                f"{_f(r.difference_needed, '.3f'):>6} {_f(r.swap_min_difference, '.3f'):>7} "
                f"{_f(r.swap_share, '.0%'):>6}")
        lines.append(f"Φ: dependability at {self.n_topics} topics; topics: needed for Φ ≥ 0.95; power: share of pairs "
                     f"with ASL < {self.alpha:g}; Δ sig: difference needed for significance; Δ swap: smallest "
                     "difference with swap rate ≤ 5%; reach: share of comparisons that large.")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _f(v: float, spec: str) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    if v == math.inf:
        return "inf"
    return format(v, spec)
