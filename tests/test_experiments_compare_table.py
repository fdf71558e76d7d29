"""experiments.compare.table: the runs x measures table (markers against the significant pairs, LaTeX, Markdown, HTML,
CSV, JSON)."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from experiments.compare import Comparison
from experiments.compare import ComparisonTable, compare_measures
from test_experiments_compare_systems import _matrix


def _table():
    X = _matrix()
    return compare_measures({"AP": X, "P@10": X * 0.9 + 0.01}, baseline="run1", correction="holm")


def test_comparison_and_table_round_trip_json():
    t = _table()
    back = ComparisonTable.from_json(t.to_json())
    pd.testing.assert_frame_equal(back.means, t.means, check_names=False)
    for k in t.comparisons:
        pd.testing.assert_frame_equal(back.comparisons[k].table, t.comparisons[k].table)
    json.loads(t.to_json())  # strict JSON
    c = t.comparisons["AP"]
    assert Comparison.from_json(c.to_json()).summary() == c.summary()


def test_markers_follow_the_significant_pairs():
    t = _table()
    mk = t.markers()
    ap = t.comparisons["AP"].table.set_index("a")
    for run in t.means.index:
        if run == "run1":
            assert mk.loc[run, "AP"] == ""
            continue
        row = ap.loc[run]
        expect = ("▲" if row["diff"] > 0 else "▼") if row["significant"] else ""
        assert mk.loc[run, "AP"] == expect
    allp = compare_measures({"AP": _matrix()}, correction="holm")
    letters = allp.letters()
    for r in allp.comparisons["AP"].table.itertuples():
        win, lose = (r.a, r.b) if r.diff > 0 else (r.b, r.a)
        assert (letters[lose] in allp.markers().loc[win, "AP"]) == bool(r.significant)


def test_latex_is_a_booktabs_table_and_escapes_names():
    X = _matrix(m=3)
    X.index = pd.Index(["a_b", "50%", "x&y"], name="system")
    tex = compare_measures({"nDCG@10": X}, baseline="a_b").to_latex(label="tab:cmp")
    assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 1
    assert r"a\_b" in tex and r"50\%" in tex and r"x\&y" in tex and r"\label{tab:cmp}" in tex
    rows = [ln for ln in tex.splitlines() if ln.endswith(r"\\")]
    import re

    # column separators (unescaped &): the header spans each measure's two columns (mean, marker); a data row has both
    assert [len(re.findall(r"(?<!\\)&", ln)) for ln in rows] == [1, 2, 2, 2]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed (the structure is checked above)")
def test_latex_compiles(tmp_path):
    doc = "\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n" + _table().to_latex() + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "t.tex"], cwd=tmp_path, capture_output=True)
    assert r.returncode == 0, r.stdout[-2000:]


def test_csv_neutralises_formula_cells_but_not_numbers(tmp_path):
    X = _matrix(m=3)
    X.index = pd.Index(["=HYPERLINK(\"x\")", "@SUM(1)", "-neg"], name="system")
    t = compare_measures({"AP": X - 1.0})
    text = t.to_csv(tmp_path / "t.csv")
    back = pd.read_csv(tmp_path / "t.csv")
    assert list(back["run"]) == ["'=HYPERLINK(\"x\")", "'@SUM(1)", "'-neg"]
    assert (back["AP"] < 0).all()  # negative numbers are numbers, not neutralised text
    assert text == (tmp_path / "t.csv").read_text()


def test_markdown_and_html_show_every_run():
    t = _table()
    md, html = t.to_markdown(), t._repr_html_()
    for run in t.means.index:
        assert run in md and run in html
    assert md.count("**") >= 2 * t.means.shape[1]




def test_equal_means_summed_in_another_order_are_both_bold():
    import numpy as np

    # b holds a's scores in another topic order: the same mean in exact arithmetic, summed in another order
    a = np.array([0.1, 0.7, 0.2, 0.3, 0.6, 0.9, 0.4, 0.05, 0.33, 0.21])
    b = a[[1, 2, 7, 8, 0, 4, 9, 5, 6, 3]]
    c = np.full(10, 0.2)
    X = pd.DataFrame([a, b, c], index=["a", "b", "c"], columns=[f"q{j}" for j in range(10)]).rename_axis(
        index="system", columns="topic")
    t = compare_measures({"AP": X})
    assert t.means.loc["a", "AP"] != t.means.loc["b", "AP"]  # the precondition: rounding differs
    assert list(t._best()[:, 0]) == [True, True, False]
    assert t.to_markdown().count("**") == 4  # two bold cells


def test_measures_over_different_topic_counts_caption_each_count():
    import numpy as np

    rng = np.random.default_rng(0)
    frames = {name: pd.DataFrame(rng.random((3, n)), index=["a", "b", "c"], columns=[f"q{j}" for j in range(n)])
              .rename_axis(index="system", columns="topic") for name, n in (("AP", 12), ("P@10", 5))}
    t = compare_measures(frames)
    assert "AP 12, P@10 5" in t._caption() and "12 topics" not in t._caption()
    assert t.comparisons["AP"].n_topics == 12 and t.comparisons["P@10"].n_topics == 5


# ------------------------------------------------------------------ arrays and their labels: the command line's path

_HOSTILE = ("|a*", "<b>x</b>", "=1+1", "$\\sigma$_%&", "two\nlines", "tab\tname", "é ▲")


def _outputs(t: ComparisonTable) -> dict:
    """Every rendering of a table and of its comparisons, and the frames its attributes give."""
    out = {"summary": t.summary(), "md": t.to_markdown(), "latex": t.to_latex(), "json": t.to_json(),
           "csv": t.to_csv(), "html": t._repr_html_(), "repr": repr(t), "letters": t.letters()}
    for k, c in t.comparisons.items():
        out.update({f"{k}:{f}": getattr(c, f)() for f in ("summary", "to_markdown", "to_latex", "to_json", "to_csv",
                                                         "_repr_html_", "__repr__")})
    return out


@pytest.mark.parametrize("name", ["trec9", "dl19", "robust04", "dl21", "clef"])
def test_arrays_with_labels_give_what_their_frames_give(name, request):
    """compare_measures of LabelledMatrix values (the command line's computed scores: no pandas) and of the labelled
    frames of the same arrays give the same tables, byte for byte in every format, on each shared collection: all
    pairs (a randomisation test, Holm) and against a baseline (the t-test, the 6 best runs), run names made hostile
    (markup, formulas, newlines: every renderer's escaping sees them)."""
    import metrics
    from experiments._validation import LabelledMatrix

    judged = request.getfixturevalue(name).judged
    names = [f"{s}{_HOSTILE[i % len(_HOSTILE)]}" for i, s in enumerate(judged.systems)]
    topics = list(judged.topics)
    arrays = {m: metrics.measures.masked(metrics.measures.measure_scores(judged, m), judged) for m in ("nDCG@10", "AP")}
    if any(np.isnan(a).any() for a in arrays.values()):
        pytest.skip("scores with missing topics (compared in test_arrays_with_labels_are_refused_as_frames_are)")
    frames = {m: pd.DataFrame(a, index=pd.Index(names, name="system"), columns=pd.Index(topics, name="topic"))
              for m, a in arrays.items()}
    labelled = {m: LabelledMatrix(a, names, topics) for m, a in arrays.items()}
    for kw in ({"test": "randomization", "n_resamples": 600, "correction": "holm", "top_k": 8},
               {"baseline": names[1], "top_k": 6}):
        want, got = compare_measures(frames, **kw), compare_measures(labelled, **kw)
        assert _outputs(got) == _outputs(want)
        pd.testing.assert_frame_equal(got.means, want.means)
        pd.testing.assert_frame_equal(got.markers(), want.markers())
        for k, c in got.comparisons.items():
            pd.testing.assert_frame_equal(c.table, want.comparisons[k].table)
            pd.testing.assert_series_equal(c.means, want.comparisons[k].means)


@pytest.mark.parametrize("change, match", [
    (lambda x, s, t: (np.where(np.arange(x.size).reshape(x.shape) == 5, np.nan, x), s, t), "1 NaN value"),
    (lambda x, s, t: (x, [s[0], *s[:-1]], t), "duplicate system labels"),
    (lambda x, s, t: (x, s, [t[0], *t[:-1]]), "duplicate topic labels"),
    (lambda x, s, t: (x[:, :1], s, t[:1]), "at least 2 topics"),
    (lambda x, s, t: (x[:1], s[:1], t), "1 system"),
    (lambda x, s, t: (x, [*s[:-1], "mean"], t), "mean"),
])
def test_arrays_with_labels_are_refused_as_frames_are(change, match):
    """A LabelledMatrix that breaks a rule of every score matrix (NaN, a label twice, too few topics or systems, a
    summary row) is refused with the very error its frame gets."""
    from experiments._validation import LabelledMatrix

    x, s, t = change(_matrix().to_numpy(), [f"run{i}" for i in range(5)], [f"q{j}" for j in range(30)])
    frame = pd.DataFrame(x, index=pd.Index(s, name="system"), columns=pd.Index(t, name="topic"))
    with pytest.raises(ValueError, match=match) as want:
        compare_measures({"AP": frame})
    with pytest.raises(ValueError) as got:
        compare_measures({"AP": LabelledMatrix(x, s, t)})
    assert str(got.value) == str(want.value)


def test_more_than_26_runs_separate_their_letters():
    """With 27 runs and more, letters of two characters appear (aa, ab, ...): a cell's letters are then separated
    by commas in row order (``aab`` could be a+ab or aa+b), and each cell reads back as the set of runs beaten."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.random((30, 25)) * 0.2 + np.linspace(0, 1, 30)[::-1, None],
                     index=pd.Index([f"r{i:02d}" for i in range(30)], name="system"),
                     columns=pd.Index([f"q{j}" for j in range(25)], name="topic"))
    t = compare_measures({"AP": X})
    letters = t.letters()
    by_letter = {v: k for k, v in letters.items()}
    c = t.comparisons["AP"]
    beaten = {r: set() for r in t.runs}
    for r in c.rows():
        if r.significant:
            beaten[r.a if r.diff > 0 else r.b].add(r.b if r.diff > 0 else r.a)
    mk = t.markers()["AP"]
    assert any("," in m for m in mk) and any(len(letters[b]) == 2 for v in beaten.values() for b in v)
    for run, cell in mk.items():
        got = [x for x in cell.split(",") if x]
        assert got == sorted(got, key=lambda s: (len(s), s))  # row order: a .. z, aa, ab
        assert {by_letter[x] for x in got} == beaten[run]
    assert compare_measures({"AP": X.iloc[:26]}).markers()["AP"].str.contains(",").sum() == 0  # 26: run together


def test_all_pairs_csv_gives_the_key_to_the_letters():
    import io

    t = _table()
    allp = compare_measures({"AP": _matrix()})
    back = pd.read_csv(io.StringIO(allp.to_csv()))
    assert list(back.columns[:2]) == ["letter", "run"] and list(back["letter"]) == list(allp.letters().values())
    assert "letter" not in pd.read_csv(io.StringIO(t.to_csv())).columns  # against a baseline: no letters


def test_results_made_by_hand_are_checked():
    """The constructors take arrays (what compare and from_json give them), freeze them, and refuse a pair column of
    another length, a mean per system missing, or a means table of another shape."""
    c = _table().comparisons["AP"]
    kw = {f: getattr(c, f) for f in ("test", "correction", "alpha", "baseline", "effect_size", "measure", "n_systems",
                                     "n_topics", "n_resamples", "exact", "seed", "residual_variance",
                                     "min_detectable_difference")}
    same = Comparison(**kw, pairs={k: list(v) for k, v in c.pairs.items()}, systems=list(c.systems),
                      system_means=list(c.system_means))
    assert same.summary() == c.summary() and same.to_json() == c.to_json()
    with pytest.raises(ValueError):
        c.pairs["p"][0] = 0.5  # read-only: table and means are built from them once
    short = dict(c.pairs, p=c.pairs["p"][:-1])
    with pytest.raises(ValueError, match="one entry per pair"):
        Comparison(**kw, pairs=short, systems=c.systems, system_means=c.system_means)
    with pytest.raises(ValueError, match="one mean per system"):
        Comparison(**kw, pairs=c.pairs, systems=c.systems, system_means=c.system_means[:-1])
    t = _table()
    with pytest.raises(ValueError, match="runs x measures"):
        ComparisonTable(runs=t.runs, values=t.values[:, :1], comparisons=t.comparisons, baseline=t.baseline)


def test_a_comparison_document_with_a_pair_missing_is_refused():
    from gtheory.kit.errors import DocumentError

    c = _table().comparisons["AP"]
    doc = json.loads(c.to_json())
    doc["table"]["rows"] = doc["table"]["rows"][:-1]
    with pytest.raises(DocumentError, match="one row per pair"):
        Comparison.from_json(json.dumps(doc))


from hypothesis import event, given, settings, strategies as st  # noqa: E402

_NAME = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(m=st.integers(2, 7), n=st.integers(2, 12), seed=st.integers(0, 2**16), names=st.data(),
       baseline=st.booleans(), test=st.sampled_from(["t", "wilcoxon", "sign", "randomization"]))
def test_arrays_and_frames_agree_on_any_matrix(m, n, seed, names, baseline, test):
    """The array path (LabelledMatrix) and the frame path give the same table in every format for any shape, scores
    with ties (rounded to 0.1) and any run names (unicode, markup, spaces; distinct as text)."""
    from experiments._validation import LabelledMatrix

    runs = names.draw(st.lists(_NAME, min_size=m, max_size=m, unique=True))
    if any(r.strip().lower() in ("all", "mean", "average", "total", "sum", "median") for r in runs):
        event("summary label")
        return  # summary labels: refused alike on both paths (test_arrays_with_labels_are_refused_as_frames_are)
    x = np.round(np.random.default_rng(seed).random((m, n)), 1)
    topics = [f"q{j}" for j in range(n)]
    frame = pd.DataFrame(x, index=pd.Index(runs, name="system"), columns=pd.Index(topics, name="topic"))
    kw = {"test": test, "n_resamples": 200, "baseline": runs[0] if baseline else None}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # V_E = 0, a resampling floor: the same warnings on both paths
        try:
            want = compare_measures({"x": frame}, **kw)
        except ValueError as exc:  # e.g. a label that is a summary word in another spelling: refused alike
            with pytest.raises(ValueError) as got:
                compare_measures({"x": LabelledMatrix(x, runs, topics)}, **kw)
            assert str(got.value) == str(exc)
            event("refused alike")
            return
        got = compare_measures({"x": LabelledMatrix(x, runs, topics)}, **kw)
    assert _outputs(got) == _outputs(want)
    event("compared")
