"""Attribute domains: categorical value lists and equi-width bins, mapping values to codes
``0..N-1`` (``getIndex`` in the paper) and back (``getValue``).

References
----------
Dowd, Xu & Zhang, Sec. 3.2 (discretisation, representative values) and Sec. 7
(discrete attributes with d <= N values keep N = d).
"""

from .domains import MISSING, BinnedDomain, CategoricalDomain, Domain, domain_from_spec
from .sketch import IDENTIFIER_VALUES, DomainRule, DomainSketch, infer_domain, looks_like_identifier

__all__ = [
    "IDENTIFIER_VALUES",
    "looks_like_identifier",
    "BinnedDomain",
    "CategoricalDomain",
    "Domain",
    "DomainRule",
    "DomainSketch",
    "MISSING",
    "domain_from_spec",
    "infer_domain",
]
