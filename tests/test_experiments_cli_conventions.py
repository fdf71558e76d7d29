"""One convention for every subcommand: an option shared by several subcommands means the same on each (help,
default, type), --quiet silences notes and never results, --sort, -l/--relevance-level as trec_eval's -l."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import run_files, toy_runs
from experiments.cli import build_parser, main
from experiments.cli._measures import ONE_MEASURE

#: options several subcommands take whose help differs on purpose, each with why; any other shared option must be
#: the same everywhere (a new divergence fails the test below)
DIFFERENT_ON_PURPOSE = {
    "--json": "what each subcommand prints as JSON (its own result document)",
    "--out": "what each subcommand writes (a CSV, a tuning JSON, a report directory, a tensor)",
    "--plot": "each subcommand's own figure",
    "--format": "each subcommand's own output formats",
    "--measure": "one measure (gstudy, plan, budget) or repeatable (evaluate, compare, robustness); the same default",
    "--baseline": "compare: a run; recommend: the nDCG configuration a tuning must beat",
    "--fractions": "robustness: the curve's fractions; sweep: one axis of the grid (other defaults)",
    "--gain": "tune/recommend: the gain held fixed while tuning the discount",
    "--discount": "tune/recommend: the discount held fixed while tuning the gain",
    "--judged-only": "robustness adds condensed lists beside the full ones; evaluate and sweep replace them",
    "--min-diff": "plan: required, best - worst of an ANOVA; budget: the paired difference, with a default",
    "--n-resamples": "what is resampled (bootstrap replicates, permutations) and its cost differ",
    "--seeds": "robustness/sweep: qrels reductions; recommend: reseedings of the whole procedure",
    "--splits": "demo/report: topic splits of the check; recommend: outer halvings of the nested validation",
    "--test": "compare: the paired test; robustness: the test of discriminative power (with 'none')",
    "--top-k": "check: systems kept for the bootstrap; robustness: systems tested (compare/gstudy/plan: --top)",
    "--tuning": "check: the tuning to check (else tuned there); elsewhere: the nDCG of a tuning",
    "--what": "tune: what to tune; recommend: what to recommend (the same choices)",
    "--workers": "budget: processes per depth (default 1); sweep: grid points (default all cores)",
}
#: (option, subcommand) whose *default* differs on purpose (the help says why)
DEFAULT_DIFFERS = {
    ("--seed", "budget"): "None: --seed is refused without --bootstrap (0 is used)",
    ("--cutoff", "check"): "None: the tuning's cut-off, else 100",
    ("--cutoff", "report"): "None: 100, and the ASL figure's 20 unless --asl-cutoff",
}


def _parsers() -> dict[str, argparse.ArgumentParser]:
    p = build_parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _options() -> dict[str, dict[str, argparse.Action]]:
    out: dict[str, dict[str, argparse.Action]] = {}
    for name, parser in _parsers().items():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for opt in action.option_strings:
                if opt.startswith("--") and opt not in ("--help",):
                    out.setdefault(opt, {})[name] = action
    return out


def test_a_shared_option_means_the_same_on_every_subcommand():
    differ = []
    for opt, where in _options().items():
        if len(where) < 2:
            continue
        if opt in DIFFERENT_ON_PURPOSE:
            continue
        kinds = {(type(a).__name__, getattr(a.type, "__name__", a.type), tuple(a.choices or ())) for a in where.values()}
        helps = {a.help for a in where.values()}
        defaults = {repr(a.default) for c, a in where.items() if (opt, c) not in DEFAULT_DIFFERS}
        if len(helps) > 1 or len(defaults) > 1 or len(kinds) > 1:
            differ.append(f"{opt}: {sorted(where)}")
    assert differ == [], "options that differ between subcommands:\n" + "\n".join(differ)
    # the conventions of the issue are there, with one spelling
    opts = _options()
    readers = {"evaluate", "gstudy", "plan", "compare", "budget", "robustness"}
    assert readers <= set(opts["--relevance-level"]) and set(opts["--quiet"]) == set(_parsers())
    assert {a.option_strings[0] for a in opts["--relevance-level"].values()} == {"-l"}
    assert {"evaluate", "compare"} <= set(opts["--sort"])
    runs_readers = {c for c, p in _parsers().items() if any("--runs" in a.option_strings for a in p._actions)}
    assert runs_readers - {"judge"} <= set(opts["--judged"]) and "judge" not in opts["--judged"]


def _cli(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("argv", [
    ["evaluate"], ["gstudy"], ["plan", "--min-diff", "0.1"], ["compare"], ["budget", "--depths", "5", "10"],
])
def test_quiet_silences_notes_never_results(tmp_path, capsys, argv):
    runs, qrels = toy_runs(tmp_path)
    data = ["--runs", str(runs), "--qrels", str(qrels)]
    code, loud, loud_err = _cli(capsys, [*argv, *data])
    assert code == 0 and "coverage" in loud_err  # the notes of reading runs
    code, quiet, quiet_err = _cli(capsys, [*argv, *data, "--quiet"])
    # the same results; on stderr only the warnings (a negative variance estimate set to 0, on these toy runs)
    assert code == 0 and quiet == loud
    assert all(": warning: " in line for line in quiet_err.splitlines()), quiet_err
    assert [x for x in loud_err.splitlines() if ": warning: " in x] == quiet_err.splitlines()


def test_sort_by_mean_lists_the_best_run_first(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    data = ["--runs", str(runs), "--qrels", str(qrels), "--quiet", "--measure", "AP"]
    _, by_name, _ = _cli(capsys, ["evaluate", *data, "--means", "--json"])
    _, by_mean, _ = _cli(capsys, ["evaluate", *data, "--means", "--json", "--sort", "mean"])
    names = [r["system"] for r in json.loads(by_name)]
    ranked = [r["system"] for r in json.loads(by_mean)]
    means = {r["system"]: r["AP"] for r in json.loads(by_name)}
    assert names == sorted(names) and sorted(ranked) == names
    assert [means[s] for s in ranked] == sorted(means.values(), reverse=True)
    for sort, want in (("mean", ranked), ("name", names)):  # compare's table rows in the same order
        _, table, _ = _cli(capsys, ["compare", *data, "--sort", sort, "--format", "json"])
        assert [row[0] for row in json.loads(table)["means"]["rows"]] == want
        # --top keeps the best runs, listed in the same order (by name unless --sort mean)
        _, table, _ = _cli(capsys, ["compare", *data, "--sort", sort, "--top", "3", "--format", "json"])
        assert [row[0] for row in json.loads(table)["means"]["rows"]] == [s for s in want if s in ranked[:3]]


def test_relevance_level_rewrites_only_binary_measures():
    from experiments.cli._measures import with_relevance_level

    got = with_relevance_level(["AP", "P@10", "Rprec", "RR@10", "Bpref", "nDCG@10", "ERR@20", "NumRet", "num_rel_ret",
                                "AP(rel=3)", "RBP(p=0.8)"], 2)
    assert got == ["AP(rel=2)", "P(rel=2)@10", "Rprec(rel=2)", "RR(rel=2)@10", "Bpref(rel=2)", "nDCG@10", "ERR@20",
                   "NumRet", "num_rel_ret", "AP(rel=3)", "RBP(p=0.8)"]
    assert with_relevance_level(["AP"], None) == ["AP"] and with_relevance_level(["P@5"], 1.5) == ["P(rel=1.5)@5"]


def test_relevance_level_gives_trec_evals_numbers_on_dl2019(capsys):
    """``-l 2`` against pytrec_eval's ``relevance_level=2`` (trec_eval -l 2) on three DL 2019 runs, per topic:
    AP, P@10, R-prec, RR and bpref. Both sides do the same float arithmetic on the same counts, so they agree to
    the last few ulps (1e-12); a wrong level changes scores by far more (a relevant document more or less)."""
    import lzma

    pytrec_eval = pytest.importorskip("pytrec_eval")
    files, qrels = run_files("dl19")
    if not qrels.exists():
        pytest.skip("shared data not found")
    some = files[:3]
    names = {"AP": "map", "P@10": "P_10", "Rprec": "Rprec", "RR": "recip_rank", "Bpref": "bpref"}
    flags = [a for m in names for a in ("--measure", m)]
    code, out, err = _cli(capsys, ["evaluate", "--runs", *map(str, some), "--qrels", str(qrels), *flags, "-l", "2",
                                   "--json", "--quiet"])
    assert code == 0, err
    rows = json.loads(out)
    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    ev = pytrec_eval.RelevanceEvaluator(q, set(names.values()), relevance_level=2)
    ours = {(r["system"], r["topic"], r["measure"]): r["score"] for r in rows}
    checked = 0
    systems = list(dict.fromkeys(r["system"] for r in rows))  # the runs in file order
    for path, system in zip(some, systems, strict=True):
        with lzma.open(path, "rt") as fh:
            ref = ev.evaluate(pytrec_eval.parse_run(fh))
        for topic, vals in ref.items():
            for ours_name, trec_name in names.items():
                label = ours_name.replace("@", "(rel=2)@") if "@" in ours_name else f"{ours_name}(rel=2)"
                assert ours[(system, topic, label)] == pytest.approx(vals[trec_name], abs=1e-12), (system, topic, label)
                checked += 1
    assert checked >= 3 * 40 * 5
    # and -l 1 is not -l 2 on these graded qrels (the test can fail)
    code, out1, _ = _cli(capsys, ["evaluate", "--runs", str(some[0]), "--qrels", str(qrels), "--measure", "AP",
                                  "--means", "--json", "--quiet"])
    code, out2, _ = _cli(capsys, ["evaluate", "--runs", str(some[0]), "--qrels", str(qrels), "--measure", "AP",
                                  "-l", "2", "--means", "--json", "--quiet"])
    assert not np.isclose(json.loads(out1)[0]["AP"], json.loads(out2)[0]["AP(rel=2)"])


def test_relevance_level_is_refused_where_it_cannot_apply(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    code, _, err = _cli(capsys, ["evaluate", "--runs", str(runs), "--qrels", str(qrels), "-l", "nan"])
    assert code == 2 and "-l/--relevance-level must be a positive finite number; got nan" in err
    code, _, err = _cli(capsys, ["evaluate", "--runs", str(runs), "--qrels", str(qrels), "-l", "0"])
    assert code == 2 and "got 0." in err
    csv = tmp_path / "s.csv"
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "AP", "--out", str(csv)]) == 0
    capsys.readouterr()
    code, _, err = _cli(capsys, ["gstudy", str(csv), "-l", "2"])
    assert code == 2 and "applies to measures computed from runs" in err
    code, _, err = _cli(capsys, ["evaluate", "--runs", str(runs), "--qrels", str(qrels), "-l", "2"])
    assert code == 0 and "-l 2 applies to binary measures" in err and "changes none of the default nDCG" in err


def _every_parser() -> dict[str, argparse.ArgumentParser]:
    return {"gtheory": build_parser(), **_parsers()}


@pytest.mark.parametrize("name", ["gtheory", *sorted(_parsers())])
def test_no_option_is_taken_by_an_abbreviation(name):
    """Every parser reads an option only as spelled in full: ``--run X`` was read as ``--runs X`` (and then refused
    beside --judged), ``--meas`` as ``--measure``; an abbreviation that means one option today means another once an
    option with the same start is added. Each option cut by one letter (when that is no option itself) is left
    unrecognised."""
    parser = _every_parser()[name]
    assert parser.allow_abbrev is False
    known = {o for a in parser._actions for o in a.option_strings}
    cut = {o[:-1] for o in known if o.startswith("--") and len(o) > 4} - known
    assert cut  # the check can fail: there are abbreviations to try
    for short in cut:
        _, extra = parser.parse_known_args([short])
        assert extra == [short], short


def test_an_abbreviated_option_is_an_error_naming_the_option_it_is_not(tmp_path, capsys):
    """``gtheory evaluate --judged j.npz --run X``: not --runs (the error "either --judged or --runs" was about an
    option the user did not give), but an unknown option, with the option it may have meant; exit 2, usage and
    one error line."""
    judged = tmp_path / "j.npz"
    for argv, said in ((["evaluate", "--judged", str(judged), "--run", "X"],
                        "unrecognized arguments: --run X; --run is not an option of evaluate (did you mean --runs?)"),
                       (["gstudy", "--judged", str(judged), "--meas", "AP"], "--meas is not an option of gstudy "
                                                                           "(did you mean --measure?)"),
                       (["evaluate", "--quie"], "--quie is not an option of evaluate (did you mean --quiet?)"),
                       (["evaluate", "--zzz=1"], "--zzz is not an option of evaluate")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if ": error: " in line]
        assert exc.value.code == 2 and err.startswith(f"usage: gtheory {argv[0]}") and len(errors) == 1, err
        assert errors[0].startswith(f"gtheory {argv[0]}: error: ") and said in errors[0], err
        assert "not both" not in err
    assert "did you mean" not in err  # --zzz: nothing close


def test_measure_is_one_or_repeatable_as_the_table_says():
    """--measure is the one measure of gstudy, plan and budget (a second is refused, not silently kept in place of
    the first) and repeatable on evaluate, compare and robustness: the DIFFERENT_ON_PURPOSE entry names both sets."""
    from experiments.cli._measures import OneMeasure

    where = _options()["--measure"]
    one = {c for c, a in where.items() if isinstance(a, OneMeasure)}
    many = {c for c, a in where.items() if isinstance(a, argparse._AppendAction)}
    assert one == {"gstudy", "plan", "budget"} and many == {"evaluate", "compare", "robustness"}
    assert one | many == set(where)
    said = re.match(r"one measure \(([^)]*)\) or repeatable \(([^)]*)\)", DIFFERENT_ON_PURPOSE["--measure"])
    assert said and set(said[1].split(", ")) == one and set(said[2].split(", ")) == many


@pytest.mark.parametrize("argv", [["gstudy"], ["plan", "--min-diff", "0.1"], ["budget", "--depths", "5", "10"]])
def test_a_second_measure_of_a_one_measure_subcommand_is_refused(tmp_path, capsys, argv):
    runs, qrels = toy_runs(tmp_path)
    data = ["--runs", str(runs), "--qrels", str(qrels)]
    command = argv[0]
    code, out, err = _cli(capsys, [*argv, *data, "--measure", "AP", "--measure", "nDCG@10", "-l", "2"])
    assert code == 2 and out == ""
    assert err.splitlines() == [f"gtheory {command}: error: {command} {ONE_MEASURE[command]}: --measure is given twice "
                                f"(AP, nDCG@10); run {command} once per measure."]  # before any run is read
    code, _, err = _cli(capsys, [*argv, *data, "--measure", "AP", "--measure", "AP", "--measure", "P@5", "-q"])
    assert code == 2 and "--measure is given 3 times (AP, AP, P@5)" in err
    code, out, err = _cli(capsys, [*argv, *data, "--measure", "AP", "-q"])  # one is the measure studied
    assert code == 0 and "AP" in out, err


def test_a_repeatable_measure_takes_each(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    code, out, err = _cli(capsys, ["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "AP",
                                   "--measure", "nDCG@10", "--means", "--json", "-q"])
    assert code == 0 and {"AP", "nDCG@10"} <= set(json.loads(out)[0]), err


def _bigger_toy_runs(tmp_path, n_systems: int = 6, n_topics: int = 16):
    """:func:`toy_runs` with more systems and topics: recommend's nested validation needs 8 topics, report's study
    3 systems and 6 (and a planning curve 14)."""
    rng = np.random.default_rng(4)
    docs = [f"d{i}" for i in range(15)]
    topics = [str(t) for t in range(1, n_topics + 1)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {rng.integers(0, 3)}\n" for t in topics for d in docs[:8]))
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in "ABCDEFGH"[:n_systems]:
        (runs / f"run{s}.txt").write_text("".join(f"{t} Q0 {d} {r + 1} {100 - r} run{s}\n" for t in topics
                                                  for r, d in enumerate(rng.permutation(docs))))
    return runs, qrels


#: every subcommand with --out: (its options beyond the data and -q, the output's name); small settings to be fast
OUT_COMMANDS = {
    "judge": ([], "j.npz"),
    "evaluate": ([], "x.csv"),
    "compare": ([], "x.txt"),
    "sweep": (["--cutoffs", "10", "--gains", "linear", "--discounts", "log2", "--workers", "1"], "x.csv"),
    "budget": (["--depths", "5", "10", "--plot", "b.png"], "x.csv"),
    "robustness": (["--seeds", "1", "--fractions", "0.5", "--test", "none"], "x.csv"),
    "tune": (["--cutoff", "5", "--starts", "1"], "t.json"),
    "recommend": (["--cutoff", "5", "--seeds", "1", "--splits", "2", "--inner", "2"], "r.json"),
    "report": (["--quick", "--cutoff", "5", "--n-resamples", "20", "--splits", "2"], "rep"),
}


def test_out_commands_are_every_subcommand_with_out():
    assert set(OUT_COMMANDS) == set(_options()["--out"])


@pytest.mark.parametrize("command", sorted(OUT_COMMANDS))
def test_quiet_with_out_prints_nothing_and_writes_the_file(tmp_path, capsys, command):
    """--quiet silences the notes of an output ("the existing file will be replaced", "wrote N rows to F") as it
    does every other note, on every subcommand: the file is the result. An existing output (a report's empty
    directory) is replaced; without --quiet the note says so (the check can fail)."""
    options, name = OUT_COMMANDS[command]
    runs, qrels = _bigger_toy_runs(tmp_path)
    out = tmp_path / name
    out.mkdir() if name == "rep" else out.write_bytes(b"old\n")
    extra = [str(tmp_path / o) if o.endswith(".png") else o for o in options]
    for o in extra:
        if o.endswith(".png"):
            Path(o).write_bytes(b"old\n")
    code, stdout, err = _cli(capsys, [command, *extra, "--runs", str(runs), "--qrels", str(qrels), "-q",
                                      "--out", str(out)])
    assert code == 0 and err == "", err
    assert out.is_dir() and any(out.iterdir()) if name == "rep" else out.read_bytes() != b"old\n"
    assert all(Path(o).read_bytes() != b"old\n" for o in extra if o.endswith(".png"))
    if command != "report":  # the note without --quiet (report's minutes of figures are not run twice)
        code, _, err = _cli(capsys, [command, *extra, "--runs", str(runs), "--qrels", str(qrels), "--out", str(out)])
        assert code == 0 and f"--out {out}: the existing file will be replaced" in err, err


@pytest.mark.parametrize("argv", [["gstudy"], ["plan", "--min-diff", "0.1"]])
def test_quiet_with_plot_prints_nothing_and_writes_the_figure(tmp_path, capsys, argv):
    runs, qrels = toy_runs(tmp_path)
    plot = tmp_path / "p.png"
    plot.write_bytes(b"old\n")
    code, _, err = _cli(capsys, [*argv, "--runs", str(runs), "--qrels", str(qrels), "--plot", str(plot), "-q"])
    assert code == 0 and all(": warning: " in line for line in err.splitlines()), err  # no note
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("command", ["evaluate", "compare", "gstudy"])
def test_a_relevance_level_above_every_grade_is_refused(tmp_path, capsys, command):
    """-l above the qrels' highest grade would make every binary measure 0 for every run (trec_eval prints the zeros
    silently): refused, naming the grades there are and the highest level that means something."""
    runs, qrels = toy_runs(tmp_path)  # grades 0-2
    argv = [command, "--runs", str(runs), "--qrels", str(qrels), "--measure", "AP", "-l", "3", "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "-l 3: no document is judged 3 or above (the qrels' grades are 0, 1, 2)" in err and "-l 2 or less" in err
    argv[argv.index("3")] = "2"
    assert main(argv) == 0


@pytest.mark.parametrize("command", ["gstudy", "plan"])
def test_a_plot_name_matplotlib_cannot_write_is_refused_first(tmp_path, capsys, command):
    """--plot g.jpgx is refused before anything is computed, naming the option and the formats (it came out as
    Matplotlib's own error at the end)."""
    argv = [command, "--plot", str(tmp_path / "g.jpgx"), "-q"] + (["--min-diff", "0.1"] if command == "plan" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and ".jpgx is not an image format Matplotlib writes; use .png, .pdf or .svg" in err
    assert not (tmp_path / "g.jpgx").exists()


@pytest.mark.parametrize("extra", [[], ["-l", "2"]])
def test_two_spellings_of_one_measure_are_named_as_typed(capsys, extra):
    """--measure map --measure MAP are one measure (AP): the refusal says so, in the words typed, with -l too."""
    assert main(["evaluate", "--measure", "map", "--measure", "MAP", *extra, "-q"]) == 2
    err = capsys.readouterr().err
    assert "--measure MAP and --measure map are the same measure" in err
    assert main(["evaluate", "--measure", "map", "--measure", "map", *extra, "-q"]) == 2
    assert "--measure map is given twice" in capsys.readouterr().err
