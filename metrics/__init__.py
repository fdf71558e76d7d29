"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount)."""
from .judged import ABSENT, UNJUDGED, JudgedRuns, judge
from .trecio import Qrels, Run, RunSet, TrecFormatError, read_qrels, read_run, read_runs

__all__ = [
    "ABSENT",
    "UNJUDGED",
    "JudgedRuns",
    "judge",
    "Qrels",
    "Run",
    "RunSet",
    "TrecFormatError",
    "read_qrels",
    "read_run",
    "read_runs",
]
