"""The package's one writer (gtheory/kit/output.py; issue 20 items 1, 10 and the output part of 11).

A regular file is replaced atomically; an existing device, FIFO or /dev/stdout is written through and stays what it
was (on f2a3012 a temporary file was renamed over it: as root, ``--out /dev/null`` deleted the device); an output
into a missing directory names the directory; text cells of CSV outputs are neutralised against formula injection.
Every file these tests write lives under tmp_path (the character devices are made there with mknod).
"""
from __future__ import annotations

import ast
import io
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gtheory
import metrics
import optimize
from gtheory.kit import output as kit
from gtheory.kit.output import (CSV_TRIGGERS, _NUMBER, OutputError, csv_safe, csv_unsafe, open_output, output_path,
                                write_bytes, write_csv, write_text)

ROOT = Path(__file__).resolve().parents[1]
_ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


# ------------------------------------------------------------------------------------------- helpers
def _null_device(path: Path) -> Path:
    """A character device equal to /dev/null (major 1, minor 3) at ``path``; skipped where mknod is not allowed."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    return path


def _is_null_device(path: Path) -> bool:
    st_ = os.lstat(path)
    return stat.S_ISCHR(st_.st_mode) and st_.st_rdev == os.makedev(1, 3)


class _Reader(threading.Thread):
    """Reads a FIFO to its end (the writer blocks in open() until a reader opens it, as with the shell)."""

    def __init__(self, fifo: Path):
        super().__init__(daemon=True)
        self.fifo, self.data = fifo, b""

    def run(self) -> None:
        with open(self.fifo, "rb") as fh:
            self.data = fh.read()

    def result(self) -> bytes:
        self.join(timeout=30)
        assert not self.is_alive(), "the FIFO's reader got no end of file"
        return self.data


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _left_over(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


# --------------------------------------------------------------------------- devices and FIFOs stay
def test_a_character_device_is_written_through_and_stays_a_device(tmp_path):
    dev = _null_device(tmp_path / "mynull")
    write_text(dev, "a,b\n1,2\n")
    write_bytes(dev, b"\x89PNG")
    with open_output(dev, "w", newline="") as fh:
        fh.write("x\r\n")
    with output_path(dev) as tmp:  # a writer that needs a path (savefig)
        tmp.write_bytes(b"fig")
    assert _is_null_device(dev) and _left_over(tmp_path) == []
    assert kit.target_kind(dev) == "special"


def test_a_fifo_gets_the_output_and_stays_a_fifo(tmp_path):
    fifo = _fifo(tmp_path / "p")
    for write, expected in [(lambda: write_text(fifo, "système,Φ\n"), "système,Φ\n".encode()),
                            (lambda: write_bytes(fifo, b"\x00\xff"), b"\x00\xff")]:
        reader = _Reader(fifo)
        reader.start()
        write()
        assert reader.result() == expected
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    reader = _Reader(fifo)
    reader.start()
    with output_path(fifo) as tmp:
        tmp.write_bytes(b"figure bytes")
    assert reader.result() == b"figure bytes" and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["p"]


def test_a_full_device_is_an_error_naming_the_output(tmp_path):
    try:  # /dev/full: every write fails with "No space left on device"
        os.mknod(tmp_path / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except OSError as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    with pytest.raises(OutputError, match=f"cannot write {tmp_path / 'full'}: No space left") as err:
        write_text(tmp_path / "full", "x" * 100_000)
    assert err.value.errno == 28 and stat.S_ISCHR(os.lstat(tmp_path / "full").st_mode)


def test_a_symbolic_link_to_a_device_is_written_through(tmp_path):
    dev = _null_device(tmp_path / "dev")
    link = tmp_path / "out.csv"
    link.symlink_to(dev)
    write_text(link, "x\n")
    assert link.is_symlink() and _is_null_device(dev)


def test_a_socket_and_a_directory_are_refused_clearly(tmp_path):
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s"))
        with pytest.raises(OutputError, match="is a socket"):
            write_text(tmp_path / "s", "x")
    finally:
        sock.close()
    with pytest.raises(OutputError, match="is a directory"):
        write_text(tmp_path, "x")


# ------------------------------------------------------------------------------ every writer of the API
@pytest.fixture(scope="module")
def small(embedded_trec9) -> metrics.JudgedRuns:
    return embedded_trec9.subset(systems=[0, 10, 20], topics=list(range(8)))


def _writers(small):
    """Every writer of a result: (name, write(path), what to check in the bytes written)."""
    g = gtheory.gstudy(np.random.default_rng(0).normal(size=(5, 8)))
    t = optimize.optimize_discount(small, gain="linear", cutoff=10, starts=1)
    return [
        ("GStudy.to_json", g.to_json, lambda b: gtheory.GStudy.from_json(b.decode()).n_topics == 8),
        ("Tuning.to_json", t.to_json, lambda b: optimize.Tuning.from_json(b.decode()).cutoff == 10),
        ("Coverage.to_json", small.coverage.to_json, lambda b: b.startswith(b"{")),
        ("JudgedRuns.save", small.save, lambda b: b.startswith(b"PK")),  # a zip archive (.npz)
        ("Evaluation.to_csv", metrics.evaluate(small, ["P@5", "nDCG@5"]).to_csv,
         lambda b: b.startswith(b"system,topic,measure,score")),
    ]


def test_every_api_writer_leaves_a_device_and_a_fifo_in_place(tmp_path, small):
    dev = _null_device(tmp_path / "null.npz")
    fifo = _fifo(tmp_path / "pipe.npz")
    for name, write, ok in _writers(small):
        write(dev)
        assert _is_null_device(dev), name  # f2a3012: a regular file in its place
        reader = _Reader(fifo)
        reader.start()
        write(fifo)
        data = reader.result()
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and ok(data), name
    assert sorted(os.listdir(tmp_path)) == ["null.npz", "pipe.npz"]


def test_an_output_into_a_missing_directory_names_the_directory(tmp_path, small):
    g = gtheory.gstudy(np.random.default_rng(0).normal(size=(5, 8)))
    for write in (g.to_json, small.save, small.coverage.to_json, lambda p: write_text(p, "x")):
        with pytest.raises(OSError) as err:
            write(tmp_path / "nodir" / "out.json")
        text = str(err.value)
        # f2a3012: "[Errno 2] No such file or directory: '.../nodir/.out.json.abc.tmp'"
        assert f"directory '{tmp_path / 'nodir'}' does not exist" in text and ".tmp" not in text
    assert not (tmp_path / "nodir").exists()


# ------------------------------------------------------------------------------ standard output
def _python(code: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=_ENV, cwd=ROOT, timeout=120, **kw)


def test_dev_stdout_works_when_stdout_is_a_pipe():
    code = ("import gtheory, numpy as np; g = gtheory.gstudy(np.arange(12.).reshape(3, 4) ** 2); "
            "g.to_json('/dev/stdout')")
    r = _python(code, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()  # f2a3012: [Errno 2] ... '/proc/<pid>/fd/pipe:[...]'
    assert gtheory.GStudy.from_json(r.stdout.decode()).n_topics == 4


def test_dev_stdout_appends_to_a_log_it_does_not_truncate(tmp_path):
    # /dev/stdout is the process's descriptor 1 (as bash treats it): written at its position, the log kept
    log = tmp_path / "log"
    log.write_text("earlier line\n")
    code = "import sys; from gtheory.kit.output import write_text; print('before', flush=True); write_text('/dev/stdout', 'after\\n')"
    with open(log, "a") as fh:
        r = _python(code, stdout=fh, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    assert log.read_text() == "earlier line\nbefore\nafter\n" and log.is_file()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_dash_is_the_given_stream_and_binary_is_refused_on_a_terminal(tmp_path):
    stream = io.StringIO()
    seen = []
    write_text("-", "a,b\n", stdout=stream, on_commit=seen.append)
    assert stream.getvalue() == "a,b\n" and seen == [Path("-")]
    with pytest.raises(OutputError, match="terminal"):
        write_bytes("-", b"\x89PNG", stdout=_Terminal())
    write_text(tmp_path / "-", "a file named -")  # without `stdout`, '-' is an ordinary name
    assert (tmp_path / "-").read_text() == "a file named -"


# ------------------------------------------------------------------------------ regular files
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_an_interrupted_write_leaves_the_old_file(tmp_path, error):
    target = tmp_path / "scores.csv"
    target.write_text("old\n")
    with pytest.raises(error):
        with open_output(target) as fh:
            fh.write("new, half")
            raise error()
    assert target.read_text() == "old\n" and _left_over(tmp_path) == []


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT, data=st.binary(max_size=300), existing=st.booleans())
def test_property_round_trip_and_targets_stay_what_they_were(tmp_path, text, data, existing):
    """Arbitrary text (UTF-8) and bytes reach a regular file, a FIFO and a device exactly; the FIFO stays a FIFO,
    the device a device, a regular file a regular file; nothing is left beside them."""
    # a fresh folder per example: hypothesis may run an example more than once (6.0 ran 55 distinct of 60 here),
    # so a folder named after the example would already exist
    d = Path(tempfile.mkdtemp(prefix="case", dir=tmp_path))
    f = d / "out.txt"
    if existing:
        f.write_text("previous content")
    write_text(f, text)
    assert f.read_bytes() == text.encode("utf-8") and stat.S_ISREG(os.lstat(f).st_mode)
    write_bytes(f, data)
    assert f.read_bytes() == data
    fifo = _fifo(d / "fifo")
    for payload, write in ((text.encode("utf-8"), lambda: write_text(fifo, text)), (data, lambda: write_bytes(fifo, data))):
        reader = _Reader(fifo)
        reader.start()
        write()
        assert reader.result() == payload and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    try:
        os.mknod(d / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        pass  # no mknod here: the device part is covered where it is allowed
    else:
        write_text(d / "null", text)
        write_bytes(d / "null", data)
        assert _is_null_device(d / "null")
    assert _left_over(d) == []


# ------------------------------------------------------------------------------ CSV formula injection
def test_csv_safe_prefixes_formula_text_never_numbers():
    hostile = ["=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tx", "\rx"]
    for s in hostile:
        assert csv_safe(s) == "'" + s
    for s in ["run1", "CWI0000", "451", "-5", "+1.5e3", "-0.5", "", "a=b", "'quoted"]:
        assert csv_safe(s) == s  # plain text, and text that is a plain number, as it is
    frame = pd.DataFrame({"system": ["=1+1", "ok"], "topic": ["@x", "451"], "score": [-0.5, 0.25]},
                         index=pd.Index(["-a", "b"], name="+n"))
    safe = csv_safe(frame)
    assert safe["system"].tolist() == ["'=1+1", "ok"] and safe["topic"].tolist() == ["'@x", "451"]
    assert safe["score"].tolist() == [-0.5, 0.25] and safe["score"].dtype == float  # numbers untouched
    assert safe.index.tolist() == ["'-a", "b"] and safe.index.name == "'+n"
    assert frame["system"].tolist() == ["=1+1", "ok"]  # a copy: the caller's frame is not changed
    wide = pd.DataFrame([[0.1, -0.2]], index=["=sys"], columns=["@t1", "t2"])
    assert csv_safe(wide).columns.tolist() == ["'@t1", "t2"] and csv_safe(wide).index.tolist() == ["'=sys"]


def test_write_csv_neutralises_unless_raw(tmp_path):
    frame = pd.DataFrame({"system": ["=HYPERLINK(\"x\")", "b"], "score": [-0.5, 1.0]})
    write_csv(frame, tmp_path / "safe.csv", index=False)
    write_csv(frame, tmp_path / "raw.csv", index=False, raw=True)
    safe = pd.read_csv(tmp_path / "safe.csv")
    assert safe["system"].tolist() == ["'=HYPERLINK(\"x\")", "b"] and safe["score"].tolist() == [-0.5, 1.0]
    assert pd.read_csv(tmp_path / "raw.csv")["system"].tolist() == ["=HYPERLINK(\"x\")", "b"]


# ------------------------------------------------------------------------------ the kit stays light
def test_the_writer_imports_only_the_standard_library():
    # the writer (and the kit's __init__, which re-exports it) import nothing but the standard library: any package
    # can write an output without loading NumPy, pandas or SciPy through it; the other kit modules may use NumPy
    # (tests/test_architecture.py checks the kit as a whole: nothing of the project, nothing heavier than NumPy)
    for py in (ROOT / "gtheory" / "kit" / "output.py", ROOT / "gtheory" / "kit" / "__init__.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if isinstance(node, ast.ImportFrom) and node.level:
                    continue
                assert name.split(".")[0] in sys.stdlib_module_names, f"{py.name} imports {name}"
    r = _python("import sys, gtheory.kit.output; print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))",
                capture_output=True, text=True)
    assert r.stdout.strip() == "[]", r.stderr
    # metrics stands on the kit only: importing it and writing through it loads no G-theory module
    r = _python("import sys, metrics, gtheory.kit.output; print([m for m in sys.modules if m.startswith('gtheory.') "
                "and not m.startswith('gtheory.kit')])", capture_output=True, text=True)
    assert r.stdout.strip() == "[]", r.stderr


# ------------------------------------------------------------------------------ reading a neutralised CSV back
_TRIGGER = st.sampled_from(["=", "+", "-", "@", ""])
#: label characters the score reader keeps as they are: no white space at the ends (labels are stripped), no ':'
#: (a wide file whose every label is MEASURE:topic is a multi-measure file); quotes, commas and formula text included
_BODY = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters=":"),
                min_size=1, max_size=12)
_NAME = st.builds(lambda t, b: t + b, _TRIGGER, _BODY)  # any name: "'=x" too (written with one more quote)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(systems=st.lists(_NAME, min_size=2, max_size=4, unique=True),
       topics=st.lists(_NAME, min_size=2, max_size=4, unique=True), layout=st.sampled_from(["long", "wide"]))
def test_property_the_readers_undo_exactly_the_writers_neutralisation(tmp_path, systems, topics, layout):
    """write_csv (neutralised) then gtheory.read_scores gives back the names written ("=run", "-x", "+1a", "@sys",
    a name that is a number such as "-5", quotes and commas), in the long and the wide layout."""
    scores = np.arange(len(systems) * len(topics), dtype=float).reshape(len(systems), len(topics)) / 7 - 0.5
    wide = pd.DataFrame(scores, index=pd.Index(systems, name="system"), columns=pd.Index(topics, name="topic"))
    f = Path(tmp_path) / f"{layout}{abs(hash((tuple(systems), tuple(topics))))}.csv"
    if layout == "long":
        write_csv(wide.stack().rename("score").reset_index(), f, index=False, float_format="%.17g")
    else:
        write_csv(wide, f, float_format="%.17g")
    back = gtheory.read_scores(f)  # the layout recognised from the header (system, topic, score; or system first)
    assert list(back.index) == systems and list(back.columns) == topics
    assert np.array_equal(back.to_numpy(), scores)  # %.17g: the float64 values exactly


def test_csv_unsafe_undoes_only_what_csv_safe_does():
    for s in ["=run", "-x", "+1a", "@sys", "\tx", "\rx", "=HYPERLINK(\"x\")", "-5", "+1.5e3", "run1", "", "'quoted",
              "'-5", "a=b", "'"]:
        assert csv_unsafe(csv_safe(s)) == s
    # a cell the writer never writes for a name of its own is kept: a quote before a number, or before plain text
    assert csv_unsafe("'-5") == "'-5" and csv_unsafe("'run") == "'run"
    # names that really begin with quotes before formula text get one quote more, and come back: no ambiguity
    assert csv_safe("=x") == "'=x" and csv_safe("'=x") == "''=x" and csv_safe("''@y") == "'" + "''@y"
    for s in ["'=x", "''=x", "'@sys", "'-x", "'+1a", "'\tx"]:
        assert csv_unsafe(csv_safe(s)) == s


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["'", "=", "+", "-", "@", "\t", "\r", "1", ".", "e", "a", " "]), max_size=8))
def test_property_csv_safe_is_undone_by_csv_unsafe_for_every_string(s):
    # injective neutralisation: any string, including quotes before formula text or before numbers, round-trips;
    # and what is written never starts with runnable formula text
    safe = csv_safe(s)
    assert csv_unsafe(safe) == s
    assert not safe.startswith(CSV_TRIGGERS) or _NUMBER.fullmatch(safe)
