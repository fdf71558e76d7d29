"""metrics.io: what is read and what is judged — TREC text, runs and qrels from files or memory, and the judged-grade
tensor built from them. trec_lines: TREC text lines and TrecFormatError; _columns: byte-level columns of a text file;
inputs: runs and qrels in memory (DataFrames, dicts, named tuples) as checked columns; trec_qrels: Qrels and
read_qrels; trec_runs: Run, RunSet, read_run and read_runs; _grades: what a grade code means (trec_eval's
pooled-unjudged grades, the fractional-grade policy); judged: the tensor JudgedRuns and its views; saved: its file
format (save and load); _build: indexing qrels and judging run rows into a tensor (worker processes); judge: judge(),
runs x qrels -> tensor, with its checks; coverage: the judged share of what the runs retrieved; reduce: reduced qrels
(stratified shares of the judgments)."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "check_judged": "judged", "pooled_unjudged": "_grades", "utf16_kind": "trec_lines",
    "coverage_warnings": "coverage",
    "Rounding": "reduce", "check_fractions": "reduce", "reduction_masks": "reduce", "stratify": "reduce",
})
