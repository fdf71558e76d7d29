"""metrics: TREC runs and qrels, the judged-grade tensor, and IR measures on it (nDCG with any gain and discount); two
rooms, metrics.io (what is read and judged) and metrics.measures (the measures and their names)."""
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
    "DISCOUNT_FAMILIES": "measures.discounts", "discount_vector": "measures.discounts",
    "read_discount": "measures.discounts",
    "GAIN_FAMILIES": "measures.gains", "gain_vector": "measures.gains",
    "ndcg": "measures.ndcg", "dcg_parts": "measures.ndcg", "ideal_gains": "measures.ndcg",
    "ABSENT": "io._grades", "UNJUDGED": "io._grades", "JudgedRuns": "io.judged", "judge": "io.judge",
    "Qrels": "io.trec_qrels",
    "Run": "io.trec_runs", "RunSet": "io.trec_runs",
    "TrecFormatError": "io.trec_lines",
    "InputFormatError": "io.inputs",
    "Coverage": "io.coverage", "InputMismatchError": "io.coverage", "LowCoverageWarning": "io.coverage",
    "DepthWarning": "io.judge",
    "FractionalGradeWarning": "io._grades",
    "FixableError": "gtheory.kit.errors", "FixableWarning": "gtheory.kit.errors",
    "read_qrels": "io.trec_qrels",
    "read_run": "io.trec_runs", "read_runs": "io.trec_runs",
    "average_precision": "measures.ap",
    "precision": "measures.precision", "r_precision": "measures.precision",
    "reciprocal_rank": "measures.rr",
    "bpref": "measures.bpref", "bpref_10": "measures.bpref", "bpref_r": "measures.bpref", "bpref_n": "measures.bpref",
    "rank_eff": "measures.bpref",
    "inferred_ap": "measures.infap",
    "rbp": "measures.rbp", "rbp_residual": "measures.rbp",
    "q_measure": "measures.qmeasure", "r_measure": "measures.qmeasure",
    "dcg": "measures.cg", "ncg": "measures.cg", "andcg": "measures.cg",
    "recall": "measures.recall", "success": "measures.recall",
    "err": "measures.err",
    "judged_at_k": "measures.counts", "num_rel": "measures.counts", "num_ret": "measures.counts",
    "num_rel_ret": "measures.counts",
    "evaluate": "measures.evaluate", "measure_names": "measures.evaluate",
    "Evaluation": "measures.evaluation",
    "Measure": "measures.names", "MeasureError": "measures.registry", "MEASURE_SPECS": "measures.registry",
    "parse_measure": "measures.names",
    "reduction_mask": "io.reduce", "reduce_qrels": "io.reduce",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
