"""``gtheory demo``, ``gtheory report`` and ``gtheory report --quick`` reach the same decision on TREC-9 (issue
"advice a user can follow": one engine and one rule behind every entry point; ``--quick`` may decline to decide).

Each entry point runs for real up to its call of :func:`optimize.recommend` on the discount; a spy records the
arguments and the returned recommendation and then stops the study (what follows the verdict — the tuning tables,
figures — does not change it, and would cost minutes). What is compared is what the user reads: the decision
(adopt or keep), the configuration to use and the verdict's text.
"""
from __future__ import annotations

import pytest

import optimize
from experiments.report import ReportSettings, run_study
from experiments.study import demo_study


class _Stop(Exception):
    """Raised by the spy once the discount verdict is recorded."""


def _discount_verdict(monkeypatch, entry) -> tuple[dict, optimize.Recommendation]:
    real = optimize.recommend
    seen: list = []

    def spy(judged, **kw):
        rec = real(judged, **kw)
        seen.append((kw, rec))
        if kw.get("what", "discount") == "discount":
            raise _Stop
        return rec

    monkeypatch.setattr(optimize, "recommend", spy)
    with pytest.raises(_Stop):
        entry()
    monkeypatch.undo()
    assert len(seen) == 1, "the discount verdict is each entry point's first call of recommend"
    return seen[0]


def test_demo_report_and_quick_report_decide_alike_on_trec9(monkeypatch, embedded_trec9):
    demo_kw, demo = _discount_verdict(monkeypatch, lambda: demo_study(embedded_trec9, progress=False))
    report_kw, report = _discount_verdict(monkeypatch, lambda: run_study(embedded_trec9, settings=ReportSettings.default()))
    quick_kw, quick = _discount_verdict(monkeypatch, lambda: run_study(embedded_trec9, quick=True))

    # the full demo and the full report: one decision, one configuration, one verdict as the user reads it
    assert demo.decided and report.decided
    assert (demo.adopt, demo.measure, demo.label) == (report.adopt, report.measure, report.label)
    assert demo.verdict == report.verdict
    for kw in (demo_kw, report_kw):  # the same question: nDCG@100, seed 0, 10 outer splits, target 0.95
        assert (kw["cutoff"], kw["seed"], kw["n_splits"], kw["target"]) == (100, 0, 10, 0.95)

    # --quick has 3 outer splits: it must decline rather than contradict the full runs
    from optimize.recommend.nested import MIN_SPLITS

    assert quick_kw["n_splits"] < MIN_SPLITS
    assert not quick.decided and not quick.adopt
    assert "too few splits to decide" in quick.verdict
    assert quick.measure == "nDCG(discount=log2,gain=linear)@100"  # it keeps the baseline, bit for bit
