"""Figs. 4-5 of Ma & Sivakumar with both estimators: every infinite CKL is explained."""

import numpy as np

from ppdm_papers.bayesnet import ESTIMATORS, privacy_accuracy_table


def test_infinite_ckl_only_where_ml_puts_zero_on_a_seen_state_and_never_for_map():
    """p = 0.4 on 2,000 records: Norm-Sub zeroes some counts, so ML has infinite CKLs;
    MAP (Dirichlet alpha = 1) never gives a zero probability, so all its CKLs are finite."""
    runs = privacy_accuracy_table(seed=0, quick=True, n=2_000, ps=(0.4,))
    assert set(runs["estimator"]) == set(ESTIMATORS)
    inf = np.isinf(runs["ckl"])
    assert (inf == (runs["n_zero"] > 0)).all()
    ml = runs["estimator"] == "ml-norm-sub"
    assert inf[ml].any()  # the case being explained does occur here
    assert not inf[~ml].any()
    assert (runs.loc[~ml, "n_zero"] == 0).all()
