"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount)."""
__gtheory_package__ = "metrics"  # marker the sibling packages check (gtheory/kit/siblings.py)

try:  # metrics needs gtheory.kit: a module of the user's project may shadow gtheory (gtheory/kit/siblings.py)
    from gtheory.kit.lazy import lazy_package as _lazy_package
except ImportError:
    import importlib.util as _u, pathlib as _p  # `gtheory` shadowed? Its guard, from its file beside us, says by what
    _s = _u.spec_from_file_location("gtheory_guard", _p.Path(__file__).resolve().parents[1] / "gtheory/kit/siblings.py")
    _g = _u.module_from_spec(_s); _s.loader.exec_module(_g); _g.explain_shadowed_gtheory("metrics")  # noqa: E702
    raise

#: every public name and the module that defines it, in the documented order: the one list of the public names
#: (``__all__`` is its keys; each name is imported from its module on first use, PEP 562, so that the import
#: stays cheap)
_EXPORTS: dict[str, str] = {
    "load_trec9": "datasets",
    "DISCOUNT_FAMILIES": "discounts", "discount_vector": "discounts", "read_discount": "discounts",
    "GAIN_FAMILIES": "gains", "gain_vector": "gains",
    "ndcg": "ndcg", "dcg_parts": "ndcg", "ideal_gains": "ndcg",
    "ABSENT": "judged", "UNJUDGED": "judged", "JudgedRuns": "judged", "judge": "judged",
    "Qrels": "trec_qrels",
    "Run": "trec_runs", "RunSet": "trec_runs",
    "TrecFormatError": "trec_lines",
    "InputFormatError": "inputs",
    "Coverage": "coverage", "InputMismatchError": "coverage", "LowCoverageWarning": "coverage",
    "DepthWarning": "judged",
    "FractionalGradeWarning": "_grades",
    "FixableError": "gtheory.kit.errors", "FixableWarning": "gtheory.kit.errors",
    "read_qrels": "trec_qrels",
    "read_run": "trec_runs", "read_runs": "trec_runs",
    "average_precision": "ap",
    "precision": "precision", "r_precision": "precision",
    "reciprocal_rank": "rr",
    "bpref": "bpref", "bpref_10": "bpref", "bpref_r": "bpref", "bpref_n": "bpref", "rank_eff": "bpref",
    "inferred_ap": "infap",
    "rbp": "rbp", "rbp_residual": "rbp",
    "q_measure": "qmeasure", "r_measure": "qmeasure",
    "dcg": "cg", "ncg": "cg", "andcg": "cg",
    "recall": "recall", "success": "recall",
    "err": "err",
    "judged_at_k": "counts", "num_rel": "counts", "num_ret": "counts", "num_rel_ret": "counts",
    "evaluate": "evaluate", "measure_names": "evaluate",
    "Evaluation": "evaluation",
    "Measure": "measures", "MeasureError": "measures", "MEASURE_SPECS": "measures", "parse_measure": "measures",
    "reduction_mask": "reduce", "reduce_qrels": "reduce",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
