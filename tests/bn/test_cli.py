"""``ppdm bn`` commands: the full flow, and clear failures on bad input."""

import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from ppdm.bayesnet import LEARNING_FIXES, read_network, write_network
from ppdm.bayesnet.ckl import ckl_per_node
from ppdm.cli import app
from ppdm_papers.bn_networks import fig2_network

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")


def _ok(args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def _fails(args, match):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code != 0
    assert match in result.output, result.output
    return result


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    d = tmp_path_factory.mktemp("bn")
    net = d / "fig2.yaml"
    write_network(fig2_network(), net)
    _ok(["bn", "sample", net, "--n", 20000, "--out", d / "data.parquet", "--seed", 1])
    schemes = {
        "site1": {
            "party": "site1",
            "variables": {"A": 2, "S": 2, "T": 2, "L": 3},
            "randomize": [
                {"variables": ["A"], "matrix": {"kind": "symmetric-binary", "p": 0.25}},
                {"variables": ["L"], "matrix": {"kind": "symmetric-ternary", "p": 0.3}},
            ],
        },
        "site2": {
            "party": "site2",
            "variables": {"B": 3, "E": 2, "X": 2, "D": 2},
            "randomize": [{"variables": ["E", "X"], "matrix": {"kind": "symmetric", "p": 0.2}}],
        },
        "site3": {
            "party": "site3",
            "variables": {"C": 2, "F": 2, "G": 2},
            "randomize": [
                {"variables": ["C"], "matrix": {"kind": "binary", "p1": 0.1, "p2": 0.25}}
            ],
        },
        "own3": {"party": "site3", "variables": {"C": 2, "F": 2, "G": 2}},
    }
    for name, spec in schemes.items():
        (d / f"{name}.yaml").write_text(yaml.safe_dump(spec))
        _ok(
            [
                "bn",
                "randomize",
                d / "data.parquet",
                "--scheme",
                d / f"{name}.yaml",
                "--out",
                d / name,
                "--seed",
                2,
                # the model-1 party's own release randomizes nothing: said with the flag
                *(["--allow-unprotected"] if name == "own3" else []),
            ]
        )
    return d


def test_help(help_page):
    for cmd in ("sample", "randomize", "learn", "compare", "reproduce"):
        help_page("bn", cmd)
    # --fix offers fixes that leave no negative count (the estimator table's)
    fixes = (
        re.search(r"--fix \W?([a-z-]+(?:\|[a-z-]+)+)", help_page("bn", "learn")).group(1).split("|")
    )
    assert fixes and set(fixes) <= set(LEARNING_FIXES)


def test_model2_flow(flow):
    d = flow
    spec = json.loads((d / "site2" / "release.json").read_text())
    assert spec["format"] == "ppdm-bn-release/1" and "seed" not in json.dumps(spec)
    assert {p["variable"]: p["K"] for p in spec["privacy"]}["E"] == 4
    out = _ok(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--release",
            d / "site1",
            "--release",
            d / "site2",
            "--release",
            d / "site3",
            "--out",
            d / "learnt.json",
            "--stderr",
            d / "se.csv",
        ]
    )
    assert "learnt 11 CPDs" in out.output
    n_se = len((d / "se.csv").read_text().splitlines()) - 1
    assert f"wrote {n_se} rows (theta, stderr) to {d / 'se.csv'}" in out.output
    learnt = read_network(d / "learnt.json")
    truth = fig2_network()
    for v in truth.names:
        assert np.abs(learnt.cpd(v) - truth.cpd(v)).max() < 0.1, v
    # the written CPDs are the ML estimate N_ijk / N_ij of the (fixed) counts written beside
    se = pd.read_csv(d / "se.csv")
    counts = {}
    for v, rows in se.groupby("node"):
        c = np.zeros(learnt.cpd(v).shape)
        c[rows["k"], rows["j"]] = rows["count"]
        counts[v] = c
        np.testing.assert_allclose(learnt.cpd(v), c / c.sum(axis=0), rtol=1e-9, err_msg=v)
    res = _ok(
        [
            "bn",
            "compare",
            d / "fig2.yaml",
            d / "learnt.json",
            "--data",
            d / "data.parquet",
            "--out",
            d / "ckl.csv",
        ]
    )
    assert res.output.count("\n") == 12
    assert f"wrote 11 rows (node, ckl) to {d / 'ckl.csv'}" in res.output
    ckl = pd.read_csv(d / "ckl.csv")
    expect = ckl_per_node(truth, learnt, truth.encode(pd.read_parquet(d / "data.parquet")))
    pd.testing.assert_frame_equal(ckl, expect, check_exact=False, rtol=1e-9)
    # 2 n KL is about chi-square with (K - 1) J degrees of freedom (at most 12 here), times
    # the randomization's variance inflation (below 10 for these p): far below 2 n 0.01 = 400
    assert (ckl["ckl"] >= 0).all() and ckl["ckl"].max() < 0.01
    _ok(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--release",
            d / "site1",
            "--release",
            d / "site2",
            "--release",
            d / "site3",
            "--prior",
            "dirichlet:1",
            "--out",
            d / "map.yaml",
        ]
    )
    # MAP with alpha = 1 from the same counts: (N_ijk + 1) / (N_ij + K_i)
    map_net = read_network(d / "map.yaml")
    for v, c in counts.items():
        expect = (c + 1) / (c.sum(axis=0) + c.shape[0])
        np.testing.assert_allclose(map_net.cpd(v), expect, rtol=1e-9, err_msg=v)


