"""The empirical epsilon: the release's samplers run as black boxes, bounded from below."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from ppdm.attacks._substitution import binomial_lower, binomial_upper
from ppdm.attacks.empirical import audit_matrix_epsilon
from ppdm.cli import app
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, symmetric_binary


@pytest.mark.parametrize("gamma", [3.0, 9.0, 19.0])
@pytest.mark.parametrize("n_values", [2, 20])
@pytest.mark.parametrize("sampler", ["integer", "alias"])
def test_the_bound_shows_the_stated_epsilon_and_never_more(gamma, n_values, sampler):
    m = GammaDiagonal(n_values, gamma)
    if sampler == "alias":  # the same matrix through the general alias-table sampler
        m = ExplicitMatrix(m.dense())
    a = audit_matrix_epsilon(m, random_state=7)
    assert a.stated == pytest.approx(math.log(gamma))
    assert a.within_stated
    # 2 M trials: each share is known to ~0.2-1.5 % (relative), far inside 5 %
    assert a.share_of_stated >= 0.95


def test_a_named_channel_is_audited_through_its_own_matrix():
    a = audit_matrix_epsilon(symmetric_binary(0.2), random_state=1)
    assert a.stated == pytest.approx(math.log(4.0))
    assert a.within_stated and a.share_of_stated >= 0.95


class _Leaky(GammaDiagonal):
    """States gamma, samples with another gamma."""

    def __init__(self, n, stated, sampled):
        super().__init__(n, stated)
        self._sampler = GammaDiagonal(n, sampled)

    def draw(self, codes, rng, chunk=1 << 17):
        return self._sampler.draw(codes, rng, chunk)


def test_a_sampler_that_leaks_more_than_it_states_is_caught():
    a = audit_matrix_epsilon(_Leaky(10, 9.0, 12.0), random_state=3)
    assert not a.within_stated
    assert a.lower_bound > math.log(9.0)


def test_a_needlessly_noisy_sampler_shows_well_below_its_stated_epsilon():
    a = audit_matrix_epsilon(_Leaky(10, 9.0, 4.5), random_state=3)
    assert a.within_stated
    # ln 4.5 / ln 9 = 0.68: the owner pays for privacy they did not need
    assert a.share_of_stated < 0.75


def test_clopper_pearson_brackets_the_share():
    assert binomial_lower(0, 10, 0.025) == 0.0
    assert binomial_upper(10, 10, 0.025) == 1.0
    # R's binom.test(30, 100)$conf.int: 0.2124064 0.3998147
    bounds = (binomial_lower(30, 100, 0.025), binomial_upper(30, 100, 0.025))
    assert bounds == pytest.approx((0.2124064, 0.3998147), abs=1e-7)
    # coverage: the one-sided lower bound at alpha misses the truth at most alpha of the time
    rng = np.random.default_rng(0)
    k = rng.binomial(200, 0.1, size=2000)
    misses = np.mean([binomial_lower(int(x), 200, 0.05) > 0.1 for x in k])
    assert misses <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 2000)


@pytest.fixture
def release(tmp_path):
    from ppdm.examples import agrawal_release
    from ppdm.pipeline import make_release

    df, spec, _ = agrawal_release()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "rel", spec=spec, random_state=0)
    return tmp_path / "rel", df


def test_audit_empirical_epsilon_command(release, tmp_path):
    rel, df = release
    runner = CliRunner()
    res = runner.invoke(app, ["audit", str(rel), "--empirical-epsilon", "--trials", "500000"])
    assert res.exit_code == 0, res.output
    assert "PASSED: no sampler shows more than its stated epsilon" in res.output
    assert "Clopper-Pearson at 95 % confidence" in res.output
    res = runner.invoke(app, ["audit", str(rel), "--empirical-epsilon", "--json"])
    rows = json.loads(res.stdout)["empirical_epsilon"]
    assert [r["attribute"] for r in rows] == ["age", "salary"]
    assert all(0.95 <= r["share_of_stated"] <= 1.0 and r["within_stated"] for r in rows)
    original = tmp_path / "orig.csv"
    df.to_csv(original, index=False)
    res = runner.invoke(
        app, ["audit", str(rel), "--original", str(original), "--empirical-epsilon", "--json"]
    )
    payload = json.loads(res.stdout)  # one document: the attacks and the sampler together
    assert "passed" in payload and len(payload["empirical_epsilon"]) == 2
    res = runner.invoke(app, ["audit", str(rel)])
    assert res.exit_code == 2
    assert "give --original (the attacks, with the original table) or --empirical-epsilon" in (
        res.output
    )


@pytest.mark.parametrize(
    ("gamma", "bins", "noted"), [(9, 40, True), (9, 29, False), (19, 40, False), (3, 12, True)]
)
def test_perturb_notes_attributes_past_the_oracle_crossover(tmp_path, gamma, bins, noted):
    import pandas as pd

    rng = np.random.default_rng(0)
    data = tmp_path / "t.csv"
    pd.DataFrame({"x": rng.uniform(0, 1, 300), "y": rng.choice(["a", "b"], 300)}).to_csv(
        data, index=False
    )
    res = CliRunner().invoke(
        app,
        ["perturb", str(data), "--out", str(tmp_path / "r"), "--class", "y",
         "--gamma", str(gamma), "--bins", str(bins), "--bounds", "x=0:1"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    line = f"x (N = {bins} > 3 gamma + 2 = {3 * gamma + 2} at gamma {gamma})"
    assert (line in res.output) is noted
