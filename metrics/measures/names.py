"""Measure names: an immutable, hashable :class:`Measure` value parsed from ir_measures-style text, without ``eval``.

Grammar (``[]`` optional, ``{}`` repeated)::

    measure := name ["'"] ["(" [param {"," param}] ")"] ["@" cutoff]
    param   := key "=" value          value := number | True | False | word
    cutoff  := positive integer

Examples: ``AP``, ``P@10``, ``Rprec``, ``RR@10``, ``Bpref``, ``infAP``, ``nDCG@20``, ``RBP(p=0.8)``,
``RBP(p=0.95,rel=2)``, ``Q(beta=1)``, ``RankEff``, ``bpref10``, ``AP'`` (the prime, also ``′``, means
``judged_only=True``: AP′ of Sakai 2007), ``R@100``, ``Success@10``, ``ERR@20``, ``Judged@10``, ``NumRel``,
``NumRet``, ``NumRelRet``. trec_eval names are accepted as aliases, as given to ``trec_eval -m`` (``P.10``,
``ndcg_cut.20``, ``map_cut.100``, ``recall.100``, ``success.10``) or as it prints them (``P_10``, ``ndcg_cut_20``,
``recall_100``), and ``map``, ``bpref``, ``ndcg``, ``recip_rank``, ``num_rel``, ``num_ret``, ``num_rel_ret``; so are
ir_measures' ``MRR`` for ``RR``, ``Recall`` for ``R``, and ir_measures measure objects (``ir_measures.nDCG@10``).
The canonical string, as in ir_measures, is the name, the parameters sorted by key, and the cut-off:
``str(parse_measure("RBP(rel=2, p=.8)")) == "RBP(p=0.8,rel=2)"``.

The vocabulary — each measure's parameters, whether it takes a cut-off, its other spellings and the function behind
it — is :data:`MEASURE_SPECS`, the one table of :mod:`metrics.measures.registry`; the parser derives its aliases from it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .registry import MEASURE_SPECS, MeasureError, MeasureSpec, Value

__all__ = ["Measure", "MeasureSpec", "MEASURE_SPECS", "MeasureError", "parse_measure", "from_ir_measures", "GRAMMAR"]


GRAMMAR = (
    "measure := name [\"'\"] [\"(\" [key=value {\",\" key=value}] \")\"] [\"@\" cutoff], "
    "e.g. AP, P@10, nDCG@20, RBP(p=0.8), Q(beta=1), AP'"
)


#: alias → (canonical name, parameters the alias sets), derived from the registry's records
_ALIASES: dict[str, tuple[str, dict[str, Value]]] = {
    (a if isinstance(a, str) else a[0]): (spec.name, {} if isinstance(a, str) else dict(a[1]))
    for spec in MEASURE_SPECS.values() for a in spec.aliases
}
# trec_eval names with the cut-off in the name: P_10, ndcg_cut_20, map_cut_100, recall_100, success_10 (trec_eval's
# output keys) or, as given to trec_eval -m, P.10, ndcg_cut.20, recall.100 (the registry's ``trec_cut``)
_CUT_ALIASES = {spec.trec_cut: spec.name for spec in MEASURE_SPECS.values() if spec.trec_cut}
#: trec_eval cut names that mean nothing without their cut-off (``ndcg_cut``, ``map_cut``)
_CUT_ONLY = tuple(c for c in _CUT_ALIASES if c not in MEASURE_SPECS and c not in _ALIASES)
_CUT_NAME = re.compile(rf"^({'|'.join(map(re.escape, _CUT_ALIASES))})_(\d+)$")
_TREC_DOT = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z_]*)\.(?P<cuts>\d+(?:\s*,\s*\d+)*)\s*$")

#: every spelling of a measure name the parser knows (canonical names, aliases, trec_eval cut names), by its
#: case-folded form: a name in another case is read as the one spelling it folds to (``mrr`` → ``MRR``)
_SPELLINGS: dict[str, list[str]] = {}
for _s in (*MEASURE_SPECS, *_ALIASES, *_CUT_ALIASES):
    if _s not in _SPELLINGS.setdefault(_s.casefold(), []):
        _SPELLINGS[_s.casefold()].append(_s)


def _meaning(spelling: str) -> tuple:
    """What a known spelling means: the canonical name and the parameters it sets (a cut name: its measure)."""
    if spelling in MEASURE_SPECS:
        return (spelling, ())
    if spelling in _ALIASES:
        name, implied = _ALIASES[spelling]
        return (name, tuple(sorted(implied.items())))
    return (_CUT_ALIASES[spelling], ("cut",))


def _fold_case(name: str) -> str:
    """``name`` as the parser knows it: unchanged when it is a known spelling, else the one known spelling it equals
    ignoring case (``mrr`` → ``MRR``, ``NDCG_CUT_10`` → ``ndcg_cut_10``), as trec_eval and ir_measures users write
    them. Spellings that differ only in case and mean different measures are refused, naming them; an unknown name
    is returned unchanged (the caller reports it)."""
    if name in MEASURE_SPECS or name in _ALIASES or _CUT_NAME.match(name) or name in _CUT_ONLY:
        return name
    tail = re.search(r"_\d+$", name)
    for base, rest in ((name, ""), *(((name[:tail.start()], tail.group()),) if tail else ())):
        found = _SPELLINGS.get(base.casefold(), [])
        if rest:
            found = [f for f in found if f in _CUT_ALIASES]
        if not found:
            continue
        if len({_meaning(f) for f in found}) > 1:
            raise ValueError(f"measure name {name!r} is ambiguous ignoring case: it could be "
                             f"{' or '.join(f + rest for f in found)}; write it in one of these cases")
        return found[0] + rest
    return name


_MEASURE = re.compile(
    r"""^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?P<prime>['′])?\s*
        (?:\(\s*(?P<params>[^()]*?)\s*\))?\s*
        (?:@\s*(?P<cutoff>[^\s]+))?\s*$""",
    re.VERBOSE,
)
_PARAM = re.compile(r"^\s*(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?P<value>[^=,\s]+)\s*$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_\-.]*$")


def _format(value: Value) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return str(value)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: canonical ``name``, sorted ``params`` (``(key, value)`` pairs) and ``cutoff``.

    Immutable and hashable; equal measures have equal canonical strings. Build one with :func:`parse_measure` (or
    :meth:`Measure.parse`), which checks the name, parameters and cut-off against :data:`MEASURE_SPECS`.

    Examples
    --------
    >>> from metrics import parse_measure
    >>> m = parse_measure("RBP(rel=2, p=.80)@100")
    >>> str(m), m.param("p"), m.cutoff
    ('RBP(p=0.8,rel=2)@100', 0.8, 100)
    >>> parse_measure("P_10") == parse_measure("P@10")
    True
    """

    name: str
    params: tuple[tuple[str, Value], ...] = ()
    cutoff: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(sorted((str(k), v) for k, v in dict(self.params).items())))

    def __str__(self) -> str:
        body = f"({','.join(f'{k}={_format(v)}' for k, v in self.params)})" if self.params else ""
        at = f"@{self.cutoff}" if self.cutoff is not None else ""
        return f"{self.name}{body}{at}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def param(self, key: str, default: Value | None = None) -> Value | None:
        """The value of parameter ``key``, or ``default`` when it was not given."""
        return dict(self.params).get(key, default)

    @property
    def spec(self) -> MeasureSpec:
        return MEASURE_SPECS[self.name]

    @classmethod
    def parse(cls, text: str) -> "Measure":
        return parse_measure(text)


