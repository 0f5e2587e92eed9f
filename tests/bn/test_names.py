"""State names in ``bn`` data, messages of ``bn`` commands, and pgmpy interop."""

import pandas as pd
from typer.testing import CliRunner

from ppdm.bayesnet import write_network
from ppdm.bayesnet.network import BayesNet, Node
from ppdm.cli import app

runner = CliRunner()


def _run(args):
    return runner.invoke(app, [str(a) for a in args])


def _two_node(t_cpd):
    return BayesNet(
        [Node("A", ("no", "yes")), Node("T", ("lo", "mid", "hi"), ("A",))],
        {"A": [0.5, 0.5], "T": t_cpd},
    )


def test_compare_explains_infinite_ckl(tmp_path):
    ref = _two_node([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    # T=mid has probability 0 given A=yes in the other network, 0.3 in the reference.
    other = _two_node([[0.2, 0.5], [0.3, 0.0], [0.5, 0.5]])
    write_network(ref, tmp_path / "a.json")
    write_network(other, tmp_path / "b.json")
    pd.DataFrame({"A": [0, 1, 1], "T": [0, 1, 2]}).to_csv(tmp_path / "d.csv", index=False)
    res = _run(
        ["bn", "compare", tmp_path / "a.json", tmp_path / "b.json", "--data", tmp_path / "d.csv"]
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    t_line = next(line for line in lines if line.startswith("T "))
    assert "inf" in t_line
    assert "P(T='mid' | A='yes') is 0 in the second network but 0.3 in the reference" in t_line
    a_line = next(line for line in lines if line.startswith("A "))
    assert "infinite" not in a_line


def test_compare_infinite_only_in_unseen_configuration_is_finite(tmp_path):
    ref = _two_node([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    other = _two_node([[0.2, 0.5], [0.3, 0.0], [0.5, 0.5]])
    write_network(ref, tmp_path / "a.json")
    write_network(other, tmp_path / "b.json")
    # A=yes never occurs: the zero is weighted by P(A=yes) = 0 and the CKL is finite.
    pd.DataFrame({"A": [0, 0], "T": [0, 1]}).to_csv(tmp_path / "d.csv", index=False)
    res = _run(
        ["bn", "compare", tmp_path / "a.json", tmp_path / "b.json", "--data", tmp_path / "d.csv"]
    )
    assert res.exit_code == 0, res.output
    assert "inf" not in res.output
