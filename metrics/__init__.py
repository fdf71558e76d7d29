"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount)."""
__gtheory_package__ = "metrics"  # marker the sibling packages check (gtheory/kit/siblings.py)

from .datasets import load_trec9
from .discounts import DISCOUNT_FAMILIES, discount_vector, read_discount
from .gains import GAIN_FAMILIES, gain_vector
from .fixes import FixableError, FixableWarning
from ._grades import FractionalGradeWarning
from .coverage import Coverage, InputMismatchError, LowCoverageWarning
from .inputs import InputFormatError
from .judged import ABSENT, UNJUDGED, DepthWarning, JudgedRuns, judge
from .ndcg import dcg_parts, ideal_gains, ndcg
from .trecio import Qrels, Run, RunSet, TrecFormatError, read_qrels, read_run, read_runs
from .ap import average_precision
from .bpref import bpref, bpref_10, bpref_n, bpref_r, rank_eff
from .cg import andcg, dcg, ncg
from .counts import judged_at_k, num_rel, num_rel_ret, num_ret
from .err import err
from .evaluate import evaluate, measure_names
from .infap import inferred_ap
from .measures import MEASURE_SPECS, Measure, MeasureError, parse_measure
from .precision import precision, r_precision
from .qmeasure import q_measure, r_measure
from .rbp import rbp, rbp_residual
from .reduce import reduce_qrels, reduction_mask
from .recall import recall, success
from .rr import reciprocal_rank

__all__ = [
    "load_trec9",
    "DISCOUNT_FAMILIES",
    "discount_vector",
    "read_discount",
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
    "InputFormatError",
    "Coverage",
    "InputMismatchError",
    "LowCoverageWarning",
    "DepthWarning",
    "FractionalGradeWarning",
    "FixableError",
    "FixableWarning",
    "read_qrels",
    "read_run",
    "read_runs",
    "average_precision",
    "precision",
    "r_precision",
    "reciprocal_rank",
    "bpref",
    "bpref_10",
    "bpref_r",
    "bpref_n",
    "rank_eff",
    "inferred_ap",
    "rbp",
    "rbp_residual",
    "q_measure",
    "r_measure",
    "dcg",
    "ncg",
    "andcg",
    "recall",
    "success",
    "err",
    "judged_at_k",
    "num_rel",
    "num_ret",
    "num_rel_ret",
    "evaluate",
    "measure_names",
    "Measure",
    "MeasureError",
    "MEASURE_SPECS",
    "parse_measure",
    "reduction_mask",
    "reduce_qrels",
]
