"""The warnings and errors of a tuning, shared by both rooms of optimize: a solver that did not converge or data that
cannot be tuned (:class:`OptimizationWarning`, or :class:`OptimizationError` with ``strict=True``), and a tuning
applied where it does not fit — to judgments without some of its grades (:class:`GradeMismatchWarning`), after
its optimiser failed (:class:`FailedTuningWarning`), or to other data than it was tuned on
(:class:`DataMismatchWarning`)."""
from __future__ import annotations

__all__ = ["OptimizationWarning", "OptimizationError", "GradeMismatchWarning", "FailedTuningWarning",
           "DataMismatchWarning"]


class OptimizationWarning(UserWarning):
    """The optimiser did not converge, or the data cannot be tuned (systems indistinguishable under
    every configuration); the result says so in ``success``/``message``."""


class GradeMismatchWarning(UserWarning):
    """A tuning applied to judgments that lack some of the grades it has (positive) gains for."""


class FailedTuningWarning(UserWarning):
    """A tuning whose optimiser failed (``success`` False: not converged, or the systems cannot be told
    apart) was applied (:meth:`Tuning.ndcg`, :meth:`Tuning.evaluate`, ...): its gain and discount are
    not the stability-optimal ones. The CLI refuses such a tuning unless ``--allow-failed``."""


class DataMismatchWarning(UserWarning):
    """A tuning applied to other data than it was tuned on (the judged tensor's fingerprint differs from the one
    the tuning recorded): legitimate for a transfer or held-out study, a mistake when the data were meant to be
    the same."""


class OptimizationError(RuntimeError):
    """Raised instead of :class:`OptimizationWarning` when the user asked for ``strict=True``."""
