"""Tests of gtheory/kit/params.py: the one table of parameter rules and the decorator that applies it.

Two parts. The property test: every public function of every package (the functions in each package's
``__all__``) that has a parameter named in the table is called with each bad value the table generates for that
parameter (0, -1, 1.5, True, "x", NaN, None, ... where the rule refuses them) and must raise the kit's
:class:`~gtheory.kit.errors.ParameterError` naming that parameter, before its body runs (the other arguments are
placeholders the body would choke on). A function whose rule differs from the table's must be listed in
``OVERRIDES`` with its reason, and one left unchecked in ``SKIP`` with its reason; so a new public function with a
``seed`` or an ``alpha`` and no decorator fails here. Then unit tests of the rules (against hand-written
expectations, not against the table's own code) and of the decorator (overrides, defaults checked once, positional
and keyword calls, cleaned values).

Reference: scikit-learn's ``sklearn.utils._param_validation`` (``validate_params``), whose tests call every public
estimator with invalid values of each declared parameter in the same way.
"""
from __future__ import annotations

import importlib
import inspect
import functools
import math
import pickle
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from gtheory.kit.errors import ParameterError, ParameterTypeError
from gtheory.kit.params import (ANY_LEVEL, PARAMS, Rule, check_param, choice, integer, one_or_many, param_rules,
                                probability, real, validate_params)

PACKAGES = ("gtheory", "metrics", "optimize", "experiments")

#: (function, parameter) left to the function's body, and why
SKIP = {
    ("metrics.discount_vector", "cutoff"): "the linear discount's k when it is given (0 or None: not given); every "
                                           "other discount ignores it",
    ("experiments.sweep", "seeds"): "`seeds=0` gets its own message first (pass [0] for the single seed 0); the "
                                    "sweep's grid then checks it by the table's rule (check_param)",
}

#: (function, parameter) whose rule legitimately differs from the table's, and why
OVERRIDES = {
    **{(f, "cutoff"): "a required cut-off (None is not a whole list here)" for f in (
        "metrics.precision", "metrics.recall", "metrics.success", "metrics.andcg", "optimize.optimize_discount",
        "optimize.optimize_gain", "optimize.optimize_joint", "optimize.cross_validate", "optimize.recommend",
        "optimize.optimize_family", "optimize.optimize_regularised", "experiments.demo_study",
        "experiments.run_study")},
    **{(f, "relevance_level"): "the judgment sampling takes any finite grade (the measures need > 0)" for f in (
        "metrics.reduction_mask", "metrics.reduce_qrels",
        "experiments.incompleteness_study", "experiments.tuned_stability_under_incompleteness", "experiments.sweep",
        "experiments.robustness_study")},
    **{(f, "fraction"): "one fraction or a list of them" for f in ("metrics.reduction_mask",)},
    **{(f, "n_resamples"): "a bootstrap interval needs at least 10 replicates" for f in ("gtheory.dstudy_subset",)},
    **{(f, "n_resamples"): "resampled comparisons are capped (memory and time; docs/compare.md)" for f in (
        "experiments.compare", "experiments.compare_measures")},
    **{(f, "target"): "None: no target line" for f in ("gtheory.plot_dstudy", "experiments.plot_phi_vs_fraction")},
    ("gtheory.plot_dstudy", "level"): "None: no interval band",
    ("experiments.plot_asl_curves", "alpha"): "None: no significance line",
    ("optimize.recommend", "n_splits"): "nested cross-validation needs at least 2 outer splits",
    ("optimize.tune_parameters", "n_splits"): "0 means no out-of-sample check; 1 split is none",
    **{(f, "what"): "a one-parameter family or penalty tunes the gain or the discount, not both" for f in (
        "optimize.optimize_family", "optimize.optimize_regularised")},
    ("gtheory.topic_set_size", "min_diff"): "None: method='ci' takes ci_width instead",
}


def _public_functions():
    for pkg in PACKAGES:
        mod = importlib.import_module(pkg)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                yield f"{pkg}.{name}", obj


