"""Embedded data shipped with the package (see ``metrics/data/README.md`` for provenance)."""
from __future__ import annotations

from importlib import resources

from .io import JudgedRuns

__all__ = ["load_trec9", "TREC9_DESCRIPTION"]

TREC9_DESCRIPTION = (
    "TREC-9 Web ad hoc (WT10g, topics 451-500): 104 submitted runs x 50 topics x 1000 ranks, grades 0/1/2 "
    "(the TREC 9 data of Kanoulas & Aslam, CIKM 2009; 104 of the paper's 105 runs)"
)


def load_trec9() -> JudgedRuns:
    """The embedded TREC-9 Web judged-grade tensor (104 systems × 50 topics × 1000 ranks, grades 0/1/2).

    Derived data only (grades per rank, judged-document ids per topic, labels); no docnos or scores. Built from the
    NIST runs and qrels with :func:`metrics.judge` (trec_eval order); see ``metrics/data/README.md``.
    """
    with resources.as_file(resources.files("metrics") / "data" / "trec9_web.npz.xz") as p:
        j = JudgedRuns.load(p)
    j.report["description"] = TREC9_DESCRIPTION
    return j
