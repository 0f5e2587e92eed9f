"""The audit refuses an original that is not the release's: shuffled rows, rows shifted by
one, other records, two columns of one domain swapped; the true original passes the check
(never refused over many small releases) and every recovery row says which bound it uses."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from ppdm.attacks.audit import (
    FALSE_REFUSAL,
    AuditReport,
    RecoveryTest,
    audit_release,
    check_original,
    format_audit,
)
from ppdm.attacks.audit.compute import _agreement_floor
from ppdm.cli import app
from ppdm.datasets import load_wisconsin
from ppdm.exceptions import DataError
from ppdm.pipeline import make_release

runner = CliRunner()

#: Two columns of one domain, each release's; wine's two share the bounds given to both.
DATASETS = {
    "wisconsin": ({}, ("clump_thickness", "bare_nuclei")),
    "wine": (
        {"n_bins": 10, "bounds": {"malic_acid": (0.0, 6.0), "flavanoids": (0.0, 6.0)}},
        ("malic_acid", "flavanoids"),
    ),
}
GAMMAS = (5.0, 9.0, 19.0)


def _frame(name: str) -> pd.DataFrame:
    if name == "wisconsin":
        return load_wisconsin().frame
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    return sklearn_datasets.load_wine(as_frame=True).frame.drop(columns="target")


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Every data set released at every gamma, with its original and the wrong ones."""
    base = tmp_path_factory.mktemp("originals")
    out = {}
    for name, (options, (a, b)) in DATASETS.items():
        df = _frame(name)
        swapped = df.copy()
        swapped[[a, b]] = df[[b, a]].to_numpy()
        wrong = {
            "shuffled": df.sample(frac=1, random_state=2),
            "shifted": pd.concat([df.iloc[1:], df.iloc[:1]]),  # a record lost, one added
            "other-records": df.sample(len(df), replace=True, random_state=2),
            "columns-swapped": swapped,
        }
        files = {"true": base / f"{name}.csv"}
        df.to_csv(files["true"], index=False)
        for case, frame in wrong.items():
            files[case] = base / f"{name}-{case}.csv"
            frame.to_csv(files[case], index=False)
        for g in GAMMAS:
            rel = base / f"{name}-g{int(g)}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make_release(df, rel, random_state=3, gamma=g, **options)
            out[name, g] = (rel, files)
    return out


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("case", ["shuffled", "shifted", "other-records", "columns-swapped"])
def test_audit_refuses_an_original_that_is_not_the_release_s(releases, name, gamma, case):
    rel, files = releases[name, gamma]
    res = runner.invoke(app, ["audit", str(rel), "--original", str(files[case])])
    assert res.exit_code == 1, res.output
    assert "PASSED" not in res.output and "FAILED" not in res.output
    line = res.output.strip()
    assert len(line.splitlines()) == 1
    assert f"original data file {str(files[case])!r} does not line up with the release" in line
    # which attribute (or all of them) and the count observed against the one expected
    assert "released values equal the original's where the release's matrices expect" in line
    if case == "columns-swapped":
        assert any(f"attribute {c!r}" in line for c in DATASETS[name][1])


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("gamma", GAMMAS)
def test_the_true_original_lines_up(releases, name, gamma):
    rel, files = releases[name, gamma]
    check_original(rel, files["true"])  # raises if refused


@pytest.mark.parametrize("name", list(DATASETS))
def test_audit_of_the_true_original_passes(releases, name):
    rel, files = releases[name, 9.0]
    res = runner.invoke(app, ["audit", str(rel), "--original", str(files["true"])])
    assert res.exit_code == 0, res.output
    assert "PASSED" in res.output


def test_html_report_refuses_a_shuffled_original_before_writing(releases, tmp_path):
    rel, files = releases["wisconsin", 9.0]
    page = tmp_path / "page.html"
    res = runner.invoke(
        app,
        ["report", str(rel), "--html", str(page), "--audit-original", str(files["shuffled"])],
    )
    assert res.exit_code == 1, res.output
    assert "does not line up with the release" in res.output
    assert str(files["shuffled"]) in res.output
    assert "PASSED" not in res.output and not page.exists()


def test_a_subsample_of_another_size_is_refused(releases, tmp_path):
    rel, files = releases["wisconsin", 9.0]
    sub = tmp_path / "sub.csv"
    pd.read_csv(files["true"]).sample(300, random_state=0).to_csv(sub, index=False)
    res = runner.invoke(app, ["audit", str(rel), "--original", str(sub)])
    assert res.exit_code == 1, res.output
    assert f"{str(sub)!r} has 300 records but the release has 683" in res.output


