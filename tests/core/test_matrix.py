import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ppdm.exceptions import MatrixError
from ppdm.matrix import (
    ExplicitMatrix,
    GammaDiagonal,
    KroneckerMatrix,
    PerturbationMatrix,
    block_diagonal,
    explicit,
    identity,
    matrix_from_spec,
    symmetric_binary,
    symmetric_channel,
    symmetric_ternary,
)
from ppdm.privacy import gamma_from_rho, kang_bound, rho2_from_gamma

gammas = st.floats(min_value=1.05, max_value=200, allow_nan=False)
sizes = st.integers(min_value=2, max_value=60)


@given(n=sizes, gamma=gammas)
def test_gamma_diagonal_is_column_stochastic_with_closed_forms(n, gamma):
    m = GammaDiagonal(n, gamma)
    dense = m.dense()
    assert np.all(dense > 0)
    np.testing.assert_allclose(dense.sum(axis=0), 1.0, rtol=1e-12)
    assert m.amplification() == pytest.approx(gamma)
    assert ExplicitMatrix(dense).amplification() == pytest.approx(gamma)
    y = np.arange(1.0, n + 1)
    np.testing.assert_allclose(m.inverse_apply(y), np.linalg.solve(dense, y), rtol=1e-8, atol=1e-8)
    assert m.entropy() == pytest.approx(ExplicitMatrix(dense).entropy(), rel=1e-10)
    assert m.condition_number() == pytest.approx(np.linalg.cond(dense), rel=1e-6)


@given(n=sizes, gamma=gammas, t=st.integers(1, 12))
def test_power_closed_form_equals_matrix_power(n, gamma, t):
    m = GammaDiagonal(n, gamma)
    np.testing.assert_allclose(
        m.power(t).dense(), np.linalg.matrix_power(m.dense(), t), rtol=1e-9, atol=1e-12
    )


@given(p=st.floats(0.0, 0.49), q=st.floats(0.0, 0.6))
def test_symmetric_and_block_channels_are_stochastic(p, q):
    for m in (
        symmetric_binary(p),
        symmetric_ternary(q),
        block_diagonal([symmetric_binary(p).dense(), symmetric_ternary(q).dense()]),
    ):
        np.testing.assert_allclose(m.dense().sum(axis=0), 1.0)
        assert np.all(m.dense() >= 0)


def test_block_diagonal_has_no_rho_guarantee_and_k():
    m = block_diagonal([symmetric_binary(0.2).dense(), symmetric_ternary(0.3).dense()])
    assert math.isinf(m.amplification())
    assert m.min_row_support() == 2
    assert GammaDiagonal(7, 3.0).min_row_support() == 7


