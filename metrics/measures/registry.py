"""The one table of measures: each record says, in one place, what a measure name accepts, which function of
:mod:`metrics` computes it and with which arguments, its other spellings (trec_eval's, ir_measures') and what it
reproduces.

Everything else is derived from :data:`MEASURE_SPECS`: the parser's vocabulary and aliases
(:func:`metrics.parse_measure`), the dispatch of :func:`metrics.evaluate`, :func:`metrics.measure_names`, the
trec_eval names with a cut-off in them (``P_10``, ``ndcg_cut.20``), and the tests that every measure parses,
evaluates and is documented (``tests/test_metrics_measures_registry.py``). A new measure is one :class:`MeasureSpec` here
(plus its function, its docstring and its row in ``docs/measures.md``, which that test asks for).

This module is light: it imports no measure function (the functions are looked up by name in :mod:`metrics` when a
measure is evaluated), so parsing a name loads nothing heavier than the standard library.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Union

__all__ = ["MeasureSpec", "MEASURE_SPECS", "MeasureError"]

Value = Union[int, float, bool, str]


class ParsedMeasure(Protocol):
    """What a record reads of a parsed measure (a :class:`metrics.Measure`, which the parser in
    :mod:`metrics.measures.names` builds from this table): its parameters, and its canonical string."""

    cutoff: int | None

    def param(self, key: str, default: Value | None = None) -> Value | None: ...


class MeasureError(ValueError):
    """A measure name that :func:`parse_measure` refuses for a part of it. ``str(err)`` quotes the name;
    ``err.measure`` is the name as given and ``err.problem`` the problem without it, so that a front end can name
    the measure its own way (the ``gtheory`` CLI: ``--measure nDCG@0: the cut-off must be ...``).

    >>> from metrics import parse_measure
    >>> try:
    ...     parse_measure("nDCG@0")
    ... except MeasureError as err:
    ...     print(err.measure, "|", err.problem)
    nDCG@0 | the cut-off must be a positive integer; got 0
    """

    def __init__(self, message: str, measure: str, problem: str) -> None:
        super().__init__(message)
        self.measure, self.problem = measure, problem


#: the problems of parameters that exclude or need each other in a name (MeasureError: the CLI names the measure)
_DCG_GAIN = "give either `dcg` (ir_measures) or `gain`, not both"
_P_RBP = "`p` is the persistence of discount=rbp; give discount=rbp with it"
_B_JARVELIN = "`b` is the log base of discount=jarvelin; give discount=jarvelin with it"
_REL_GAIN = "give either `rel` (binary RBP) or `gain`, not both"


def _conflict(m: ParsedMeasure, problem: str) -> Exception:
    """The :class:`MeasureError` of a name whose parameters exclude or need each other."""
    return MeasureError(f"{m}: {problem}", str(m), problem)


def _level(m: ParsedMeasure) -> dict[str, Any]:
    """``rel`` is the relevance level (trec_eval ``-l``)."""
    return {"relevance_level": m.param("rel")} if m.param("rel") is not None else {}


def _gain_discount(m: ParsedMeasure) -> dict[str, Any]:
    """The gain and discount of the DCG family: ``gain``, ``discount`` (with ``p`` for ``rbp``, ``b`` for
    ``jarvelin``), or ir_measures' ``dcg=exp-log2`` (exponential gains)."""
    if m.param("gain") is not None and m.param("dcg") is not None:
        raise _conflict(m, _DCG_GAIN)
    out: dict[str, Any] = {}
    if m.param("gain") is not None:
        out["gain"] = m.param("gain")
    if m.param("dcg") == "exp-log2":
        out["gain"] = "exponential"
    discount = m.param("discount")
    p, b = m.param("p"), m.param("b")
    if p is not None and discount != "rbp":
        raise _conflict(m, _P_RBP)
    if b is not None and discount != "jarvelin":
        raise _conflict(m, _B_JARVELIN)
    if discount == "rbp" and p is not None:
        discount = f"rbp(p={p!r})"
    elif discount == "jarvelin" and b is not None:
        discount = f"jarvelin(b={b!r})"
    if discount is not None:
        out["discount"] = discount
    return out