def test_model1_flow(flow):
    d = flow
    out = _ok(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--model",
            "1",
            "--party",
            "site3",
            "--release",
            d / "own3",
            "--release",
            d / "site2",
            "--out",
            d / "m1.json",
        ]
    )
    assert "learnt 3 CPDs" in out.output
    # F and G have their parents in the party's own clean data: plain frequencies
    data = pd.read_parquet(d / "data.parquet").astype(str)
    m1, truth = read_network(d / "m1.json"), fig2_network()
    for node in ("F", "G"):
        (parent,) = truth.parents(node)
        table = pd.crosstab(data[node], data[parent]).reindex(
            index=list(truth.node(node).states),
            columns=list(truth.node(parent).states),
            fill_value=0,
        )
        freq = table.to_numpy(dtype=float)
        np.testing.assert_allclose(m1.cpd(node), freq / freq.sum(axis=0), rtol=1e-12)
    _fails(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--model",
            "1",
            "--party",
            "site3",
            "--release",
            d / "site3",
            "--release",
            d / "site2",
            "--out",
            d / "m1-refused.json",
        ],
        "must be unrandomized",
    )
    _fails(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--model",
            "1",
            "--release",
            d / "own3",
            "--out",
            d / "m1-refused.json",
        ],
        "needs --party",
    )


def test_bad_inputs(flow, tmp_path):
    d = flow
    _fails(
        ["bn", "sample", d / "missing.yaml", "--n", 5, "--out", tmp_path / "x.csv"],
        "does not exist",
    )
    _fails(
        ["bn", "sample", d / "fig2.yaml", "--n", 0, "--out", tmp_path / "x.csv"], "--n must be >= 1"
    )
    _fails(["bn", "sample", d / "fig2.yaml", "--n", 5, "--out", tmp_path / "x.txt"], "--out")
    (tmp_path / "bad.yaml").write_text("nodes: [{name: A, states: 2, cpd: [0.2, 0.2]}]")
    _fails(
        ["bn", "sample", tmp_path / "bad.yaml", "--n", 5, "--out", tmp_path / "x.csv"], "sums to"
    )
    _fails(
        [
            "bn",
            "randomize",
            d / "data.parquet",
            "--scheme",
            d / "nope.yaml",
            "--out",
            tmp_path / "r",
        ],
        "does not exist",
    )
    (tmp_path / "s.yaml").write_text(yaml.safe_dump({"variables": {"L": 2}}))
    _fails(
        [
            "bn",
            "randomize",
            d / "data.parquet",
            "--scheme",
            tmp_path / "s.yaml",
            "--allow-unprotected",  # the scheme randomizes nothing: the data is checked
            "--out",
            tmp_path / "r",
        ],
        "column 'L', row 1: '2' is neither a state of 'L' ['0', '1'] nor a code 0..1",
    )
    assert not (tmp_path / "r").exists()
    _fails(
        ["bn", "learn", d / "fig2.yaml", "--release", d / "site1", "--out", tmp_path / "o.json"],
        "releases lack",
    )
    _fails(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--release",
            d / "site1",
            "--prior",
            "beta:2",
            "--out",
            tmp_path / "o.json",
        ],
        "dirichlet:ALPHA",
    )
    _fails(
        ["bn", "learn", d / "fig2.yaml", "--release", tmp_path, "--out", d / "o.json"],
        "not a release directory",
    )
    _fails(
        [
            "bn",
            "learn",
            d / "fig2.yaml",
            "--release",
            d / "site1",
            "--model",
            "3",
            "--out",
            tmp_path / "o.json",
        ],
        "--model must be 1 or 2",
    )
    _fails(["bn", "reproduce", "bn-nothing", "--out", tmp_path / "rep"], "unknown reproduction")
    assert not (tmp_path / "o.json").exists()


def test_reproduce_quick(tmp_path):
    out = _ok(["bn", "reproduce", "bn-table2", "--quick", "--out", tmp_path / "rep"])
    assert "bn-table2.csv" in out.output
    assert (tmp_path / "rep" / "bn-table2.png").stat().st_size > 0


