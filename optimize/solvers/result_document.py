r"""Reading a :class:`~optimize.Tuning` JSON document back, strictly (:meth:`optimize.Tuning.from_json`): every field
checked — its type, its range, and how it agrees with the others (``levels`` and ``gain``, ``discount`` and
``cutoff``, ``n_agree`` and ``starts``) — so that a hand-edited or foreign document is refused with a ``ValueError``
naming the field, the rule and the value found, never a Tuning that fails later.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

import metrics
from gtheory.kit.jsonio import number, read_json

__all__ = ["read_tuning_document"]


def read_tuning_document(cls: Any, text_or_path: Any) -> dict[str, Any]:
    """The fields of the :class:`~optimize.Tuning` document ``text_or_path`` (JSON text or a path; or the
    recommended configuration of a Recommendation document) for ``cls(**fields)``, each checked
    (:meth:`optimize.Tuning.from_json` lists the rules)."""
    d = read_json(text_or_path, "gtheory optimize.Tuning")
    if isinstance(d, dict) and d.get("format") == "gtheory.optimize.Recommendation/1":
        d = d.get("tuning")  # a recommendation carries the recommended configuration as a tuning
    if not isinstance(d, dict) or d.pop("format", None) != "gtheory.optimize.Tuning/1":
        raise ValueError("not a gtheory optimize.Tuning JSON document (missing 'format').")
    known = {f.name for f in fields(cls) if not f.name.startswith("_")} | set(_DERIVED)
    required = [f.name for f in fields(cls) if not f.name.startswith("_")]  # to_dict writes every field
    missing = [k for k in required if k not in d]
    if missing:
        raise ValueError(f"incomplete optimize.Tuning JSON document: missing field(s) {', '.join(map(repr, missing))}.")
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"invalid optimize.Tuning JSON document: unknown field(s) {', '.join(map(repr, unknown))}.")
    d = _check_document(d)
    for name in _DERIVED:  # Φ and Eρ² at n_topics follow from the components: phi(), erho2()
        d.pop(name, None)
    return d


# ------------------------------------------------------------------ reading a JSON document
_DOC = "invalid optimize.Tuning JSON document"


#: keys of a Tuning document that are not fields: Φ and Eρ² at ``n_topics`` (what ``phi()``/``erho2()`` return)
_DERIVED = ("phi", "erho2")


_COMPONENTS = ("system", "topic", "residual")


def _invalid(name: str, rule: str, value: Any) -> ValueError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ValueError(f"{_DOC}: field {name!r} must be {rule}; got {shown}.")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _vector(d: dict[str, Any], name: str) -> NDArray[np.float64]:
    v = d[name]
    if not isinstance(v, list) or not all(_is_number(x) for x in v):
        raise _invalid(name, "a list of numbers", v)
    if not v:
        raise _invalid(name, "a non-empty list of numbers", v)
    arr = np.asarray(v, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise _invalid(name, "a list of finite numbers", v)
    return arr


def _number(d: dict[str, Any], name: str, *, non_negative: bool = False) -> None:
    v = number(d[name])
    if not _is_number(v) or (non_negative and v < 0):
        raise _invalid(name, "a non-negative number or null" if non_negative else "a number or null", d[name])
    d[name] = float(v)


def _integer(d: dict[str, Any], name: str, minimum: int) -> None:
    if not _is_int(d[name]) or d[name] < minimum:
        raise _invalid(name, "a positive integer" if minimum == 1 else f"an integer ≥ {minimum}", d[name])


def _check_document(d: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :class:`Tuning` from a parsed document (fields known and present),
    every field checked (see :meth:`Tuning.from_json`); ValueError naming the first invalid one."""
    for name, options in (("what", ("discount", "gain", "joint")), ("objective", ("phi", "erho2"))):
        if d[name] not in options:
            raise _invalid(name, " or ".join(", ".join(map(repr, options)).rsplit(", ", 1)), d[name])
    levels = d["levels"] = _vector(d, "levels")
    if np.any(np.diff(levels) <= 0):
        raise _invalid("levels", "strictly increasing (the grades in ascending order)", d["levels"].tolist())
    if not np.any(levels > 0):
        raise _invalid("levels", "a list of grades holding a positive grade", levels.tolist())
    gain = _vector(d, "gain")
    if gain.size != levels.size:
        raise ValueError(f"{_DOC}: 'gain' has {gain.size} entries for {levels.size} 'levels'.")
    if np.any(gain < 0):
        raise _invalid("gain", "non-negative (one gain per grade)", d["gain"])
    if np.any(gain[levels <= 0] != 0):
        raise _invalid("gain", f"0 for the grades ≤ 0 ({_fmt_grades(levels[levels <= 0])})", d["gain"])
    if not np.any(gain > 0):
        raise _invalid("gain", "positive for some grade", d["gain"])
    d["gain"] = gain
    discount = _vector(d, "discount")
    if np.any(discount < 0):
        raise _invalid("discount", "non-negative (one weight per rank)", d["discount"])
    if not np.any(discount > 0):
        raise _invalid("discount", "positive at some rank", d["discount"])
    d["discount"] = discount
    _integer(d, "cutoff", 1)
    if d["cutoff"] != discount.size:
        raise ValueError(f"{_DOC}: 'cutoff' {d['cutoff']!r} must be the length of 'discount' ({discount.size}).")
    for name in ("phi_1", "erho2_1", "var_system", "var_topic", "var_residual"):
        _number(d, name)
    for name in _DERIVED:  # written by every version; recomputed from the components when read
        if name in d:
            _number(d, name)
    for name in ("agree_tol", "seconds"):
        if name in d:
            _number(d, name, non_negative=True)
    for name, minimum in (("n_systems", 1), ("n_topics", 1), ("nit", 0), ("nfev", 0), ("njev", 0), ("starts", 1),
                          ("n_agree", 0)):
        _integer(d, name, minimum)
    if d["n_agree"] > d["starts"]:
        raise _invalid("n_agree", f"at most 'starts' ({d['starts']})", d["n_agree"])
    for name in ("success", "monotone_gain", "monotone_discount", "judged_only"):
        if name in d and not isinstance(d[name], bool):
            raise _invalid(name, "true or false", d[name])
    for name in ("message", "solver"):
        if not isinstance(d[name], str):
            raise _invalid(name, "a string", d[name])
    if "start_values" in d:
        sv = d["start_values"]
        values = {k: number(v) for k, v in sv.items()} if isinstance(sv, dict) else None
        if values is None or not all(_is_number(v) for v in values.values()):
            raise _invalid("start_values", "an object of start name: number or null", sv)
        d["start_values"] = {k: float(v) for k, v in values.items()}
    if "per_problem" in d:
        d["per_problem"] = [_problem_entry(p) for p in _list(d, "per_problem")]
    if "negative_components" in d:
        comps = _list(d, "negative_components")
        if not all(c in _COMPONENTS for c in comps) or len(set(comps)) != len(comps):
            raise _invalid("negative_components", "a list of distinct 'system', 'topic', 'residual'", comps)
    if d.get("gain_family") is not None:
        family = d["gain_family"]
        if not isinstance(family, str):
            raise _invalid("gain_family", "a gain family name or null", family)
        try:
            metrics.gain_vector(family, levels)
        except ValueError as exc:
            raise ValueError(f"{_DOC}: field 'gain_family': {exc}") from None
    bc = d.get("binding_cutoff")
    if bc is not None and not (_is_int(bc) and 1 <= bc <= d["cutoff"]):
        raise _invalid("binding_cutoff", f"null or a positive integer at most 'cutoff' ({d['cutoff']})",
                       d["binding_cutoff"])
    if d.get("binding_label") is not None and not isinstance(d["binding_label"], str):
        raise _invalid("binding_label", "a string or null", d["binding_label"])
    for name in ("version", "measure", "fingerprint"):  # provenance; null when the tuning was not made from data
        if d.get(name) is not None and not isinstance(d[name], str):
            raise _invalid(name, "a string or null", d[name])
    return d


