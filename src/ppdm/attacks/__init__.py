"""Privacy attacks: data recovery from additive noise, and attacks on substitution releases.

``ATTACKS`` names every attack the audit and the ``attacks`` experiment run
(:mod:`ppdm.attacks.registry`).
"""

from ._common import AttackResult, noise_covariance
from .as_noise import NUMERIC_ATTACKS, attack_substitution_release, substitution_noise_variance
from .bayes import bayes_reconstruct
from .bayes_optimal import PosteriorAttack, bayes_optimal_attack, recovery_bound
from .breach import BreachLevel, empirical_breach, worst_posterior
from .linkage import k_anonymity, linkage_attack, linkage_report
from .pca import pca_reconstruct
from .registry import ATTACKS, CodeAttack, NoiseAttack
from .repeated import (
    RepeatedRound,
    entropy_of_powers,
    repeated_perturbation_attack,
    theorem2_entries,
)
from .spectral import marchenko_pastur_bounds, spectral_filtering

__all__ = [
    "ATTACKS",
    "NUMERIC_ATTACKS",
    "CodeAttack",
    "NoiseAttack",
    "AttackResult",
    "BreachLevel",
    "PosteriorAttack",
    "RepeatedRound",
    "attack_substitution_release",
    "bayes_optimal_attack",
    "bayes_reconstruct",
    "empirical_breach",
    "entropy_of_powers",
    "k_anonymity",
    "linkage_attack",
    "linkage_report",
    "marchenko_pastur_bounds",
    "noise_covariance",
    "pca_reconstruct",
    "recovery_bound",
    "repeated_perturbation_attack",
    "spectral_filtering",
    "substitution_noise_variance",
    "theorem2_entries",
    "worst_posterior",
]
