"""The verdict of :func:`optimize.recommend`: one paragraph saying what to use, against what, which tier of the rule
decided and on what evidence (:mod:`optimize.recommend.nested` for the rule, :mod:`optimize.recommend.fixed` for tier 1)."""
from __future__ import annotations

import math

from gtheory.kit.display import signed

__all__ = ["PHI_MEANING", "verdict", "tier_reason", "fixed_clause"]

#: Φ in one clause, for a verdict's reader
PHI_MEANING = ("Φ(n) is the share of the variance of n-topic mean scores that comes from real differences between "
               "systems (1 = the ranking would not change with other topics)")



def fixed_clause(dec, T: int, level: float) -> str:
    """Tier 1's evidence in one clause: the alternative standard nearest to being adopted (the adopted one when it
    switches) on all topics, its randomisation p-value against its threshold, and the bootstrap interval of its gain."""
    f = dec.fixed
    if f is None or f.m == 0:
        return "no other fixed configuration to compare"
    c = f.index if f.adopt else f.best
    test = ("" if f.p is None else
            f"studentised topic-swap randomisation {_p_text(f.p[c], f.n_resamples)}, needed ≤ {f.alpha_swap / f.m:.3g} "
            f"(Bonferroni over {f.m} standard{'s' if f.m != 1 else ''}, {f.n_resamples} swaps); ")
    return (f"{f.names[c]} on all {T} topics Φ(1) {f.phi[0]:.3f} → {f.phi[c]:.3f} ({signed(f.diff[c], 3)}; "
            f"{test}{level:.0%} paired-topic-bootstrap interval [{signed(f.lo[c], 3)}, {signed(f.hi[c], 3)}])")


def _p_text(p: float, n: int) -> str:
    """``p = …`` for a randomisation p-value, to the precision its draws give (at its floor 1/(n + 1): ``p < 2/(n + 1)``)."""
    if p <= 1.0 / (n + 1) + 1e-15:
        return f"p < {2.0 / (n + 1):.2g}"
    return f"p = {p:.2g}" if p < 0.1 else f"p = {p:.2f}"


def tier_reason(dec, cands, fitted, T: int, level: float) -> str:
    """Which tier decided, and why, in one sentence (the verdict's, for the JSON reader)."""
    f = dec.fixed
    if not dec.decided:
        return "neither: too few outer splits to decide; the baseline is kept"
    if dec.tier == 2:
        ref = cands[dec.reference].name
        return (f"tier 2 (tuned, nested cross-validation): {fitted[dec.index][1]} is reliably better than {ref} "
                f"(tier 1's choice) on held-out topics")
    if f is not None and f.adopt:
        return (f"tier 1 (fixed configurations, all topics): {f.names[f.index]} is more stable than the baseline by the "
                f"studentised topic-swap randomisation test (p below its Bonferroni threshold); "
                f"no tuned candidate is reliably better than it (tier 2)")
    return ("tier 1 (fixed configurations, all topics): no standard is more stable than the baseline by the "
            "studentised topic-swap randomisation test (no p-value below its Bonferroni threshold); tier 2: no "
            "tuned candidate is reliably better than the baseline; the baseline is kept")


def verdict(dec, cands, fitted, base_spec, measure, label, T, phi_b, phi_a, phi_lo, phi_hi, saved,
            target, n_splits, min_wins, level, to_decide: float = math.nan, *, alt_i: int | None = None,
            wins: int | None = None, min_splits: int = 5) -> str:
    """One paragraph: what to use, against what, which tier decided, the gain as Φ(T) and topics saved, one
    interval, what Φ means."""
    alt_i = dec.alternative if alt_i is None else alt_i
    wins = dec.wins if wins is None else wins
    alt_label = fitted[alt_i][1]
    saved_txt = f"; {_fmt_topics(saved)} for Φ ≥ {target:g}" if math.isfinite(saved) else ""
    seeds = f"{dec.agreement}/{len(dec.runs)} seeds agree"
    if not dec.decided:
        return (f"keep {base_spec}: too few splits to decide ({n_splits} outer splits; at least {min_splits} are "
                f"needed) — the baseline is kept. {PHI_MEANING}.")
    fixed = fixed_clause(dec, T, level)
    if dec.adopt and dec.tier == 1:
        f = dec.fixed
        c = f.index
        return (f"switch to {measure} instead of {base_spec} (tier 1, fixed configurations on all topics): "
                f"{fixed}; Φ({T}) {phi_b:.3f} → {phi_a:.3f}{saved_txt}; it was better on {f.share[c]:.0%} of the "
                f"resamples and {wins}/{dec.n_outer} held-out halves; tier 2: no tuned candidate is reliably better "
                f"than it ({seeds} to keep it). {PHI_MEANING}.")
    ev = (f"Φ({T}) on held-out topics {phi_b:.3f} → {phi_a:.3f} ({signed(phi_a - phi_b, 3)}, "
          f"{level:.0%} interval [{signed(phi_lo, 3)}, {signed(phi_hi, 3)}]{saved_txt})")
    # the wins are the alternative's own (the interval is the whole procedure's): say whose they are when keeping
    won = f"better on {wins}/{dec.n_outer} held-out halves"
    if dec.adopt:
        use = measure or f"the tuned configuration {label} (gtheory evaluate --tuning REC.json)"
        ref = cands[dec.reference].name
        over = ("the baseline" if dec.reference == 0 else f"{ref}, which tier 1 chose over the baseline on all topics")
        return (f"switch to {use} instead of {base_spec} (tier 2, tuned, compared with {over}): {ev}; {won}; "
                f"{seeds}; tier 1: {fixed}. {PHI_MEANING}.")
    if not dec.adopt:
        won = f"{alt_label} itself was {won}" if alt_i != dec.reference else ""
    if alt_i == 0:
        why = "no tuned alternative came close"
    else:
        why = f"the best tuned alternative, {alt_label}, is not reliably better"
    more = ""
    if math.isfinite(to_decide):  # the 1/√n projection (topics_to_decide); far beyond the data it is only an order
        more = (f" If it held, a gain this size would be clear with about {to_decide:.0f} topics (now {T})."
                if to_decide <= 10 * T else
                f" If it held, a gain this size would need more than ten times these {T} topics to be clear.")
    return (f"keep {base_spec}: no standard configuration is reliably better on all topics (tier 1: {fixed}) and "
            f"{why} (tier 2) — switching as these data suggest gives {ev}; {won + '; ' if won else ''}"
            f"{seeds}.{more} {PHI_MEANING}.")


def _fmt_topics(saved: float) -> str:
    n = int(round(saved))
    if n == 0:
        return "no topics saved"
    return f"{n} topic{'s' if abs(n) != 1 else ''} saved" if n > 0 else f"{-n} more topic{'s' if n != -1 else ''} needed"