def test_explicit_matrix_rules_name_the_failure():
    with pytest.raises(MatrixError, match="non-negative"):
        explicit([[1.2, 0.5], [-0.2, 0.5]])
    with pytest.raises(MatrixError, match="sum to 1"):
        explicit([[0.5, 0.5], [0.4, 0.5]])
    with pytest.raises(MatrixError, match="singular"):
        explicit([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(MatrixError, match="square"):
        explicit([[1.0, 0.5, 0.2], [0.0, 0.5, 0.8]])
    with pytest.raises(MatrixError, match="gamma must be > 1"):
        GammaDiagonal(5, 1.0)
    with pytest.raises(MatrixError, match="N must be an integer >= 2"):
        GammaDiagonal(1, 5.0)


def test_kronecker_factored_equals_dense():
    k = KroneckerMatrix(
        [GammaDiagonal(3, 4.0), explicit([[0.7, 0.2], [0.3, 0.8]]), GammaDiagonal(4, 9.0)]
    )
    rng = np.random.default_rng(0)
    t = rng.integers(0, 100, size=(3, 2, 4)).astype(float)
    np.testing.assert_allclose(k.apply(t).ravel(), k.dense() @ t.ravel())
    np.testing.assert_allclose(k.inverse_apply(t).ravel(), np.linalg.solve(k.dense(), t.ravel()))
    assert k.amplification() == pytest.approx(4.0 * 3.5 * 9.0)


def test_spec_round_trip():
    for m in (GammaDiagonal(6, 3.5), symmetric_channel(4, 0.3), identity(3)):
        back = matrix_from_spec(m.to_spec())
        np.testing.assert_allclose(back.dense(), m.dense())


def test_rho_gamma_relations():
    assert gamma_from_rho(0.1, 0.5) == pytest.approx(9.0)
    assert rho2_from_gamma(9.0, 0.1) == pytest.approx(0.5)
    for g in (2.0, 9.0, 50.0):
        for r1 in (0.01, 0.05, 0.1, 0.2):
            assert gamma_from_rho(r1, rho2_from_gamma(g, r1)) == pytest.approx(g)
    assert kang_bound(9, 10, 10_000) == pytest.approx(math.sqrt(10 * 9 * 26) / (8 * 100))


def test_sampler_empirical_transitions_match_matrix_chi_square():
    """Pearson chi-square per column, alpha = 0.001 each (Bonferroni over columns: 0.01)."""
    from scipy import stats

    rng = np.random.default_rng(12345)
    n_per = 20_000
    for m in (GammaDiagonal(6, 5.0), explicit([[0.6, 0.1, 0.2], [0.3, 0.7, 0.2], [0.1, 0.2, 0.6]])):
        n = m.n_values
        codes = np.repeat(np.arange(n), n_per)
        out = m.draw(codes, rng)
        table = np.zeros((n, n))
        np.add.at(table, (out, codes), 1)
        for k in range(n):
            expected = m.dense()[:, k] * n_per
            chi2 = ((table[:, k] - expected) ** 2 / expected).sum()
            assert chi2 < stats.chi2.ppf(1 - 0.01 / n, df=n - 1), (k, chi2)


@pytest.mark.parametrize("n_values, gamma", [(6, 5.0), (20, 9.5), (5000, 9.0)])
def test_release_draw_transitions_match_the_realised_channel(n_values, gamma):
    """The release sampler (integer division on raw words, 32- or 64-bit) against the
    gamma-diagonal channel it realises: Pearson chi-square of the perturbed codes of
    code 0, codes grouped into at most 50 cells, alpha = 0.001."""
    from scipy import stats

    from ppdm.random import WordStream

    m = GammaDiagonal(n_values, gamma)
    assert m.realised_gamma <= gamma
    assert (gamma - m.realised_gamma) / (gamma - 1) < 1e-6
    realised = GammaDiagonal(n_values, m.realised_gamma).dense()[:, 0]
    stream = WordStream(np.random.default_rng(7))
    n = 400_000
    out = np.concatenate([m.draw(np.zeros(k, int), stream) for k in (1, 99_999, 300_000)])
    cells = np.minimum(np.arange(n_values), 1 + (np.arange(n_values) * 49) // n_values)
    observed = np.bincount(cells[out], minlength=cells.max() + 1)
    expected = np.bincount(cells, weights=realised) * n
    chi2 = ((observed - expected) ** 2 / expected).sum()
    assert chi2 < stats.chi2.ppf(1 - 0.001, df=len(expected) - 1), chi2


@given(sizes=st.lists(st.integers(0, 9), min_size=1, max_size=6), seed=st.integers(0, 99))
def test_draw_in_pieces_equals_one_draw(sizes, seed):
    from ppdm.random import WordStream

    m = GammaDiagonal(7, 3.0)
    codes = np.random.default_rng(seed).integers(0, 7, sum(sizes))
    whole = m.draw(codes, WordStream(np.random.default_rng(seed)))
    stream = WordStream(np.random.default_rng(seed))
    bounds = np.cumsum([0, *sizes])
    parts = [m.draw(codes[a:b], stream) for a, b in zip(bounds[:-1], bounds[1:])]
    np.testing.assert_array_equal(whole, np.concatenate(parts))


# -- copies of one record: the Bhattacharyya bound on reading the value back -------------


@pytest.mark.parametrize("n,gamma", [(2, 1.5), (3, 9.0), (20, 9.0), (100, 3.0)])
@pytest.mark.parametrize("copies", [1, 2, 10, 154, 1000])
def test_misread_bound_closed_form_agrees_with_the_matrix(n, gamma, copies):
    g = GammaDiagonal(n, gamma)
    general = PerturbationMatrix.misread_bound(g, copies)  # from the dense columns
    assert g.misread_bound(copies) == pytest.approx(general, rel=1e-9, abs=1e-300)
    assert g.misread_bound(copies + 1) <= g.misread_bound(copies) <= 1.0


@pytest.mark.parametrize(
    "matrix,copies",
    [
        (GammaDiagonal(5, 9.0), 12),
        (explicit([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6]]), 20),
    ],
)
def test_copies_point_elsewhere_no_more_often_than_the_bound(matrix, copies):
    # simulate the copies of many records of each value: the value most likely given a
    # record's copies (ties counted against it) is another no more often than the bound
    rng = np.random.default_rng(11)
    m = matrix.dense()
    n, records = m.shape[0], 20_000
    bound = matrix.misread_bound(copies)
    assert 0.01 < bound < 0.9  # a case the simulation can check
    log_m = np.log(m)
    for u in range(n):
        counts = rng.multinomial(copies, m[:, u], size=records)  # copies per released value
        loglik = counts @ log_m  # (records, candidate originals)
        others = np.delete(loglik, u, axis=1).max(axis=1)
        rate = float(np.mean(others >= loglik[:, u] - 1e-12))
        assert rate <= bound + 4 * math.sqrt(bound * (1 - bound) / records), (u, rate, bound)


@pytest.mark.parametrize("gamma", [9.0, 1e6, 1e16, 1e20, 1e300])
def test_power_of_a_huge_gamma_stays_finite(gamma):
    # 1 - lam rounds to 0 past gamma 1e16: M^t was a ZeroDivisionError (the repeated-
    # perturbation attack of an audit of a release made with --allow-unprotected)
    g = GammaDiagonal(20, gamma)
    p = g.power(3)
    # gamma_t = 1 + N lam^3 / (1 - lam^3), 1 - lam = N / (gamma + N - 1): about gamma / 3
    assert math.isfinite(p.gamma) and p.gamma == pytest.approx(
        1 + 20 * (1 - 20 / (gamma + 19)) ** 3 / (1 - (1 - 20 / (gamma + 19)) ** 3)
        if gamma < 1e10
        else gamma / 3,
        rel=1e-6,
    )
    if gamma < 1e10:
        dense = np.linalg.matrix_power(g.dense(), 3)
        assert p.gamma == pytest.approx(dense[0, 0] / dense[1, 0], rel=1e-9)


def test_gamma_past_float_arithmetic_is_refused():
    with pytest.raises(MatrixError, match=r"at most 1e\+300"):
        GammaDiagonal(20, 1.7e308)
