"""``perturbed_cell``: a grid cell's training data encoded at N and perturbed once at gamma."""

import numpy as np

from ppdm.cells import cell_rng
from ppdm_papers.accuracy import perturbed_cell
from ppdm_papers.core import perturb_table

CELL = ("synth1", 9, 20, 0)


def test_cell_is_perturbed_from_its_family_stream():
    one = perturbed_cell("fig4", CELL, 0, True)
    assert one.perturbed.shape == one.table.codes.shape
    assert (one.perturbed <= one.table.n_values - 1).all() and (one.perturbed >= 0).all()
    # the labels are the training class column, record by record
    assert np.array_equal(one.y_train, one.data.train[one.data.target].to_numpy())
    # same family and cell: the same draws; the generator continues after them
    again = perturbed_cell("fig4", CELL, 0, True)
    assert np.array_equal(one.perturbed, again.perturbed)
    # (the exact integer sampler, attribute by attribute, as a release draws)
    fresh = cell_rng(0, ("fig4", *CELL))
    assert np.array_equal(perturb_table(one.table, CELL[1], fresh), one.perturbed)
    assert one.rng.random() == fresh.random()
    # another family (or seed) draws its own perturbation of the same table
    other = perturbed_cell("beyond", CELL, 0, True)
    assert other.table is one.table
    assert not np.array_equal(other.perturbed, one.perturbed)
    # gamma-diagonal: a value stays with probability gamma / (gamma + N_j - 1)
    stay = 9 / (9 + one.table.n_values - 1)
    kept = (one.perturbed == one.table.codes).sum(axis=0)
    n = len(one.perturbed)
    assert (np.abs(kept - n * stay) < 4 * np.sqrt(n * stay * (1 - stay))).all()
