import numpy as np

from ppdm.boxcounts import box_counts, indicator_weights
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, identity
from ppdm.perturbation import perturb_codes


def test_gamma_diagonal_closed_form():
    g, n = 6.0, 7
    m = GammaDiagonal(n, g)
    mask = np.zeros(n, bool)
    mask[[1, 4, 5]] = True
    expected = ((g + n - 1) * mask - mask.sum()) / (g - 1)
    np.testing.assert_allclose(indicator_weights(m, mask), expected)


def test_identity_reproduces_exact_counts():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, size=(1000, 3))
    classes = rng.integers(0, 3, 1000)
    masks = [np.array([1, 1, 0, 0, 1], bool), None, np.array([0, 1, 1, 1, 1], bool)]
    counts, se = box_counts(codes, classes, 3, [identity(5)] * 3, masks)
    inside = masks[0][codes[:, 0]] & masks[2][codes[:, 2]]
    np.testing.assert_array_equal(counts, np.bincount(classes[inside], minlength=3))
    np.testing.assert_array_equal(se, 0.0)


def test_box_counts_are_unbiased_by_simulation():
    """Mean over R perturbations within 4 standard errors of the true box count.

    The standard error of the mean is the RMS of the per-run standard errors / sqrt(R)
    (each run's SE estimates the sd of one estimate)."""
    rng = np.random.default_rng(1)
    n = 3000
    orig = np.column_stack([rng.integers(0, 6, n), rng.integers(0, 4, n), rng.integers(0, 5, n)])
    classes = (orig[:, 0] + orig[:, 1] > 4).astype(int)
    mats = [
        GammaDiagonal(6, 5.0),
        ExplicitMatrix(
            [[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.6, 0.2], [0.1, 0.1, 0.2, 0.6]]
        ),
        GammaDiagonal(5, 9.0),
    ]
    masks = [np.array([0, 1, 1, 1, 0, 0], bool), np.array([1, 0, 1, 1], bool), None]
    inside = masks[0][orig[:, 0]] & masks[1][orig[:, 1]]
    truth = np.bincount(classes[inside], minlength=2)
    reps = 300
    est, ses = [], []
    for _ in range(reps):
        pert = np.column_stack([perturb_codes(orig[:, j], mats[j], rng) for j in range(3)])
        c, s = box_counts(pert, classes, 2, mats, masks)
        est.append(c)
        ses.append(s)
    est, ses = np.array(est), np.array(ses)
    se_mean = np.sqrt((ses**2).mean(axis=0) / reps)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * se_mean), (
        est.mean(axis=0),
        truth,
        se_mean,
    )
    # the per-run standard error matches the spread of the estimates (sd of a variance
    # estimate from R samples is about sqrt(2/R) relative; allow 4 of them)
    np.testing.assert_allclose(
        est.var(axis=0, ddof=1), (ses**2).mean(axis=0), rtol=4 * np.sqrt(2 / reps)
    )
