"""The shared kit: small public helpers every package of the project may import (no import of metrics,
optimize or experiments, nothing heavy)."""
from .splits import topic_splits

__all__ = ["topic_splits"]
