"""Noise where a decision tree does not look (Islam & Brankovic): class noise in
heterogeneous leaves, attribute noise on innocent attributes, and their security figures.

The additive noise of Agrawal & Srikant (2000) is :mod:`ppdm.additive`.
"""

from importlib import import_module
from typing import Any

# name -> module: loaded on first use, so ``import ppdm.noise`` stays cheap (the
# Islam & Brankovic modules need the tree package and scikit-learn)
_EXPORTS = {
    "ATTRIBUTE_TARGETS": ".attribute_noise",
    "AttributeNoiseResult": ".attribute_noise",
    "DiscreteNoise": ".attribute_noise",
    "add_attribute_noise": ".attribute_noise",
    "discrete_gaussian": ".attribute_noise",
    "paper_noise": ".attribute_noise",
    "ClassNoiseResult": ".class_noise",
    "add_class_noise": ".class_noise",
    "CLASS_TECHNIQUES": ".class_stats",
    "all_leaves_probability": ".class_stats",
    "expected_changes": ".class_stats",
    "variance_of_changes": ".class_stats",
    "LeafInfo": ".leaves",
    "innocent_attributes": ".leaves",
    "leaf_index": ".leaves",
    "leaf_info": ".leaves",
    "ReidentificationReport": ".security",
    "class_security": ".security",
    "record_p_same": ".security",
    "reidentification": ".security",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'ppdm.noise' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