def test_a_column_released_as_is_must_agree_record_by_record(tmp_path):
    df = load_wisconsin().frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "r", random_state=3, class_attribute="class")
    # rows shuffled within each class: the class agrees, the attributes do not
    within, rng = df.copy(), np.random.default_rng(1)
    for idx in df.groupby("class").groups.values():
        within.loc[idx] = df.loc[rng.permutation(idx)].to_numpy()
    assert (within["class"].to_numpy() == df["class"].to_numpy()).all()
    with pytest.raises(DataError, match="over all 9 perturbed attributes|in attribute"):
        audit_release(tmp_path / "r", within)
    moved = df.copy()
    moved.loc[4, "class"] = 6 - df.loc[4, "class"]  # 2 <-> 4
    with pytest.raises(
        DataError, match=r"column 'class' is released as is but differs at record 5"
    ):
        audit_release(tmp_path / "r", moved)


def test_the_floor_holds_the_exact_binomial_tail():
    """For records of one p the count is binomial: below the floor its tail is < delta."""
    for n, p in [(20, 0.357), (178, 0.357), (683, 0.5), (683, 0.95), (5000, 0.2)]:
        for delta in (1e-9, 1e-4):
            floor = _agreement_floor(np.array([p]), np.array([n]), delta)
            if floor == -math.inf:
                assert stats.binom.pmf(0, n, p) > delta
                continue
            below = math.ceil(floor) - 1  # the largest count refused
            assert stats.binom.cdf(below, n, p) <= delta
            # and the floor is not loose by much: Chernoff is exact in the exponent
            assert stats.binom.cdf(math.ceil(floor) + 0.1 * n, n, p) > delta


def test_the_true_original_is_never_refused_at_small_n(tmp_path):
    """200 small releases at random gammas: each refused with probability at most 1e-9
    (FALSE_REFUSAL), all 200 with at most 2e-7; none may be."""
    assert FALSE_REFUSAL == 1e-9
    rng = np.random.default_rng(11)
    n = 25
    for seed in range(200):
        df = pd.DataFrame(
            {
                "a": rng.integers(0, 3, n),
                "b": rng.choice(["x", "y", "z", "w"], n, p=[0.7, 0.1, 0.1, 0.1]),
                "cls": rng.choice(["p", "q"], n),
            }
        )
        gamma = float(rng.choice([5.0, 9.0, 19.0]))
        rel = tmp_path / str(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make_release(df, rel, random_state=seed, gamma=gamma, class_attribute="cls")
        check_original(rel, df)


def test_every_recovery_row_names_its_bound(releases, tmp_path):
    rel, files = releases["wine", 9.0]
    report = audit_release(rel, files["true"])
    k = 13  # every wine attribute is numeric: the noise attacks read all 13
    for a in report.attributes:
        for name, t in a.attacks.items():
            record = name in ("spectral_filtering", "pca_reconstruct", "bayes_reconstruct")
            assert t.reads == (k if record else 1)
            assert t.bound_level == ("record" if record else "attribute")
            assert t.gamma == pytest.approx(9.0**k if record else 9.0)
    text = format_audit(report)
    head = next(line for line in text.splitlines() if line.startswith("attribute "))
    assert "bound of" in head
    for a in report.attributes:
        row = next(line for line in text.splitlines() if line.startswith(a.name + " "))
        assert a.attacks[a.best_attack].bound_of in row
    assert RecoveryTest("x", 1, 2, 0, 1, 0.1, 0.5, 0.5, 9.0**13, 9.0**13, 13).bound_of == (
        "record, gamma^13 = 9^13"
    )
    d = json.loads(json.dumps(report.to_dict()))
    assert AuditReport.from_dict(d) == report
    t = d["attributes"][0]["attacks"]["spectral_filtering"]
    assert (t["attributes_read"], t["bound_level"]) == (13, "record")
    from ppdm.html_report import write_html_report

    page = write_html_report(rel, tmp_path / "p.html", audit_original=files["true"])
    html = page.read_text()
    assert "<th>bound of</th>" in html
    for a in report.attributes:
        assert f"<td>{a.attacks[a.best_attack].bound_of}</td>" in html
