"""The CLI's shared behaviour (experiments/cli/__init__.py, _common.py): the data options on every subcommand
that reads runs, subcommand usage on an unknown option, errors in the user's terms, and --json of evaluate."""
from __future__ import annotations

import json

import numpy as np
import pytest

import metrics
import optimize
from experiments.cli import SUBCOMMANDS, build_parser, main


@pytest.fixture(scope="module")
def subset(embedded_trec9, tmp_path_factory) -> str:
    """10 systems x 12 topics of TREC-9 saved as a tensor for --judged."""
    path = tmp_path_factory.mktemp("common") / "subset.npz"
    embedded_trec9.subset(systems=np.arange(0, 100, 10), topics=np.arange(12)).save(path)
    return str(path)


@pytest.mark.parametrize("command", ["evaluate", "gstudy", "tune", "check", "robustness", "report", "sweep"])
def test_every_data_subcommand_has_the_shared_data_options(command):
    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices[command]
    options = {o for a in sub._actions for o in a.option_strings}
    assert {"--runs", "--qrels", "--judged", "--depth", "--missing"} <= options


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_unknown_option_prints_the_subcommands_usage(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: gtheory {command}") and "unrecognized arguments: --no-such-option" in err


def test_tune_reads_judged_tensor(subset, capsys):
    assert main(["tune", "--judged", subset, "--cutoff", "5", "--starts", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ref = optimize.optimize_discount(metrics.JudgedRuns.load(subset), gain="linear", cutoff=5, starts=1)
    np.testing.assert_allclose(d["discount"], ref.discount, atol=1e-12)


def test_one_system_is_refused_in_the_users_terms(embedded_trec9, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    one = tmp_path / "one.npz"
    embedded_trec9.subset(systems=[3], topics=np.arange(5)).save(one)
    for argv in (["tune", "--cutoff", "5"], ["gstudy"], ["check", "--cutoff", "5"], ["report", "--quick"]):
        assert main([*argv, "--judged", str(one)]) == 2
        err = capsys.readouterr().err
        assert "the data has only 1 system; at least 2 are needed" in err and "`" not in err, (argv, err)


def test_evaluate_json_records(subset, capsys):
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--measure", "nDCG@10", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    j = metrics.JudgedRuns.load(subset)
    assert len(records) == 2 * j.n_systems * j.n_topics
    assert set(records[0]) == {"system", "topic", "measure", "score"}
    ap = metrics.evaluate(j, "AP")
    r = next(r for r in records if r["measure"] == "AP")
    assert r["score"] == ap.loc[r["system"], r["topic"]]
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--format", "wide", "--json"]) == 0
    wide = json.loads(capsys.readouterr().out)
    assert len(wide) == j.n_systems and wide[0]["system"] == j.systems[0] and len(wide[0]) == 1 + j.n_topics


# ---- --json of every subcommand goes through _common.emit_json: readable non-ASCII, valid JSON
def test_emit_json_writes_non_ascii_as_is(capsys):
    from experiments.cli._common import emit_json

    obj = {"label": "Φ(50) ≥ 0.95", "σ²": np.float64(0.5), "n": np.int64(3), "v": np.array([1.0, 2.0])}
    emit_json(obj)
    out = capsys.readouterr().out
    assert "Φ(50) ≥ 0.95" in out and "\\u" not in out and out.endswith("}\n")
    assert json.loads(out) == {"label": "Φ(50) ≥ 0.95", "σ²": 0.5, "n": 3, "v": [1.0, 2.0]}


def test_emit_json_escapes_what_stdout_cannot_encode(monkeypatch):
    import io
    import sys

    from experiments.cli._common import emit_json

    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="cp1252")
    monkeypatch.setattr(sys, "stdout", stdout)
    emit_json({"label": "Φ"})
    stdout.flush()
    text = raw.getvalue().decode("cp1252")
    assert "\\u03a6" in text and json.loads(text) == {"label": "Φ"}


def test_tune_and_gstudy_json_go_through_emit_json(subset, tmp_path, capsys, monkeypatch):
    import experiments.cli.gstudy as gstudy_cli
    import experiments.cli.tune as tune_cli
    from experiments.cli._common import emit_json

    calls = []

    def recording(obj):
        calls.append(obj)
        emit_json(obj)

    monkeypatch.setattr(tune_cli, "emit_json", recording)
    monkeypatch.setattr(gstudy_cli, "emit_json", recording)
    # tune: the JSON value of Tuning.to_dict, in emit_json's readable form
    assert main(["tune", "--judged", subset, "--cutoff", "5", "--starts", "1", "--json"]) == 0
    out = capsys.readouterr().out
    assert len(calls) == 1 and json.loads(out) == json.loads(json.dumps(calls[0]))
    assert out == json.dumps(calls[0], indent=2, ensure_ascii=False) + "\n"
    # gstudy: a measure named with Φ round-trips through the JSON source string
    p = tmp_path / "Φ-scores.csv"
    p.write_text("system,topic,measure,score\na,1,Φ@5,0.1\na,2,Φ@5,0.3\nb,1,Φ@5,0.6\nb,2,Φ@5,0.7\n",
                 encoding="utf-8")
    assert main(["gstudy", str(p), "--json"]) == 0
    out = capsys.readouterr().out
    assert len(calls) == 2 and "Φ@5" in out
    assert json.loads(out)["source"] == f"{p} (Φ@5)"


def test_evaluate_json_goes_through_emit_json(subset, tmp_path, capsys, monkeypatch):
    import dataclasses

    import experiments.cli.evaluate as evaluate_cli
    from experiments.cli._common import emit_json

    calls = []

    def recording(obj, path=None):
        calls.append(obj)
        emit_json(obj, path)

    monkeypatch.setattr(evaluate_cli, "emit_json", recording)
    j = metrics.JudgedRuns.load(subset)
    greek = tmp_path / "greek.npz"
    dataclasses.replace(j, systems=tuple(f"Φ-{s}" for s in j.systems)).save(greek)
    # standard output: the readable form of the other subcommands (indent 2, Φ as is)
    assert main(["evaluate", "--judged", str(greek), "--measure", "AP", "--json"]) == 0
    out = capsys.readouterr().out
    assert len(calls) == 1 and out == json.dumps(calls[0], indent=2, ensure_ascii=False) + "\n"
    records = json.loads(out)
    assert "Φ-" in out and "\\u" not in out and records[0]["system"] == f"Φ-{j.systems[0]}"
    # --out: the same text, in a UTF-8 file
    path = tmp_path / "scores.json"
    assert main(["evaluate", "--judged", str(greek), "--measure", "AP", "--json", "--out", str(path)]) == 0
    assert len(calls) == 2 and path.read_text(encoding="utf-8") == out


def _strict_loads(text: str):
    """json.loads that refuses NaN/Infinity/-Infinity, as jq and JavaScript's JSON.parse do."""
    def refuse(name):
        raise ValueError(f"not valid JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_emit_json_writes_non_finite_numbers_as_null(tmp_path, capsys):
    from experiments.cli._common import emit_json

    nan, inf = float("nan"), float("inf")
    obj = {
        "nan": nan, "inf": inf, "-inf": -inf, "ok": 0.5, "n": 3, "text": "NaN",
        "np": [np.float64(nan), np.float64(-inf), np.float32(inf), np.longdouble(nan), np.float64(1.5)],
        "array": np.array([[1.0, nan], [inf, -inf]]),
        "nested": {"list": [1, [nan, {"deep": (inf, 2.0)}]], "scalar": np.float64(inf)},
    }
    expected = {
        "nan": None, "inf": None, "-inf": None, "ok": 0.5, "n": 3, "text": "NaN",
        "np": [None, None, None, None, 1.5],
        "array": [[1.0, None], [None, None]],
        "nested": {"list": [1, [None, {"deep": [None, 2.0]}]], "scalar": None},
    }
    emit_json(obj)
    out = capsys.readouterr().out
    assert "NaN," not in out and "Infinity" not in out
    assert _strict_loads(out) == expected
    path = tmp_path / "out.json"
    emit_json(obj, path)
    assert _strict_loads(path.read_text(encoding="utf-8")) == expected


def test_evaluate_json_excluded_topic_is_null(tmp_path, capsys):
    # --missing exclude: a topic a run did not return scores NaN, written as null
    p = tmp_path / "runs"
    p.mkdir()
    (p / "a.txt").write_text("1 Q0 d1 1 2 a\n1 Q0 d2 2 1 a\n2 Q0 d3 1 1 a\n")
    (p / "b.txt").write_text("1 Q0 d2 1 1 b\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    argv = ["evaluate", "--runs", str(p), "--qrels", str(qrels), "--missing", "exclude", "--measure", "AP"]
    for fmt in ("long", "wide"):
        assert main([*argv, "--format", fmt, "--json"]) == 0
        records = _strict_loads(capsys.readouterr().out)
        if fmt == "long":
            assert {(r["system"], r["topic"]): r["score"] for r in records}[("b", "2")] is None
        else:
            assert next(r for r in records if r["system"] == "b")["2"] is None


# --- output paths are checked before any computation (check_output_path) ---------------------------------------

def test_check_output_path_messages_name_the_option_and_directory(tmp_path, monkeypatch):
    from experiments.cli import UsageError
    from experiments.cli._outputs import check_output_path

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"^--out nodir/x\.csv: directory 'nodir' does not exist\.$"):
        check_output_path("nodir/x.csv", "--out")
    with pytest.raises(UsageError, match=r"^--plot \.: is a directory"):
        check_output_path(".", "--plot")
    assert check_output_path("x.csv", "--out").name == "x.csv"  # a new file in the working directory
    # an output directory may be created with its missing parents; an existing file is refused
    assert check_output_path("a/b/c", "--out", directory=True).name == "c"
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="--out f/g: 'f' is a file, not a directory"):
        check_output_path("f/g", "--out", directory=True)
    assert not (tmp_path / "nodir").exists() and not (tmp_path / "a").exists()


@pytest.mark.parametrize("argv", [
    ["evaluate", "--measure", "AP", "--out", "nodir/x.csv"],
    ["gstudy", "--measure", "AP", "--plot", "nodir/x.png"],
    ["tune", "--cutoff", "5", "--out", "nodir/x.json"],
])
def test_output_path_refused_before_loading_the_data(argv, tmp_path, monkeypatch, capsys):
    import experiments.cli._data as common  # the data options (load_judged) live there

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("data loaded before the output path was checked")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(common.metrics, "load_trec9", boom)
    assert main(argv) == 2
    err = capsys.readouterr().err
    option = argv[-2]
    assert err.strip().endswith(f"{option} {argv[-1]}: directory 'nodir' does not exist.")
    assert len(err.strip().splitlines()) == 1


# --- --tuning FILE on evaluate and gstudy: a saved tuning's gain, discount and cut-off -------------------------

@pytest.fixture(scope="module")
def joint(subset, tmp_path_factory):
    """A joint (gain and discount) tuning of nDCG@5 on the subset, saved as JSON."""
    t = optimize.optimize_joint(metrics.JudgedRuns.load(subset), cutoff=5, starts=1)
    path = tmp_path_factory.mktemp("tuning") / "joint.json"
    t.to_json(str(path))
    return t, str(path)


def test_evaluate_and_gstudy_apply_the_tunings_gain_discount_and_cutoff(subset, joint, capsys):
    import gtheory

    t, path = joint
    j = metrics.JudgedRuns.load(subset)
    assert main(["evaluate", "--judged", subset, "--tuning", path, "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    ref = t.ndcg(j)
    assert {r["measure"] for r in records} == {"nDCG@5"}  # the tuned cut-off is the default measure
    assert records[0]["score"] == pytest.approx(ref.iloc[0, 0], abs=1e-12)
    assert main(["gstudy", "--judged", subset, "--tuning", path, "--n-topics", "12", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["dstudy"][0]["phi"] == pytest.approx(t.phi(), rel=1e-9)  # as 'gtheory tune' reports it
    assert d["dstudy"][0]["phi"] == pytest.approx(gtheory.gstudy(ref).phi(12), rel=1e-9)
    # a tuning JSON as --discount drops the tuned gain: warned, pointing to --tuning
    assert main(["gstudy", "--judged", subset, "--discount", path, "--measure", "nDCG@5", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"--discount {path} is a tuning whose gain" in err and f"Give --tuning {path}" in err


@pytest.mark.parametrize("extra, message", [
    (["--gain", "exponential"], "--gain and --tuning exclude each other"),
    (["--discount", "zipf"], "--discount and --tuning exclude each other"),
    (["--measure", "AP"], "--tuning applies to nDCG; --measure AP is not nDCG."),
    (["--measure", "nDCG@10"], "--measure nDCG@10: --tuning {path} has discount weights up to rank 5 only"),
])
def test_tuning_conflicts_are_refused(subset, joint, capsys, extra, message):
    _, path = joint
    for command in ("evaluate", "gstudy"):
        assert main([command, "--judged", subset, "--tuning", path, *extra]) == 2
        err = capsys.readouterr().err
        assert message.format(path=path) in err and len(err.strip().splitlines()) == 1


def test_discount_vector_shorter_than_the_cutoff_is_refused(subset, joint, capsys):
    # it returned nDCG@5 values labelled nDCG@10
    _, path = joint
    assert main(["evaluate", "--judged", subset, "--measure", "nDCG@10", "--discount", path]) == 2
    err = capsys.readouterr().err
    assert "--measure nDCG@10: the --discount vector has 5 weights, fewer than the cut-off 10" in err


def test_gstudy_csv_refuses_the_ndcg_options(tmp_path, capsys):
    p = tmp_path / "s.csv"
    p.write_text("system,1,2\na,0.1,0.2\nb,0.3,0.5\n")
    assert main(["gstudy", str(p), "--gain", "exponential"]) == 2
    assert f"--gain applies to nDCG computed from runs (--runs/--qrels, --judged); {p} holds scores" \
        in capsys.readouterr().err


# --- --discount FILE: every problem is one line naming the file ------------------------------------------------

@pytest.mark.parametrize("name, content, message", [
    ("nofile.json", None, "--discount {p}: no such file"),  # was: cannot parse discount family
    ("obj.json", '{"a": 1}', "--discount {p}: a JSON object needs a 'discount' key"),  # was: error: discount
    ("bad.json", "[1,", "--discount {p}: not valid JSON (Expecting value"),
    ("x.json", '[1, "x"]', "--discount {p}: weight 'x' at position 2 is not a number."),
    ("empty.txt", "", "--discount {p}: no weights in the file."),  # was: a NumPy UserWarning, then an error
    ("neg.csv", "1,-0.5\n", "--discount {p}: weight '-0.5' at line 1 must be a finite non-negative number."),
])
def test_discount_file_errors_name_the_file(subset, tmp_path, capsys, name, content, message):
    p = tmp_path / name
    if content is not None:
        p.write_text(content)
    assert main(["evaluate", "--judged", subset, "--measure", "nDCG@2", "--discount", str(p)]) == 2
    err = capsys.readouterr().err
    assert message.format(p=p) in err and len(err.strip().splitlines()) == 1 and "Warning" not in err


def test_discount_csv_file_is_read_as_weights(subset, tmp_path, capsys):
    p = tmp_path / "d.csv"
    p.write_text("1, 0.5\n0.25\n")
    assert main(["evaluate", "--judged", subset, "--measure", "nDCG@3", "--discount", str(p), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    ref = metrics.ndcg(metrics.JudgedRuns.load(subset), discount=[1, 0.5, 0.25], cutoff=3)
    assert got[0]["score"] == pytest.approx(ref.iloc[0, 0], abs=1e-12)


# --- --depth and --missing with the embedded data and --judged (they were silently ignored) -------------------

def test_depth_is_refused_where_it_cannot_apply(subset, capsys):
    assert main(["evaluate", "--measure", "AP", "--depth", "5"]) == 2
    err = capsys.readouterr().err
    assert "--depth 5: the embedded TREC-9 data is judged to depth 1000 and cannot be cut here" in err
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--depth", "5"]) == 2
    assert f"--depth 5: the --judged tensor {subset} is judged to depth 1000" in capsys.readouterr().err
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--depth", "1000"]) == 0  # its own depth


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_depth_must_be_a_positive_integer_at_parse_time(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--measure", "AP", "--depth", value])
    assert exc.value.code == 2
    assert "error: argument --depth: must be a positive integer; got" in capsys.readouterr().err


@pytest.fixture(scope="module")
def missed(subset, tmp_path_factory) -> str:
    """The subset where the first system does not return the first topic."""
    import dataclasses

    j = metrics.JudgedRuns.load(subset)
    n = j.n_retrieved.copy()
    n[0, 0] = 0
    grades = j.grades.copy()
    grades[0, 0] = metrics.ABSENT
    path = tmp_path_factory.mktemp("missed") / "missed.npz"
    dataclasses.replace(j, n_retrieved=n, grades=grades).save(path)
    return str(path)


def test_missing_applies_to_a_judged_tensor(missed, capsys):
    path = missed
    assert main(["evaluate", "--judged", str(path), "--measure", "AP", "--missing", "exclude", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["score"] is None and records[1]["score"] is not None  # excluded, not 0
    assert main(["evaluate", "--judged", str(path), "--measure", "AP", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["score"] == 0


@pytest.mark.parametrize("command", [["gstudy", "--measure", "AP", "--json"],
                                     ["tune", "--cutoff", "5", "--starts", "1", "--json"]])
def test_missing_exclude_drops_the_missed_topics_with_a_note(missed, command, capsys):
    # the NaN of the excluded topic used to be refused ("`scores` contains 1 NaN value")
    import gtheory

    assert main([*command, "--judged", missed, "--missing", "exclude"]) == 0
    captured = capsys.readouterr()
    j = metrics.JudgedRuns.load(missed)
    assert (f"gtheory {command[0]}: note: --missing exclude: dropped 1 of 12 topics that run {j.systems[0]} "
            f"does not return (topic {j.topics[0]}); the study uses the other 11.") in captured.err
    out = json.loads(captured.out)
    if command[0] == "gstudy":
        ref = gtheory.gstudy(metrics.evaluate(j.subset(topics=list(j.topics[1:])), "AP"))
        assert out["n_topics"] == 11 and out["components"]["system"]["variance_raw"] == pytest.approx(
            ref.var_system_raw, rel=1e-9)
    else:
        assert out["n_topics"] == 11


@pytest.mark.parametrize("command", ["evaluate", "gstudy"])
def test_ndcg_cutoff_beyond_the_run_depth_is_scored_as_trec_eval_with_a_note(command, subset, capsys):
    # issue 12 item 9: refused while P@5000 was accepted; trec_eval's ndcg_cut.5000 scores the ranks that exist
    assert main([command, "--judged", subset, "--measure", "nDCG@5000", "--json"]) == 0
    assert "note: --measure nDCG@5000 on runs 1000 deep: the ranks that exist are scored" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--measure", "AP", "--measure", "AP"], "--measure AP is given twice"),  # wrote every row twice
    (["evaluate", "--measure", "AP", "--gain", "exponential"], "--gain applies to nDCG; --measure AP is not nDCG."),
    (["gstudy", "--measure", "P@10", "--discount", "zipf"], "--discount applies to nDCG; --measure P@10 is not"),
])
def test_options_that_would_be_ignored_or_repeated_are_refused(subset, argv, message, capsys):
    assert main([*argv, "--judged", subset]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"gtheory {version('gtheory')}\n"


# --- library errors in the CLI's terms: the options typed, advice a CLI user can follow ---------------------------

#: Python-API wording that must not reach a CLI user
API_WORDING = ("`", "top_k", "cutoff=", "pass a mapping", "duplicates=", "missing='zero'", "read_runs(", "names=",
               "orientation='", "(CLI:")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """3 runs x 3 topics of 4 documents, qrels with grades 0, 1, 1.5 and 2; plus a run with a duplicate docno
    and two run files with the same name in different directories."""
    d = tmp_path_factory.mktemp("tiny")
    grades = {"d1": 2, "d2": 1.5, "d3": 1, "d4": 0}
    (d / "qrels").write_text("".join(f"{t} 0 {doc} {g:g}\n" for t in (1, 2, 3) for doc, g in grades.items()))
    (d / "qrels_int").write_text("".join(f"{t} 0 {doc} {int(g)}\n" for t in (1, 2, 3) for doc, g in grades.items()))
    runs = d / "runs"
    runs.mkdir()
    for i, name in enumerate(("a", "b", "c")):
        docs = list(grades)[i:] + list(grades)[:i]
        (runs / name).write_text("".join(f"{t} Q0 {doc} {r} {10 - r} {name}\n"
                                         for t in (1, 2, 3) for r, doc in enumerate(docs, 1)))
    dup = d / "dup"
    dup.mkdir()
    (dup / "a").write_text((runs / "a").read_text() + "3 Q0 d1 5 1 a\n")
    for sub in ("x", "y"):
        (d / sub).mkdir()
        (d / sub / "run").write_text((runs / "a").read_text())
    return d


def _one_line_error(capsys, command: str) -> str:
    err = capsys.readouterr().err
    # the notes that reading --runs/--qrels prints before the error (fractional grades, coverage) are not errors
    notes = (f"gtheory {command}: warning: ", f"gtheory {command}: coverage: ")
    err = "".join(ln for ln in err.splitlines(keepends=True) if not ln.startswith(notes))
    assert err.startswith(f"gtheory {command}: error: ") and len(err.strip().splitlines()) == 1, err
    for word in API_WORDING:
        assert word not in err, (word, err)
    return err


@pytest.mark.parametrize("argv, messages", [
    # metrics.measures.gains: "a gain vector is indexed by integer grade ...; pass a mapping {grade: gain} instead"
    (["evaluate", "--measure", "nDCG@3", "--gain", "0", "1", "3"],
     ["--gain with numbers gives one gain per integer grade", "non-integer grades [1.5]",
      "give a gain family instead (--gain linear, exponential or binary)"]),
    (["gstudy", "--measure", "nDCG@3", "--gain", "0", "1", "3"], ["--gain with numbers gives one gain per integer grade"]),
    (["tune", "--cutoff", "3", "--starts", "1", "--gain", "0", "1", "3"],
     ["--gain with numbers gives one gain per integer grade", "--gain linear, exponential or binary"]),
])
def test_gain_per_grade_on_non_integer_grades_names_gain(tiny, argv, messages, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main([*argv, "--runs", str(tiny / "runs"), "--qrels", str(tiny / "qrels")]) == 2
    err = _one_line_error(capsys, argv[0])
    for m in messages:
        assert m in err, err


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--measure", "nDCG@3", "--gain", "0", "1"], "--gain has 2 entries (grades 0..1) but the qrels hold"),
    (["evaluate", "--measure", "nDCG@0"], "--measure nDCG@0: the cut-off must be a positive integer; got 0."),
    (["gstudy", "--measure", "nDCG@0"], "--measure nDCG@0: the cut-off must be a positive integer; got 0."),
    (["evaluate", "--measure", "nDCG", "--discount", "linear"],
     "needs its k; use nDCG@k in --measure (not nDCG), or give --discount 'linear(k=100)'"),
    (["evaluate", "--measure", "RBP(p=2)"], "--measure RBP(p=2): p (persistence) must be in (0, 1); got 2"),
])
def test_measure_and_gain_errors_name_the_options(tiny, argv, message, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main([*argv, "--runs", str(tiny / "runs"), "--qrels", str(tiny / "qrels_int")]) == 2
    assert message in _one_line_error(capsys, argv[0])


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--measure", "nDCG@3", "--discount", "rbp(p=2)"],
     "--discount rbp(p=2): p of the RBP discount must be in (0, 1]; got 2.0"),
    (["evaluate", "--measure", "nDCG@3", "--gain", "exponential(base=0)"],
     "--gain exponential(base=0): base of the exponential gain must be > 1; got 0.0"),
    (["evaluate", "--measure", "nDCG@3", "--gain", "nan", "1", "2"], "--gain takes finite numbers per grade; got nan."),
    (["gstudy", "--gain", "expo"], "--gain expo: unknown gain family 'expo'"),
    (["tune", "--what", "gain", "--discount", "jarvelin(b=0)"],
     "--discount jarvelin(b=0): b of the Järvelin discount must be > 1; got 0.0"),
    (["check", "--top-k", "1"], "--top-k must be an integer >= 2; got 1"),
    (["check", "--seed", "-1"], "--seed must be a non-negative integer; got -1"),
    (["check", "--against", "rbp(p=2)"], "--against 'rbp(p=2)': p of the RBP discount must be in (0, 1]"),
    (["report", "--seed", "-1"], "--seed must be a non-negative integer; got -1"),
])
def test_bad_options_are_refused_before_loading_in_the_users_terms(argv, message, tmp_path, capsys, monkeypatch):
    import experiments.cli._data as common  # the data options (load_judged) live there

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("data loaded before the options were checked")

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    monkeypatch.setattr(common.metrics, "load_trec9", boom)
    if argv[0] == "report":
        argv = [*argv, "--out", str(tmp_path / "report")]
    assert main(argv) == 2
    assert message in _one_line_error(capsys, argv[0])


@pytest.mark.parametrize("command", [["evaluate"], ["gstudy"], ["tune", "--cutoff", "3"], ["check", "--cutoff", "3"],
                                     ["sweep", "--cutoffs", "3"]])
def test_run_file_problems_say_what_the_cli_user_can_do(tiny, command, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    qrels = str(tiny / "qrels_int")
    # the fix as data, {"duplicates": "first"}: the CLI's option is --duplicates first
    assert main([*command, "--runs", str(tiny / "runs" / "b"), str(tiny / "dup" / "a"), "--qrels", qrels]) == 2
    err = _one_line_error(capsys, command[0])
    assert f"{tiny / 'dup' / 'a'}, line 13: docno 'd1' appears twice for topic '3' (first at line 9)" in err
    assert "use --duplicates first to keep only the first occurrence" in err
    # the fix {"names": ...}: no option sets a system's name; the CLI's advice for `names`
    assert main([*command, "--runs", str(tiny / "x" / "run"), str(tiny / "y" / "run"), "--qrels", qrels]) == 2
    err = _one_line_error(capsys, command[0])
    assert "several run files give the same system name(s) ['run']" in err and "rename the files" in err


@pytest.mark.parametrize("name, content, message", [
    ("ambig.csv", "a,b\n1,2\n3,4\n", "give --orientation systems-by-topics or topics-by-systems, or name the first column"),
    ("multi.csv", "system,topic,measure,score\ns1,t1,AP,0.1\ns1,t1,P@10,0.2\ns2,t1,AP,0.3\ns2,t1,P@10,0.4\n",
     "choose one by name with --measure (e.g. --measure 'AP')."),
    ("const.csv", "system,t1,t2\ns1,0.1,0.5\ns2,0.1,0.5\n", "the scores vary only between topics"),
])
def test_gstudy_scores_file_errors_name_the_options(tmp_path, name, content, message, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    path = tmp_path / name
    path.write_text(content)
    assert main(["gstudy", str(path)]) == 2
    assert message in _one_line_error(capsys, "gstudy")


def test_gstudy_measure_that_no_column_holds_names_the_option(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    path = tmp_path / "wide.csv"
    path.write_text("system,t1,t2\ns1,0.1,0.5\ns2,0.3,0.2\n")
    assert main(["gstudy", str(path), "--measure", "foo"]) == 2
    assert "--measure 'foo' selects a measure of a long CSV" in _one_line_error(capsys, "gstudy")


def test_missing_exclude_advice_of_the_optimiser_becomes_the_option(tiny):
    """Unreachable from the CLI (tune drops the missed topics first), but in_option_names words its fix anyway."""
    from experiments.cli import _errors, tune

    (tiny / "short").mkdir(exist_ok=True)
    (tiny / "short" / "a").write_text("".join(line + "\n" for line in (tiny / "runs" / "a").read_text().splitlines()
                                              if not line.startswith("3 ")))
    judged = metrics.judge([str(tiny / "short" / "a"), str(tiny / "runs" / "b")], str(tiny / "qrels_int"),
                           missing="exclude")
    with pytest.raises(metrics.FixableError) as exc:
        optimize.optimize_discount(judged, gain="linear", cutoff=3, starts=1)
    # the API's advice, in Python terms; the fix is data the CLI words with its options
    assert str(exc.value).endswith("; pass missing='zero' to score a topic a run does not return 0")
    assert (exc.value.param, exc.value.fix) == ("judged", {"missing": "zero"})
    msg = str(_errors.in_option_names(exc.value, tune._OPTIONS))
    assert msg.startswith("the data is read with --missing exclude and some runs miss topics")
    assert msg.endswith("; use --missing zero to score a topic a run does not return 0")
    assert "`" not in msg and "missing='" not in msg


@pytest.mark.parametrize("argv, fix", [
    (["evaluate", "--measure", "nDCG@3"], "; use --judged-only to evaluate condensed lists (the usual remedy, with bpref)"),
    (["gstudy"], ""),  # no --judged-only: the Python advice is left out, not leaked
])
def test_coverage_warning_words_its_fix_with_the_options(tmp_path, argv, fix, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 a 2\n")
    for name, docs in (("r1", "abcdefghij"), ("r2", "jihgfedcba")):
        (tmp_path / name).write_text("".join(f"{t} Q0 {d} {r} {10 - r} {name}\n" for t in (1, 2)
                                             for r, d in enumerate(docs, 1)))
    assert main([*argv, "--runs", str(tmp_path / "r1"), str(tmp_path / "r2"), "--qrels", str(tmp_path / "q"),
                 "--quiet"]) == 0
    warning = [ln for ln in capsys.readouterr().err.splitlines() if "warning: only" in ln]
    assert len(warning) == 1, warning
    assert warning[0].endswith("(check that these are the qrels of these runs)" + fix), warning[0]
    assert "judged_only" not in warning[0] and "`" not in warning[0]


def test_a_measure_with_a_bad_cutoff_is_refused_before_loading(monkeypatch, capsys):
    import experiments.cli._data as data

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    monkeypatch.setattr(data.metrics, "load_trec9", lambda: pytest.fail("data loaded before --measure was checked"))
    assert main(["evaluate", "--measure", "AP", "--measure", "ndcg_cut.0"]) == 2
    assert capsys.readouterr().err == ("gtheory evaluate: error: --measure ndcg_cut.0: the cut-off must be a positive "
                                       "integer; got 0.\n")


def test_a_measure_returning_nan_says_which_option_fixes_it():
    from experiments.cli import _errors, robustness

    exc = metrics.FixableError("measure 'AP' returned NaN or infinite scores (is `judged` read with "
                               "`missing='exclude'`?), but the study needs a complete matrix", param="judged",
                               fix={"missing": "zero"}, fix_effect="score a topic a run does not return 0")
    assert str(_errors.in_option_names(exc, robustness._OPTIONS)) == (
        "measure 'AP' returned NaN or infinite scores (is the data read with --missing exclude?), but the study "
        "needs a complete matrix; use --missing zero to score a topic a run does not return 0")


def test_sweep_and_robustness_name_an_api_parameter_by_its_option():
    # one translation of API parameter names for every subcommand (behaviour, not where the code lives)
    from experiments.cli import _errors, robustness, sweep

    exc = ValueError("`seeds` must hold non-negative integers; got -1.")
    for module in (sweep, robustness):
        assert str(_errors.in_option_names(exc, module._OPTIONS)) == "--seeds must hold non-negative integers; got -1."


def test_duplicates_option_on_every_subcommand_that_reads_runs():
    """--duplicates {error,first} exists wherever --runs does."""
    import argparse

    from experiments.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    reading = {name: sub for name, sub in subs.items() if any("--runs" in a.option_strings for a in sub._actions)}
    assert {"evaluate", "gstudy", "tune", "check", "sweep", "robustness", "demo", "report"} <= set(reading)
    for name, sub in reading.items():
        assert any("--duplicates" in a.option_strings and a.choices == ["error", "first"] for a in sub._actions), name


def test_rows_below_depth_are_noted(tmp_path, capsys, monkeypatch):
    # trec_eval has no default depth: a run deeper than --depth scores differently from trec_eval without -M
    # (here AP: the relevant document at rank 3 is cut at --depth 2), so the CLI says what it did not read
    import pytrec_eval

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d3 1\n2 0 d1 1\n")
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{i} {i} {10 - i} r\n" for t in (1, 2) for i in (1, 2, 3)))
    argv = ["evaluate", "--runs", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"), "--measure", "AP", "--depth", "2",
            "--per-topic"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "note: --depth 2: 2 rows ranked below 2 not read in run r (2) (as trec_eval -M 2;" in captured.err
    full = pytrec_eval.RelevanceEvaluator({"1": {"d1": 1, "d3": 1}}, {"map"}).evaluate(
        {"1": {"d1": 9.0, "d2": 8.0, "d3": 7.0}})["1"]["map"]
    assert ",1,AP,0.5" in captured.out.replace(" ", "") and full == pytest.approx((1 + 2 / 3) / 2)
    assert main([*argv[:-3]]) == 0 and "--depth" not in capsys.readouterr().err  # no cut, no note


def test_duplicates_first_reads_the_run_and_says_so(tiny, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    qrels = str(tiny / "qrels_int")
    argv = ["evaluate", "--runs", str(tiny / "runs" / "b"), str(tiny / "dup" / "a"), "--qrels", qrels,
            "--measure", "P@3", "--duplicates", "first", "--per-topic"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "dropped 1 repeated line in run a (1)" in captured.err
    assert captured.out.count(",P@3,") == 6
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_duplicates_refused_with_a_saved_tensor(capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main(["evaluate", "--duplicates", "first"]) == 2
    assert "--duplicates applies to run files read with --runs" in _one_line_error(capsys, "evaluate")


def test_duplicates_in_several_run_files_are_listed_in_one_error(tiny, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    other = tmp_path / "c"
    other.write_text((tiny / "runs" / "c").read_text() + "1 Q0 d2 5 0 c\n2 Q0 d3 6 0 c\n")
    assert main(["evaluate", "--runs", str(tiny / "dup" / "a"), str(tiny / "runs" / "b"), str(other),
                 "--qrels", str(tiny / "qrels_int")]) == 2
    err = _one_line_error(capsys, "evaluate")
    assert f"{tiny / 'dup' / 'a'}, line 13: docno 'd1' appears twice" in err
    assert f"1 other run file also repeats docnos: {other} (2 lines, first at line 13)" in err


def test_a_library_warning_is_one_cli_line_in_option_terms(monkeypatch, capsys):
    # a warning no subcommand prints itself (e.g. regularised fits that did not converge in recommend) comes out as
    # "gtheory <command>: warning: ..." with the parameter named as the option, not Python's file:line format
    import warnings

    import optimize
    from experiments.cli import main as cli

    real = optimize.recommend

    def warns(*args, **kwargs):
        warnings.warn("`n_splits`: 3 fit(s) did not converge", optimize.OptimizationWarning)
        return real(*args, **kwargs)

    monkeypatch.setattr(optimize, "recommend", warns)
    assert cli(["recommend", "--cutoff", "5", "--splits", "2", "--inner", "2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "gtheory recommend: warning: --splits: 3 fit(s) did not converge" in err
    assert "OptimizationWarning" not in err and ".py:" not in err


def _takes_measure(command: str) -> bool:
    """Whether the subcommand has a --measure option (read from its parser, so a new one is covered)."""
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    return any("--measure" in a.option_strings for a in sub._actions)


#: subcommands with --measure and the options each needs besides it
_MEASURE_COMMANDS = {"plan": ["--min-diff", "0.05"]}


@pytest.mark.parametrize("measure, problem", [
    ("nDCG(discount=rbp,p=2)@10", "p of the RBP discount must be in (0, 1]; got 2.0"),  # refused by the discount
    ("RBP(p=2)@10", "p (persistence) must be in (0, 1); got 2"),
    ("nDCG(p=0.5)@10", "p is the persistence of discount=rbp; give discount=rbp with it"),  # refused by evaluate
    ("AP(rel=0)", "rel must be a finite number > 0"),  # the library's relevance_level is the name's rel
    ("nDCG@0", "the cut-off must be a positive integer; got 0."),  # refused by the parser
    ("nDGC@10", "unknown measure 'nDGC'"),
    ("AP,nDCG@10", "cannot parse measure 'AP,nDCG@10'"),
])
def test_every_measure_error_names_the_option_before_loading(measure, problem, capsys, monkeypatch):
    # every subcommand that takes --measure words a bad measure the same way, "--measure NAME: problem", and
    # refuses it before any data is read
    import experiments.cli._data as data

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    monkeypatch.setattr(data.metrics, "load_trec9", lambda: pytest.fail("data loaded before --measure was checked"))
    commands = [c for c in SUBCOMMANDS if _takes_measure(c)]
    assert {"evaluate", "gstudy", "plan", "budget", "compare", "robustness"} <= set(commands)
    for command in commands:
        assert main([command, "--measure", measure, *_MEASURE_COMMANDS.get(command, [])]) == 2, command
        err = _one_line_error(capsys, command)
        assert err.startswith(f"gtheory {command}: error: --measure {measure}: "), err
        assert problem in err, err


def test_a_measure_the_data_refuse_names_the_option(tiny, capsys, monkeypatch):
    # ERR(max_grade=1) is a valid name, but these qrels hold grade 2 (> max_grade): refused once the data are read,
    # in the same words by every subcommand (budget and robustness too, whose library calls evaluate it inside)
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    data = ["--runs", str(tiny / "runs"), "--qrels", str(tiny / "qrels_int")]
    for command in (c for c in SUBCOMMANDS if _takes_measure(c)):
        extra = {"budget": ["--depths", "2", "4"], **_MEASURE_COMMANDS}.get(command, [])
        assert main([command, "--measure", "ERR(max_grade=1)@3", *data, *extra]) == 2, command
        err = _one_line_error(capsys, command)
        assert err.startswith(f"gtheory {command}: error: --measure ERR(max_grade=1)@3: the qrels hold grade 2"), err
