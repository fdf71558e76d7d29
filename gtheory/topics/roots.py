"""The root of a scalar function bracketed by a sign change: Brent's method, as SciPy's ``brentq`` computes it.

:func:`brentq` is a statement-by-statement port of SciPy's ``scipy/optimize/Zeros/brentq.c`` (Charles Harris's
implementation of Brent 1973, ch. 4; SciPy's BSD-3 licence): the same steps in the same floating-point operations,
so the roots are SciPy's to the last bit (tests/test_gtheory_topics_roots.py holds them equal on many functions). It
is here because ``import scipy.optimize`` costs a command line about 0.15 s (it loads the linear programming,
minimisation and sparse modules) and the topic planning only needs this one root finder: the smallest detectable
difference of :func:`gtheory.topics.power.min_detectable_difference`, shown by ``gtheory plan`` and
``gtheory compare``.

References
----------
.. [1] R. P. Brent (1973). Algorithms for Minimization without Derivatives, ch. 4. Prentice-Hall.
"""
from __future__ import annotations

import math
from typing import Callable

__all__ = ["brentq"]

#: SciPy's smallest relative tolerance of ``brentq`` (4 × the double precision machine epsilon)
RTOL_MIN = 4 * 2.220446049250313e-16


def brentq(f: Callable[[float], float], a: float, b: float, *, xtol: float = 2e-12, rtol: float = RTOL_MIN,
           maxiter: int = 100) -> float:
    """A root of ``f`` in ``[a, b]``, where ``f(a)`` and ``f(b)`` differ in sign: ``scipy.optimize.brentq(f, a, b,
    xtol=xtol, rtol=rtol, maxiter=maxiter)``, the same number.

    The result ``x0`` satisfies ``|x0 - x| <= xtol + rtol * |x0|`` for a root ``x`` (Brent's guarantee). Raises
    ``ValueError`` when ``f(a)`` and ``f(b)`` have the same sign or a tolerance is out of range, ``RuntimeError``
    when ``maxiter`` iterations do not converge (SciPy's errors and messages).

    >>> round(brentq(lambda x: x * x - 2.0, 0.0, 2.0), 12)
    1.414213562373
    """
    if xtol <= 0:
        raise ValueError(f"xtol too small ({xtol:g} <= 0)")
    if rtol < RTOL_MIN:
        raise ValueError(f"rtol too small ({rtol:g} < {RTOL_MIN:g})")
    xpre, xcur = float(a), float(b)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = float(f(xpre)), float(f(xcur))
    if fpre * fcur > 0:
        raise ValueError("f(a) and f(b) must have different signs")
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    for _ in range(int(maxiter)):
        if fpre != 0 and fcur != 0 and (math.copysign(1.0, fpre) < 0) != (math.copysign(1.0, fcur) < 0):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # good short step
                spre, scur = scur, stry
            else:  # bisect
                spre = scur = sbis
        else:  # bisect
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0 else -delta
        fcur = float(f(xcur))
    raise RuntimeError(f"Failed to converge after {int(maxiter)} iterations, value is {xcur!r}.")
