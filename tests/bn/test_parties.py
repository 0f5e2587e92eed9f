"""Release files and their combination; CKL; pgmpy conversion."""

import numpy as np
import pandas as pd
import pytest

from ppdm.bayesnet import forward_sample
from ppdm.bayesnet.ckl import ckl_per_node, conditional_kl, kl_divergence
from ppdm.bayesnet.parties import combine_releases, read_release, write_release
from ppdm.exceptions import DataError, SpecError
from ppdm_papers.bn_networks import FIG2_SITES, fig2_network, fig3_network, table1_scheme
from ppdm_papers.bn_parties import Party


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_release_round_trip(tmp_path, fig2_data, fig2_parties, fmt):
    party = fig2_parties[0]
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
def test_release_description_must_be_a_regular_file_of_the_release(tmp_path, kind, fig2_parties):
    import os

    rel = fig2_parties[0].release(random_state=1)
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


def test_combine_releases_checks_alignment(fig2_data, fig2_parties):
    a, b, _ = fig2_parties
    ra = a.release(random_state=0)
    rb = Party(
        "x", fig2_data[list(FIG2_SITES["site2"])].iloc[:10], table1_scheme(FIG2_SITES["site2"])
    ).release(random_state=1)
    with pytest.raises(SpecError, match="same records"):
        combine_releases([ra, rb])
    with pytest.raises(SpecError, match="two releases"):
        combine_releases([ra, ra])


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
        fig2_network().cpd("E").reshape(2, 2, 3)[0, 1, 2]  # E | T (2), L (3)
    )
