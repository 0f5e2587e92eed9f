from ppdm.datasets import (
    load_boston,
    load_pendigits,
    load_spambase,
    load_wisconsin,
)


def test_shapes_and_classes():
    assert load_pendigits().frame.shape == (10992, 17)
    assert load_spambase().frame.shape == (4597, 58)
    w = load_wisconsin()
    assert w.frame.shape == (683, 10)
    assert set(w.y.unique()) == {2, 4}
    b = load_boston()
    assert b.frame.shape == (506, 14)
    assert "medv" not in b.frame
    # top 20 % of medv: about a fifth of the rows
    assert 0.15 < b.y.mean() <= 0.2