def _cases():
    for qualname, fn in _public_functions():
        for p in inspect.signature(fn).parameters:
            if p in PARAMS and (qualname, p) not in SKIP:
                yield qualname, fn, p


CASES = list(_cases())


class _Placeholder:
    """An argument the body would choke on: the call must fail in the decorator, before the body."""

    def __repr__(self) -> str:
        return "<placeholder>"


def _call_with(fn, param: str, bad):
    rules = param_rules(fn)
    kwargs = {}
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name == param:
            kwargs[name] = bad
        elif name in rules:
            kwargs[name] = rules[name].example  # valid, so only `param` can fail
        elif p.default is p.empty:
            kwargs[name] = _Placeholder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(**kwargs)


def test_the_cases_cover_every_package_and_every_entry_of_the_table():
    # the property test below is not vacuous: it reaches public functions of all four packages, and every rule of
    # the table is used by some public function (an unused entry is dead)
    assert {q.split(".")[0] for q, _, _ in CASES} == set(PACKAGES)
    used = {p for _, _, p in CASES} | {p for _, p in SKIP}
    assert set(PARAMS) <= used, sorted(set(PARAMS) - used)
    assert len(CASES) > 150


@pytest.mark.parametrize("qualname, fn, param", CASES, ids=[f"{q}-{p}" for q, _, p in CASES])
def test_every_public_function_checks_its_table_parameters(qualname, fn, param):
    rules = param_rules(fn)
    assert param in rules, f"{qualname}() is not checked by the parameter table for `{param}` (@validate_params)"
    rule = rules[param]
    if (qualname, param) in OVERRIDES:
        assert rule.rule != PARAMS[param].rule, f"{qualname}: listed as an override but uses the table's rule"
    else:
        assert rule.rule == PARAMS[param].rule, (f"{qualname}({param}=...) has its own rule {rule.rule!r}; list it "
                                                 "in OVERRIDES with the reason, or use the table's")
    bad_values = rule.invalid_examples()
    assert bad_values, rule
    for bad in bad_values:
        with pytest.raises(ParameterError) as caught:
            _call_with(fn, param, bad)
        err = caught.value
        assert err.param == param and err.rule == rule.rule, (qualname, bad, err)
        assert err.value is bad or (isinstance(bad, float) and math.isnan(bad) and math.isnan(err.value))
        assert f"`{param}`" in str(err) and rule.rule in str(err) and "got" in str(err)


def test_every_skip_and_override_names_a_real_public_parameter():
    public = dict(_public_functions())
    for qualname, param in {**SKIP, **OVERRIDES}:
        assert qualname in public and param in inspect.signature(public[qualname]).parameters, (qualname, param)


# ------------------------------------------------------------------------------------------------------- the rules
@pytest.mark.parametrize("name, good, bad", [
    ("n_resamples", [1, 1000, np.int64(5)], [0, -1, 1.5, True, "10", None, 10.0]),
    ("alpha", [0.05, 0.5, np.float32(0.01), 1e-9], [0, 1, 1.0, -0.1, True, "0.05", math.nan, None]),
    ("cutoff", [1, 10, None, np.int32(3)], [0, -5, 2.5, True, "10", math.inf]),
    ("top_k", [2, 30, None], [1, 0, 2.0, False]),
    ("relevance_level", [1, 0.5, 3], [0, -1, math.nan, math.inf, True, None]),
    ("fraction", [1, 1.0, 0.05], [0, 1.5, -0.1, True, "half"]),
    ("min_relevant", [0, 1, 10], [-1, 0.5, True, None]),
    ("rounding", ["ceil", "round", "floor"], ["up", "", None, 1]),
    ("what", ["discount", "gain", "joint"], ["both", "Gain", None]),
    ("objective", ["phi", "erho2"], ["Phi", None, 0]),
    ("seed", [None, 0, 2**40, np.int8(7), np.random.default_rng(0), np.random.SeedSequence(1)],
     [-1, 1.5, True, "0", [1, 2], np.random.RandomState(0)]),
    ("seeds", [1, 3, [5], (0, 4), np.array([2, 1])], [0, -2, [], [1, 1], [1, -2], "12", 1.5, True, {0: 1}]),
    ("progress", [True, False, None, "auto", print, np.bool_(True)], ["yes", "", 1, 0.5]),
    ("executor", [None], [4, "process", True]),
    ("max_workers", [1, 8, None], [0, -1, 1.5, True]),
    ("agree_tol", [0, 0.0, 1e-6], [-1e-9, math.nan, math.inf, True, None]),
])
def test_rules_accept_and_refuse_what_the_docs_say(name, good, bad):
    # hand-written expectations from docs/architecture.md ("The shared vocabulary") and the parameters' docstrings
    rule = PARAMS[name]
    for v in good:
        assert rule.accepts(v), (name, v)
    for v in bad:
        assert not rule.accepts(v), (name, v)
    assert rule.accepts(rule.example)