def _value(text: str, key: str, kind, source: str) -> Value:
    low = text.lower()
    if kind == "bool":
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueError(f"parameter `{key}` in {source!r} must be True or False; got {text!r}")
    if kind == "number":
        if not _NUMBER.match(text):
            raise ValueError(f"parameter `{key}` in {source!r} must be a number; got {text!r}")
        x = float(text)
        if not math.isfinite(x):  # 1e999: the one check of family parameters names it (metrics.measures.families)
            from .families import check_parameter

            check_parameter(x, key, f"measure {source!r}")
        return int(x) if x.is_integer() and abs(x) < 2**53 else x
    if len(text) > 2 and text[0] == text[-1] and text[0] in "'\"":  # ir_measures prints dcg='exp-log2'
        text = text[1:-1]
    if not _WORD.match(text) or text not in kind:
        raise ValueError(f"parameter `{key}` in {source!r} must be one of {', '.join(kind)}; got {text!r}")
    return text


def known_names() -> str:
    return ", ".join(MEASURE_SPECS)


def from_ir_measures(measure: object) -> str:
    """The text of an ir_measures measure object (``ir_measures.nDCG@10``, ``ir_measures.R@100``, …), built from its
    ``NAME`` and ``params`` — no import of ir_measures. A parameter that is not a number, a bool or a word (e.g.
    nDCG's ``gains`` dict) cannot be written in the grammar and is refused."""
    name, params = getattr(measure, "NAME"), dict(getattr(measure, "params"))
    cutoff = params.pop("cutoff", None)
    parts = []
    for key, value in params.items():
        if isinstance(value, bool) or isinstance(value, (int, float)) or (isinstance(value, str) and _WORD.match(value)):
            parts.append(f"{key}={_format(value) if not isinstance(value, str) else value}")
        else:
            raise ValueError(
                f"the ir_measures measure {measure} has parameter `{key}`={value!r}, which has no equivalent here; "
                f"known measures and parameters: see metrics.MEASURE_SPECS (for custom nDCG gains use "
                f"metrics.ndcg(judged, gain=[...]))"
            )
    return f"{name}{'(' + ','.join(parts) + ')' if parts else ''}{'' if cutoff is None else f'@{cutoff}'}"


def _is_ir_measures(measure: object) -> bool:
    return isinstance(getattr(measure, "NAME", None), str) and isinstance(getattr(measure, "params", None), dict)


