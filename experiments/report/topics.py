r"""The report's section "Is this collection big enough?" (:func:`topics_section`), as Markdown and as HTML.

From the study's systems × topics scores of one measure (and, for the budget, its judged runs) the section answers
with the numbers of :func:`gtheory.plan` and :func:`experiments.topic_depth_budget`:

* **In short** — the coefficients Φ and Eρ² the collection's own N topics reach, the power of a paired t-test on N
  topics to detect ``min_diff``, the smallest difference it detects with power ``power`` (Sakai's topic set size
  design, :func:`gtheory.min_detectable_difference`), and which requirements N topics meet;
* **the table of requirements** — one row per way of answering "how many topics?" (:func:`gtheory.plan`: G-theory
  Φ and Eρ², Urbano et al.'s expected τ, the paired and two-sample t-test, the one-way ANOVA of all systems, the CI
  width, and with ``curves`` the τ between disjoint topic sets of the data, extrapolated), the topics each needs with
  its interval at ``level``, what N topics achieve, and whether N is enough: *yes* when the whole interval lies at or
  below N, *no* when it lies above, *borderline* when N falls inside it, *unattainable* when no number of topics
  meets it (topics needed ∞);
* **the budget** (with ``judged``) — topics × pool depth: judged documents per topic, V_E, topics needed for Φ and
  for the paired t-test and their judging cost at each depth, and the cheapest depth for each (Sakai, IRJ 2016 §6).

The Markdown uses only headings, paragraphs and pipe tables (Python-Markdown's ``tables`` extension, GitHub), so it
can be inserted as it is into the report's Markdown; the HTML is a self-contained ``<section>`` (no stylesheet
needed) for a notebook or an HTML page. Every text cell is escaped for its format.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from gtheory.kit.params import validate_params
from gtheory.kit.render import html as _html
from gtheory.kit.render import markdown

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    from gtheory.gstudy import ScoreInput
    from gtheory.topics import TopicPlan
    from metrics import JudgedRuns

    from experiments.budget import TopicBudget

__all__ = ["TopicsSection", "topics_section", "HEADING"]

#: the section's title
HEADING = "Is this collection big enough?"

_DEFAULT_DEPTHS = (5, 10, 20, 50, 100)


@dataclass(frozen=True)
class TopicsSection:
    """The report section "Is this collection big enough?" (:func:`topics_section`).

    Attributes
    ----------
    markdown : str
        The section as Markdown (a ``##`` heading, paragraphs, pipe tables), to be inserted into the report's text.
    html : str
        The same as one HTML ``<section>`` element.
    plan : gtheory.TopicPlan
        The numbers of the requirements table.
    budget : experiments.TopicBudget or None
        The numbers of the budget table (None without ``judged``).
    measure : str
    n_topics : int
        The collection's topics.
    """

    markdown: str
    html: str
    plan: "TopicPlan"
    budget: "TopicBudget | None"
    measure: str
    n_topics: int

    def summary(self) -> str:
        """The section as Markdown text."""
        return self.markdown

    def __str__(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return (f"TopicsSection({self.measure}, {self.n_topics} topics, {len(self.plan.table)} requirements, "
                f"budget {'yes' if self.budget is not None else 'no'})")

    def _repr_html_(self) -> str:
        return self.html


def _count(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return "∞" if math.isinf(v) else str(int(round(v)))


def _num(v: float, digits: int = 3) -> str:
    if v is None or np.isnan(v):
        return "–"
    return "∞" if np.isinf(v) else f"{v:.{digits}f}"


def enough(low: float, high: float, n: int) -> str:
    """Whether ``n`` topics meet a requirement whose topics needed lie in ``[low, high]``: ``"yes"`` (high ≤ n),
    ``"no"`` (low > n) or ``"borderline"`` (n inside the interval). An interval with a NaN end is refused (it
    would read as borderline)."""
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"the interval of the topics needed has a NaN end ([{low}, {high}]): no verdict")
    if high <= n:
        return "yes"
    if low > n:
        return "no"
    return "borderline"


def _md_escape(text: str) -> str:
    """Literal text in Markdown (:func:`gtheory.kit.render.markdown`, the kit's one rule)."""
    return markdown(text)


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]], n_labels: int = 1) -> str:
    align = [":---" if i < n_labels else "---:" for i in range(len(head))]
    lines = ["| " + " | ".join(_md_escape(h) for h in head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], caption: str, n_labels: int = 1) -> str:
    def cell(tag: str, text: str, i: int) -> str:
        align = "left" if i < n_labels else "right"
        return f'<{tag} style="text-align:{align}">{_html(str(text))}</{tag}>'

    out = [f"<table><caption>{_html(caption)}</caption>",
           "<thead><tr>" + "".join(cell("th", h, i) for i, h in enumerate(head)) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(cell("td", c, i) for i, c in enumerate(r)) + "</tr>" for r in rows]
    out.append("</tbody></table>")
    return "\n".join(out)


