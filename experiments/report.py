r"""The tuning study of Kanoulas & Aslam (CIKM 2009) on any collection, written as a report.

:func:`run_study` computes every table and figure of the paper's §3 on one
:class:`metrics.JudgedRuns` (and, for a four-grade collection, the case the paper left open);
:func:`write_report` renders the result as Markdown (figure files beside it) or as one self-contained HTML
file (the Markdown rendered by Python-Markdown, figures embedded as ``data:`` URIs), with PNG or SVG figures.

What is computed (the paper's numbering):

* **Table 1 / Fig. 4** — G-study of nDCG@k (linear gains) with the Zipf (1/r), linear
  ((k+1-r)/k), log (1/log2(r+1)) and stability-optimal discounts: variance shares, Φ and Eρ² at
  the collection's number of topics, the topics needed for Φ ≥ 0.95, Φ against the number of
  topics.
* **Fig. 2 / 3 / 6** — the optimal discount at several cut-offs against the standard ones (all
  normalised to sum 1 over the ranks); the unconstrained (not necessarily decreasing) optimum and
  the jointly tuned (gain + discount) discount at k = 20.
* **Table 2** — ratio of each positive grade's gain to the lowest positive grade's, by cut-off:
  unconstrained and constrained (gains non-decreasing in grade) optima with the log discount, the
  jointly tuned gains, and the linear (x) and exponential (2^x - 1) gains.
* **Table 3** — topics needed with the exponential, linear and optimal gains (log discount).
* **Table 4 / Fig. 7 / Fig. 8** — Kendall τ (and τ_AP, RMSE) between the system rankings of the
  configurations; scatter plots of per-system mean nDCG.
* **Fig. 9** — Sakai's paired-bootstrap ASL curves of the top-30 systems at nDCG@20 for
  (a) optimal gain + optimal discount, (b) linear gain + log, (c) exponential + log,
  (d) linear + linear; discriminative power at α = 0.05.
* **Out of sample** — :func:`optimize.cross_validate`: tune on half the topics, measure Φ on the
  other half, for the discount and the gain.
* **Published numbers** — on the embedded TREC-9 data, the paper's TREC 9 numbers beside the
  measured ones (:data:`PUBLISHED_TREC9`).

Example
-------
>>> import metrics
>>> from experiments.report import run_study, write_report
>>> study = run_study(metrics.load_trec9(), quick=True)        # doctest: +SKIP
>>> write_report(study, "report", format="md")                 # doctest: +SKIP
PosixPath('report/report.md')

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
.. [3] R. L. Brennan (2001). Generalizability Theory. Springer.

Modules
-------
This module is the public front of the report; each part lives in its own module (one concept each):

* :mod:`experiments.report_study` — the computation: :class:`ReportSettings`, :func:`run_study`, :class:`Study`;
* :mod:`experiments.report_figures` — the figures (:data:`FIGURES`, :func:`render_figures`, :func:`write_figures`);
* :mod:`experiments.report_sections` — the report's sections, assembled in order (``SECTIONS``; a new section
  is added there);
* :mod:`experiments.report_render` — Markdown, HTML and the report directory (:func:`render`, :func:`write_report`).

Every name below is importable from here as before (``from experiments.report import run_study, write_report``).
"""
from __future__ import annotations

from experiments.report_figures import (FIGURE_FORMATS, FIGURES, asl_legend, figure_file, render_figures,
                                        write_figures)
from experiments.report_render import REPORT_MARKER, check_report_directory, render, write_report
from experiments.report_study import (IN_SAMPLE, PUBLISHED_TREC9, STANDARD_DISCOUNTS, ReportSettings, Study,
                                      default_title, fmt_count, is_trec9, power_variants, run_study)

__all__ = [
    "ReportSettings",
    "Study",
    "run_study",
    "write_report",
    "PUBLISHED_TREC9",
    "STANDARD_DISCOUNTS",
    "FIGURES",
    "FIGURE_FORMATS",
    "figure_file",
    "render",
    "render_figures",
    "write_figures",
    "is_trec9",
    "default_title",
    "fmt_count",
    "asl_legend",
    "power_variants",
    "IN_SAMPLE",
]