def _rbp(m: ParsedMeasure) -> dict[str, Any]:
    """Persistence ``p`` (default 0.8); ``rel`` is binary gain at that level, else ``gain``."""
    kw: dict[str, Any] = {"p": m.param("p", 0.8)}
    if m.param("rel") is not None:
        if m.param("gain") is not None:
            raise _conflict(m, _REL_GAIN)
        kw["gain"] = f"binary(level={float(m.param('rel'))})"
    elif m.param("gain") is not None:
        kw["gain"] = m.param("gain")
    return kw


def _q(m: ParsedMeasure) -> dict[str, Any]:
    """Sakai's ``beta`` (default 1), the relevance level and the gain."""
    kw = {"beta": m.param("beta", 1.0), **_level(m)}
    if m.param("gain") is not None:
        kw["gain"] = m.param("gain")
    return kw


def _given(*keys: str) -> Callable[[ParsedMeasure], dict[str, Any]]:
    """The parameters ``keys`` as keyword arguments of the same name, when given (else the function's default)."""
    def arguments(m: ParsedMeasure) -> dict[str, Any]:
        return {k: m.param(k) for k in keys if m.param(k) is not None}

    return arguments


@dataclass(frozen=True)
class MeasureSpec:
    """One measure: what its name accepts and how :func:`metrics.evaluate` computes it.

    Attributes
    ----------
    name : canonical name.
    params : parameter name → kind (``"number"``, ``"bool"`` or a tuple of allowed words). A measure with
        ``judged_only`` has a condensed-list form (a prime: ``AP'``).
    cutoff : ``"required"``, ``"optional"`` or ``"none"``.
    description : one line for listings.
    trec_eval : the trec_eval measure it reproduces (``""`` if none).
    function : the public function of :mod:`metrics` that computes it (``"average_precision"``), or a callable
        choosing one from the parsed measure (NumRet: ``num_rel_ret`` with ``rel``).
    arguments : the measure's parameters as that function's keyword arguments (``judged_only`` and ``cutoff`` are
        passed by :meth:`call` when the measure takes them).
    aliases : other spellings; an entry ``(alias, {param: value})`` also sets parameters (``NumRelRet`` is
        ``NumRet(rel=1)``).
    trec_cut : trec_eval's name with the cut-off in it (``"P"`` for ``P_10``/``P.10``, ``"ndcg_cut"``).
    """

    name: str
    params: dict
    cutoff: str
    description: str
    trec_eval: str = ""
    function: str | Callable[[ParsedMeasure], str] = ""
    arguments: Callable[[ParsedMeasure], dict[str, Any]] = field(default=_level, repr=False)
    aliases: tuple[str | tuple[str, Mapping[str, Value]], ...] = ()
    trec_cut: str = ""

    def function_name(self, m: ParsedMeasure) -> str:
        """The name of the function of :mod:`metrics` that computes ``m``."""
        return self.function(m) if callable(self.function) else self.function

    def call(self, m: ParsedMeasure, judged_only: bool) -> tuple[str, dict[str, Any]]:
        """The function's name and keyword arguments for ``m`` (checked against this spec by the parser) on the
        plain (``judged_only=False``) or condensed lists."""
        kw = dict(self.arguments(m))
        if m.cutoff is not None:
            kw["cutoff"] = m.cutoff
        if "judged_only" in self.params:
            kw["judged_only"] = judged_only
        return self.function_name(m), kw


_REL = {"rel": "number", "judged_only": "bool"}
_GAINS = ("linear", "exponential", "binary")
_DISCOUNTS = ("log2", "zipf", "none", "jarvelin", "linear", "rbp")
_DCG = {"gain": _GAINS, "discount": _DISCOUNTS, "p": "number", "b": "number", "judged_only": "bool"}

