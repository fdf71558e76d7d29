"""experiments.report: the Kanoulas & Aslam study as a report (gtheory report). settings: what the study computes
and the report's title; study: run_study(), the computation; result: its Study; figures: the figures; sections: what
the report says; topics: its section on the topics needed; render: the Markdown, HTML and JSON written out;
wording: the names and number formats they share; published: the paper's TREC-9 numbers; _adopted: the report's
view of the recommended configurations."""
from gtheory.kit.lazy import room_front as _room_front
__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "default_title": "settings", "check_report_directory": "render", "FIGURES": "figures", "figure_file": "figures"})
