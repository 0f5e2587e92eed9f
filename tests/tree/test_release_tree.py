import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from ppdm.datasets import agrawal
from ppdm.demo import agrawal_spec
from ppdm.exceptions import NotFittedError
from ppdm.matrix import identity
from ppdm.perturbation import perturb_frame
from ppdm.release import ReleaseSpec
from ppdm.tree import C45Classifier, ReleaseTreeClassifier

#: seeded releases and owner-side warnings are expected here
pytestmark = [pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")]


def _release(function, n, gamma=9.0, n_bins=10, seed=0):
    data = agrawal(n + 5000, function=function, random_state=seed)
    train, test = data.iloc[:n].reset_index(drop=True), data.iloc[n:].reset_index(drop=True)
    spec = agrawal_spec(train, gamma, n_bins)
    return train, test, spec, perturb_frame(train, spec, random_state=seed + 1)


def _identity_spec(spec):
    attrs = []
    for a in spec.attributes:
        if a.perturbed:
            a = a.model_copy(update={"matrix": identity(a.get_domain().n_values).to_spec()})
        attrs.append(a)
    return ReleaseSpec(class_attribute=spec.class_attribute, attributes=attrs)


def test_identity_matrix_gives_exact_counts_at_every_node():
    train, _, spec, _ = _release(3, 3000)
    ident = _identity_spec(spec)
    clf = ReleaseTreeClassifier(spec=ident, prune=False, min_leaf=20).fit(train)
    codes = np.column_stack(
        [d.encode(train[n]) for n, d in zip(clf.feature_names_in_, clf.domains_)]
    )
    y = np.searchsorted(clf.classes_, train["group"])
    t = clf.tree_
    # walk the tree, keeping every node's box, and compare its count with a direct count
    stack = [(0, [np.ones(d.n_values, bool) for d in clf.domains_])]
    checked = 0
    while stack:
        node, box = stack.pop()
        inside = np.all([box[j][codes[:, j]] for j in range(len(box))], axis=0)
        assert t.count[node] == pytest.approx(inside.sum())
        assert t.n_eff[node] == pytest.approx(inside.sum())
        if t.feature[node] < 0 and inside.any():
            majority = np.bincount(y[inside], minlength=2).argmax()
            assert np.argmax(t.value[node]) == majority
        checked += 1
        j = t.feature[node]
        if j >= 0:
            go = t.mask[node, : len(box[j])]
            for child, side in ((t.left[node], go), (t.right[node], ~go)):
                nb = list(box)
                nb[j] = box[j] & side
                stack.append((child, nb))
    assert checked > 3


@pytest.mark.parametrize("function", [1, 3])
def test_accuracy_approaches_the_original_as_n_grows(function):
    """The reference is C4.5 on the *discretised* original (each value replaced by its
    bin's representative): binning alone costs accuracy when a class boundary falls
    inside a bin, and no learner on the release can recover that."""
    accs = []
    for n in (1000, 5000, 40000):
        train, test, spec, rel = _release(function, n, seed=n)
        clf = ReleaseTreeClassifier(spec=spec).fit(rel)
        accs.append(clf.score(test.drop(columns="group"), test["group"]))
    binned = perturb_frame(train, _identity_spec(spec), random_state=0)
    original = (
        C45Classifier()
        .fit(binned.drop(columns="group"), binned["group"])
        .score(test.drop(columns="group"), test["group"])
    )
    assert accs[-1] >= accs[0]
    assert accs[-1] >= 0.95 * original, (accs, original)


def test_estimator_contract():
    train, test, spec, rel = _release(1, 3000)
    clf = ReleaseTreeClassifier(spec=spec, max_depth=4)
    with pytest.raises(NotFittedError):
        clf.predict(test)
    params = clf.get_params()
    assert params["max_depth"] == 4
    twin = clone(clf).set_params(**params)
    before = rel.copy()
    a = clf.fit(rel).predict(test)
    pd.testing.assert_frame_equal(rel, before)
    b = twin.fit(rel).predict(test)
    np.testing.assert_array_equal(a, b)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(test), a)
    assert clf.predict_proba(test).shape == (len(test), 2)
    assert "Number of Leaves" in clf.export_text()


