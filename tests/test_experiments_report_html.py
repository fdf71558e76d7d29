"""The HTML report is self-contained and renders in a real browser; the report command's options and formats.

The browser test runs headless Chromium (Debian package ``chromium``; .ci/run installs it when missing). It is
skipped only outside CI when Chromium is absent; in CI (``CI`` set) a missing browser fails the test.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from experiments.report import FIGURES, figure_file, write_report
from experiments.report.render import render


@pytest.fixture(scope="module")
def reports(small_study, tmp_path_factory):
    """report.html with PNG and with SVG figures."""
    root = tmp_path_factory.mktemp("html-report")
    return {fmt: write_report(small_study, root / fmt, format="html", figure_format=fmt, dpi=80)
            for fmt in ("png", "svg")}


# ------------------------------------------------------------------------------------------- self-contained
@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_html_report_is_one_self_contained_file(reports, fmt):
    text = reports[fmt].read_text(encoding="utf-8")
    srcs = re.findall(r'<img[^>]* src="([^"]*)"', text)
    assert len(srcs) == len(FIGURES)
    mime = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
    assert all(s.startswith(f"data:{mime};base64,") for s in srcs)
    # nothing else is fetched: no links to files, stylesheets or scripts
    assert not re.search(r'<(link|script)\b', text) and 'href="' not in text
    assert "docs/report.md" not in text
    for name in FIGURES:  # the figure files are written beside it as well, for reuse
        assert (reports[fmt].parent / figure_file(name, fmt)).is_file()


def test_html_report_markdown_is_rendered_not_leaked(reports):
    text = reports["png"].read_text(encoding="utf-8")
    body = re.sub(r'src="data:[^"]*"', "", text)
    visible = re.sub(r"<[^>]+>", "", body)
    assert "**" not in visible and "*optimal*" not in visible and "| ---" not in visible and "\\" not in visible
    assert "<strong>In short.</strong>" in text and "<em>optimal</em>" in text
    assert text.count("<table>") >= 6 and "<th" in text and 'style="text-align: right;"' in text
    assert "<h2>How to read this report</h2>" in text and "<li><strong>Stability</strong>" in text


def test_svg_figures_are_svg(reports):
    svg = (reports["svg"].parent / "phi_vs_topics.svg").read_bytes()
    assert b"<svg" in svg[:2000] and b"<text" not in svg  # text drawn as paths: no font needed


# ------------------------------------------------------------------------------------------- real browser
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: appended to a copy of the report: records, once everything has loaded, whether each image decoded
_CHECK = ('<script>window.addEventListener("load",function(){var r=[];document.querySelectorAll("img")'
          '.forEach(function(i){r.push({ok:i.complete&&i.naturalWidth>0,w:i.naturalWidth,h:i.naturalHeight,'
          'id:i.id})});var p=document.createElement("pre");p.id="image-check";p.textContent=JSON.stringify(r);'
          'document.body.appendChild(p);});</script>')
#: a deliberately broken image: proves that the check can fail
_BROKEN = '<img id="control" src="data:image/png;base64,aGVsbG8=" alt="broken on purpose">'


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium); required in CI")
    return path


def _run_chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path))  # a fresh profile per launch
    return subprocess.run([_chromium(), *_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000",
                           *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_report_renders_in_headless_chromium(reports, fmt, tmp_path):
    page = tmp_path / "check.html"
    page.write_text(reports[fmt].read_text(encoding="utf-8").replace("</body>", _BROKEN + _CHECK + "</body>"),
                    encoding="utf-8")
    r = _run_chromium(["--dump-dom", page.as_uri()], tmp_path)
    m = re.search(r'<pre id="image-check">(.*?)</pre>', r.stdout, re.S)
    assert m, f"the page's check did not run; chromium said: {r.stderr[-2000:]}"
    images = json.loads(m.group(1))
    figures = [i for i in images if i["id"] != "control"]
    assert len(figures) == len(FIGURES)
    assert all(i["ok"] and i["w"] > 300 and i["h"] > 200 for i in figures), figures
    assert [i["ok"] for i in images if i["id"] == "control"] == [False]


def test_report_screenshot_in_headless_chromium(reports, tmp_path):
    """A screenshot of the (default, PNG) report is kept in the test's tmp dir, and it is not a blank page."""
    shot = tmp_path / "report.png"
    r = _run_chromium(["--window-size=1280,2400", "--hide-scrollbars", f"--screenshot={shot}",
                       reports["png"].as_uri()], tmp_path)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", r.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    assert np.unique(pixels.reshape(-1, pixels.shape[2])[::97], axis=0).shape[0] > 20  # not a blank page


# ------------------------------------------------------------------------------------------- command line, formats


def test_report_cli_asl_cutoff_follows_cutoff(monkeypatch, tmp_path):
    import experiments.report as rep  # the front the command line reads run_study from

    seen = {}

    def fake(judged, *, settings, progress=None, **kw):
        seen["settings"] = settings
        raise ValueError("stop here")

    monkeypatch.setattr(rep, "run_study", fake)
    for argv, cutoff, asl in ((["--cutoff", "10"], 10, 10), ([], 100, 20), (["--cutoff", "10", "--asl-cutoff", "5"], 10, 5)):
        main(["report", "--quick", "--quiet", "--out", str(tmp_path / "r"), *argv])
        assert (seen["settings"].cutoff, seen["settings"].asl_cutoff) == (cutoff, asl), argv


def test_gstudy_plot_title_names_the_measure(monkeypatch, tmp_path, capsys):
    import matplotlib.figure

    titles = []
    real = matplotlib.figure.Figure.savefig

    def spy(self, *a, **kw):
        titles.extend(ax.get_title() for ax in self.axes)
        return real(self, *a, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    out = tmp_path / "d.png"
    assert main(["gstudy", "--measure", "nDCG@20", "--plot", str(out), "--quiet"]) == 0
    assert out.is_file() and titles and "nDCG@20" in titles[0] and "104 systems × 50 topics" in titles[0]


def test_plot_mean_scatter_label_top_is_validated():
    from experiments import plot_mean_scatter

    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="`label_top` must be a non-negative integer"):
            plot_mean_scatter([0.3, 0.2, 0.1], [0.3, 0.2, 0.1], label_top=bad)


def test_markdown_report_links_the_chosen_figure_format(small_study, reports):
    md = render(small_study, "md", figure_format="svg")
    for name in FIGURES:
        assert f"]({figure_file(name, 'svg')})" in md
    from experiments.cli.report import _summary

    doc = _summary(small_study, reports["svg"], "svg")
    assert doc["figures"] == [str(reports["svg"].parent / figure_file(n, "svg")) for n in FIGURES]
    assert all(Path(f).is_file() for f in doc["figures"])
    with pytest.raises(ValueError, match="`figure_format` must be one of"):
        render(small_study, "html", figure_format="pdf")


