"""State names in ``bn`` data, messages of ``bn`` commands, and pgmpy interop."""

import sys

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


def _named_net(tmp_path):
    net = _two_node([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    path = tmp_path / "net.yaml"
    write_network(net, path)
    return net, path


def test_sample_writes_state_names_by_default_and_codes_on_request(tmp_path):
    _, path = _named_net(tmp_path)
    res = _run(["bn", "sample", path, "--n", 200, "--out", tmp_path / "n.csv", "--seed", 3])
    assert res.exit_code == 0, res.output
    assert f"wrote 200 records of 2 variables (state names) to {tmp_path / 'n.csv'}" in res.output
    names = pd.read_csv(tmp_path / "n.csv")
    assert set(names["A"]) == {"no", "yes"} and set(names["T"]) <= {"lo", "mid", "hi"}
    res = _run(
        ["bn", "sample", path, "--n", 200, "--out", tmp_path / "c.csv", "--seed", 3, "--codes"]
    )
    assert res.exit_code == 0, res.output
    assert "(state codes)" in res.output
    codes = pd.read_csv(tmp_path / "c.csv")
    assert codes["A"].dtype.kind == "i" and set(codes["A"]) == {0, 1}
    # the same seed draws the same records; names are the codes' labels
    assert (names["A"] == codes["A"].map({0: "no", 1: "yes"})).all()
    assert (names["T"] == codes["T"].map({0: "lo", 1: "mid", 2: "hi"})).all()
    res = _run(["bn", "sample", path, "--n", 50, "--out", tmp_path / "n.parquet", "--seed", 3])
    assert res.exit_code == 0, res.output
    assert list(pd.read_parquet(tmp_path / "n.parquet")["A"].astype(str)) == list(names["A"][:50])


def test_compare_accepts_names_and_codes_alike(tmp_path):
    net, path = _named_net(tmp_path)
    other = _two_node([[0.3, 0.3], [0.3, 0.3], [0.4, 0.4]])
    write_network(other, tmp_path / "other.yaml")
    pd.DataFrame({"A": ["no", "yes", "yes"], "T": ["lo", "mid", "hi"]}).to_csv(
        tmp_path / "names.csv", index=False
    )
    pd.DataFrame({"A": [0, 1, 1], "T": [0, 1, 2]}).to_csv(tmp_path / "codes.csv", index=False)
    by_names = _run(
        ["bn", "compare", path, tmp_path / "other.yaml", "--data", tmp_path / "names.csv"]
    )
    by_codes = _run(
        ["bn", "compare", path, tmp_path / "other.yaml", "--data", tmp_path / "codes.csv"]
    )
    assert by_names.exit_code == 0, by_names.output
    assert by_names.output == by_codes.output
    pd.DataFrame({"A": ["no", "maybe"], "T": ["lo", "hi"]}).to_csv(
        tmp_path / "bad.csv", index=False
    )
    res = _run(["bn", "compare", path, tmp_path / "other.yaml", "--data", tmp_path / "bad.csv"])
    assert res.exit_code == 1
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert "column 'A', row 2: 'maybe' is neither a state of 'A'" in res.output


def test_randomize_reads_state_names_through_net(tmp_path):
    _, path = _named_net(tmp_path)
    _run(["bn", "sample", path, "--n", 300, "--out", tmp_path / "d.csv", "--seed", 4])
    data_before = (tmp_path / "d.csv").read_bytes()
    (tmp_path / "s.yaml").write_text("party: p\nvariables: {A: 2, T: 3}\n")
    res = _run(
        [
            "bn",
            "randomize",
            tmp_path / "d.csv",
            "--scheme",
            tmp_path / "s.yaml",
            "--allow-unprotected",  # the scheme randomizes nothing
            "--out",
            tmp_path / "rel",
            "--net",
            path,
        ]
    )
    assert res.exit_code == 0, res.output
    assert "wrote release of 300 records" in res.output
    assert (tmp_path / "d.csv").read_bytes() == data_before
    from ppdm.bayesnet.parties import read_release

    released = read_release(tmp_path / "rel").data
    names = pd.read_csv(tmp_path / "d.csv")
    # no randomize group: the release is the data, as codes
    assert (
        released["T"].to_numpy() == names["T"].map({"lo": 0, "mid": 1, "hi": 2}).to_numpy()
    ).all()
    # without --net the names are not known
    res = _run(
        [
            "bn",
            "randomize",
            tmp_path / "d.csv",
            "--scheme",
            tmp_path / "s.yaml",
            "--allow-unprotected",  # the scheme randomizes nothing
            "--out",
            tmp_path / "rel2",
        ]
    )
    assert res.exit_code == 1 and "is neither a state of" in res.output
    assert not (tmp_path / "rel2").exists()


def test_bif_without_pgmpy_fails_on_one_line(tmp_path, monkeypatch):
    for mod in ("pgmpy", "pgmpy.models", "pgmpy.factors.discrete", "pgmpy.readwrite"):
        monkeypatch.setitem(sys.modules, mod, None)
    (tmp_path / "n.bif").write_text("network unknown {}\n")
    res = _run(["bn", "sample", tmp_path / "n.bif", "--n", 5, "--out", tmp_path / "d.csv"])
    assert res.exit_code == 1
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert "pgmpy is needed" in res.output and "n.bif" in res.output
    assert not (tmp_path / "d.csv").exists()