def test_cleaned_values():
    assert type(check_param("n_resamples", np.int64(7))) is int and check_param("n_resamples", np.int64(7)) == 7
    assert type(check_param("alpha", np.float32(0.25))) is float and check_param("alpha", np.float32(0.25)) == 0.25
    assert type(check_param("relevance_level", 2)) is float
    assert check_param("seeds", 3) == (0, 1, 2) and check_param("seeds", np.array([4, 2])) == (4, 2)
    g = np.random.default_rng(1)
    assert check_param("seed", g) is g and check_param("seed", None) is None
    assert check_param("progress", "auto") == "auto"  # resolved where it is used (kit.checks.check_progress)
    with ThreadPoolExecutor(1) as ex:
        assert check_param("executor", ex) is ex


def test_wrong_types_are_type_errors_and_value_errors():
    with pytest.raises(ParameterTypeError) as caught:
        check_param("cutoff", "10")
    err = caught.value
    assert isinstance(err, TypeError) and isinstance(err, ValueError) and isinstance(err, ParameterError)
    assert err.param == "cutoff" and err.value == "10" and "str '10'" in str(err)
    with pytest.raises(ParameterError) as caught:
        check_param("cutoff", 0)
    assert not isinstance(caught.value, TypeError)  # in its type, out of its range: a ValueError only
    back = pickle.loads(pickle.dumps(err))  # errors cross process boundaries (executors)
    assert type(back) is ParameterTypeError and back.param == "cutoff" and back.rule == err.rule


def test_the_fix_ends_the_message_with_the_parameter_in_backticks():
    with pytest.raises(ParameterError) as caught:
        check_param("n_resamples", 0)
    err = caught.value
    assert str(err) == f"{err.statement}; {err.advice}" and "`n_resamples=" in err.advice
    with pytest.raises(ParameterError) as caught:
        check_param("test_seed", -1, PARAMS["seed"])  # the table's rule under another name: the fix names it
    assert "`test_seed=0`" in caught.value.advice and caught.value.param == "test_seed"


def test_rule_constructors():
    r = integer(2, 5)
    assert [r.accepts(v) for v in (1, 2, 5, 6)] == [False, True, True, False] and r.rule == "an integer in [2, 5]"
    r = integer(0, exclude=(1,), rule="0 or an integer >= 2")
    assert [r.accepts(v) for v in (0, 1, 2)] == [True, False, True] and r.accepts(r.example)
    r = real(0, 1, low_open=False, high_open=False)
    assert r.accepts(0) and r.accepts(1) and not r.accepts(1.0001) and r.rule == "a number in [0, 1]"
    assert probability(none=True).accepts(None) and not probability().accepts(None)
    assert choice("a", "b", none=True).accepts(None) and choice("a", "b").rule == "one of 'a', 'b'"
    r = one_or_many(PARAMS["fraction"])
    assert r.accepts(0.5) and r.accepts([1, 0.5]) and not r.accepts([]) and not r.accepts([0.5, 0])
    assert check_param("fraction", [1, 0.5], r) == [1.0, 0.5] and check_param("fraction", 1, r) == 1.0
    assert ANY_LEVEL.accepts(0) and ANY_LEVEL.accepts(-1) and not ANY_LEVEL.accepts(math.nan)


