"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount)."""
from .datasets import load_trec9
from .discounts import DISCOUNT_FAMILIES, discount_vector
from .gains import GAIN_FAMILIES, gain_vector
from .judged import ABSENT, UNJUDGED, JudgedRuns, judge
from .ndcg import dcg_parts, ideal_gains, ndcg
from .trecio import Qrels, Run, RunSet, TrecFormatError, read_qrels, read_run, read_runs

__all__ = [
    "load_trec9",
    "DISCOUNT_FAMILIES",
    "discount_vector",
    "GAIN_FAMILIES",
    "gain_vector",
    "ndcg",
    "dcg_parts",
    "ideal_gains",
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
