"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount)."""
__gtheory_package__ = "metrics"  # marker the sibling packages check (gtheory/kit/siblings.py)

from typing import TYPE_CHECKING as _TYPE_CHECKING

try:  # metrics needs gtheory.kit: a module of the user's project may shadow gtheory (gtheory/kit/siblings.py)
    from gtheory.kit.lazy import lazy_package as _lazy_package
except ImportError:
    import importlib.util as _u, pathlib as _p  # `gtheory` shadowed? Its guard, from its file beside us, says by what
    _s = _u.spec_from_file_location("gtheory_guard", _p.Path(__file__).resolve().parents[1] / "gtheory/kit/siblings.py")
    _g = _u.module_from_spec(_s); _s.loader.exec_module(_g); _g.explain_shadowed_gtheory("metrics")  # noqa: E702
    raise

if _TYPE_CHECKING:  # the names below, imported on first use (PEP 562) so that the import stays cheap
    from gtheory.kit.errors import FixableError, FixableWarning
    from .datasets import load_trec9
    from .discounts import DISCOUNT_FAMILIES, discount_vector, read_discount
    from .gains import GAIN_FAMILIES, gain_vector
    from ._grades import FractionalGradeWarning
    from .coverage import Coverage, InputMismatchError, LowCoverageWarning
    from .inputs import InputFormatError
    from .judged import ABSENT, UNJUDGED, DepthWarning, JudgedRuns, judge
    from .ndcg import dcg_parts, ideal_gains, ndcg
    from .trec_lines import TrecFormatError
    from .trec_qrels import Qrels, read_qrels
    from .trec_runs import Run, RunSet, read_run, read_runs
    from .ap import average_precision
    from .bpref import bpref, bpref_10, bpref_n, bpref_r, rank_eff
    from .cg import andcg, dcg, ncg
    from .counts import judged_at_k, num_rel, num_rel_ret, num_ret
    from .err import err
    from .evaluate import evaluate, measure_names
    from .evaluation import Evaluation
    from .infap import inferred_ap
    from .measures import MEASURE_SPECS, Measure, MeasureError, parse_measure
    from .precision import precision, r_precision
    from .qmeasure import q_measure, r_measure
    from .rbp import rbp, rbp_residual
    from .reduce import reduce_qrels, reduction_mask
    from .recall import recall, success
    from .rr import reciprocal_rank

#: each submodule and the public names it defines (the imports above, for type checkers)
_EXPORTS: dict[str, tuple[str, ...]] = {
    'gtheory.kit.errors': ('FixableError', 'FixableWarning'),
    'datasets': ('load_trec9',),
    'discounts': ('DISCOUNT_FAMILIES', 'discount_vector', 'read_discount'),
    'gains': ('GAIN_FAMILIES', 'gain_vector'),
    '_grades': ('FractionalGradeWarning',),
    'coverage': ('Coverage', 'InputMismatchError', 'LowCoverageWarning'),
    'inputs': ('InputFormatError',),
    'judged': ('ABSENT', 'UNJUDGED', 'DepthWarning', 'JudgedRuns', 'judge'),
    'ndcg': ('dcg_parts', 'ideal_gains', 'ndcg'),
    'trec_lines': ('TrecFormatError',),
    'trec_qrels': ('Qrels', 'read_qrels'),
    'trec_runs': ('Run', 'RunSet', 'read_run', 'read_runs'),
    'ap': ('average_precision',),
    'bpref': ('bpref', 'bpref_10', 'bpref_n', 'bpref_r', 'rank_eff'),
    'cg': ('andcg', 'dcg', 'ncg'),
    'counts': ('judged_at_k', 'num_rel', 'num_rel_ret', 'num_ret'),
    'err': ('err',),
    'evaluate': ('evaluate', 'measure_names'),
    'evaluation': ('Evaluation',),
    'infap': ('inferred_ap',),
    'measures': ('MEASURE_SPECS', 'Measure', 'MeasureError', 'parse_measure'),
    'precision': ('precision', 'r_precision'),
    'qmeasure': ('q_measure', 'r_measure'),
    'rbp': ('rbp', 'rbp_residual'),
    'reduce': ('reduce_qrels', 'reduction_mask'),
    'recall': ('recall', 'success'),
    'rr': ('reciprocal_rank',),
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

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
    "Evaluation",
    "Measure",
    "MeasureError",
    "MEASURE_SPECS",
    "parse_measure",
    "reduction_mask",
    "reduce_qrels",
]
