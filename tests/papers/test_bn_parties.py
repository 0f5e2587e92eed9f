"""The paper's networks as read from its text, and its parties simulated in one process."""

import numpy as np
import pytest

from ppdm.bayesnet import BayesNet, Node
from ppdm.bayesnet.pram import PramScheme
from ppdm.exceptions import SpecError
from ppdm_papers.bayesnet import clean_ml
from ppdm_papers.bn_networks import (
    FIG2_SITES,
    FIG3_SITES,
    fig2_network,
    fig3_network,
)
from ppdm_papers.bn_parties import Party, cross_parents, learn_model1, learn_model2


@pytest.mark.parametrize("make", [fig2_network, fig3_network])
def test_every_cpd_column_sums_to_one(make):
    net = make()
    assert net.is_complete
    for v in net.names:
        cpd = net.cpd(v)
        assert cpd.shape == (net.cardinality(v), net.n_configurations(v))
        np.testing.assert_allclose(cpd.sum(axis=0), 1.0, atol=1e-12)


def test_flattened_tables_are_read_row_major():
    # L (ternary, parent S binary): 0.3, 0.7, 0.4, 0.15, 0.3, 0.15 -> columns (0.3,0.4,0.3), (0.7,0.15,0.15)
    net = fig2_network()
    np.testing.assert_allclose(net.cpd("L")[:, 0], [0.3, 0.4, 0.3])
    np.testing.assert_allclose(net.cpd("L")[:, 1], [0.7, 0.15, 0.15])
    # the configuration-major reading would not be a CPD
    with pytest.raises(SpecError, match="sums to"):
        BayesNet(
            [Node("S", ("0", "1")), Node("L", ("0", "1", "2"), ("S",))],
            {"S": [0.5, 0.5], "L": np.array([0.3, 0.7, 0.4, 0.15, 0.3, 0.15]).reshape(2, 3).T},
        )


def test_sites_partition_the_networks():
    for net, sites in ((fig2_network(), FIG2_SITES), (fig3_network(), FIG3_SITES)):
        held = [v for vs in sites.values() for v in vs]
        assert sorted(held) == sorted(net.names)


def test_cross_parents_of_fig2():
    owner = {v: s for s, vs in FIG2_SITES.items() for v in vs}
    needs = cross_parents(fig2_network(), owner)
    assert needs == {("site1", "site2"): ["S", "T", "L"], ("site2", "site3"): ["X", "D"]}


def test_model2_and_model1_learn_close_parameters(fig2_data, fig2_parties):
    net = fig2_network()
    parties = fig2_parties
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


def test_unrandomized_scheme_reproduces_clean_ml(fig2_data):
    net = fig2_network()
    scheme = PramScheme.unrandomized(net.cardinalities)
    fit = learn_model2(net.structure(), [Party("all", fig2_data, scheme).release(random_state=0)])
    clean = clean_ml(net.structure(), fig2_data)
    for v in net.names:
        np.testing.assert_allclose(fit.network.cpd(v), clean.cpd(v))
        np.testing.assert_allclose(fit.stderr[v], 0.0, atol=1e-12)
