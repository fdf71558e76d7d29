"""Tests of gtheory.gstudy.designs (general balanced crossed / nested G- and D-studies).

External references:
* Brennan (2001) synthetic data sets 1–4 with published df, SS, MS, variance components, Eρ² and
  Φ (random and fixed facets), transcribed in GeneralizIT's fixtures
  (shared data: gtheory-textbook/brennan2001_via_GeneralizIT/expected_values_from_fixtures.json)
  and in that folder's SOURCE.txt (which keeps trailing zeros: '.5750').
* statsmodels ``anova_lm`` of an OLS fit for a 4-facet crossed and a nested design (sums of
  squares and df).
* Monte Carlo: ANOVA estimators are unbiased, so the mean of the raw estimates over simulated
  data from known components must match them (checks the expected-mean-square coefficients).
"""
from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gtheory import gstudy, gstudy_design, parse_design, read_scores

from conftest import shared


def brennan(name: str) -> Path:
    """A file of Brennan's (2001) synthetic data sets (skips the test when the shared data is not there)."""
    return shared("gtheory-textbook", "brennan2001_via_GeneralizIT", name)


def expected(case: str) -> dict:
    """The published values of one of Brennan's data sets."""
    return json.loads(brennan("expected_values_from_fixtures.json").read_text())[case]


def published(value: float, pub: float | str) -> None:
    """``value`` rounds to the published number (decimals as printed)."""
    s = pub if isinstance(pub, str) else repr(pub)
    decimals = len(s.split(".")[1]) if "." in s else 0
    assert abs(value - float(s)) <= 0.5 * 10.0**-decimals + 1e-12, (value, pub)


def key(name: str) -> str:
    return re.sub(r"[\s()]", "", name)


def long_p_x_i() -> pd.DataFrame:
    w = pd.read_csv(brennan("synthetic1_p_x_i.csv"))
    return w.melt(id_vars="person", var_name="item", value_name="score")


def long_i_in_p() -> pd.DataFrame:
    w = pd.read_csv(brennan("synthetic2_i_nested_in_p.csv"))
    d = w.melt(id_vars="person", var_name="item", value_name="score")
    d["item"] = d["item"].str.replace("personi_", "")  # item1..item8 repeat within every person
    return d


def long_p_x_i_x_o() -> pd.DataFrame:
    w = pd.read_csv(brennan("synthetic3_p_x_i_x_o.csv")).rename(columns={"Person": "person"})
    d = w.melt(id_vars="person", var_name="oi", value_name="score")
    d[["o", "i"]] = d["oi"].str.split("_", expand=True)
    return d.drop(columns="oi")


def long_p_x_r_in_t() -> pd.DataFrame:
    w = pd.read_csv(brennan("synthetic4_p_x_r_nested_in_t.csv"))
    d = w.melt(id_vars="person", var_name="tr", value_name="score")
    d[["t", "r"]] = d["tr"].str.split("_", expand=True)  # r1..r12: unique labels across tasks
    return d.drop(columns="tr")


CASES = {
    "design1": (long_p_x_i, "person x item"),
    "design2": (long_i_in_p, "item:person"),
    "design3": (long_p_x_i_x_o, "person x i x o"),
    "design4": (long_p_x_r_in_t, "person x (r:t)"),
}


# Transcription typo: synthetic 3 lists MS(po) = 1.3383, but its own SS(po) = 12.05 with df 9 gives
# 1.3389, and its published σ²(po) = .1009 = (1.3389 - .9352)/4 (with 1.3383 it would be .1008).
MS_TYPOS = {("design3", "person x o"): "1.3389"}


