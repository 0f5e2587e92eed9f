"""Perturbation matrices: gamma-diagonal, explicit, symmetric channels, block-diagonal, Kronecker.

Convention (Dowd, Xu & Zhang, Sec. 3.1): ``M[h, k] = P(original code k -> perturbed code h)``,
so every *column* is a probability distribution and ``E[y] = M x`` for count vectors.

References
----------
Dowd, Xu & Zhang, Sec. 3.1 (Algorithm 1), Sec. 5.1 (gamma-diagonal matrix), Sec. 5.2
(entropy, Theorem 2 on M^t); Kang, Theorem 1 (error bound); Ma & Sivakumar, Sec. 3
(symmetric channels, grouped and simultaneous randomization).
"""

from ..validation import check_gamma
from .base import ExplicitMatrix, PerturbationMatrix
from .channels import (
    GammaDiagonal,
    binary_randomization,
    block_diagonal,
    explicit,
    grouped_symmetric,
    identity,
    symmetric_binary,
    symmetric_channel,
    symmetric_ternary,
)
from .kinds import FROM_DATA, MATRIX_KINDS, check_matrix_entry, matrix_from_spec, needs_data
from .kronecker import FlatKronecker, KroneckerMatrix
from .pram import StratifiedMatrix, draw_retention, invariant_matrix, retention_matrix

__all__ = [
    "check_gamma",
    "ExplicitMatrix",
    "FROM_DATA",
    "FlatKronecker",
    "GammaDiagonal",
    "KroneckerMatrix",
    "MATRIX_KINDS",
    "PerturbationMatrix",
    "StratifiedMatrix",
    "binary_randomization",
    "block_diagonal",
    "check_matrix_entry",
    "draw_retention",
    "explicit",
    "grouped_symmetric",
    "identity",
    "invariant_matrix",
    "matrix_from_spec",
    "needs_data",
    "retention_matrix",
    "symmetric_binary",
    "symmetric_channel",
    "symmetric_ternary",
]
