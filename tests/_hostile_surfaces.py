"""A battery of hostile cases on the surfaces added last (issue 34): topic set sizes, `plan`, curves,
`compare` / `compare_measures` (units, labels, ties, resampling limits), every output format with run names chosen
by campaign participants, tampered result JSON, the depth budget, and the `gtheory plan` / `compare` commands.

Each case is a function registered with :func:`case`; :func:`run_case` runs it under a time limit and classifies
the outcome: ``ok`` (an answer that passed the case's checks), ``refused`` (a ValueError/TypeError/OSError raised by
the package itself, i.e. a clear refusal), or a failure — ``TRACEBACK`` (any other exception, or a ValueError from
inside NumPy/SciPy/pandas/matplotlib), ``HANG`` (over the limit), ``WRONG`` (an answer that breaks a property: an
impossible topic count, p-values that change with the units, a tampered field read as a number, ...) and
``INJECTION`` (markup of a name live in an output). On 7d52488 it found 140 tracebacks, 56 hangs, 56 wrong answers
and 12 injections in 1,738 cases; tests/test_hostile_surfaces.py asserts none.

Run alone: ``python tests/_hostile_surfaces.py [--verbose]`` from the repository root.
"""
from __future__ import annotations

import json
import math
import re
import signal
import sys
import time
import traceback
import warnings

import numpy as np
import pandas as pd

import gtheory
import experiments

PKGS = ("gtheory", "metrics", "optimize", "experiments")
RESULTS: list[tuple[str, str, str]] = []


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


signal.signal(signal.SIGALRM, _alarm)
gtheory.topic_set_size(0.01, method="paired-t", min_diff=0.05)  # the first call imports SciPy: not a case's time


class Wrong(Exception):
    pass


class Injection(Exception):
    pass


def classify_exc(e: BaseException) -> tuple[str, str]:
    tb = traceback.extract_tb(e.__traceback__)
    last = tb[-1].filename if tb else ""
    msg = f"{type(e).__name__}: {' '.join(str(e).split())[:160]}"
    ours = any(f"/{p}/" in last for p in PKGS)
    if isinstance(e, (Wrong,)):
        return "WRONG", str(e)[:200]
    if isinstance(e, Injection):
        return "INJECTION", str(e)[:200]
    if isinstance(e, Hang):
        return "HANG", ""
    if isinstance(e, (MemoryError, FloatingPointError, KeyError, StopIteration, AttributeError, IndexError,
                      ZeroDivisionError, OverflowError, RecursionError, AssertionError, NameError, UnboundLocalError)):
        return "TRACEBACK", msg + f" @ {last}:{tb[-1].lineno if tb else ''}"
    if isinstance(e, (ValueError, TypeError, OSError)) and ours:
        return "refused", msg
    if isinstance(e, (ValueError, TypeError)):
        return "TRACEBACK", msg + f" (raised in {last})"
    return "TRACEBACK", msg + f" @ {last}"


CASES: list[tuple[str, object, float]] = []


def case(name: str, timeout: float = 5.0):
    """Register a case: ``fn()`` must return (accepted) or raise a clear error of the package (refused)."""
    def deco(fn):
        # the loops below define cases at module level: freeze the loop variables the case reads (its globals)
        import types
        frozen = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__, fn.__defaults__, fn.__closure__)
        CASES.append((name, frozen, timeout))
        return fn
    return deco


