"""The Python code blocks of README.md and the docs pages run as written, and output a page shows is what the code
prints.

Every page's ```python blocks run in order in one namespace (a later block may use an earlier block's names), from
a copy of the repository root (its entries linked, ``../shared`` beside it) in a temporary directory, so the paths
the pages use (``examples/runs/``, ``../shared/data/...``) resolve and the files they write land under ``tmp_path``.
Fragments that are not meant to run use the ```text fence; every fence is ```python, ```bash or ```text (a test
says so, so no code hides in an unlabelled block). Where a ```text block shows a block's output, the printed output
must match it: the same words, each decimal number to one unit in its last printed digit (the docs show rounded
numbers; the last digit may move with the BLAS), column padding free (pandas pads columns differently across
releases). The ``gtheory`` commands of the shell blocks listed in ``SHELL_RUN`` run too; every other shell block is
in ``SHELL_NOT_RUN`` with the reason (a test says so), and so is every text block right after a python block that
is not in ``OUTPUT_CHECKED``. A docs block that calls a spelling the API does not have (positional ``cutoff``,
``B=``) fails: the docs show the one current API.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"

#: pages whose blocks take minutes (many bootstrap or tuning runs): marked slow, run in the full suite
SLOW_PAGES = {"docs/incompleteness.md", "docs/reproduction-trec9.md"}
#: README.md and every docs page with a python block (paths relative to the repository root)
RUN_PAGES = [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PAGES else p
             for p in ["README.md"] + sorted(f"docs/{f.name}" for f in DOCS.glob("*.md"))
             if re.search(r"^ *```python\n", (ROOT / p).read_text(encoding="utf-8"), re.M)]
#: (page, index of the python block) -> (index of the text block that shows its output, what it shows: "all" of the
#: printed lines or its "first line"); checked when the page's blocks run
OUTPUT_CHECKED = {
    ("docs/user-guide.md", 0): (1, "all"), ("docs/user-guide.md", 1): (2, "all"),
    ("docs/user-guide.md", 2): (3, "all"), ("docs/user-guide.md", 3): (4, "all"),
    ("docs/user-guide.md", 4): (5, "all"), ("docs/topics.md", 0): (0, "all"),
    ("docs/should-i-tune.md", 0): (0, "first line"),  # the verdict the page opens with
}
#: (page, index of a python block) followed by a text block that is not its output, and what that block is
NOT_OUTPUT = {("docs/gtheory.md", 0): "the synopsis of `gtheory gstudy`"}
#: (page, index of the python block) -> (text, replacement): a block too long for the tests, run at the reduced size
#: its page states
REDUCED = {("docs/reproduction-trec9.md", 0): ("for drop in range(j.n_systems):", "for drop in range(2):")}
#: (page, index of the shell block) whose `gtheory` commands run, in order, from the same copy of the root; with
#: an index of a text block, the first command's standard output must be what that block shows (with a pair
#: (k, index): the k-th command's, counted from 0)
#: (README's tunes and runs the nested cross-validation of `recommend` on the embedded data: slow)
SHELL_RUN = [pytest.param("README.md", 2, None, marks=pytest.mark.slow),
             ("docs/compare.md", 0, None), ("docs/topics.md", 0, None), ("docs/topics.md", 1, 1),
             ("docs/user-guide.md", 0, (1, 0)), ("docs/user-guide.md", 2, None)]
#: the other shell blocks, and why no test here runs them
SHELL_NOT_RUN = {
    ("README.md", 0): "the install itself (.ci/run runs it, then `gtheory demo`: tests/test_experiments_cli_demo.py)",
    ("README.md", 1): "the test suite itself",
    ("docs/dl2019-four-grades.md", 0): "the example script: tests/test_examples.py runs it with --quick",
    ("docs/optimize.md", 0): "benchmarks of minutes to 45 min (benchmarks/bound_trec9.py; results in "
                             "benchmarks/results)",
    ("docs/report.md", 0): "a full report takes 30 s to 3 min; tests/test_experiments_report*.py run `gtheory report` "
                           "(--quick, --format html, --runs/--qrels, --title) end to end",
    ("docs/incompleteness.md", 0): "about 4 minutes of bootstrap tests (the page says so); "
                                   "tests/test_experiments_cli_robustness.py runs the command on smaller grids",
    ("docs/should-i-tune.md", 0): "five nested cross-validations of minutes each; "
                                  "tests/test_experiments_cli_recommend.py runs every option on small data",
    ("docs/user-guide.md", 1): "the second command needs a running Dask scheduler; the first is the Python block's "
                               "sweep, run with the page",
}

_BLOCK = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.S | re.M)
_DECIMAL = re.compile(r"-?\d+\.\d+")


def blocks(page: str) -> list[tuple[str, str]]:
    """``(language, code)`` of every fenced block of ``page`` (relative to the root), in order; a block indented
    under a list item is dedented."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [(lang, textwrap.dedent(m)) for _, lang, m in _BLOCK.findall(text)]


