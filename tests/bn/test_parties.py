"""Parties, releases and Models I and II; CKL; pgmpy conversion."""

import numpy as np
import pandas as pd
import pytest

from ppdm.bayesnet import forward_sample
from ppdm.bayesnet.ckl import ckl_per_node, conditional_kl, kl_divergence
from ppdm.bayesnet.networks import FIG2_SITES, fig2_network, fig3_network, table1_scheme
from ppdm.bayesnet.parties import (
    Party,
    combine_releases,
    cross_parents,
    learn_model1,
    learn_model2,
    read_release,
    write_release,
)
from ppdm.bayesnet.pram import PramScheme
from ppdm.exceptions import DataError, SpecError
from ppdm_papers.bayesnet import clean_ml


@pytest.fixture(scope="module")
def fig2_data():
    return forward_sample(fig2_network(), 20_000, random_state=0)


def _parties(data):
    scheme = table1_scheme()
    return [Party(s, data[list(vs)], scheme.subset(vs)) for s, vs in FIG2_SITES.items()]


def test_cross_parents_of_fig2():
    owner = {v: s for s, vs in FIG2_SITES.items() for v in vs}
    needs = cross_parents(fig2_network(), owner)
    assert needs == {("site1", "site2"): ["S", "T", "L"], ("site2", "site3"): ["X", "D"]}


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_release_round_trip(tmp_path, fig2_data, fmt):
    party = _parties(fig2_data)[0]
    rel = party.release(random_state=1)
    write_release(rel, tmp_path / "r", fmt=fmt)
    back = read_release(tmp_path / "r")
    assert back.party == "site1"
    assert back.scheme.to_spec() == rel.scheme.to_spec()
    pd.testing.assert_frame_equal(back.data.astype("int64"), rel.data.astype("int64"))
    assert (rel.data["S"] == fig2_data["S"]).all()  # S is not sensitive
    assert (rel.data["A"] != fig2_data["A"]).any()


def test_read_release_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a release directory"):
        read_release(tmp_path)
    (tmp_path / "release.json").write_text('{"format": "nope"}')
    with pytest.raises(SpecError, match="format must be"):
        read_release(tmp_path)


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_release_description_must_be_a_regular_file_of_the_release(tmp_path, fig2_data, kind):
    import os

    rel = _parties(fig2_data)[0].release(random_state=1)
    write_release(rel, tmp_path / "r")
    spec = tmp_path / "r" / "release.json"
    (tmp_path / "elsewhere.json").write_text(spec.read_text())
    spec.unlink()
    if kind == "symlink":
        spec.symlink_to(tmp_path / "elsewhere.json")
    else:
        os.mkfifo(spec)
    with pytest.raises(SpecError, match="symbolic link|not a regular file"):
        read_release(tmp_path / "r")


def test_model2_and_model1_learn_close_parameters(fig2_data):
    net = fig2_network()
    parties = _parties(fig2_data)
    fit2 = learn_model2(net.structure(), [p.release(random_state=i) for i, p in enumerate(parties)])
    fit1 = learn_model1(net.structure(), parties, random_state=9)
    clean = clean_ml(net.structure(), fig2_data)
    for v in net.names:
        for fit in (fit2, fit1):
            se = fit.stderr[v]
            # within 5 Theorem-2 standard errors of the clean-data estimate
            assert np.all(np.abs(fit.network.cpd(v) - clean.cpd(v)) <= 5 * se + 1e-12), v
    # Model I: local variables use clean data only, so they equal the clean ML exactly
    for v in ("A", "S", "T", "L", "X", "D", "F", "G", "B"):
        np.testing.assert_allclose(fit1.network.cpd(v), clean.cpd(v))


def test_combine_releases_checks_alignment(fig2_data):
    a, b, _ = _parties(fig2_data)
    ra = a.release(random_state=0)
    rb = Party(
        "x", fig2_data[list(FIG2_SITES["site2"])].iloc[:10], table1_scheme(FIG2_SITES["site2"])
    ).release(random_state=1)
    with pytest.raises(SpecError, match="same records"):
        combine_releases([ra, rb])
    with pytest.raises(SpecError, match="two releases"):
        combine_releases([ra, ra])


def test_unrandomized_scheme_reproduces_clean_ml(fig2_data):
    net = fig2_network()
    scheme = PramScheme.unrandomized(net.cardinalities)
    fit = learn_model2(net.structure(), [Party("all", fig2_data, scheme).release(random_state=0)])
    clean = clean_ml(net.structure(), fig2_data)
    for v in net.names:
        np.testing.assert_allclose(fit.network.cpd(v), clean.cpd(v))
        np.testing.assert_allclose(fit.stderr[v], 0.0, atol=1e-12)


def test_ckl():
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
    a = np.array([[0.5, 0.9], [0.5, 0.1]])
    b = np.array([[0.9, 0.9], [0.1, 0.1]])
    expected = 0.25 * (0.5 * np.log(0.5 / 0.9) + 0.5 * np.log(0.5 / 0.1))
    assert conditional_kl(a, b, [1.0, 3.0]) == pytest.approx(expected)
    net = fig3_network()
    data = forward_sample(net, 1000, random_state=0)
    table = ckl_per_node(net, net, data)
    assert list(table["node"]) == list(net.topological_order) and (table["ckl"] == 0).all()
    with pytest.raises(DataError, match="share a"):
        conditional_kl(a, b[:, :1], [1.0])


def test_pgmpy_round_trip():
    pytest.importorskip("pgmpy")
    from ppdm.bayesnet.interop import from_pgmpy, to_pgmpy

    for net in (fig2_network(), fig3_network()):
        model = to_pgmpy(net)
        assert model.check_model()
        assert from_pgmpy(model, net.name) == net
        # same column convention: P(E=0 | T=1, L=0) is 0.5 in both
    cpd = to_pgmpy(fig2_network()).get_cpds("E")
    assert cpd.get_value(E="0", T="1", L="2") == pytest.approx(
        fig2_network().cpd_tensor("E")[0, 1, 2]
    )
