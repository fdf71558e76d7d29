"""Does a tuned nDCG configuration rank systems as the standard ones do, and is it as discriminative?

:func:`check_configurations` compares score matrices of several configurations on the same runs: stability
(G-study), agreement of the system rankings with a reference, discriminative power (paired bootstrap) and the
swap method. ``gtheory check`` prints its table.
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np
import pandas as pd

import gtheory

from experiments.agreement import kendall_tau, rmse, tau_ap
from experiments.significance import discriminative_power
from experiments.swap import min_difference_for_swap_rate, swap_rates

__all__ = ["check_configurations"]


def check_configurations(
    configurations: dict[str, pd.DataFrame],
    reference: str,
    *,
    top_k: int = 30,
    B: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
    target: float = 0.95,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    r"""One row per configuration: stability, agreement with ``reference``, discriminative power, swap method.

    Parameters
    ----------
    configurations : name → systems × topics score matrix (same systems and topics).
    reference : the configuration the others are compared with (τ, τ_AP, RMSE).
    top_k : best systems (by mean) kept for the bootstrap.
    B : bootstrap replicates, and topic-subset pairs of the swap method.
    alpha : significance level.
    seed : seed of both resampling schemes.
    target : Φ target of the topics needed.
    progress : called with a message before each configuration.

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
    >>> t = check_configurations({"a": pd.DataFrame(base), "b": pd.DataFrame(base ** 2)}, "a", B=100)
    >>> float(t.loc["b", "kendall_tau"])
    1.0
    """
    say = progress or (lambda m: None)
    rows = []
    ref = configurations[reference]
    n = ref.shape[1]
    for i, (name, X) in enumerate(configurations.items(), 1):
        say(f"[{i}/{len(configurations)}] {name}: G-study, τ, bootstrap (B={B}), swap method")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
            row = gtheory.gstudy(X).as_row(target=target)
        dp = discriminative_power(X, alpha, B=B, seed=seed, top_k=min(top_k, X.shape[0]))
        size = max(1, n // 2)
        sw = swap_rates(X, topic_set_sizes=[size], B=B, seed=seed)
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