@pytest.mark.parametrize("fix", LEARNING_FIXES)
def test_learn_takes_every_fix_of_the_table(flow, fix):
    d = flow
    out = d / f"learnt-{fix}.json"
    releases = [a for site in ("site1", "site2", "site3") for a in ("--release", d / site)]
    _ok(["bn", "learn", d / "fig2.yaml", *releases, "--fix", fix, "--out", out])
    learnt, truth = read_network(out), fig2_network()
    for v in truth.names:
        # the same tolerance as the default fix's flow: 20,000 records, mild randomization
        assert np.abs(learnt.cpd(v) - truth.cpd(v)).max() < 0.1, (fix, v)


def test_learn_and_compare_keep_existing_files_unless_told(flow, tmp_path):
    d = flow
    learn = ["bn", "learn", d / "fig2.yaml", "--release", d / "site1", "--release", d / "site2"]
    learn += ["--release", d / "site3"]
    kept, table = tmp_path / "kept.json", tmp_path / "kept.csv"
    kept.write_text("mine\n")
    table.write_text("mine\n")
    _fails([*learn, "--out", kept], f"--out {str(kept)!r} exists; pass --overwrite")
    _fails(
        [*learn, "--out", tmp_path / "new.json", "--stderr", table],
        f"--stderr {str(table)!r} exists; pass --overwrite",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.csv", "kept.json"]
    compare = ["bn", "compare", d / "fig2.yaml", d / "fig2.yaml", "--data", d / "data.parquet"]
    _fails([*compare, "--out", table], f"--out {str(table)!r} exists; pass --overwrite")
    assert kept.read_text() == table.read_text() == "mine\n"
    _ok([*learn, "--out", kept, "--stderr", table, "--overwrite"])
    assert read_network(kept).names == fig2_network().names
    _ok([*compare, "--out", table, "--overwrite"])
    assert list(pd.read_csv(table)["ckl"]) == [0.0] * len(fig2_network().names)


def test_randomize_keeps_an_existing_release_unless_told(flow, tmp_path):
    # a second party's release written over the first's without a word: site1's data
    # was gone and release.json named site2
    d = flow
    out = tmp_path / "rel"
    base = ["bn", "randomize", d / "data.parquet", "--seed", 3, "--out", out]
    _ok([*base, "--scheme", d / "site1.yaml"])
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    _fails([*base, "--scheme", d / "site2.yaml"], f"--out {str(out)!r} is a directory that is not")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    _ok([*base, "--scheme", d / "site2.yaml", "--overwrite"])
    assert json.loads((out / "release.json").read_text())["party"] == "site2"


def test_a_scheme_that_randomizes_nothing_needs_opt_in(flow, tmp_path):
    d = flow
    base = ["bn", "randomize", d / "data.parquet", "--scheme", d / "own3.yaml", "--seed", 3]
    result = _fails([*base, "--out", tmp_path / "a"], "randomizes no variable")
    assert result.exit_code == 1 and not (tmp_path / "a").exists()
    _ok([*base, "--out", tmp_path / "b", "--allow-unprotected"])


def test_learn_refuses_one_file_for_the_network_and_its_standard_errors(flow, tmp_path):
    d = flow
    learn = ["bn", "learn", d / "fig2.yaml", "--release", d / "site1", "--release", d / "site2"]
    learn += ["--release", d / "site3", "--out", tmp_path / "net.json"]
    result = _fails([*learn, "--stderr", tmp_path / "." / "net.json"], "names the same file as")
    assert result.exit_code == 2 and not (tmp_path / "net.json").exists()


@pytest.mark.parametrize(
    ("matrix", "why"),
    [
        ({"kind": "symmetric-binary", "p": 0.0}, "has infinite amplification"),
        ({"kind": "symmetric-binary", "p": 1e-12}, "changes a value with probability 1e-12"),
    ],
)
def test_randomize_refuses_a_matrix_that_protects_nothing(flow, tmp_path, matrix, why):
    d = flow
    scheme = tmp_path / "s.yaml"
    scheme.write_text(
        yaml.safe_dump(
            {
                "party": "p",
                "variables": {"A": 2, "S": 2},
                "randomize": [{"variables": ["A"], "matrix": matrix}],
            }
        )  # fmt: skip
    )
    args = ["bn", "randomize", d / "data.parquet", "--scheme", scheme, "--seed", 1]
    _fails([*args, "--out", tmp_path / "r"], f"the randomization of ['A'] {why}")
    assert not (tmp_path / "r").exists()
    res = _ok([*args, "--out", tmp_path / "r", "--allow-unprotected"])
    assert "released without randomization: S" in res.output


def test_compare_names_the_data_file_that_lacks_a_parent(flow, tmp_path):
    d = flow
    data = pd.read_parquet(d / "data.parquet").drop(columns=["E"])
    path = tmp_path / "noE.csv"
    data.to_csv(path, index=False)
    result = _fails(["bn", "compare", d / "fig2.yaml", d / "fig2.yaml", "--data", path],
                    f"--data {str(path)!r} has no column for the parents ['E']")  # fmt: skip
    assert result.exit_code == 1