def _rows(g) -> dict[str, pd.Series]:
    return {key(n): r for n, r in g.components.iterrows()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_brennan_published_numbers(case):
    make, design = CASES[case]
    exp = expected(case)
    g = gstudy_design(make(), design)
    rows = _rows(g)
    assert set(rows) == {key(k) for k in exp["variances_dict"]}
    for eff, v in exp["variances_dict"].items():
        published(g.variance(eff), v)
    for eff, v in exp.get("ms_values_dict", {}).items():
        if (case, eff) in MS_TYPOS:
            # the published SS and df of this effect give SS/df, not the printed MS
            ss, df = exp["ss_values_dict"][eff], exp["deg_freedom_dict"][eff]
            assert abs(ss / df - v) > 5e-4
            published(rows[key(eff)]["ms"], MS_TYPOS[case, eff])
            continue
        published(rows[key(eff)]["ms"], v)
    for eff, v in exp.get("ss_values_dict", {}).items():
        published(rows[key(eff)]["ss"], v)
    for eff, v in exp.get("deg_freedom_dict", {}).items():
        if eff != "Total":
            assert rows[key(eff)]["df"] == v
    if "Total" in exp.get("deg_freedom_dict", {}):
        assert sum(r["df"] for r in rows.values()) == exp["deg_freedom_dict"]["Total"]
    for facet, n in exp.get("levels_dict", {}).items():
        assert g.sizes[facet] == n
    d = g.dstudy("person")
    published(d.erho2, exp["rho_dict"]["person"])
    published(d.phi, exp["phi_dict"]["person"])
    assert g.components["ss"].sum() == pytest.approx(g.ss_total, rel=1e-12)


@pytest.mark.parametrize("case, fixed", [("design3_fixed", "i"), ("design4_fixed", "t")])
def test_brennan_fixed_facets(case, fixed):
    make, design = CASES[case.replace("_fixed", "")]
    exp = expected(case)
    d = gstudy_design(make(), design).dstudy("person", fixed=[fixed])
    published(d.erho2, exp["rho_dict"]["person"])
    published(d.phi, exp["phi_dict"]["person"])


def test_source_txt_precision_with_trailing_zeros():
    # SOURCE.txt prints some values with trailing zeros the JSON floats lost
    g3 = gstudy_design(long_p_x_i_x_o(), "person x i x o")
    published(g3.variance("person x i"), ".5750")
    published(g3.variance("person x i x o"), ".9352")
    published(_rows(g3)["ixo"]["ms"], "2.5000")
    g4 = gstudy_design(long_p_x_r_in_t(), "person x (r:t)")
    published(_rows(g4)["t"]["ms"], "24.1000")
    g2 = gstudy_design(long_i_in_p(), "item:person")
    published(g2.variance("item:person"), "2.0250")
    # Brennan synthetic 1 D-study through the general path, item sizes 5..20 (tolerance: one unit
    # in the 3rd decimal, Brennan rounded the components first; see test_gtheory_gstudy_gstudy.py)
    g1 = gstudy_design(long_p_x_i(), "person x item")
    for n, e, p in [(5, .693, .586), (10, .819, .740), (15, .871, .810), (20, .901, .850)]:
        d = g1.dstudy("person", {"item": n})
        assert abs(d.erho2 - e) <= 1e-3 + 1e-12 and abs(d.phi - p) <= 1e-3 + 1e-12


def test_shavelson_webb_table_1_1():
    # No published components were found for this table; SOURCE.txt gives values computed by the
    # data preparer with an independent p x i ANOVA: MS .45395/.39643/.21034, Erho2 .5366, Phi .5259
    d = pd.read_csv(shared("gtheory-textbook", "shavelson_webb_1991_via_hemp", "swtable11_long.csv"))
    g = gstudy_design(d, "person x item")
    rows = _rows(g)
    published(rows["person"]["ms"], ".45395")
    published(rows["item"]["ms"], ".39643")
    published(rows["personxitem"]["ms"], ".21034")
    published(g.variance("person"), ".03045")
    published(g.variance("item"), ".00930")
    dd = g.dstudy("person")
    published(dd.erho2, ".5366")
    published(dd.phi, ".5259")


def test_p_x_i_equals_crossed_gstudy_on_trec():
    X = read_scores(shared("score-matrices", "sigir2018-simulation", "web2012_ndcg20.csv"))
    long = X.rename_axis(index="s", columns="t").stack().rename("score").reset_index()
    gd = gstudy_design(long, "s x t")
    g = gstudy(X)
    assert gd.variance("s") == pytest.approx(g.var_system, rel=1e-12)
    assert gd.variance("t") == pytest.approx(g.var_topic, rel=1e-12)
    assert gd.variance("s x t") == pytest.approx(g.var_residual, rel=1e-12)
    for n in (1, 10, 50):
        d = gd.dstudy("s", {"t": n})
        assert d.phi == pytest.approx(g.phi(n), rel=1e-12)
        assert d.erho2 == pytest.approx(g.erho2(n), rel=1e-12)


def _simulate(design: str, sizes: dict[str, int], var: dict[str, float], rng, *, long: bool = True):
    """Data from the random-effects model: one normal effect per design effect."""
    d = parse_design(design)
    shape = tuple(sizes[f] for f in d.facets)
    y = np.full(shape, 5.0)
    for eff in d.effects:
        s = tuple(sizes[f] if f in eff.facets else 1 for f in d.facets)
        y = y + rng.normal(0.0, math.sqrt(var[eff.name]), s)
    if not long:
        return y
    idx = pd.MultiIndex.from_product([[f"{f}{k}" for k in range(sizes[f])] for f in d.facets],
                                     names=list(d.facets))
    return pd.DataFrame({"score": y.ravel()}, index=idx).reset_index()


def test_four_facet_crossed_against_statsmodels():
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    rng = np.random.default_rng(11)
    design = "p x i x o x r"
    sizes = {"p": 4, "i": 3, "o": 3, "r": 2}
    var = {e.name: 1.0 for e in parse_design(design).effects}
    data = _simulate(design, sizes, var, rng)
    g = gstudy_design(data, design, warn=False)
    # reference: anova_lm(ols("score ~ (C(p) + C(i) + C(o) + C(r))**3", data).fit()); the
    # residual is the 4-way interaction (one observation per cell)
    t = sm.stats.anova_lm(ols("score ~ (C(p) + C(i) + C(o) + C(r))**3", data=data).fit())
    ref = {}
    for name, r in t.iterrows():
        facets = "Residual" if name == "Residual" else " x ".join(re.findall(r"C\((\w)\)", name))
        ref["p x i x o x r" if facets == "Residual" else facets] = r
    assert len(ref) == len(g.components) == 15
    for name, r in g.components.iterrows():
        assert r["df"] == ref[name]["df"]
        assert r["ss"] == pytest.approx(ref[name]["sum_sq"], rel=1e-10)


def test_nested_design_against_statsmodels():
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    data = long_p_x_r_in_t()
    g = gstudy_design(data, "person x (r:t)")
    # statsmodels needs rater labels that repeat within tasks (r1..r4 in every task) for the
    # C(t):C(r) term to have full rank; gtheory must give the same answer for either labelling
    data["r"] = "r" + ((data["r"].str[1:].astype(int) - 1) % 4 + 1).astype(str)
    g_rep = gstudy_design(data, "person x (r:t)")
    pd.testing.assert_frame_equal(g.components, g_rep.components, rtol=1e-13)
    # reference: anova_lm(ols("score ~ C(person) + C(t) + C(t):C(r) + C(person):C(t)", data).fit())
    t = sm.stats.anova_lm(ols("score ~ C(person) + C(t) + C(t):C(r) + C(person):C(t)", data=data).fit())
    ref = {"person": t.loc["C(person)"], "t": t.loc["C(t)"], "r:t": t.loc["C(t):C(r)"],
           "person x t": t.loc["C(person):C(t)"], "person x r:t": t.loc["Residual"]}
    for name, r in g.components.iterrows():
        assert r["df"] == pytest.approx(ref[name]["df"])
        assert r["ss"] == pytest.approx(ref[name]["sum_sq"], rel=1e-10)


@pytest.mark.parametrize(
    "design, sizes",
    [
        ("p x i x o x r", {"p": 6, "i": 4, "o": 3, "r": 2}),
        ("p x (r:t)", {"p": 8, "r": 3, "t": 4}),
        ("i:(p x h)", {"p": 6, "h": 3, "i": 4}),
        ("r:t:p", {"p": 6, "t": 3, "r": 3}),
    ],
)
def test_ems_unbiased_by_simulation(design, sizes):
    rng = np.random.default_rng(2024)
    effects = parse_design(design).effects
    var = {e.name: 0.5 + k % 3 for k, e in enumerate(effects)}
    reps = 300
    est = np.empty((reps, len(effects)))
    for k in range(reps):
        g = gstudy_design(_simulate(design, sizes, var, rng, long=False), design, warn=False)
        est[k] = g.components["variance_raw"].to_numpy()
    truth = np.array([var[e.name] for e in effects])
    se = est.std(axis=0, ddof=1) / math.sqrt(reps)
    z = (est.mean(axis=0) - truth) / se
    assert np.all(np.abs(z) < 4.5), dict(zip([e.name for e in effects], z.round(2)))


# ----------------------------------------------------------------- refusals
def test_missing_data_refused():
    w = pd.read_csv(brennan("synthetic_missing_p_x_i.csv"))
    d = w.melt(id_vars="p", var_name="i", value_name="score")
    with pytest.raises(ValueError, match=r"missing or non-finite scores \(first at p=3, i='i_1'\)"):
        gstudy_design(d, "p x i")
    with pytest.raises(ValueError, match=r"cells without a score"):
        gstudy_design(d.dropna(), "p x i")
    with pytest.raises(ValueError, match=r"NaN values"):
        gstudy(w.set_index("p"))


def test_unbalanced_refused():
    w = pd.read_csv(brennan("synthetic_unbalanced_p_x_i_nested_in_h.csv"))
    d = w.melt(id_vars="p", var_name="hi", value_name="score")
    d[["h", "i"]] = d["hi"].str.split("_", expand=True)
    with pytest.raises(ValueError, match=r"unbalanced design: facet 'i' has 2 levels within h='h1' but 4 within h='h2'"):
        gstudy_design(d, "p x (i:h)")


def test_other_bad_input():
    d = long_p_x_i()
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['o'\]"):
        gstudy_design(d, "person x item x o")
    with pytest.raises(ValueError, match="more than one score"):
        gstudy_design(pd.concat([d, d.iloc[:1]]), "person x item")
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        gstudy_design(d.to_dict(), "person x item")
    with pytest.raises(ValueError, match="one axis per facet"):
        gstudy_design(np.ones((3, 4)), "p x i x o")
    # array input: same as the long DataFrame
    arr = pd.read_csv(brennan("synthetic1_p_x_i.csv"), index_col=0).to_numpy()
    pd.testing.assert_frame_equal(gstudy_design(arr, "person x item").components,
                                  gstudy_design(d, "person x item").components, rtol=1e-13)
    with pytest.raises(ValueError, match="all scores are equal"):
        gstudy_design(d.assign(score=1.0), "person x item")
    with pytest.raises(ValueError, match="facet 'item' has 1 level"):
        gstudy_design(d[d.item == "i1"], "person x item")
    g = gstudy_design(d, "person x item")
    with pytest.raises(ValueError, match="`object` must be one of"):
        g.dstudy("rater")
    with pytest.raises(ValueError, match="`fixed` must name facets"):
        g.dstudy("person", fixed=["person"])
    with pytest.raises(ValueError, match="nested within"):
        gstudy_design(long_i_in_p(), "item:person").dstudy("item")
    with pytest.raises(KeyError):
        g.variance("person x rater")


def test_negative_component_warns():
    from gtheory import NegativeVarianceWarning

    d = pd.DataFrame({"p": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4], "i": list("abc") * 4,
                      "score": [1, 0, .5, 0, 1, .5, .5, .5, .5, 1, 0, .5]})
    with pytest.warns(NegativeVarianceWarning) as record:
        g = gstudy_design(d, "p x i")
    assert any("σ²(i)" in str(w.message) for w in record)
    assert g.components.at["i", "clipped"] and g.variance("i") == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gstudy_design(d, "p x i", warn=False)


def test_summary_text():
    s = str(gstudy_design(long_p_x_r_in_t(), "person x (r:t)"))
    for token in ("person x r:t", "Eρ²", "Φ", "σ²(τ)"):
        assert token in s
    s2 = gstudy_design(long_p_x_r_in_t(), "person x (r:t)").summary(fixed=["t"])
    assert "fixed: t" in s2
