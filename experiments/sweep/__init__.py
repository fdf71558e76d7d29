"""experiments.sweep: sensitivity sweeps over configurations. run: sweep(), every point of the grid evaluated, its
table and notes; grid: the grid (SweepGrid, its axes checked); tasks: running its tasks in this process, on a pool
or a Dask cluster."""
from gtheory.kit.lazy import room_front as _room_front
__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "parse_cutoff": "grid", "dask_executor": "tasks", "check_settings": "run", "degenerate_points": "run",
    "depth_notes": "run", "format_sweep": "run"})
