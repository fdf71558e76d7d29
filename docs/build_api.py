"""Build docs/api.md, the API reference, from the packages' ``__all__`` and docstrings.

    python docs/build_api.py            # (re)write docs/api.md
    python docs/build_api.py --check    # exit 1 if docs/api.md is out of date
    python docs/build_api.py --out FILE

For each package (metrics, gtheory, optimize, experiments), every name in ``__all__`` is listed in that order with
its kind, its signature (functions, classes) or value (constants), and the first paragraph of its docstring.
Only the standard library's ``inspect`` is used; the output is deterministic (memory addresses are removed).
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

PACKAGES = ("metrics", "gtheory", "optimize", "experiments")
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "api.md"
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_QUOTED_ANNOTATION = re.compile(r"(: |-> )'([^']*)'")  # postponed annotations are strings: unquote them


def first_paragraph(doc: str | None) -> str:
    """The docstring's first paragraph, on one line ("" if there is none)."""
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    para = text.split("\n\n", 1)[0]
    return " ".join(line.strip() for line in para.splitlines())


def _signature(obj: Any) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    return _QUOTED_ANNOTATION.sub(r"\1\2", _ADDRESS.sub("", sig))


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        if issubclass(obj, Warning):
            return "warning"
        if issubclass(obj, BaseException):
            return "exception"
        return "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj):
        return "function"
    return "constant"


def _value(obj: Any, limit: int = 160) -> str:
    text = _ADDRESS.sub("", repr(obj))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(package: str, name: str) -> str:
    """One Markdown entry for ``package.name``."""
    module = importlib.import_module(package)
    obj = getattr(module, name)
    kind = _kind(obj)
    if kind == "constant":
        head = f"### `{package}.{name}`\n\n*constant* `{_value(obj)}`"
        doc = ""  # a constant's docstring is its type's
    else:
        sig = "" if kind in ("warning", "exception") else _signature(obj)
        head = f"### `{package}.{name}{sig}`\n\n*{kind}*"
        doc = first_paragraph(inspect.getdoc(obj))
        where = getattr(obj, "__module__", None)
        if where and where != package:
            head += f" — defined in `{where}`"
    return head + ("\n\n" + doc if doc else "") + "\n"


#: the prose of the "result protocol" section: one convention shared by every result type
RESULT_PROTOCOL = """
## The result protocol

Every object a study returns — `gtheory.GStudy`, `TopicsNeeded`, `CoefficientInterval`, `BootstrapResult`,
`DesignGStudy`, `DesignDStudy`, `optimize.Tuning`, `SolverRun`, `OptimalityBound`, `Recommendation`,
`ParameterTuning`, `metrics.Coverage`, `Qrels`, `experiments.DiscriminativePower`, `SignificanceConfusion`,
`ConfigurationCheck`, `DemoStudy`, `RobustnessStudy`, `SweepGrid`, `experiments.report.result.Study` — follows one
convention:

- it is a frozen dataclass whose fields are the numbers (a changed result is a new one,
  `dataclasses.replace`); what is derived is computed on first use and cached (`Tuning.gstudy`,
  `Tuning.data_fingerprint`);
- `repr(result)` is one concise line; `result.summary()` (and `str(result)`) is the full text; in Jupyter it
  displays as a table (`_repr_html_`);
- where it can be saved: `to_dict()` gives plain JSON values plus a `"format"` key, `to_json(path=None)` strict
  JSON (RFC 8259, written atomically to `path` if given) and the class method `from_json(text_or_path)` reads
  it back (`GStudy`, `TopicsNeeded`, `CoefficientInterval`, `BootstrapResult`, `DesignGStudy`, `DesignDStudy`,
  `Tuning`, `SolverRun`, `OptimalityBound`, `Coverage`, `DiscriminativePower`, `SignificanceConfusion`,
  `ConfigurationCheck`, `DemoStudy`, `SweepGrid`, `Recommendation`, `ParameterTuning`; `RobustnessStudy` and
  `Study` are written, not read back). All of them, and every `--json`
  output of the command line, go through one encoder (`gtheory.kit.jsonio`): **a number that is not finite (NaN,
  inf, -inf) is written as `null`** — never `NaN`/`Infinity`, never the string `"inf"`. A field that is a
  number of topics reads `null` back as `inf` ("no number of topics reaches the target"), other numbers as NaN;
  documents written by earlier versions with the string `"inf"` still load;
- `plot(ax=None)` where a picture exists (`GStudy`, `Tuning`, `Coverage`, `Study`, …), returning the matplotlib
  Axes;
- a table of several G-studies is built from `GStudy.as_row(n_topics, target)`: the variance components and
  their shares, Φ and Eρ² at `n_topics`, Φ(1) and the topics needed for Φ and Eρ² ≥ `target`.

One coefficient API: `GStudy`, `Tuning` and `ParameterTuning` have the methods `phi(n_topics=None)` and
`erho2(n_topics=None)` (Φ and Eρ² at n topics, default the result's own; an array for an array) and
`topics_needed(target=0.95, coefficient="phi", *, level=...)`, which returns a `TopicsNeeded` (`.n`, `.n_exact`,
the interval `.n_low`, `.n_high`; `ParameterTuning` keeps no mean squares and gives the point estimate only). They
share one implementation, so a `Tuning` answers exactly as the G-study of its tuned nDCG (`Tuning.gstudy` on the
tuning data, `Tuning.evaluate(judged)` on other data) — without the data.

D-studies: `GStudy.dstudy(n_topics)` is a *table over topic-set sizes* (a DataFrame, one row per n: Φ, Eρ² and
their bounds), the question "how many topics?" asked for several answers at once; `DesignGStudy.dstudy(object,
sizes, fixed)` is *one* D-study of a general design (a `DesignDStudy`: σ²(τ), σ²(δ), σ²(Δ), Eρ², Φ and the
per-effect terms), because a design with several facets has no single size to tabulate over. Tables of several
results are DataFrames built from the results (`GStudy.as_row`); a result object holds one analysis.

Errors: a parameter out of range raises `gtheory.ParameterError`, a `ValueError` whose `param` names the
parameter; the command line names the option for it. An error or warning that knows its fix carries it as data
(`metrics.FixableError`, `metrics.FixableWarning`: `statement`, `param`, `fix`, `fix_effect`, `advice`), and the
command line words that fix with its options instead of reading the message.
"""


def build() -> str:
    """The whole of docs/api.md."""
    out = [
        "# API reference",
        "",
        "Generated by `python docs/build_api.py` from each package's `__all__` and docstrings: the signature and",
        "the first paragraph of each docstring. The full docstrings (parameters, formulas, references, examples)",
        "are one `help(...)` away. Guides: [index](index.md).",
        "",
    ]
    for package in PACKAGES:
        module = importlib.import_module(package)
        names = list(getattr(module, "__all__", []))
        out.append(f"- [`{package}`](#{package}) — {len(names)} public names")
    out += ["- [The result protocol](#the-result-protocol) — what every result object offers", ""]
    out += RESULT_PROTOCOL.strip("\n").splitlines() + [""]
    for package in PACKAGES:
        module = importlib.import_module(package)
        out += [f"## {package}", "", first_paragraph(module.__doc__), ""]
        for name in module.__all__:
            out.append(describe(package, name))
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write (default docs/api.md)")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 if the file differs")
    args = p.parse_args(argv)
    text = build()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python docs/build_api.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({text.count(chr(10) + '### ')} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