def python_blocks(page: str) -> list[str]:
    return [code for lang, code in blocks(page) if lang == "python"]


def text_blocks(page: str) -> list[str]:
    return [code for lang, code in blocks(page) if lang == "text"]


def text_after_python(page: str) -> dict[int, int]:
    """``{index of a python block: index of the text block right after it}`` on ``page``."""
    seq, after, n_python, n_text = blocks(page), {}, 0, 0
    for k, (lang, _) in enumerate(seq):
        if lang == "python":
            if k + 1 < len(seq) and seq[k + 1][0] == "text":
                after[n_python] = n_text  # the next text block's index: the text blocks before it
            n_python += 1
        n_text += lang == "text"
    return after


def run(code: str, name: str, namespace: dict | None = None) -> str:
    """Run ``code`` as a script named ``name`` (in ``namespace``, a fresh one by default); what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the docs show results, not warnings
        exec(compile(code, name, "exec"), {"__name__": "__docs__"} if namespace is None else namespace)
    return out.getvalue()


@pytest.fixture
def root_copy(tmp_path, monkeypatch) -> Path:
    """A directory standing for the repository root: its entries linked, ``../shared`` beside it; the cwd."""
    root = tmp_path / "repo"
    root.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):  # .git, virtualenvs
            (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    if SHARED.is_dir():
        (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    monkeypatch.chdir(root)
    return root


def same_output(shown: str, printed: str) -> bool:
    """Lines equal word for word with every decimal number masked (the padding between words free), and each number
    within one unit of its last digit."""
    a, b = shown.strip().splitlines(), printed.strip().splitlines()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if _DECIMAL.sub("#", x).split() != _DECIMAL.sub("#", y).split():
            return False
        for u, v in zip(_DECIMAL.findall(x), _DECIMAL.findall(y)):
            unit = 10.0 ** -len(u.split(".")[1])
            if abs(float(u) - float(v)) > 1.01 * unit:
                return False
    return True


@pytest.mark.parametrize("page", RUN_PAGES)
def test_python_blocks_run_as_written(page, root_copy):
    text = (ROOT / page).read_text(encoding="utf-8")
    if "../shared" in text and not SHARED.is_dir():
        pytest.skip(f"{page} reads the shared data, not found at {SHARED}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace = {"__name__": "__docs__"}
    try:
        for i, code in enumerate(python_blocks(page)):
            if (page, i) in REDUCED:
                old, new = REDUCED[page, i]
                assert code.count(old) == 1, f"{page}, python block {i}: {old!r} not found once"
                code = code.replace(old, new)
            printed = run(code, f"{page}, python block {i}", namespace)
            if (page, i) in OUTPUT_CHECKED:
                index, what = OUTPUT_CHECKED[page, i]
                shown = text_blocks(page)[index]
                if what == "first line":
                    printed = printed.strip().splitlines()[0]
                assert same_output(shown, printed), \
                    f"{page} shows (text block {index}):\n{shown}\npython block {i} prints:\n{printed}"
    finally:
        plt.close("all")


def test_every_block_is_run_or_says_why():
    """No code hides in an unlabelled fence; every shell block runs here or is listed with the reason it does not;
    every text block right after a python block is checked against what the block prints, or is not its output."""
    pages = ["README.md"] + sorted(f"docs/{f.name}" for f in DOCS.glob("*.md"))
    run_shell = {(p.values[0], p.values[1]) if hasattr(p, "values") else p[:2] for p in SHELL_RUN}
    for page in pages:
        langs = [lang for lang, _ in blocks(page)]
        assert set(langs) <= {"python", "bash", "text"}, f"{page}: label every fence python, bash or text: {langs}"
        for k in range(langs.count("bash")):
            assert ((page, k) in run_shell) != ((page, k) in SHELL_NOT_RUN), (page, k)
        for i, t in text_after_python(page).items():
            checked = (page, i) in OUTPUT_CHECKED and OUTPUT_CHECKED[page, i][0] == t
            assert checked != ((page, i) in NOT_OUTPUT), \
                f"{page}: text block {t} follows python block {i}: list it in OUTPUT_CHECKED (or NOT_OUTPUT)"
    assert all(p in pages for p, _ in [*OUTPUT_CHECKED, *REDUCED, *SHELL_NOT_RUN, *NOT_OUTPUT])


def commands(script: str) -> list[list[str]]:
    """The commands of a shell block: one a line (``\\`` continues it), comments dropped."""
    joined = script.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if shlex.split(line, comments=True)]


@pytest.mark.parametrize("page, index, shows", SHELL_RUN)
def test_shell_blocks_run_as_written(page, index, shows, root_copy):
    script = [code for lang, code in blocks(page) if lang == "bash"][index]
    if "../shared" in script and not SHARED.is_dir():
        pytest.skip(f"{page} reads the shared data, not found at {SHARED}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    for k, cmd in enumerate(commands(script)):
        assert cmd[0] == "gtheory", cmd
        r = subprocess.run([sys.executable, "-m", "gtheory", *cmd[1:]], cwd=root_copy, env=env, capture_output=True,
                           text=True, timeout=900, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, f"{page}: `{shlex.join(cmd)}` failed:\n{r.stderr}"
        assert "deprecated" not in r.stderr, f"{page}: `{shlex.join(cmd)}` warns:\n{r.stderr}"
        at, text = shows if isinstance(shows, tuple) else (0, shows)  # (which command, which text block)
        if k == at and text is not None:
            shown = text_blocks(page)[text]
            assert same_output(shown, r.stdout), f"{page} shows:\n{shown}\n`{shlex.join(cmd)}` prints:\n{r.stdout}"


def test_commands_of_a_shell_block():
    assert commands("gtheory a --x 1  # note\ngtheory b \\\n  --y 'two words'\n\n") == [
        ["gtheory", "a", "--x", "1"], ["gtheory", "b", "--y", "two words"]]


def test_output_comparison_rule():
    assert same_output("Φ = 0.9157, n = 44\n", "Φ = 0.9158, n = 44")
    assert not same_output("Φ = 0.9157, n = 44", "Φ = 0.9160, n = 44")
    assert not same_output("Φ = 0.9157, n = 44", "Φ = 0.9157, n = 45")
    assert not same_output("gain: 1→0.3333", "gain: 1→0.3333   (family 'linear')")
    assert same_output("n   phi\n10  0.70", "n    phi\n10   0.70")  # padding free
    assert not same_output("n phi\n10 0.70", "n phi kept\n10 0.70")


def test_old_spellings_fail_in_docs_blocks():
    with pytest.raises(TypeError, match="positional argument"):
        run("import optimize, metrics\noptimize.optimize_discount(metrics.load_trec9(), [0, 1, 2], 10)", "docs")
    with pytest.raises(TypeError, match="unexpected keyword argument 'B'"):
        run("import gtheory, numpy as np\n"
            "gtheory.gstudy(np.arange(12.0).reshape(3, 4) ** 1.5).bootstrap(B=5, seed=0)", "docs")