#: every measure name :func:`metrics.evaluate` knows: its parameters, function, spellings and trec_eval name
MEASURE_SPECS: dict[str, MeasureSpec] = {
    s.name: s
    for s in [
        MeasureSpec("AP", _REL, "optional", "average precision (AP@k: trec_eval map_cut)", "map / map_cut.k",
                    "average_precision", aliases=("map", "MAP", "AveP"), trec_cut="map_cut"),
        MeasureSpec("P", _REL, "required", "precision at k", "P.k", "precision", trec_cut="P"),
        MeasureSpec("Rprec", _REL, "none", "R-precision", "Rprec", "r_precision", aliases=("R-prec",)),
        MeasureSpec("Bpref", _REL, "none", "bpref as trec_eval (min(R, N) denominators)", "bpref", "bpref",
                    aliases=("bpref",)),
        MeasureSpec("bpref10", _REL, "none", "bpref-10 (Buckley & Voorhees; Ahlgren & Grönqvist eq. 4)", "",
                    "bpref_10", aliases=("bpref-10", "bpref_10")),
        MeasureSpec("bpref_R", _REL, "none", "bpref with R denominators (Buckley & Voorhees eq. 1)", "", "bpref_r"),
        MeasureSpec("bpref_N", _REL, "none", "bpref_N: all judged non-relevant, scaled by N (Sakai 2007)", "",
                    "bpref_n"),
        MeasureSpec("RankEff", _REL, "none", "RankEff (Ahlgren & Grönqvist eq. 5)", "", "rank_eff",
                    aliases=("rankeff",)),
        MeasureSpec("infAP", _REL, "none", "inferred AP as trec_eval", "infAP", "inferred_ap", aliases=("infap",)),
        MeasureSpec("RR", _REL, "optional", "reciprocal rank of the first relevant document (RR@k: within the top k)",
                    "recip_rank", "reciprocal_rank", aliases=("recip_rank", "MRR")),
        MeasureSpec("nDCG", {"dcg": ("log2", "exp-log2"), **_DCG}, "optional", "normalised DCG (metrics.ndcg)",
                    "ndcg / ndcg_cut.k", "ndcg", _gain_discount, aliases=("ndcg", "NDCG"), trec_cut="ndcg_cut"),
        MeasureSpec("DCG", _DCG, "optional", "DCG, unnormalised", "", "dcg", _gain_discount),
        MeasureSpec("nCG", {"gain": _GAINS, "judged_only": "bool"}, "optional", "normalised cumulated gain", "",
                    "ncg", _gain_discount),
        MeasureSpec("AnDCG", _DCG, "required", "nDCG averaged over ranks 1..k (Sakai 2007)", "", "andcg",
                    _gain_discount),
        MeasureSpec("RBP", {"p": "number", "rel": "number", "gain": _GAINS, "judged_only": "bool"}, "optional",
                    "rank-biased precision, graded", "", "rbp", _rbp),
        MeasureSpec("RBP_residual", {"p": "number", "judged_only": "bool"}, "optional",
                    "RBP residual (unjudged + tail)", "", "rbp_residual", lambda m: {"p": m.param("p", 0.8)},
                    aliases=("RBP_resid", "rbp_resid")),
        MeasureSpec("Q", {"beta": "number", "rel": "number", "gain": _GAINS, "judged_only": "bool"}, "none",
                    "Q-measure (Sakai)", "", "q_measure", _q, aliases=("Q-measure", "Qmeasure")),
        MeasureSpec("Rmeasure", {"beta": "number", "rel": "number", "gain": _GAINS, "judged_only": "bool"}, "none",
                    "R-measure (Sakai)", "", "r_measure", _q, aliases=("R-measure",)),
        MeasureSpec("R", _REL, "required", "recall at k: relevant documents in the top k / R", "recall.k", "recall",
                    aliases=("Recall", "recall"), trec_cut="recall"),
        MeasureSpec("Success", _REL, "required", "1 if a relevant document is in the top k, else 0", "success.k",
                    "success", aliases=("success",), trec_cut="success"),
        MeasureSpec("ERR", {"max_grade": "number", "judged_only": "bool"}, "optional",
                    "expected reciprocal rank (Chapelle et al. 2009; gdeval.pl, max_grade=4)", "", "err",
                    _given("max_grade"), aliases=("err",)),
        # a property of the original list: no condensed form
        MeasureSpec("Judged", {}, "optional", "share of the top k that has a judgment (as ir_measures)", "",
                    "judged_at_k", _given()),
        MeasureSpec("NumRel", {"rel": "number"}, "none", "relevant documents of the topic (R)", "num_rel", "num_rel",
                    aliases=("num_rel",)),
        MeasureSpec("NumRet", _REL, "none",
                    "documents retrieved; with rel (NumRet(rel=1) = NumRelRet), relevant documents retrieved",
                    "num_ret / num_rel_ret", lambda m: "num_rel_ret" if m.param("rel") is not None else "num_ret",
                    aliases=("num_ret", ("NumRelRet", {"rel": 1}), ("num_rel_ret", {"rel": 1}))),
    ]
}
