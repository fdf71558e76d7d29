"""Tests of gtheory/kit/signatures.py: keyword-only parameters and renamed parameters keep old calls working for
one release, each with a FutureWarning that names the new spelling.

Reference: Python's own call semantics (what the undecorated function accepts), via ``inspect.signature``.
"""
from __future__ import annotations

import inspect
import warnings

import pytest

from gtheory.kit.signatures import keyword_only, renamed


@keyword_only("cutoff", "level")
def f(data, *, cutoff=10, level=0.9):
    """A function of the new style: data first, the rest keyword-only."""
    return data, cutoff, level


def test_keyword_calls_are_silent_and_the_signature_is_kept():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f([1], cutoff=5) == ([1], 5, 0.9)
    assert str(inspect.signature(f)) == "(data, *, cutoff=10, level=0.9)" and f.__doc__.startswith("A function")
    assert f.__name__ == "f"


def test_positional_calls_still_work_with_a_warning_naming_the_keywords():
    with pytest.warns(FutureWarning, match=r"f\(\): pass cutoff=... by keyword; positional use is deprecated"):
        assert f([1], 5) == ([1], 5, 0.9)
    with pytest.warns(FutureWarning, match=r"pass cutoff=..., level=... by keyword; positional uses are"):
        assert f([1], 5, 0.5) == ([1], 5, 0.5)


def test_too_many_or_repeated_arguments_are_type_errors():
    with pytest.raises(TypeError, match=r"f\(\) takes 1 positional argument\(s\) but 4 were given; pass cutoff, "
                                        r"level by keyword"):
        f([1], 5, 0.5, 7)
    with pytest.raises(TypeError, match=r"f\(\) got multiple values for argument 'cutoff'"):
        f([1], 5, cutoff=6)


@renamed("B", "n_resamples")
def g(x, *, n_resamples=1000):
    return x, n_resamples


def test_renamed_parameter():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g(0, n_resamples=5) == (0, 5)
    with pytest.warns(FutureWarning, match=r"g\(\): `B` is now called `n_resamples`; the old name will stop working"):
        assert g(0, B=50) == (0, 50)
    with pytest.raises(TypeError, match=r"g\(\) got both 'B' and its new name 'n_resamples'; pass 'n_resamples' only"):
        g(0, B=1, n_resamples=2)


def test_the_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f([1], 5)
        g(0, B=1)
    assert [x.filename for x in w] == [__file__, __file__]


def test_renamed_field_keeps_the_old_keyword_and_attribute_of_a_dataclass():
    import dataclasses

    from gtheory.kit.signatures import renamed_field

    @renamed_field("B", "n_resamples")
    @dataclasses.dataclass(frozen=True)
    class Settings:
        n_resamples: int = 1000
        alpha: float = 0.05

    assert [f.name for f in dataclasses.fields(Settings)] == ["n_resamples", "alpha"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name is silent
        assert Settings(n_resamples=5).n_resamples == 5
    with pytest.warns(FutureWarning, match=r"Settings\(\): `B` is now called `n_resamples`"):
        s = Settings(B=7)
    with pytest.warns(FutureWarning, match="Settings.B is now called n_resamples"):
        assert s.B == 7 == s.n_resamples
    with pytest.raises(TypeError, match="both 'B' and its new name"):
        Settings(B=1, n_resamples=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_resamples = 3