def test_bad_input():
    train, _, spec, rel = _release(1, 500)
    with pytest.raises(ValueError, match="criterion must be"):
        ReleaseTreeClassifier(spec=spec, criterion="magic").fit(rel)
    with pytest.raises(ValueError, match="min_leaf"):
        ReleaseTreeClassifier(spec=spec, min_leaf=0).fit(rel)
    with pytest.raises(ValueError, match="spec must be"):
        ReleaseTreeClassifier(spec=3).fit(rel)
    one = rel.assign(group=0)
    with pytest.raises(ValueError, match="one class"):
        ReleaseTreeClassifier(spec=spec).fit(one)
    unknown = rel.astype({"group": object})
    unknown.loc[[6, 9], "group"] = None  # was a numpy TypeError ('<' between float and str)
    with pytest.raises(ValueError, match=r"no value in 2 of 500 rows \(the first at data row 7\)"):
        ReleaseTreeClassifier(spec=spec).fit(unknown)
    clf = ReleaseTreeClassifier(spec=spec).fit(rel)
    with pytest.raises(ValueError, match="lacks the columns"):
        clf.predict(train.drop(columns=["age"]))


def test_mine_cli_with_every_kind_of_learner(run_cli, tmp_path):
    train, test, spec, _ = _release(3, 6000)
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    from ppdm.release import write_spec

    write_spec(spec, tmp_path / "spec.json")
    code, _, err = run_cli(
        "perturb",
        tmp_path / "train.csv",
        "--out",
        tmp_path / "rel",
        "--spec",
        tmp_path / "spec.json",
        "--seed",
        "2",
    )
    assert code == 0, err
    import json

    results = {}
    for learner in ("c45", "release-tree", "release-forest"):
        code, out, err = run_cli("mine", tmp_path / "rel", "--test", tmp_path / "test.csv",
                                 "--learner", learner, "--json")  # fmt: skip
        assert code == 0, err
        results[learner] = json.loads(out)
    for r in results.values():
        assert 0.5 <= r["measured_accuracy"] <= 1.0 and r["n_test"] == len(test)
    assert results["release-tree"]["measured_accuracy"] > results["c45"]["measured_accuracy"]
    for bad in ("nope", "sklearn.tree:DecisionTreeClassifier"):
        code, _, err = run_cli("mine", tmp_path / "rel", "--test", tmp_path / "test.csv",
                               "--learner", bad)  # fmt: skip
        said = f"unknown learner {bad!r}" if bad == "nope" else f"learner {bad!r} cannot be scored"
        assert code == 2 and said in err, err
        assert len(err.strip().splitlines()) == 1


def test_local_baseline_learns_and_the_release_tree_beats_it():
    from ppdm_papers.local_tree import LocalReconstructionClassifier

    train, test, spec, rel = _release(3, 20000, n_bins=10)
    local = LocalReconstructionClassifier(spec=spec).fit(rel)
    tree = ReleaseTreeClassifier(spec=spec).fit(rel)
    X, y = test.drop(columns="group"), test["group"]
    assert local.score(X, y) > 0.6
    assert tree.score(X, y) > local.score(X, y)


def test_naive_bayes_leaves_help_with_many_classes():
    """Ten classes from one informative attribute: majority leaves of a small tree cannot
    name ten classes, naive Bayes leaves can."""
    rng = np.random.default_rng(0)
    n = 20000
    cls = rng.integers(0, 10, n)
    x = np.clip(cls * 2 + rng.integers(0, 2, n), 0, 19)
    noise = rng.integers(0, 20, n)
    frame = pd.DataFrame({"x": x, "z": noise, "c": cls})
    from ppdm.domain import CategoricalDomain
    from ppdm.matrix import GammaDiagonal
    from ppdm.perturbation import perturb_codes

    doms = [CategoricalDomain(tuple(range(20)))] * 2
    mats = [GammaDiagonal(20, 9.0)] * 2
    codes = np.column_stack([perturb_codes(frame[c].to_numpy(), mats[0], rng) for c in ("x", "z")])
    test = frame[["x", "z"]].to_numpy()
    acc = {}
    for lm in ("majority", "naive-bayes"):
        m = ReleaseTreeClassifier(leaf_model=lm, max_depth=2).fit_codes(
            codes, cls, doms, mats, ["x", "z"]
        )
        acc[lm] = float(np.mean(m.predict_codes(test) == cls))
    assert acc["naive-bayes"] > acc["majority"] + 0.2, acc
    assert acc["naive-bayes"] > 0.8, acc