@validate_params(depths=None)  # None or depths: topic_depth_budget checks them by the table's rule
def topics_section(
    scores: "ScoreInput",
    *,
    measure: str,
    judged: "JudgedRuns | None" = None,
    min_diff: float = 0.05,
    target: float = 0.95,
    tau: float = 0.9,
    alpha: float = 0.05,
    power: float = 0.8,
    level: float = 0.95,
    curves: bool = True,
    repeats: int = 50,
    depths: Sequence[int] | None = None,
    seed: int = 0,
    heading: str | None = HEADING,
    executor: "Executor | None" = None,
) -> TopicsSection:
    r"""The report section "Is this collection big enough?" for one measure of a study (module docstring).

    Parameters
    ----------
    scores : score matrix
        The study's systems × topics scores of ``measure`` (anything :func:`gtheory.gstudy` takes).
    measure : str
        Its name, as :func:`metrics.evaluate` knows it (the budget recomputes it under each pool depth), e.g.
        ``"nDCG@100"``.
    judged : metrics.JudgedRuns, optional
        The study's judged runs: adds the budget table (topics × pool depth). Without it the section has no budget.
        ``scores`` must then be ``metrics.evaluate(judged, measure)`` (checked: a ParameterError naming ``measure``
        otherwise, since the budget would price another measure).
    min_diff, target, tau, alpha, power, level : float
        The requirements of :func:`gtheory.plan` (the paired t-test's difference, the Φ/Eρ² target, the expected τ,
        the tests' level and power, the intervals' confidence level).
    curves : bool
        Also the data-based row (τ between disjoint random topic sets, extrapolated; ``repeats`` pairs per size,
        default 50 as :func:`gtheory.plan` and ``gtheory plan --curves``, so that both give the same row for the same
        ``seed``), default True.
    depths : sequence of int, optional
        Pool depths of the budget (default 5, 10, 20, 50, 100 up to the runs' depth).
    seed : int
        Seed of the topic sets of ``curves``; the same seed gives the same section.
    heading : str or None
        The section's title (default :data:`HEADING`; e.g. ``"7. " + HEADING``); None leaves the heading out of
        ``markdown`` and ``html`` (a host document that writes its own, as the report does).
    executor : concurrent.futures.Executor, optional
        Runs the budget's depths and the curves' sizes (:func:`experiments.topic_depth_budget`,
        :func:`gtheory.topic_curves`); the numbers do not depend on it.

    Returns
    -------
    TopicsSection
        ``markdown``, ``html``, and the ``plan`` and ``budget`` they show.
    """
    import warnings

    import gtheory
    from gtheory.gstudy import as_score_matrix

    x, systems, topics = as_score_matrix(scores)
    n_sys, n = x.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        plan = gtheory.plan(x, min_diff=min_diff, target=target, tau=tau, alpha=alpha, power=power, level=level,
                            curves=curves, repeats=repeats, seed=seed, executor=executor)
    budget = None
    if judged is not None:
        from experiments.budget import topic_depth_budget

        if judged.n_topics != n or judged.n_systems != n_sys:
            raise gtheory.ParameterError("judged", f"`judged` holds {judged.n_systems} systems × {judged.n_topics} "
                                                   f"topics but `scores` {n_sys} × {n}: give the judged runs the "
                                                   "scores were computed from.")
        import metrics

        full = metrics.evaluate(judged, measure).to_numpy(float)
        if not np.allclose(full, x, rtol=0, atol=1e-9, equal_nan=True):  # the budget would price another measure
            raise gtheory.ParameterError("measure", f"`scores` are not {measure!r} of `judged` (largest difference "
                                                    f"{np.nanmax(np.abs(full - x)):.3g}): give the measure the "
                                                    "scores hold, by a name metrics.evaluate knows.")
        if depths is None:
            depths = [d for d in _DEFAULT_DEPTHS if d <= judged.depth] or [judged.depth]
        budget = topic_depth_budget(judged, measure, depths=depths, min_diff=min_diff, target=target, power=power,
                                    alpha=alpha, executor=executor)
    from gtheory.gstudy import competitive_answer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        # the runs far below the rest, and the topics the competitive systems need beside all runs'
        competitive = competitive_answer(x, systems, topics, target)
    return _render(plan, budget, str(measure), n_sys, n, heading, competitive=competitive)


