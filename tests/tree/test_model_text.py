"""The release tree's text shows its model: naive Bayes leaves as such, majority leaves' classes."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.datasets import load_pendigits
from ppdm.exceptions import ParameterError
from ppdm.perturbation import perturb_frame, plan_release
from ppdm.tree import ReleaseTreeClassifier
from ppdm.tree.release_nb import class_conditionals

CLS = "digit"


def _digits(gamma: float, n_bins: int):
    """Three digits of pendigits (3000 records), four pen coordinates, released."""
    df = load_pendigits().frame
    df = df[df[CLS].isin([0, 1, 2])].iloc[:3000][["a1", "a2", "a3", "a4", CLS]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = plan_release(
            df,
            class_attribute=CLS,
            gamma=gamma,
            n_bins=n_bins,
            bounds={c: (0, 100) for c in ("a1", "a2", "a3", "a4")},
        )
        rel = perturb_frame(df, spec, random_state=0)
    return df, spec, rel


@pytest.fixture(scope="module")
def digits():
    """A mild channel: the release tree splits (three leaves)."""
    return _digits(19, 10)


@pytest.fixture(scope="module")
def noisy_digits():
    """A noisy channel on 20 bins: naive Bayes merges adjacent bins."""
    return _digits(5, 20)


def _leaf_lines(text: str) -> list[str]:
    return [ln for ln in text.split("\n\n")[0].splitlines() if ": " in ln]


def test_naive_bayes_leaves_show_their_prior_and_model(digits):
    _, spec, rel = digits
    clf = ReleaseTreeClassifier(spec=spec).fit(rel)
    assert clf.leaf_model_ == "naive-bayes" and clf.tree_.n_leaves >= 2
    text = clf.export_text()
    t = clf.tree_
    leaves = _leaf_lines(text)
    assert len(leaves) == t.n_leaves
    seen = []
    for line in leaves:
        m = re.search(
            r"naive Bayes \[(\d+)\] \(est\. ([\d.]+), n_eff [\d.]+\) prior \{(.*)\}", line
        )
        assert m, line
        k = int(m.group(1))
        node = int(np.flatnonzero((t.feature < 0) & (t.nb_slot == k - 1))[0])
        shares = dict(p.split(": ") for p in m.group(3).split(", "))
        assert list(shares) == [str(c) for c in clf.classes_]
        np.testing.assert_allclose([float(v) for v in shares.values()], t.value[node], atol=5e-4)
        assert float(m.group(2)) == pytest.approx(t.count[node], abs=0.05)
        seen.append(k)
    assert sorted(seen) == list(range(1, t.n_leaves + 1))
    model = text[text.index("Naive Bayes leaves") :]
    # every leaf has a section naming every attribute
    assert len(re.findall(r"^\[\d+\] ", model, flags=re.M)) == t.n_leaves
    for name in clf.feature_names_:
        assert len(re.findall(rf"^    {name}[ :]", model, flags=re.M)) == t.n_leaves


def test_root_naive_bayes_groups_are_the_models(noisy_digits):
    """A plain naive Bayes (max_depth=0): the text's groups are those the model chose."""
    _, spec, rel = noisy_digits
    clf = ReleaseTreeClassifier(spec=spec, max_depth=0).fit(rel)
    text = clf.export_text()
    assert text.startswith(": naive Bayes [1] (est. 3000.0")
    codes = clf._encode(rel)
    y = pd.Index(clf.classes_).get_indexer(rel[CLS])
    fitted = class_conditionals(
        codes, y, len(clf.classes_), clf.matrices_, [c.ordered for c in clf.coders_]
    )
    merged = 0
    for name, (_, ids) in zip(clf.feature_names_, fitted):
        n_groups = len(np.unique(ids))
        merged += n_groups < 20
        m = re.search(rf"^    {name} \((\d+) groups\): (.*)$", text, flags=re.M)
        assert m, text
        assert int(m.group(1)) == n_groups
        assert len(m.group(2).split("; ")) == n_groups
    assert merged >= 1  # the channel is noisy enough that some attribute is grouped


def test_table_of_class_conditionals_sums_to_one(digits):
    _, spec, rel = digits
    clf = ReleaseTreeClassifier(spec=spec, max_depth=2).fit(rel)
    text = clf.export_text(conditionals="table")
    C = len(clf.classes_)
    tables = re.findall(r"P\(group \| class\), \d+ groups\n {8,}[^\n]*\n((?: {8}[^\n]*\n?)+)", text)
    assert len(tables) >= len(clf.feature_names_)
    for body in tables:
        rows = np.array([[float(v) for v in ln.split()[-C:]] for ln in body.splitlines()])
        # each class's column is P(group | class) over the groups of the leaf's box
        np.testing.assert_allclose(rows.sum(axis=0), 1.0, atol=rows.shape[0] * 5e-4)
    assert "Naive Bayes leaves" not in clf.export_text(conditionals="none")
    with pytest.raises(ParameterError, match="conditionals must be"):
        clf.export_text(conditionals="all")


def test_majority_leaves_show_their_class_counts(digits):
    _, spec, rel = digits
    clf = ReleaseTreeClassifier(spec=spec, leaf_model="majority").fit(rel)
    text = clf.export_text()
    assert "naive Bayes" not in text
    t = clf.tree_
    leaves = _leaf_lines(text)
    assert len(leaves) == t.n_leaves >= 2
    for line in leaves:
        m = re.search(r": (\S+) \(est\. ([\d.]+), n_eff [\d.]+\) \{(.*)\}$", line)
        assert m, line
        counts = {k: float(v) for k, v in (p.split(": ") for p in m.group(3).split(", "))}
        assert list(counts) == [str(c) for c in clf.classes_]
        # the leaf's class is its largest estimated count; the counts add up to its size
        assert m.group(1) == max(counts, key=counts.get)
        assert sum(counts.values()) == pytest.approx(float(m.group(2)), abs=0.05 * len(counts))


def _mine_args(digits, tmp_path) -> list[str]:
    """``ppdm mine`` of a release of ``digits`` written to ``tmp_path``, tested on the table."""
    df, spec, rel = digits
    from ppdm.pipeline import make_release

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "rel", spec=spec, random_state=0)
    df.to_csv(tmp_path / "test.csv", index=False)
    return ["mine", str(tmp_path / "rel"), "--test", str(tmp_path / "test.csv")]


def test_mine_prints_the_tree_it_chose(digits, tmp_path):
    # mining from the release alone fits majority leaves (scorable from the release)
    r = CliRunner().invoke(app, [*_mine_args(digits, tmp_path), "--learner", "release-tree"])
    assert r.exit_code == 0, r.output
    assert "Number of Leaves" in r.output and "Naive Bayes leaves" not in r.output
    assert "\n: 0\n" not in r.output


def test_mine_prints_the_forest_summary_and_is_seeded(digits, tmp_path):
    args = _mine_args(digits, tmp_path)
    runs = [CliRunner().invoke(app, [*args, "--learner", "release-forest"]) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    # the same release and seed give the same forest, so the same text and accuracy
    assert runs[0].output == runs[1].output
    text = runs[0].output
    assert "Release forest: 25 release trees" in text
    assert "spec=" not in text  # a summary, not the estimator's repr with the whole spec
    shares = [float(x) for x in re.findall(r"^  \S+: ([\d.]+)$", text, flags=re.M)]
    assert shares and sum(shares) <= 1.0 + 1e-9 and shares == sorted(shares, reverse=True)
