"""Noise-based perturbation: the additive-noise baseline of Agrawal & Srikant (2000)."""

from .additive import (
    AdditiveNoise,
    DistributionEstimate,
    additive_perturb,
    privacy_interval_width,
    reconstruct_distribution,
    transition_masses,
)

__all__ = [
    "AdditiveNoise",
    "DistributionEstimate",
    "additive_perturb",
    "privacy_interval_width",
    "reconstruct_distribution",
    "transition_masses",
]