def parse_measure(text: str | Measure | object) -> Measure:
    """Parse a measure name such as ``"nDCG@20"`` or ``"RBP(p=0.8)"`` into a :class:`Measure` (no ``eval``).

    Parameters
    ----------
    text : the measure, in the grammar of the module docstring; or a trec_eval name as given to ``trec_eval -m``
        (``P.10``, ``ndcg_cut.10``, ``recall.100``, ``success.10``, ``map``, ``recip_rank``, ``num_rel_ret`` …) or as
        it prints them (``P_10``, ``ndcg_cut_10``); or an ir_measures measure object (``ir_measures.nDCG@10``,
        ``ir_measures.R@100``, ``ir_measures.RR(rel=2)@10``: read from its name and parameters, ir_measures is not
        imported); or a :class:`Measure` (checked and returned).

    Returns
    -------
    Measure
        with the canonical name (aliases such as ``map``, ``P_10`` or ``ndcg_cut.10`` resolved) and typed parameters.
        The canonical string is ir_measures' where ir_measures has the measure (``NumRelRet`` is ``NumRet(rel=1)``
        there and here).

    Raises
    ------
    TypeError
        ``text`` is neither a string, a :class:`Measure` nor an ir_measures measure.
    ValueError
        Text that does not follow the grammar (the message shows it), an unknown name (the message lists the known
        ones), an unknown or ill-typed parameter, a cut-off the measure requires, forbids or that is not a
        positive integer, or a trec_eval list of cut-offs (``P.5,10``: one measure per name); a cut-off that is not a
        positive integer is a :class:`MeasureError` (``err.measure``, ``err.problem``).
    """
    if isinstance(text, Measure):
        return parse_measure(str(text))
    if not isinstance(text, str) and _is_ir_measures(text):
        return parse_measure(from_ir_measures(text))
    if not isinstance(text, str):
        raise TypeError(
            f"a measure must be a string such as 'AP' or 'nDCG@10', a metrics.Measure or an ir_measures measure "
            f"(ir_measures.nDCG@10); got {type(text).__name__}"
        )
    dot = _TREC_DOT.match(text)
    if dot:
        cuts = [c.strip() for c in dot.group("cuts").split(",")]
        if len(cuts) > 1:
            one = ", ".join(f"{dot.group('name')}.{c}" for c in cuts)
            raise ValueError(f"{text!r} names {len(cuts)} measures (trec_eval -m syntax); give them one by one: {one}")
        text_in, text = text, f"{dot.group('name')}_{cuts[0]}"
    else:
        text_in = text
    m = _MEASURE.match(text)
    if not m:
        raise ValueError(f"cannot parse measure {text_in!r}; expected {GRAMMAR}")
    name = _fold_case(m.group("name"))
    cutoff_text = m.group("cutoff")
    cm = _CUT_NAME.match(name)
    if cm and cutoff_text is None:
        name, cutoff_text = _CUT_ALIASES[cm.group(1)], cm.group(2)
    elif name in _CUT_ONLY:
        raise ValueError(f"trec_eval's {name} needs a cut-off here, e.g. {name}.10 (= {_CUT_ALIASES[name]}@10); got {text_in!r}")
    name, implied = _ALIASES.get(name, (name, {}))
    if name not in MEASURE_SPECS:
        raise ValueError(f"unknown measure {m.group('name')!r} in {text_in!r}; known measures: {known_names()}")
    text = text_in
    spec = MEASURE_SPECS[name]
    params: dict[str, Value] = {}
    body = m.group("params")
    if body:
        for part in body.split(","):
            pm = _PARAM.match(part)
            if not pm:
                raise ValueError(f"cannot parse parameter {part.strip()!r} in {text!r}; expected key=value ({GRAMMAR})")
            key = pm.group("key")
            if key not in spec.params:
                allowed = ", ".join(spec.params) or "none"
                raise ValueError(f"measure {name} takes parameters ({allowed}); got `{key}` in {text!r}")
            if key in params:
                raise ValueError(f"parameter `{key}` given twice in {text!r}")
            params[key] = _value(pm.group("value"), key, spec.params[key], text)
    for key, value in implied.items():  # NumRelRet = NumRet(rel=1)
        params.setdefault(key, value)
    if m.group("prime"):
        if "judged_only" not in spec.params:
            raise ValueError(f"measure {name} has no condensed-list form (a prime, judged_only); got {text!r}")
        if params.get("judged_only") is False:
            raise ValueError(f"{text!r} has a prime (judged_only) and judged_only=False")
        params["judged_only"] = True
    cutoff: int | None = None
    if cutoff_text is not None:
        if not (cutoff_text.isascii() and cutoff_text.isdigit()) or int(cutoff_text) < 1:
            raise MeasureError(f"the cut-off in {text!r} must be a positive integer; got {cutoff_text!r}", text,
                               f"the cut-off must be a positive integer; got {cutoff_text}")
        cutoff = int(cutoff_text)
    if spec.cutoff == "required" and cutoff is None:
        raise ValueError(f"measure {name} needs a cut-off, e.g. {name}@10; got {text!r}")
    if spec.cutoff == "none" and cutoff is not None:
        raise ValueError(f"measure {name} takes no cut-off; got {text!r}")
    return Measure(name, tuple(params.items()), cutoff)
