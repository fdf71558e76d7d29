"""Plot of Φ and Eρ² against the number of topics (Kanoulas & Aslam, CIKM 2009, Fig. 4 style)."""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

import numpy as np
from ..kit.params import probability, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


#: a :class:`gtheory.GStudy` (not imported here: this module sits below it, so that gtheory has no import cycle)
GStudy = Any

__all__ = ["plot_dstudy"]


@validate_params(level=probability(none=True), target=probability(none=True))
def plot_dstudy(
    g: GStudy,
    *,
    ax: Axes | None = None,
    n_max: int | None = None,
    level: float | None = 0.95,
    target: float | None = None,
    title: str | None = None,
) -> Axes:
    """Draw Eρ² and Φ as functions of the number of topics, 1 … ``n_max``.

    Parameters
    ----------
    g : GStudy
        Result of :func:`gtheory.gstudy`.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure is made if None.
    n_max : int, optional
        Largest number of topics (default: max(2 × G-study topics, 100), extended up to 1000 to
        show the topics needed for ``target``).
    level : float or None
        Draw shaded confidence bands at this level (Feldt for Eρ², Arteaga et al. for Φ);
        None for none.
    target : float, optional
        Draw a horizontal line at this coefficient and mark the topics needed for Φ.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    if n_max is None:
        n_max = max(2 * g.n_topics, 100)
        if target is not None:  # show where Φ reaches the target, within reason
            need = g.topics_needed(target, "phi", level=None).n
            if np.isfinite(need):
                n_max = max(n_max, min(int(1.1 * need) + 1, 1000))
    n_max = int(n_max)
    n = np.arange(1, n_max + 1, dtype=np.float64)
    for coef, label, style in (("erho2", "Eρ² (generalizability)", "-"), ("phi", "Φ (dependability)", "--")):
        values = g.erho2(n) if coef == "erho2" else g.phi(n)
        (line,) = ax.plot(n, values, style, label=label)
        if level is not None:
            ci = g.interval(coef, n, level)
            ax.fill_between(n, ci.low, ci.high, color=line.get_color(), alpha=0.15, linewidth=0,
                            label=f"{level:.0%} interval, {ci.method}")
    ax.axvline(g.n_topics, color="grey", linewidth=0.8, linestyle=":", label=f"G-study topics ({g.n_topics})")
    if target is not None:
        ax.axhline(target, color="black", linewidth=0.8, linestyle="-.", label=f"target {target:g}")
        need = g.topics_needed(target, "phi", level=None).n
        if np.isfinite(need) and need <= n_max:
            ax.plot([need], [g.phi(need)], "o", color="black")
            ax.annotate(f"Φ: {need} topics", (need, g.phi(need)), textcoords="offset points",
                        xytext=(5, -12))
    ax.set_xlabel("number of topics")
    ax.set_ylabel("coefficient")
    ax.set_xlim(1, n_max)
    ax.set_ylim(0, 1.01)
    ax.set_title(title if title is not None else f"D-study: {g.n_systems} systems")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    return ax
