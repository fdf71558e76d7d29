"""Discount functions of nDCG: the weight of the document at each rank r = 1, 2, ….

Named families (``discount_vector(name, n, cutoff=k)``):

* ``"log2"``: :math:`d_r = 1/\\log_2(r + 1)` (trec_eval; Burges et al. 2005),
* ``"jarvelin(b=2)"``: :math:`d_r = 1` for :math:`r < b`, :math:`1/\\log_b r` for :math:`r \\ge b`
  (Järvelin & Kekäläinen 2002),
* ``"zipf"``: :math:`d_r = 1/r`,
* ``"linear"``: :math:`d_r = (k + 1 - r)/k` for :math:`r \\le k`, 0 after (Kanoulas & Aslam 2009, Fig. 2; ``k`` is
  the cut-off; without a cut-off write ``"linear(k=…)"``),
* ``"none"``: :math:`d_r = 1` (cumulated gain),
* ``"rbp(p=0.8)"``: :math:`d_r = p^{r-1}` (Moffat & Zobel 2008).

A user-given vector is used as is: ``d[r - 1]`` is the weight of rank r, ranks beyond its length weigh 0.
nDCG is invariant to the scale of the discount vector.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Union

import numpy as np

from .families import check_finite_vector, check_parameter, parse_family
from gtheory.kit.errors import FixableError

__all__ = ["DiscountSpec", "discount_vector", "read_discount", "DISCOUNT_FAMILIES", "DISCOUNT_SUFFIXES"]

DiscountSpec = Union[str, Sequence[float], np.ndarray]

#: named discount families and their parameters
DISCOUNT_FAMILIES: dict[str, tuple[str, ...]] = {
    "log2": (),
    "jarvelin": ("b",),
    "zipf": (),
    "linear": ("k",),
    "none": (),
    "rbp": ("p",),
}


def discount_vector(discount: DiscountSpec, n: int, *, cutoff: int | None = None) -> np.ndarray:
    """The discount weights of ranks 1..n (float64, length ``n``).

    Parameters
    ----------
    discount : a family name (:data:`DISCOUNT_FAMILIES`, e.g. ``"rbp(p=0.8)"``) or a vector of weights per rank.
    n : number of ranks wanted.
    cutoff : the evaluation cut-off; used by ``"linear"`` as its ``k`` (unless given as ``linear(k=…)``).

    Raises
    ------
    ValueError
        Unknown family, bad parameter (``p`` outside (0, 1], ``b`` ≤ 1), a vector that is not 1-D or not finite.
    """
    if n < 0:
        raise ValueError(f"`n` must be non-negative; got {n}")
    r = np.arange(1, n + 1, dtype=np.float64)
    if isinstance(discount, str):
        name, params = parse_family(discount, DISCOUNT_FAMILIES, "discount family")
        if name == "log2":
            return 1.0 / np.log2(r + 1.0)
        if name == "jarvelin":
            b = params.get("b", 2.0)  # range-checked by parse_family (finite, > 1), as every parameter
            return np.where(r < b, 1.0, 1.0 / (np.log(np.maximum(r, b)) / np.log(b)))
        if name == "zipf":
            return 1.0 / r
        if name == "linear":
            if "k" not in params and not cutoff:
                raise FixableError("the linear discount (k + 1 - r)/k needs its k", fix={"cutoff": ...},
                                   advice="give a cutoff, or write 'linear(k=100)'")
            k = params["k"] if "k" in params else check_parameter(cutoff, "cutoff", "the linear discount", low=1.0,
                                                                  low_open=False)
            return np.clip((k + 1.0 - r) / k, 0.0, None)
        if name == "none":
            return np.ones(n)
        p = params.get("p", 0.8)
        return np.power(p, r - 1.0)
    vec = np.asarray(discount, dtype=np.float64)
    if vec.ndim != 1 or vec.size == 0:
        raise ValueError(f"a discount vector must be 1-D and non-empty (one weight per rank); got shape {vec.shape}")
    check_finite_vector(vec, "discount", "weights per rank")
    out = np.zeros(n)
    m = min(n, vec.size)
    out[:m] = vec[:m]
    return out


#: the file types :func:`read_discount` reads
DISCOUNT_SUFFIXES = (".json", ".npy", ".txt", ".csv")


def read_discount(path: str | os.PathLike) -> np.ndarray:
    """Weights per rank (``d[r-1]`` for rank r) read from a file: a discount vector for :func:`ndcg`.

    .json: a list of numbers, or an object with a ``discount`` list (as a tuning written by
    ``optimize.Tuning.to_json``); .npy: a 1-D array; .txt / .csv: numbers separated by white space or commas.
    Every weight must be a finite non-negative number and some weight positive.

    Raises
    ------
    ValueError
        Naming ``path`` (as given) and the problem, e.g. ``d.txt: weight 'x' at line 2 is not a number.``
    """
    import json
    from pathlib import Path

    p = Path(path)
    where = str(path)
    if p.is_dir():
        raise ValueError(f"{where}: is a directory; give a file of weights per rank (.json, .npy, .txt, .csv).")
    if not p.is_file():
        raise ValueError(f"{where}: no such file (a file of weights per rank, or a family: log2, zipf, linear, "
                         "none, 'jarvelin(b=2)', 'rbp(p=0.8)').")
    suffix = p.suffix.lower()
    if suffix not in DISCOUNT_SUFFIXES:
        raise ValueError(f"{where}: unknown file type {p.suffix or '(none)'!r}; use .json, .npy, .txt or .csv.")
    values: list[tuple[str, object]]
    if suffix == ".npy":
        try:
            raw = np.load(p, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise ValueError(f"{where}: not a NumPy .npy array ({exc}).") from None
        if raw.ndim != 1:
            raise ValueError(f"{where}: expected a 1-D array of weights per rank; got shape {raw.shape}.")
        values = [(f"position {i + 1}", v) for i, v in enumerate(raw.tolist())]
    elif suffix == ".json":
        try:
            obj = json.loads(p.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise ValueError(f"{where}: {_not_utf8(p)}.") from None
        except ValueError as exc:
            raise ValueError(f"{where}: not valid JSON ({exc}).") from None
        except RecursionError:
            raise ValueError(f"{where}: not valid JSON (nested too deeply).") from None
        if isinstance(obj, dict):
            if "discount" not in obj:
                raise ValueError(f"{where}: a JSON object needs a 'discount' key (a list of weights per rank, "
                                 "as 'gtheory tune --out' writes); it has " + (", ".join(map(repr, obj)) or "none")
                                 + ".")
            obj = obj["discount"]
        if not isinstance(obj, list):
            raise ValueError(f"{where}: expected a list of weights per rank; got a JSON {type(obj).__name__}.")
        values = [(f"position {i + 1}", v) for i, v in enumerate(obj)]
    else:
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{where}: {_not_utf8(p)}.") from None
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        one_each = all(len(line.split()) == 1 and line.count(",") <= 1 for _, line in lines)
        commas = [(n, line) for n, line in lines if _DECIMAL_COMMA.fullmatch(line)]
        if len(lines) > 1 and one_each and commas:  # one weight per line, some of them with a decimal comma
            n, line = commas[0]
            raise ValueError(f"{where}: line {n} reads {line.strip()!r}: one number with a decimal comma per line, or "
                             "two weights separated by a comma? Write the weights with a '.' decimal point "
                             f"({line.strip().replace(',', '.')}), separated by white space, commas or lines.")
        values = [(f"line {n}", tok) for n, line in lines for tok in line.replace(",", " ").split()]
    if not values:
        raise ValueError(f"{where}: no weights in the file.")
    weights = []
    for at, v in values:
        try:
            w = _weight(v)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: weight {v!r} at {at} is not a number.") from None
        except OverflowError:
            w = float("inf")  # refused just below, as every non-finite weight
        if not np.isfinite(w) or w < 0:
            shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:30] + f"… ({len(repr(v))} characters)"
            raise ValueError(f"{where}: weight {shown} at {at} must be a finite non-negative number.")
        weights.append(w)
    if not any(weights):
        raise ValueError(f"{where}: all weights are 0.")
    return np.asarray(weights, dtype=np.float64)


#: a line of one number with a decimal comma ("0,5"), which the comma separator would split into two weights
_DECIMAL_COMMA = re.compile(r"\s*[+-]?[0-9]+,[0-9]+\s*")


def _weight(v: object) -> float:
    """One weight as a float; ValueError for anything but a number or a number in C syntax, OverflowError past
    double precision (a JSON integer of 400 digits)."""
    if isinstance(v, bool) or v is None or isinstance(v, (list, dict)):
        raise ValueError
    if isinstance(v, str):
        from gtheory.kit.checks import c_float  # C syntax: not "1_0" (10) or non-ASCII digits

        return c_float(v)
    return float(v)  # type: ignore[arg-type]


def _not_utf8(p: "os.PathLike[str]") -> str:
    """Why a file is not read as text: UTF-16 (say so, as the run and qrels readers do) or other non-UTF-8 bytes."""
    from ..io import utf16_kind

    with open(p, "rb") as fh:
        return "UTF-16: convert to UTF-8" if utf16_kind(fh.read(4096)) else "not UTF-8 text"
