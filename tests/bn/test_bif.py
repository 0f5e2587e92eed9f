"""BIF and XMLBIF through pgmpy's readers and writers; pgmpy models in and out."""

import numpy as np
import pytest
from typer.testing import CliRunner

from ppdm.bayesnet import read_network, write_network
from ppdm.bayesnet.network import BayesNet, Node
from ppdm.cli import app
from ppdm.exceptions import SpecError

pytest.importorskip("pgmpy", reason="BIF/XMLBIF need the bn extra (pgmpy)")


runner = CliRunner()


def _run(args):
    return runner.invoke(app, [str(a) for a in args])


def _two_node(t_cpd):
    return BayesNet(
        [Node("A", ("no", "yes")), Node("T", ("lo", "mid", "hi"), ("A",))],
        {"A": [0.5, 0.5], "T": t_cpd},
    )


@pytest.mark.parametrize("suffix", [".bif", ".xmlbif", ".xml"])
def test_fig2_round_trips_through_bif_and_xmlbif(tmp_path, suffix):
    from ppdm_papers.bn_networks import fig2_network

    net = fig2_network()
    path = tmp_path / f"fig2{suffix}"
    write_network(net, path)
    back = read_network(path)
    assert back.names and set(back.names) == set(net.names)
    for v in net.names:
        assert back.node(v).states == net.node(v).states, v
        assert back.parents(v) == net.parents(v), v
        np.testing.assert_allclose(back.cpd(v), net.cpd(v), rtol=0, atol=1e-12)


def test_named_states_round_trip_through_bif(tmp_path):
    net = _two_node([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    write_network(net, tmp_path / "n.bif")
    back = read_network(tmp_path / "n.bif")
    assert back.node("T").states == ("lo", "mid", "hi")
    np.testing.assert_allclose(back.cpd("T"), net.cpd("T"), rtol=0, atol=1e-12)


def test_cli_samples_from_bif(tmp_path):
    from ppdm_papers.bn_networks import fig2_network

    write_network(fig2_network(), tmp_path / "fig2.bif")
    res = _run(["bn", "sample", tmp_path / "fig2.bif", "--n", 100, "--out", tmp_path / "d.csv"])
    assert res.exit_code == 0, res.output
    assert "wrote 100 records of 11 variables" in res.output


def test_from_pgmpy_structure_only_uses_real_cardinalities():
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    from ppdm.bayesnet.interop import from_pgmpy

    model = DiscreteBayesianNetwork([("A", "T")])
    # T's CPD names A's three states; A has no CPD of its own
    model.add_cpds(
        TabularCPD(
            "T",
            2,
            [[0.1, 0.5, 0.9], [0.9, 0.5, 0.1]],
            evidence=["A"],
            evidence_card=[3],
            state_names={"T": ["f", "t"], "A": ["x", "y", "z"]},
        )
    )
    net = from_pgmpy(model)
    assert net.node("A").states == ("x", "y", "z") and not net.has_cpd("A")
    assert net.cpd("T").shape == (2, 3)
    bare = DiscreteBayesianNetwork([("A", "T")])
    with pytest.raises(SpecError, match="number of states is unknown"):
        from_pgmpy(bare)


def test_cli_learns_into_xmlbif(tmp_path):
    net = _two_node([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    write_network(net, tmp_path / "net.bif")
    assert (
        _run(
            [
                "bn",
                "sample",
                tmp_path / "net.bif",
                "--n",
                4000,
                "--out",
                tmp_path / "d.csv",
                "--seed",
                5,
            ]
        ).exit_code
        == 0
    )
    (tmp_path / "s.yaml").write_text("party: p\nvariables: {A: 2, T: 3}\n")
    res = _run(
        [
            "bn",
            "randomize",
            tmp_path / "d.csv",
            "--scheme",
            tmp_path / "s.yaml",
            "--allow-unprotected",  # the scheme randomizes nothing
            "--net",
            tmp_path / "net.bif",
            "--out",
            tmp_path / "rel",
        ]
    )
    assert res.exit_code == 0, res.output
    res = _run(
        [
            "bn",
            "learn",
            tmp_path / "net.bif",
            "--release",
            tmp_path / "rel",
            "--out",
            tmp_path / "learnt.xmlbif",
        ]
    )
    assert res.exit_code == 0, res.output
    learnt = read_network(tmp_path / "learnt.xmlbif")
    assert learnt.node("T").states == ("lo", "mid", "hi")
    # unrandomized ML estimate from 4000 records: each column has >= ~2000 records, so
    # every entry is within 5 standard errors sqrt(0.25 / 2000) ~ 0.011 of the truth
    assert np.abs(learnt.cpd("T") - net.cpd("T")).max() < 0.06


def test_bif_refuses_names_it_cannot_hold_and_xmlbif_keeps_them(tmp_path):
    # 'a, b' and 'x,y' were written into a BIF that pgmpy could not read back
    net = BayesNet(
        [Node("a, b", ("x,y", "z")), Node("c", ("1", "0"), ("a, b",))],
        {"a, b": [0.6, 0.4], "c": [[0.9, 0.2], [0.1, 0.8]]},
    )
    with pytest.raises(SpecError, match=r"BIF cannot hold the name 'a, b'"):
        write_network(net, tmp_path / "odd.bif")
    assert not (tmp_path / "odd.bif").exists()
    # pgmpy's XMLBIF writer renames the state 'x,y' to 'x_y': refused, nothing left
    with pytest.raises(SpecError, match=r"XMLBIF would write the name 'x,y' \(of node 'a, b'\)"):
        write_network(net, tmp_path / "odd.xmlbif")
    assert not (tmp_path / "odd.xmlbif").exists()
    fine = BayesNet(
        [Node("a, b", ("x y", "z")), Node("c", ("1", "0"), ("a, b",))],
        {"a, b": [0.6, 0.4], "c": [[0.9, 0.2], [0.1, 0.8]]},
    )
    write_network(fine, tmp_path / "fine.xmlbif")
    back = read_network(tmp_path / "fine.xmlbif")
    assert back.names == fine.names and back.node("a, b").states == ("x y", "z")
