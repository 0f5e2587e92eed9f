"""Network structure, file format, the paper's networks and forward sampling."""

import numpy as np
import pytest

from ppdm.bayesnet import BayesNet, Node, forward_sample, read_network, write_network
from ppdm.exceptions import ParameterError, SpecError
from ppdm_papers.bn_networks import fig2_network, fig3_network


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_file_round_trip(tmp_path, suffix):
    net = fig2_network()
    path = tmp_path / f"net{suffix}"
    write_network(net, path)
    assert read_network(path) == net
    structure = net.structure()
    write_network(structure, path)
    back = read_network(path)
    assert back == structure and not back.is_complete


def test_flat_and_nested_cpds_agree():
    a = BayesNet(
        [Node("A", ("0", "1")), Node("T", ("0", "1"), ("A",))],
        {"A": [0.7, 0.3], "T": [0.1, 0.9, 0.9, 0.1]},
    )
    b = BayesNet.from_dict(
        {
            "nodes": [
                {"name": "A", "states": 2, "cpd": [[0.7], [0.3]]},
                {"name": "T", "states": 2, "parents": ["A"], "cpd": [[0.1, 0.9], [0.9, 0.1]]},
            ]
        }
    )
    assert [n.parents for n in map(a.node, a.names)] == [n.parents for n in map(b.node, b.names)]
    np.testing.assert_array_equal(a.cpd("T"), b.cpd("T"))


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"nodes": [{"name": "A", "states": 2, "parents": ["B"]}]}, "parent 'B' is not a node"),
        (
            {
                "nodes": [
                    {"name": "A", "states": 2, "parents": ["B"]},
                    {"name": "B", "states": 2, "parents": ["A"]},
                ]
            },
            "cycle",
        ),
        ({"nodes": [{"name": "A", "states": 1}]}, "states must be"),
        ({"nodes": [{"name": "A", "states": 2, "cpd": [0.5, 0.6]}]}, "sums to 1.1"),
        ({"nodes": [{"name": "A", "states": 2, "cpd": [1.0]}]}, "K x J"),
        ({"nodes": [{"name": "A", "states": 2, "colour": 1}]}, "unknown keys"),
        ({"format": "other", "nodes": []}, "format"),
        ({"nodes": [{"name": "A", "states": 2}, {"name": "A", "states": 2}]}, "twice"),
    ],
)
def test_bad_networks_are_rejected(spec, match):
    with pytest.raises(SpecError, match=match):
        BayesNet.from_dict(spec)


def test_forward_sample_is_seeded_and_matches_marginals():
    net = fig2_network()
    n = 200_000
    a = forward_sample(net, n, random_state=7)
    assert a.equals(forward_sample(net, n, random_state=7))
    # P(T=0) = 0.7*0.1 + 0.3*0.9 = 0.34; binomial tolerance of 5 standard errors
    p = 0.34
    assert abs((a["T"] == 0).mean() - p) < 5 * np.sqrt(p * (1 - p) / n)
    # conditional: P(L=1 | S=1) = 0.15
    s1 = a["S"] == 1
    q = (a.loc[s1, "L"] == 1).mean()
    assert abs(q - 0.15) < 5 * np.sqrt(0.15 * 0.85 / s1.sum())


def test_forward_sample_rejects_bad_input():
    with pytest.raises(ParameterError, match="n must be"):
        forward_sample(fig3_network(), 0)
    with pytest.raises(SpecError, match="needs a CPD"):
        forward_sample(fig3_network().structure(), 10)