def run_case(name, fn, timeout):
    """``(kind, detail)`` of one case: ok, refused, TRACEBACK, HANG, WRONG or INJECTION."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
        kind, detail = "ok", "" if r is None else str(r)[:120]
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001
        kind, detail = classify_exc(e)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return kind, detail + f" [{time.perf_counter() - t0:.2f}s]"


def check_n(n, where=""):
    if isinstance(n, float) and math.isinf(n):
        return
    if not (isinstance(n, (int, np.integer)) and n >= 2) and not (isinstance(n, float) and n.is_integer() and n >= 2):
        raise Wrong(f"topics {n!r} is not an integer >= 2 or inf {where}")


# ------------------------------------------------------------------ A. power grid (classes 3, 4)
for method in ("paired-t", "two-sample-t", "anova"):
    for approx in ("exact", "nagata"):
        for alpha in (0.05, 0.01):
            for power in (0.8, 0.9):
                for md in (0.02, 0.05, 0.1, 0.5, 1.5, 1e-6, 1e-5, 5.0):
                    for s2 in (1e-6, 0.004, 0.01, 0.02, 0.05, 1e-300):
                        kw = dict(method=method, min_diff=md, alpha=alpha, power=power, approximation=approx)
                        if method == "anova":
                            kw["n_systems"] = 5

                        @case(f"A tss {method} {approx} a={alpha} p={power} d={md} s2={s2}", timeout=5.0)
                        def _():
                            r = gtheory.topic_set_size(s2, **kw)
                            check_n(r.n)
                            return r.n

# ------------------------------------------------------------------ B. hostile parameters
BAD = [0, -0.05, float("nan"), float("inf"), "0.05", None, True, 1e300, [0.05], np.float64("nan")]
for p in ("min_diff", "alpha", "power"):
    for v in BAD + [1.0, 0.5, 0.04, -1, 2]:
        @case(f"B tss {p}={v!r}")
        def _():
            kw = dict(method="paired-t", min_diff=0.05, alpha=0.05, power=0.8)
            kw[p] = v
            r = gtheory.topic_set_size(0.01, **kw)
            check_n(r.n)
            if p == "power" and v == 0.04:
                pass
            if (p == "min_diff" and (v in (0, -0.05) or v != v)) or (p in ("alpha", "power") and (v in (0, -1, 2, 1.0) or v != v)):
                raise Wrong(f"accepted {p}={v!r} -> {r.n}")
            return r.n

for v in (0, -1, float("nan"), float("inf"), "x", None, 1e-300, 1e300, np.array([0.01, 0.02])):
    @case(f"B tss variance={v!r}")
    def _():
        r = gtheory.topic_set_size(v, method="paired-t", min_diff=0.05)
        check_n(r.n)
        if isinstance(v, (int, float)) and (v != v or v <= 0 or math.isinf(v)):
            raise Wrong(f"accepted variance {v!r} -> {r.n}")

for n in (5, [5, 6], np.array([5, 6]), 1, 0, -3, 2.5, True, "5", None, 10**12):
    @case(f"B mdd n={n!r}")
    def _():
        d = gtheory.min_detectable_difference("paired-t", n, variance=0.01)
        if isinstance(d, (float, np.floating)):
            if not (d > 0):
                raise Wrong(f"mdd {d}")
        return d

# ------------------------------------------------------------------ C. pilots for plan / topic_set_size from data
rng = np.random.default_rng(0)
base = rng.uniform(0.1, 0.9, size=(8, 30))
pilots = {
    "ok": base,
    "constant": np.full((8, 30), 0.5),
    "additive": np.add.outer(np.linspace(0.1, 0.8, 8), np.linspace(0, 0.1, 30)),
    "tenths": np.add.outer(np.arange(8) / 10, np.zeros(30)) + 0.05,
    "x1e160": base * 1e160,
    "x1e-155": base * 1e-155,
    "2x2": base[:2, :2],
    "one system": base[:1],
    "nan cell": np.where(np.eye(8, 30, dtype=bool), np.nan, base),
    "inf cell": np.where(np.eye(8, 30, dtype=bool), np.inf, base),
}
for name, X in pilots.items():
    for md in (0.05, 2.0, 1e-5):
        for approx in ("exact", "nagata"):
            @case(f"C plan {name} d={md} {approx}", timeout=10)
            def _():
                p = gtheory.plan(X, min_diff=md, approximation=approx)
                s = p.summary()
                if "nan" in s.lower().replace("nan-", ""):
                    raise Wrong("nan in plan summary")
                df = p.table if hasattr(p, "table") else None
                return type(p).__name__
            @case(f"C tss-data {name} d={md} {approx}", timeout=5)
            def _():
                r = gtheory.topic_set_size(X, method="paired-t", min_diff=md, approximation=approx)
                check_n(r.n)
                return r.n

@case("C plan curves rows", timeout=60)
def _():
    p = gtheory.plan(base, min_diff=0.05, curves=True, repeats=10)
    t = p.to_frame() if hasattr(p, "to_frame") else None
    if t is not None:
        for _, row in t.iterrows():
            vals = [row.get(k) for k in ("topics", "low", "high") if k in row]
            if any(isinstance(v, float) and math.isnan(v) for v in vals):
                raise Wrong(f"nan in plan row {dict(row)}")
    return "ok"

@case("C curves extrapolate tau in [-1,1]", timeout=60)
def _():
    c = gtheory.topic_curves(base, repeats=10)
    for n in (2, 10, 10**3, 10**6):
        r = c.extrapolate(n)
        arr = np.asarray(getattr(r, "values", r) if not isinstance(r, dict) else list(r.values()), dtype=object)
        for v in np.ravel(arr):
            try:
                fv = float(v)
            except (TypeError, ValueError):
                continue
            if fv < -1 - 1e-12 or fv > 1 + 1e-12:
                raise Wrong(f"extrapolate({n}) gives {fv}")

# ------------------------------------------------------------------ D. compare: units, labels, ties
def frame(X, systems=None, topics=None):
    systems = systems or [f"s{i}" for i in range(X.shape[0])]
    topics = topics or [f"t{j}" for j in range(X.shape[1])]
    return pd.DataFrame(X, index=pd.Index(systems, name="system"), columns=pd.Index(topics, name="topic"))

Y = rng.uniform(0, 1, size=(4, 25))
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey")
ref = {}
for test in TESTS:
    for k in (0, 160, -155, 150, -150, 100, -100):
        @case(f"D compare {test} x1e{k}", timeout=20)
        def _():
            def pvals(scale):
                c = experiments.compare(frame(Y * scale), test=test, n_resamples=2000, seed=1)
                df = c.to_frame() if hasattr(c, "to_frame") else c.table
                cols = [col for col in df.columns if col in ("p", "p_value", "p_adjusted", "effect_size", "effect")]
                if not cols:
                    raise Wrong(f"no p/effect columns in {list(df.columns)}")
                return df[cols].to_numpy(dtype=float)
            vals, ref0 = pvals(10.0**k), pvals(1.0)
            # relative 1e-12 (the bar) on p-values and effect sizes; p-values of 0 compared absolutely
            if not np.allclose(vals, ref0, rtol=1e-12, atol=1e-300, equal_nan=True):
                raise Wrong(f"scaled 1e{k}: {vals.ravel()[:4]} vs {ref0.ravel()[:4]}")

for test in TESTS:
    @case(f"D compare {test} constant shift (V_E=0)", timeout=20)
    def _():
        X = np.add.outer(np.array([0.1, 0.2, 0.3]), rng.uniform(0, 0.5, 20))
        c = experiments.compare(frame(X), test=test, n_resamples=2000)
        s = c.summary()
        df = c.to_frame() if hasattr(c, "to_frame") else c.table
        for col in df.columns:
            if "effect" in col:
                v = df[col].to_numpy(dtype=float)
                if np.any(np.abs(v[np.isfinite(v)]) > 1e6):
                    raise Wrong(f"effect sizes {v}")
    @case(f"D compare {test} identical systems", timeout=20)
    def _():
        X = np.vstack([Y[0], Y[0], Y[1]])
        c = experiments.compare(frame(X), test=test, n_resamples=2000)
        s = c.summary()
        if re.search(r"difference of 0\.000", s):
            raise Wrong("detects a difference of 0.000")

@case("D labels 1 and '1'")
def _():
    df = pd.DataFrame(Y[:2], index=pd.Index([1, "1"], name="system"), columns=pd.Index([f"t{j}" for j in range(25)], name="topic"))
    c = experiments.compare(df)
    s = c.summary() + c.to_markdown()
    rows = [l for l in c.to_markdown().splitlines() if l.startswith("|")]
    return "ok"

@case("D duplicate topic label")
def _():
    df = frame(Y, topics=["t0"] * 2 + [f"t{j}" for j in range(2, 25)])
    experiments.compare(df)

@case("D compare_measures topic counts")
def _():
    a = frame(Y[:, :12]); b = frame(Y[:, :5])
    t = experiments.compare_measures({"A": a, "B": b})
    s = t.summary() + t.to_markdown() + t.to_latex()
    if "12 topics" in s and "5 topics" not in s:
        raise Wrong("caption says 12 topics for both")

@case("D holm with few resamples warns", timeout=60)
def _():
    Z = rng.uniform(0, 1, size=(30, 40)) + np.linspace(0, 0.5, 30)[:, None]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c = experiments.compare(frame(Z), test="randomization", correction="holm", n_resamples=1000)
    if not w and "resampl" not in c.summary().lower():
        raise Wrong("no warning that 1000 resamples cannot reach Holm's threshold over 435 pairs")

for nres in (10**9, 10**12, 0, -1, 1.5, "100", True):
    @case(f"D n_resamples={nres!r}", timeout=10)
    def _():
        experiments.compare(frame(Y), test="randomization", n_resamples=nres)

for alpha in (0, 1, -0.1, float("nan"), "0.05", None, 0.5):
    @case(f"D compare alpha={alpha!r}")
    def _():
        c = experiments.compare(frame(Y), alpha=alpha)
        if not (isinstance(alpha, float) and 0 < alpha < 1):
            raise Wrong(f"accepted alpha {alpha!r}")

# ------------------------------------------------------------------ E. injection through names
HOSTILE = ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "a|b", "line\nbreak", "a$\\frac$b",
           "<b onmouseover=alert(1)>best", "`code`", "**bold**", "&amp;", "\\textbf{x}", "%comment", "_under_",
           "a\rb", "<script>alert(1)</script>", "![i](x)", "#head", "~~s~~", "a\u2028b", "{x}", "^", "~"]

def _md_live(md: str) -> str | None:
    if re.search(r"<(img|b|script)\b", md, re.I):
        return "raw html"
    if re.search(r"(?<!\\)\[[^\]]*\]\(javascript:", md):
        return "live link"
    return None

for nm in HOSTILE:
    names = [nm, "plain", "other"]
    X = Y[:3]
    @case(f"E compare md {nm!r}")
    def _():
        c = experiments.compare(frame(X, systems=names))
        md = c.to_markdown()
        why = _md_live(md)
        if why:
            raise Injection(f"{why}: {md[:200]!r}")
        rows = [l for l in md.splitlines() if l.strip()]
        table = [l for l in rows if l.startswith("|")]
        bad = [l for l in rows if not l.startswith("|") and table and rows.index(l) > rows.index(table[0]) and rows.index(l) < rows.index(table[-1])]
        if bad:
            raise Injection(f"row split: {bad[:2]}")
    @case(f"E compare latex {nm!r}")
    def _():
        c = experiments.compare(frame(X, systems=names))
        tex = c.to_latex()
        body = tex.split("\\begin{tabular}")[-1].split("\\end{tabular}")[0] if "tabular" in tex else tex
        if "\n\n" in body:
            raise Injection("blank line in tabular")
        if "\\frac" in tex and "\\textbackslash{}frac" not in tex and "\\textbackslash frac" not in tex:
            raise Injection("raw \\frac")
        if "onerror=alert" in tex and "<img" in tex:
            pass
    @case(f"E compare html {nm!r}")
    def _():
        c = experiments.compare(frame(X, systems=names))
        h = c._repr_html_() if hasattr(c, "_repr_html_") else ""
        if re.search(r"<(img|b|script)\b[^>]*(onerror|onmouseover|>alert)", h, re.I):
            raise Injection("raw html in _repr_html_")
    @case(f"E compare plot {nm!r}", timeout=20)
    def _():
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import io as _io
        c = experiments.compare(frame(X, systems=names))
        if hasattr(c, "plot"):
            ax = c.plot()
            fig = ax.figure if hasattr(ax, "figure") else plt.gcf()
            fig.savefig(_io.BytesIO(), format="png")
            plt.close("all")
    @case(f"E compare_measures md {nm!r}")
    def _():
        t = experiments.compare_measures({"m1": frame(X, systems=names), nm: frame(X, systems=names)})
        md = t.to_markdown()
        why = _md_live(md)
        if why:
            raise Injection(f"{why}")
        tex = t.to_latex()
        if "\n\n" in tex.split("\\begin{tabular}")[-1]:
            raise Injection("blank line in tabular")

# ------------------------------------------------------------------ F. tampered JSON
def _results():
    out = {}
    out["Comparison"] = (experiments.compare(frame(Y)), experiments.Comparison)
    out["ComparisonTable"] = (experiments.compare_measures({"a": frame(Y), "b": frame(Y[:, ::-1])}), experiments.ComparisonTable)
    out["TopicSetSize"] = (gtheory.topic_set_size(0.01, method="paired-t", min_diff=0.05), gtheory.TopicSetSize)
    out["TopicPlan"] = (gtheory.plan(base, min_diff=0.05), gtheory.TopicPlan)
    return out

try:
    with warnings.catch_warnings():  # the documents' own warnings (a negative component set to 0) are not cases
        warnings.simplefilter("ignore")
        RES = _results()
except Exception as e:  # noqa: BLE001
    RES = {}
    RESULTS.append(("F setup", "TRACEBACK", repr(e)))

#: fields a document may leave out, with the reason
OPTIONAL = {("Comparison", "min_detectable_difference"): "NaN when absent (the schema's default)"}


def _mutations(doc):
    """(path, new value or DELETE) over top-level scalar fields"""
    DEL = object()
    for k, v in list(doc.items()):
        if isinstance(v, bool):
            yield k, "False"; yield k, 7
        elif isinstance(v, (int, float)) and v is not None:
            yield k, str(v); yield k, None; yield k, -3; yield k, 5.7; yield k, True
        elif isinstance(v, str):
            yield k, "nonsense"; yield k, 3
        yield k, DEL

for rname, (res, cls) in RES.items():
    try:
        path = res.to_json()
        doc = json.loads(path)
    except Exception as e:  # noqa: BLE001
        RESULTS.append((f"F {rname} to_json", "TRACEBACK", repr(e)))
        continue
    @case(f"F {rname} round trip")
    def _():
        r2 = cls.from_json(path)
        if r2.summary() != res.summary():
            raise Wrong("round trip changes summary")
    for k, v in _mutations(doc):
        d2 = dict(doc)
        if v.__class__ is object:
            del d2[k]
            label = "deleted"
        else:
            d2[k] = v
            label = repr(v)
        @case(f"F {rname} {k}={label}")
        def _():
            p2 = json.dumps(d2)
            try:
                r2 = cls.from_json(p2)
            except (ValueError, TypeError) as e:
                if k not in str(e):
                    raise Wrong(f"refused without naming {k}: {e}")
                raise
            s = r2.summary()
            # accepted: only fine if value is semantically the same
            if label == "deleted" and (rname, k) not in OPTIONAL:
                raise Wrong(f"missing {k} accepted")
            if isinstance(v, str) and not isinstance(doc[k], str):
                raise Wrong(f"{k} given as string accepted")
            if isinstance(doc[k], bool) and not isinstance(v, bool):
                raise Wrong(f"{k} bool as {v!r} accepted")
            if v is None and doc[k] is not None:
                got = getattr(r2, k, None)
                # JSON has no NaN or inf: a nullable number reads null as the non-finite value it stands for
                if not (isinstance(got, float) and not math.isfinite(got)) and not (k == "seed" and got is None):
                    raise Wrong(f"{k}=null accepted as {got!r}")
            return "accepted"

# ------------------------------------------------------------------ G. budget API validation
try:
    import metrics
    J = metrics.load_trec9()
    J = J.subset(systems=J.systems[:8]) if hasattr(J, "subset") else J
except Exception as e:  # noqa: BLE001
    J = None
for kw in [dict(min_diff=0), dict(min_diff=-0.05), dict(min_diff=float("nan")), dict(min_diff="0.05"), dict(min_diff=None),
           dict(power=0.04, alpha=0.05), dict(depths=[2.5]), dict(depths=[True]), dict(depths=[]), dict(depths=[0]),
           dict(depths=[10**9]), dict(alpha=1.5), dict(target=2), dict(bootstrap=-1), dict(measure="nonsense@x")]:
    @case(f"G budget {kw}", timeout=60)
    def _():
        if J is None:
            return "no data"
        kw2 = dict(kw)
        meas = kw2.pop("measure", "nDCG@10")
        b = experiments.topic_depth_budget(J, meas, progress=False, **{**dict(depths=(5, 10)), **kw2})
        raise Wrong(f"accepted {kw}: {b.summary()[:100]}")


# ------------------------------------------------------------------ H. CLI
import contextlib, io as _io, tempfile, os
from experiments.cli import main as cli_main

def cli(argv):
    out, err = _io.StringIO(), _io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as e:
            code = e.code
    e = err.getvalue()
    if "Traceback" in e or "internal error" in e:
        raise Wrong(f"CLI traceback/internal error: {e[-200:]}")
    return code, out.getvalue(), e

SCORE_FILES = {
    "const.csv": (np.full((6, 20), 0.5), None),
    "add.csv": (np.add.outer(np.linspace(0.1, 0.6, 6), np.linspace(0, 0.2, 20)), None),
    "ok.csv": (rng.uniform(0, 1, (6, 20)), None),
    "hostile.csv": (rng.uniform(0, 1, (3, 20)), ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "a|b"]),
}
const, addv, okf, hostile = "@const.csv", "@add.csv", "@ok.csv", "@hostile.csv"


def _files(argv):
    """argv with each ``@name`` replaced by a score file written now (under the temporary directory of the run)."""
    tmp = tempfile.mkdtemp()
    out = []
    for a in argv:
        if a.startswith("@"):
            X, systems = SCORE_FILES[a[1:]]
            a = os.path.join(tmp, a[1:])
            frame(X, systems=systems).to_csv(a)
        out.append(a)
    return out
for argv in (["plan", const, "--min-diff", "2"], ["plan", addv, "--min-diff", "0.05"], ["plan", okf, "--min-diff", "2"],
             ["plan", okf, "--min-diff", "1e-5", "--approximation", "nagata"], ["plan", okf, "--min-diff", "0.05", "--alpha", "0.01"],
             ["compare", "/dev/null"], ["compare", const], ["compare", addv], ["compare", okf, "--n-resamples", "1000000000000", "--test", "randomization"],
             ["compare", okf, "--test", "randomization", "--correction", "holm", "--n-resamples", "100"],
             ["compare", hostile, "--format", "md"], ["compare", hostile, "--format", "latex"], ["compare", okf, "--alpha", "7"],
             ["plan", okf, "--min-diff", "0"], ["plan", okf, "--min-diff", "nan"], ["plan", "/dev/null", "--min-diff", "0.05"]):
    @case(f"H cli {' '.join(a.lstrip('@') for a in argv)}", timeout=30)
    def _():
        code, out, err = cli(_files(argv))
        if code not in (0, 2):
            raise Wrong(f"exit {code}: {err[-200:]}")
        if "--format" in argv and "md" in argv and _md_live(out):
            raise Injection("md output live")
        if argv[:2] == ["compare", "/dev/null"] and "does not exist" in err:
            raise Wrong("/dev/null 'does not exist'")
        return f"exit {code}: {(err or out).strip().splitlines()[-1][:100] if (err or out).strip() else ''}"


def main():
    counts: dict[str, int] = {}
    for name, fn, timeout in CASES:
        kind, detail = run_case(name, fn, timeout)
        counts[kind] = counts.get(kind, 0) + 1
        if kind not in ("ok", "refused") or "--verbose" in sys.argv:
            print(f"{kind:10s} {name}  {detail}")
    print(len(CASES), "cases:", counts)


if __name__ == "__main__":
    main()