# --------------------------------------------------------------------------------------------------- the decorator
def test_decorator_checks_positional_and_keyword_arguments_and_passes_cleaned_values():
    seen = []

    @validate_params()
    def f(data, n_resamples=1000, *, alpha=0.05, other=None):
        seen.append((n_resamples, alpha))
        return n_resamples, alpha

    assert f(None, np.int64(20), alpha=np.float32(0.5)) == (20, 0.5)
    assert type(seen[-1][0]) is int and type(seen[-1][1]) is float
    assert f(None, n_resamples=np.int64(30)) == (30, 0.05) and type(seen[-1][0]) is int
    for call in (lambda: f(None, 0), lambda: f(None, n_resamples=0), lambda: f(None, alpha=1)):
        with pytest.raises(ParameterError):
            call()
    assert len(seen) == 2  # the body never ran for a bad value
    assert f(None, other="anything")  # a parameter outside the table is the body's business
    assert set(param_rules(f)) == {"n_resamples", "alpha"}


def test_overrides_and_unchecked_parameters():
    @validate_params(n_resamples=integer(10), alpha=None)
    def f(*, n_resamples=1000, alpha=0.05, seed=0):
        return n_resamples, alpha

    with pytest.raises(ParameterError, match="an integer >= 10") as caught:
        f(n_resamples=5)  # the table would take 5
    assert caught.value.param == "n_resamples" and "`n_resamples=1000`" in str(caught.value)  # the table's fix kept
    assert f(alpha="anything") == (1000, "anything")  # alpha=None: left to the body
    with pytest.raises(ParameterError):
        f(seed=-1)  # the rest of the table still applies
    assert set(param_rules(f)) == {"n_resamples", "seed"}


def test_decoration_refuses_unknown_overrides_and_defaults_out_of_their_rule():
    with pytest.raises(TypeError, match="no parameter"):
        @validate_params(n_resample=integer(1))
        def f(*, n_resamples=10):
            pass
    with pytest.raises(TypeError, match="breaks its rule"):
        @validate_params()
        def g(*, alpha=1.5):
            pass
    with pytest.raises(TypeError, match="must be a Rule or None"):
        validate_params(alpha=0.05)


def test_defaults_are_checked_once_at_decoration_not_at_each_call():
    calls = []

    def clean(v):
        calls.append(v)
        return v

    counting = Rule("int", "anything", "", clean, 0)

    @validate_params(n_resamples=counting)
    def f(*, n_resamples=1000):
        return n_resamples

    assert calls == [1000]  # the default, once, when decorated
    default = inspect.signature(f).parameters["n_resamples"].default
    f()
    f(n_resamples=default)  # the default object itself: not checked again
    assert calls == [1000]
    f(n_resamples=7)
    assert calls == [1000, 7]


def test_a_default_the_rule_cleans_is_passed_cleaned():
    @validate_params()
    def f(*, seeds=3, relevance_level=1):
        return seeds, relevance_level

    assert f() == ((0, 1, 2), 1.0) and type(f()[1]) is float
    assert f(seeds=[7]) == ((7,), 1.0)


def test_rules_are_found_through_a_wrapping_decorator():
    def wrapped(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    @wrapped
    @validate_params()
    def f(data, *, n_resamples=1000, alpha=0.05):
        return n_resamples, alpha

    assert set(param_rules(f)) == {"n_resamples", "alpha"}
    assert f(None, n_resamples=np.int64(50)) == (50, 0.05)
    with pytest.raises(ParameterError) as caught:
        f(None, n_resamples=0)
    assert caught.value.param == "n_resamples"
