"""The experiments' seeded train/test splits."""

import pandas as pd

from ppdm.datasets import load_wisconsin
from ppdm_papers.data import train_test_split_fixed


def test_split_is_seeded_and_disjoint():
    d = load_wisconsin()
    a_train, a_test = train_test_split_fixed(d, 100, random_state=3)
    b_train, b_test = train_test_split_fixed(d, 100, random_state=3)
    assert a_test.equals(b_test)
    assert len(a_train) + len(a_test) == len(d.frame) and len(a_test) == 100

    # together the parts are the data set's rows, each once (as a multiset of rows)
    def rows(f):
        return f.sort_values(list(f.columns)).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(pd.concat([a_train, a_test])), rows(d.frame))
    _, c_test = train_test_split_fixed(d, 100, random_state=4)
    assert not c_test.equals(a_test)