def _list(d: dict[str, Any], name: str) -> list:
    if not isinstance(d[name], list):
        raise _invalid(name, "a list", d[name])
    return d[name]


def _problem_entry(p: Any) -> dict[str, Any]:
    """One ``per_problem`` entry: ``label`` a string, ``cutoff``/``n_topics`` positive integers,
    ``fun``/``phi``/``erho2`` numbers (null is NaN), where present."""
    if not isinstance(p, dict):
        raise _invalid("per_problem", "a list of objects", p)
    p = {k: number(v) if k in _PROBLEM_FLOATS else v for k, v in p.items()}
    rules = {"label": ("a string", lambda v: isinstance(v, str)),
             "cutoff": ("a positive integer", lambda v: _is_int(v) and v >= 1),
             "n_topics": ("a positive integer", lambda v: _is_int(v) and v >= 1),
             **{k: ("a number or null", _is_number) for k in _PROBLEM_FLOATS}}
    for k, (rule, ok) in rules.items():
        if k in p and not ok(p[k]):
            raise _invalid("per_problem", f"a list of objects whose {k!r} is {rule}", p)
    return p


#: number-valued keys of a ``Tuning.per_problem`` entry
_PROBLEM_FLOATS = ("fun", "phi", "erho2")


def _fmt_grades(values) -> str:
    """Grades as plain numbers: ``1, 2, 3`` (never ``np.float64(3.0)``)."""
    return ", ".join(f"{float(v):g}" for v in values)
