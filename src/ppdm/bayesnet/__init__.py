"""Bayesian-network parameters from post-randomized, vertically partitioned data.

References
----------
Ma & Sivakumar, "A Post Randomization Framework for Privacy-Preserving Bayesian Network
Parameter Learning".
"""

from .estimation import (
    FIXES,
    LEARNING_FIXES,
    FamilyEstimate,
    ParameterEstimate,
    cpd_from_counts,
    estimate_family,
    estimate_parameters,
    fix_negative_counts,
    parameter_stderr,
)
from .files import read_network, write_network
from .network import NETWORK_FORMAT, BayesNet, Node
from .pram import (
    PramScheme,
    Randomization,
    binary_randomization,
    grouped_symmetric,
    marginal_matrix,
    scheme_matrix,
)
from .sampling import forward_sample

__all__ = [
    "FIXES",
    "LEARNING_FIXES",
    "NETWORK_FORMAT",
    "BayesNet",
    "FamilyEstimate",
    "Node",
    "ParameterEstimate",
    "PramScheme",
    "Randomization",
    "binary_randomization",
    "cpd_from_counts",
    "estimate_family",
    "estimate_parameters",
    "fix_negative_counts",
    "forward_sample",
    "grouped_symmetric",
    "marginal_matrix",
    "parameter_stderr",
    "read_network",
    "scheme_matrix",
    "write_network",
]
