"""The shared kit: the bottom layer every package of gtheory stands on.

It imports nothing from ``metrics``, ``optimize`` or ``experiments`` (nor from the rest of ``gtheory``) and nothing
heavier than NumPy at import time, so ``import metrics`` stays light. One concept per module:

* :mod:`gtheory.kit.errors` — the one error protocol: :class:`~gtheory.kit.errors.FixableError` (a problem and its
  fix as data), :class:`~gtheory.kit.errors.ParameterError` (a parameter out of its rule), ``FixableWarning``;
* :mod:`gtheory.kit.checks` — the argument checks, one per kind of parameter (``seed``, ``seeds``, ``progress``,
  integers, probabilities, fractions, choices);
* :mod:`gtheory.kit.jsonio` — the result protocol's JSON: :class:`~gtheory.kit.jsonio.JsonResult`, the one strict
  encoder, the readers of a result document and its tables;
* :mod:`gtheory.kit.display` — the notebook display helpers (HTML tables) and number formatting;
* :mod:`gtheory.kit.ties` — equality up to rounding (:data:`~gtheory.kit.ties.TIE_REL`), used by every rank
  statistic and randomised test;
* :mod:`gtheory.kit.siblings` — the check that the sibling packages are this project's (not a user's module of the
  same name).

Import the module you need (``from gtheory.kit.checks import check_seed``); this package's ``__init__`` loads none
of them.
"""
