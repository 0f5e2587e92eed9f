"""Limits on work and input size, and closed forms instead of dense N x N arrays."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from ppdm import limits
from ppdm.estimate import estimate_counts, iterative_bayesian_update
from ppdm.exceptions import MatrixError, SpecError
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, matrix_from_spec, symmetric_channel


class _Dense(ExplicitMatrix):
    """The same matrix, forced onto the dense path."""

    affine_form = None


def _dense_variance(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    inv = np.linalg.inv(m)
    cov_y = np.diag(m @ x) - (m * x) @ m.T
    return np.diag(inv @ cov_y @ inv.T)


@pytest.mark.parametrize(
    "matrix",
    [GammaDiagonal(7, 3.0), GammaDiagonal(2, 1.5), symmetric_channel(5, 0.3)],
    ids=["gamma-7", "gamma-2", "symmetric-5"],
)
def test_closed_forms_equal_dense(matrix):
    rng = np.random.default_rng(1)
    n = matrix.n_values
    dense = _Dense(matrix.dense())
    assert dense.affine_form is None and matrix.affine_form is not None
    y = rng.integers(0, 500, n).astype(float)
    x = rng.integers(0, 500, n).astype(float)
    m = matrix.dense()
    np.testing.assert_allclose(matrix.inverse_apply(y), np.linalg.solve(m, y), rtol=1e-9)
    np.testing.assert_allclose(matrix.apply(x), m @ x, rtol=1e-12)
    np.testing.assert_allclose(
        matrix.inverse_transpose_apply(y), np.linalg.solve(m.T, y), rtol=1e-9
    )
    np.testing.assert_allclose(matrix.estimate_variance(x), _dense_variance(m, x), rtol=1e-9)
    np.testing.assert_allclose(dense.estimate_variance(x), _dense_variance(m, x), rtol=1e-9)
    for method in ("inverse", "set-scale", "ibu"):
        # replicates=0: the analytic figure, a closed form (the bootstrap draws differ)
        fast = estimate_counts(y, matrix, method, replicates=0)
        slow = estimate_counts(y, dense, method, replicates=0)
        np.testing.assert_allclose(fast.counts, slow.counts, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(fast.stderr, slow.stderr, rtol=1e-9, atol=1e-9)
    two = np.column_stack([y, y[::-1]])
    np.testing.assert_allclose(
        iterative_bayesian_update(two, matrix), iterative_bayesian_update(two, dense), rtol=1e-9
    )


def test_large_gamma_diagonal_never_builds_a_dense_matrix(monkeypatch):
    n = 20_000  # a dense N x N float array would be 3.2 GB

    def refuse(self):
        raise AssertionError("dense() called")

    monkeypatch.setattr(GammaDiagonal, "dense", refuse)
    m = GammaDiagonal(n, 9.0)
    y = np.random.default_rng(0).integers(0, 50, n).astype(float)
    total, gamma = y.sum(), 9.0
    # M = lam I + o J: the inverse and its variance in closed form (DESIGN.md), O(N)
    lam, o = (gamma - 1) / (gamma + n - 1), 1 / (gamma + n - 1)
    inv = estimate_counts(y, m, "inverse")
    np.testing.assert_allclose(inv.counts, ((gamma + n - 1) * y - total) / (gamma - 1), rtol=1e-9)
    # Var(X_hat_i) = x_i (1 - 2 o - lam) / lam + n o (1 - o) / lam^2, the clipped x and
    # its total n plugged in
    x = np.clip(inv.counts, 0, None)
    var = x * (1 - 2 * o - lam) / lam + x.sum() * o * (1 - o) / lam**2
    np.testing.assert_allclose(inv.stderr, np.sqrt(var), rtol=1e-9)
    est = estimate_counts(y, m, "ibu")
    # IBU stopped at a fixed point of x <- x * M^T (q / M x), here M^T = M = lam I + o J
    p = est.counts / total
    mp = lam * p + o
    step = p * (lam * (y / total) / mp + o * (y / total / mp).sum())
    assert np.abs(step - p).max() < 1e-6
    assert est.stderr.shape == (n,) and (est.stderr > 0).any()
    assert m.min_row_support() == n
    from ppdm.privacy import attribute_privacy

    assert attribute_privacy(m, 1000)["K"] == n


def test_gamma_diagonal_cap():
    GammaDiagonal(limits.MAX_VALUES, 9.0)  # at the cap: fine, nothing allocated
    with pytest.raises(MatrixError, match=f"N is {limits.MAX_VALUES + 1}, above the cap"):
        GammaDiagonal(limits.MAX_VALUES + 1, 9.0)


def test_explicit_matrix_cap_checked_before_building_it():
    rows = [[]] * (limits.MAX_DENSE_VALUES + 1)
    with pytest.raises(
        MatrixError,
        match=f"above the cap of {limits.MAX_DENSE_VALUES} values per attribute with dense",
    ):
        matrix_from_spec({"kind": "explicit", "matrix": rows})
    with pytest.raises(MatrixError, match="above the cap"):
        symmetric_channel(limits.MAX_DENSE_VALUES + 1, 0.1)


def test_cli_bins_above_cap_fails_fast(run_cli, tmp_path):
    data = tmp_path / "in.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 50)}).to_csv(data, index=False)
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", data, "--out", out, "--bins", "10000000", "--seed", "1")
    assert code == 2
    assert err.strip() == (
        "error: --bins is 10000000, above the cap of 65536 values per attribute "
        "(ppdm.limits.MAX_VALUES)"
    )
    assert not out.exists()


def test_spec_domain_above_cap_names_the_attribute(tmp_path):
    from ppdm.release import read_spec

    spec = {
        "attributes": [
            {
                "name": "age",
                "domain": {"kind": "binned", "low": 0, "high": 1, "n_bins": 10_000_000},
                "matrix": {"kind": "gamma-diagonal", "gamma": 9},
            }
        ]
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(SpecError, match=r"attributes\.0.*'age'.*N is 10000000, above the cap"):
        read_spec(path)


def test_categorical_column_above_cap_names_the_column(monkeypatch):
    from ppdm.perturbation import plan_release

    monkeypatch.setattr(limits, "MAX_VALUES", 10)
    frame = pd.DataFrame({"city": [f"c{i}" for i in range(11)]})
    with pytest.warns(UserWarning):
        with pytest.raises(SpecError, match="attribute 'city': N is 11, above the cap of 10"):
            plan_release(frame, gamma=9.0)
    with pytest.raises(SpecError, match="n_bins is 11, above the cap of 10"):
        plan_release(frame, gamma=9.0, n_bins=11)


def test_largest_remainder_with_a_subnormal_total():
    from ppdm.reconstruct import largest_remainder

    est = np.zeros(10)
    est[-1] = 5e-324  # total / sum overflows to inf
    assert largest_remainder(est, 3).tolist() == [0] * 9 + [3]


# -- spec files: size, YAML aliases, nesting, absurd numbers --------------------------

_BOMB = """\
a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
attributes: *c
"""


def _spec_error(path, match):
    from ppdm.release import read_spec

    with pytest.raises(SpecError, match=match) as info:
        read_spec(path)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.count(str(path)) == 1, msg  # named once, never wrapped twice
    return msg


def test_spec_above_size_cap(tmp_path, monkeypatch):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"attributes": [], "pad": "x" * 2000}))
    monkeypatch.setattr(limits, "MAX_SPEC_BYTES", 1024)
    msg = _spec_error(path, "above the cap of 1.0 KiB for a spec file")
    assert str(path) in msg and "2.0 KiB" in msg


def test_yaml_alias_bomb_refused(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(_BOMB)
    _spec_error(path, r"spec '.*spec\.yaml' is not valid YAML: aliases .* not allowed \(line 2")


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
@pytest.mark.parametrize("depth", [150, 100_000])
def test_deep_nesting_is_one_line(tmp_path, suffix, depth):
    path = tmp_path / f"spec{suffix}"
    path.write_text('{"attributes": ' + "[" * depth + "]" * depth + "}")
    _spec_error(path, "nested")


@pytest.mark.parametrize(
    ("field", "text", "shown"),
    [
        ("domain.n_bins", "1e400", "inf is not a finite number"),
        ("matrix.gamma", "1" + "0" * 400, "is too large (beyond 64 bits)"),
        ("domain.low", "-1e400", "-inf is not a finite number"),
        ("matrix.gamma", "NaN", "nan is not a finite number"),
    ],
)
def test_absurd_numbers_name_the_field(tmp_path, field, text, shown):
    spec = {
        "attributes": [
            {
                "name": "x",
                "domain": {"kind": "binned", "low": 0, "high": 1, "n_bins": 10},
                "matrix": {"kind": "gamma-diagonal", "gamma": 9},
            }
        ]
    }
    where, key = field.split(".")
    spec["attributes"][0][where][key] = "@@"
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec).replace('"@@"', text))
    _spec_error(path, rf"field attributes\.0\.{field}: .*{re.escape(shown)}")


def test_yaml_infinite_gamma_names_the_field(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(
        "attributes:\n  - name: x\n    domain: {kind: binned, low: 0, high: 1, n_bins: 10}\n"
        "    matrix: {kind: gamma-diagonal, gamma: .inf}\n"
    )
    _spec_error(path, r"field attributes\.0\.matrix\.gamma: inf is not a finite number")


def test_huge_gamma_in_code_is_a_matrix_error():
    with pytest.raises(MatrixError, match="gamma must be a number > 1"):
        GammaDiagonal(4, 10**400)


def test_spec_not_utf8(tmp_path):
    path = tmp_path / "spec.json"
    path.write_bytes(b'{"attributes": "\xff"}')
    _spec_error(path, "is not UTF-8 text")


def test_unperturbed_domain_above_cap_names_the_attribute(tmp_path):
    path = tmp_path / "spec.json"
    dom = {"kind": "binned", "low": 0, "high": 1, "n_bins": 10**12}
    path.write_text(json.dumps({"attributes": [{"name": "w", "perturbed": False, "domain": dom}]}))
    _spec_error(path, r"attribute 1 \('w'\): N is 1000000000000, above the cap of 65536")


# -- Bayesian networks -----------------------------------------------------------------


def test_network_loader_refuses_aliases_nesting_and_inf(tmp_path):
    from ppdm.bayesnet.files import read_network

    bomb = tmp_path / "net.yaml"
    bomb.write_text(_BOMB)
    with pytest.raises(SpecError, match="aliases"):
        read_network(bomb)
    deep = tmp_path / "net.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SpecError, match="nested too deeply"):
        read_network(deep)
    inf = tmp_path / "inf.yaml"
    inf.write_text("nodes:\n  - {name: A, states: 2, cpd: [.inf, 0.5]}\n")
    with pytest.raises(SpecError, match=r"field nodes\.0\.cpd\.0: inf"):
        read_network(inf)
    many = tmp_path / "many.yaml"
    many.write_text("nodes:\n  - {name: A, states: 1000000000}\n")
    with pytest.raises(SpecError, match="node 'A': states is 1000000000, above the cap"):
        read_network(many)


@pytest.mark.parametrize(("text", "got"), [("null", "null"), ("[1]", "list")])
def test_bn_release_json_not_an_object(tmp_path, text, got):
    from ppdm.bayesnet.parties import read_release

    (tmp_path / "release.json").write_text(text)
    with pytest.raises(SpecError, match=f"must be a JSON object \\(got {got}\\)"):
        read_release(tmp_path)


def test_forward_sample_record_cap():
    from ppdm.bayesnet.network import BayesNet, Node
    from ppdm.bayesnet.sampling import forward_sample

    net = BayesNet([Node("A", ("0", "1"))], {"A": [0.5, 0.5]})
    with pytest.raises(ValueError, match="n is 10000000000000, above the cap of 1000000000"):
        forward_sample(net, 10**13)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e13", "--n is 10000000000000, above the cap of 1000000000 records (ppdm.limits."),
        ("10000000000000", "--n is 10000000000000, above the cap of 1000000000 records (ppdm."),
        ("1e400", "--n must be a whole number (got inf)"),
        ("0", "--n must be >= 1 (got 0)"),
        ("many", "--n must be a whole number (got 'many')"),
    ],
)
def test_bn_sample_n_cap(run_cli, tmp_path, value, message):
    from ppdm.bayesnet.files import write_network
    from ppdm.bayesnet.network import BayesNet, Node

    net = tmp_path / "net.yaml"
    write_network(BayesNet([Node("A", ("0", "1"))], {"A": [0.5, 0.5]}), net)
    out = tmp_path / "s.csv"
    code, _, err = run_cli("bn", "sample", net, "--n", value, "--out", out)
    assert code == 2
    assert err.strip().startswith(f"error: {message}") and "\n" not in err.strip()
    assert not out.exists()
    code, stdout, _ = run_cli("bn", "sample", net, "--n", "1e3", "--out", out)
    assert code == 0 and "wrote 1000 records" in stdout


# -- options ---------------------------------------------------------------------------


def test_copies_cap_on_the_command_line(run_cli, tmp_path):
    data = tmp_path / "in.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 50)}).to_csv(data, index=False)
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", data, "--out", out, "--copies", str(10**30))
    assert code == 2
    assert err.strip() == (
        f"error: --copies is {10**30}, above the cap of 1000 copies (ppdm.limits.MAX_COPIES)"
    )
    assert not out.exists()


def test_copies_cap_in_a_spec(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"copies": 5000, "attributes": [{"name": "x", "perturbed": False}]}))
    _spec_error(path, "copies is 5000, above the cap of 1000 copies")


def test_privacy_figures_of_many_copies_do_not_overflow():
    from ppdm.privacy import attribute_privacy

    figures = attribute_privacy(GammaDiagonal(4, 1e10), 100, copies=400)  # 1e4000
    assert figures["gamma"] is None and figures["epsilon"] is None
    assert figures["gamma_realised"] == float("inf")


# -- matrix-based reconstruction -------------------------------------------------------


def _old_multisets(y, d):
    gy, gd = np.concatenate([[0], np.cumsum(y)]), np.concatenate([[0], np.cumsum(d)])
    lo = np.maximum(gy[:-1, None], gd[None, :-1])
    hi = np.minimum(gy[1:, None], gd[None, 1:])
    return np.clip(hi - lo, 0, None)


def test_tie_group_multisets_in_linear_work_equal_the_rank_overlaps():
    from ppdm.reconstruct import tie_group_multisets

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        y = rng.integers(0, 5, n) * (rng.random(n) < 0.6)
        d = np.bincount(rng.integers(0, n, int(y.sum())), minlength=n)
        np.testing.assert_array_equal(tie_group_multisets(y, d), _old_multisets(y, d))


def test_tie_group_table_cap(monkeypatch):
    from ppdm.exceptions import DataError
    from ppdm.reconstruct import matrix_reconstruct

    monkeypatch.setattr(limits, "MAX_TIE_GROUP_CELLS", 2 * 3 * 3 - 1)
    rng = np.random.default_rng(0)
    codes, classes = np.array([0, 1, 2, 0]), np.array([0, 0, 1, 1])
    dist = np.array([[1, 1, 0], [1, 0, 1]])
    with pytest.raises(DataError, match=r"dist: N = 3 with 2 class\(es\) .* 18 cells, above"):
        matrix_reconstruct(codes, dist, rng, classes=classes)
    assert np.bincount(matrix_reconstruct(codes, dist.sum(0), rng), minlength=3).tolist() == [
        2,
        1,
        1,
    ]


def test_reconstruct_by_class_above_the_table_cap_names_the_attribute(
    run_cli, tmp_path, monkeypatch
):
    rng = np.random.default_rng(0)
    data = tmp_path / "in.csv"
    pd.DataFrame({"x": rng.integers(0, 10, 300), "c": rng.integers(0, 2, 300)}).to_csv(
        data, index=False
    )
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", data, "--out", rel, "--class", "c", "--seed", "1")
    assert code == 0, err
    monkeypatch.setattr(limits, "MAX_TIE_GROUP_CELLS", 2 * 10 * 10 - 1)
    out = tmp_path / "rec.csv"
    code, _, err = run_cli("reconstruct", rel, "--out", out, "--by-class", "--seed", "1")
    assert code == 1
    assert err.startswith("error: attribute 'x': N = 10 with 2 class(es)")
    assert "\n" not in err.strip() and not out.exists()
    code, _, err = run_cli("reconstruct", rel, "--out", out, "--seed", "1")
    assert code == 0, err


def test_agrawal_generator_record_cap():
    from ppdm.datasets.agrawal import agrawal

    with pytest.raises(ValueError, match="n is 10000000000000, above the cap of 1000000000"):
        agrawal(10**13)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--bins", "10000000", "--bins is 10000000, above the cap of 65536 values"),
        ("--n", "10000000000000", "--n is 10000000000000, above the cap of 1000000000 records"),
    ],
)
def test_demo_caps(run_cli, flag, value, message):
    code, _, err = run_cli("demo", flag, value)
    assert code == 2
    assert err.startswith(f"error: {message}") and "\n" not in err.strip()


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_number_with_too_many_digits(tmp_path, suffix):
    path = tmp_path / f"spec{suffix}"
    digits = "1" + "0" * 5000
    path.write_text(
        f'{{"attributes": [], "n_records": {digits}}}'
        if suffix == ".json"
        else f"attributes: []\nn_records: {digits}\n"
    )
    _spec_error(path, "holds a number that cannot be read")


def test_bounds_whose_width_overflows(tmp_path):
    from ppdm.domain import BinnedDomain
    from ppdm.exceptions import DomainError

    with pytest.raises(DomainError, match="too far apart"):
        BinnedDomain(-1e308, 1e308, 10)
    path = tmp_path / "spec.json"
    dom = {"kind": "binned", "low": -1e308, "high": 1e308, "n_bins": 10}
    path.write_text(json.dumps({"attributes": [{"name": "x", "domain": dom}]}))
    _spec_error(path, r"attributes\.0.*'x': bad domain: bounds .* are too far apart")
