"""Noise-based perturbation.

* :mod:`~ppdm.noise.additive`: the additive-noise baseline of Agrawal & Srikant (2000).
* :mod:`~ppdm.noise.leaves`, :mod:`~ppdm.noise.class_noise`,
  :mod:`~ppdm.noise.attribute_noise`, :mod:`~ppdm.noise.security`,
  :mod:`~ppdm.noise.quality`, :mod:`~ppdm.noise.experiment`: noise where a decision
  tree does not look (Islam & Brankovic): class noise in heterogeneous leaves,
  attribute noise on Leaf and Total Innocent Attributes, their security figures,
  tree similarity, and the paper's experiments.
"""

from .additive import (
    AdditiveNoise,
    DistributionEstimate,
    additive_perturb,
    privacy_interval_width,
    reconstruct_distribution,
    transition_masses,
)
from .attribute_noise import (
    ATTRIBUTE_TARGETS,
    AttributeNoiseResult,
    DiscreteNoise,
    add_attribute_noise,
    discrete_gaussian,
    paper_noise,
)
from .class_noise import (
    CLASS_TECHNIQUES,
    ClassNoiseResult,
    add_class_noise,
    all_leaves_probability,
    expected_changes,
    variance_of_changes,
)
from .leaves import LeafInfo, innocent_attributes, leaf_index, leaf_info
from .quality import TreeQuality, tree_quality
from .security import ReidentificationReport, class_security, record_p_same, reidentification

__all__ = [
    "ATTRIBUTE_TARGETS",
    "AdditiveNoise",
    "AttributeNoiseResult",
    "CLASS_TECHNIQUES",
    "ClassNoiseResult",
    "DiscreteNoise",
    "DistributionEstimate",
    "LeafInfo",
    "ReidentificationReport",
    "TreeQuality",
    "add_attribute_noise",
    "add_class_noise",
    "additive_perturb",
    "all_leaves_probability",
    "class_security",
    "discrete_gaussian",
    "expected_changes",
    "innocent_attributes",
    "leaf_index",
    "leaf_info",
    "paper_noise",
    "privacy_interval_width",
    "reconstruct_distribution",
    "record_p_same",
    "reidentification",
    "transition_masses",
    "tree_quality",
    "variance_of_changes",
]