def _render(plan: "TopicPlan", budget: "TopicBudget | None", measure: str, n_sys: int, n: int,
            heading: str | None, competitive: Any = None) -> TopicsSection:
    import gtheory

    t = plan.table.set_index("method")
    phi_at, erho2_at = float(t.loc["phi", "at_pilot"]), float(t.loc["erho2", "at_pilot"])
    power_at = float(t.loc["paired-t", "at_pilot"])
    try:
        mdd = gtheory.min_detectable_difference("paired-t", n, variance=plan.variance, alpha=plan.alpha,
                                                power=plan.power)
    except ValueError:  # a degenerate variance (every system equal on every topic)
        mdd = math.nan
    # every row's interval holds its estimate (gtheory.plan); a requirement no number of topics meets is unattainable
    verdicts = {m: "unattainable" if math.isinf(r.topics) else enough(r.low, r.high, n) for m, r in t.iterrows()}
    met = [t.loc[m, "question"] for m, v in verdicts.items() if v == "yes"]
    unmet = [t.loc[m, "question"] for m, v in verdicts.items() if v == "no"]
    open_ = [t.loc[m, "question"] for m, v in verdicts.items() if v == "borderline"]
    never = [t.loc[m, "question"] for m, v in verdicts.items() if v == "unattainable"]
    short = (f"With its {n} topics the collection reaches Φ = {phi_at:.3f} and Eρ² = {erho2_at:.3f} for "
             f"{measure} ({n_sys} systems; target {plan.target:g}: {_count(t.loc['phi', 'topics'])} and "
             f"{_count(t.loc['erho2', 'topics'])} topics needed). A paired t-test on {n} topics detects a true "
             f"difference of {plan.min_diff:g} with probability {power_at:.2f} (power {plan.power:g} needs "
             f"{_count(t.loc['paired-t', 'topics'])} topics); the smallest difference it detects with power "
             f"{plan.power:g} at α = {plan.alpha:g} is {_num(mdd)}.")
    verdict = ("Big enough for: " + ("; ".join(met) if met else "none of the requirements below") + ". "
               + ("Not big enough for: " + "; ".join(unmet) + ". " if unmet else "")
               + ("Borderline (the collection's size lies inside the interval of the topics needed): "
                  + "; ".join(open_) + ". " if open_ else "")
               + ("Unattainable (no number of topics reaches it, by this pilot's estimates): "
                  + "; ".join(never) + "." if never else "")).rstrip()
    head = ["requirement", "topics needed", f"{plan.level:.0%} interval", f"at {n} topics", f"{n} topics enough?"]
    rows = [[r.question, _count(r.topics), f"[{_count(r.low)}, {_count(r.high)}]", _num(r.at_pilot),
             verdicts[r.method]] for r in plan.table.itertuples(index=False)]
    caption = (f"How many topics? {measure}, pilot {n_sys} systems × {n} topics; σ² = V_E = {plan.variance:.4g} "
               f"({plan.variance_method}). 'at {n} topics' is the coefficient, expected τ, power or expected CI "
               "width the collection's topics achieve; the two-sample row counts topics per system.")
    how = ("Each row answers its own question (the docs page \"How many topics?\" says which applies when): G-theory "
           "asks whether the systems' scores or ranking generalise to other topic sets; the tests ask whether a "
           f"chosen difference ({plan.min_diff:g}) between two systems would be detected. The intervals come from the "
           "uncertainty of the pilot's variance estimates, not from the choice of the difference.")
    md = ([f"## {markdown(heading, line_start=False)}"] if heading else []) + [
        _md_par(short, "In short."), _md_par(verdict), f"*{_md_escape(caption)}*", _md_table(head, rows), _md_par(how)]
    ht = ["<section>" + (f"<h2>{_html(heading)}</h2>" if heading else ""), _html_par(short, "In short."),
          _html_par(verdict), _html_table(head, rows, caption), _html_par(how)]
    if competitive is not None:  # gtheory.gstudy.outliers: a broken run makes the topics needed look small
        c, a = competitive.topics_needed, competitive.topics_needed_all_runs
        runs = (f"{competitive.outlying.one_line()[0].upper()}{competitive.outlying.one_line()[1:]} The "
                f"{len(competitive.systems)} best runs (all but the lowest quarter, the systems a paper compares) need "
                f"{_count(c['phi'])} topics for Φ ≥ {competitive.target:g} and {_count(c['erho2'])} for Eρ² (all "
                f"{competitive.n_systems} runs: {_count(a['phi'])} and {_count(a['erho2'])}; gtheory plan --top N "
                "for another number).")
        md.append(_md_par(runs, "Outlying runs and the competitive systems."))
        ht.append(_html_par(runs, "Outlying runs and the competitive systems."))
    if budget is not None:
        bt = budget.table
        bhead = ["pool depth", "judged per topic", "coverage", "V_E", f"topics for Φ ≥ {budget.target:g}",
                 "judgments (Φ)", f"topics for paired t (Δ ≥ {budget.min_diff:g})", "judgments (paired t)"]
        brows = [[str(int(r.depth)), _num(r.judged_per_topic, 1), _num(r.coverage), f"{r.var_residual:.4g}",
                  _count(r.phi_topics), _count(r.phi_cost), _count(r.paired_t_topics), _count(r.paired_t_cost)]
                 for r in bt.itertuples(index=False)]
        cp, ct = budget.cheapest("phi"), budget.cheapest("paired_t")
        bcap = (f"Topics × pool depth ({measure}): each depth's pool keeps the judgments of the documents some run "
                "retrieved at that rank or above; judgments = topics × judged documents per topic; coverage = share "
                "of the retrieved documents at those ranks the original qrels judged.")
        btext = (f"The cheapest way to reach Φ ≥ {budget.target:g} is {_count(cp['topics'])} topics "
                 f"judged to depth {_count(cp['depth'])} ({_count(cp['cost'])} judgments); for the paired t-test, "
                 f"{_count(ct['topics'])} topics to depth {_count(ct['depth'])} ({_count(ct['cost'])} judgments). "
                 "A deeper pool than the original qrels cannot be priced from them (coverage below 1: the cost is "
                 "a lower bound).")
        md += ["### Topics × pool depth", _md_par(btext, "The budget."), f"*{_md_escape(bcap)}*",
               _md_table(bhead, brows)]
        ht += ["<h3>Topics × pool depth</h3>", _html_par(btext, "The budget."), _html_table(bhead, brows, bcap)]
    ht.append("</section>")
    return TopicsSection("\n\n".join(md) + "\n", "\n".join(ht) + "\n", plan, budget, measure, n)


def _md_par(text: str, lead: str = "") -> str:
    """A Markdown paragraph of plain ``text``, escaped, after a bold ``lead``."""
    return (f"**{_md_escape(lead)}** " if lead else "") + _md_escape(text)


def _html_par(text: str, lead: str = "") -> str:
    """An HTML paragraph of plain ``text``, escaped, after a bold ``lead``."""
    return "<p>" + (f"<strong>{_html(lead)}</strong> " if lead else "") + _html(text) + "</p>"
