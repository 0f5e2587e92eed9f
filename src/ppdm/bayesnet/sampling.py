"""Forward (ancestral) sampling of a discrete Bayesian network, vectorised over records.

References
----------
Ma & Sivakumar, Sec. 6 (data sets D drawn from the networks of Figs. 2 and 3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..exceptions import ParameterError, SpecError
from ..limits import check_n_records
from ..random import RandomState, check_random_state
from ..validation import check_int
from .network import BayesNet, code_dtype

__all__ = ["code_dtype", "forward_sample"]


def forward_sample(net: BayesNet, n: int, random_state: RandomState = None) -> pd.DataFrame:
    """Draw ``n`` records from ``net`` by ancestral sampling.

    Each node is sampled for all records at once: its parent configuration indexes the
    cumulative CPD columns and one uniform per record picks the state (inverse CDF).

    Parameters
    ----------
    net : BayesNet
        A network with every CPD.
    n : int
        Number of records, ``1 <= n <=`` :data:`ppdm.limits.MAX_RECORDS`.
    random_state : None, int or Generator, default=None

    Returns
    -------
    pandas.DataFrame
        One integer column of state codes per node, in ``net.names`` order.

    Examples
    --------
    >>> from ppdm.bayesnet.network import BayesNet, Node
    >>> net = BayesNet([Node("A", ("0", "1"))], {"A": [0.25, 0.75]})
    >>> frame = forward_sample(net, 1000, random_state=0)
    >>> bool(0.7 < frame["A"].mean() < 0.8)
    True

    References
    ----------
    Ma & Sivakumar, Sec. 6.1-6.3.
    """
    check_int(n, "n", error=ParameterError)
    n = check_n_records(n, "n", error=ParameterError)
    if not net.is_complete:
        missing = [v for v in net.names if not net.has_cpd(v)]
        raise SpecError(f"every node needs a CPD to sample; missing: {missing}")
    rng = check_random_state(random_state)
    codes: dict[str, np.ndarray] = {}
    for name in net.topological_order:
        parents = net.parents(name)
        cum = np.cumsum(net.cpd(name), axis=0)
        cum[-1] = 1.0  # guard against round-off leaving u above the last cumulative value
        u = rng.random(n)
        if parents:
            cards = [net.cardinality(p) for p in parents]
            j = np.ravel_multi_index([codes[p] for p in parents], cards)
            state = (u[None, :] >= cum[:-1, j]).sum(axis=0)
        else:
            state = np.searchsorted(cum[:, 0], u, side="right")
        codes[name] = state.astype(code_dtype(net.cardinality(name)))
    return pd.DataFrame({name: codes[name] for name in net.names})
