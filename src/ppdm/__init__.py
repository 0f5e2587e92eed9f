"""ppdm: privacy-preserving data mining by randomized perturbation.

Random substitution (Dowd, Xu & Zhang), its estimation and reconstruction, C4.5 decision
trees, privacy attacks, noise addition for trees (Islam & Brankovic) and post
randomization for Bayesian networks (Ma & Sivakumar).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
