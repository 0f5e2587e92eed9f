"""ppdm: privacy-preserving data mining by randomized perturbation.

Random substitution (Dowd, Xu & Zhang), its estimation and reconstruction, C4.5 decision
trees, privacy attacks, noise addition for trees (Islam & Brankovic) and post
randomization for Bayesian networks (Ma & Sivakumar).

The names below are loaded on first use, so ``import ppdm`` (and the command line)
stays quick:

- :func:`perturb` a DataFrame into a :class:`Release` in memory, :func:`load` one
  from its directory; a release has ``.data``, ``.spec``, ``.privacy``,
  ``.estimate()``, ``.reconstruct()`` and ``.save(directory)``;
- for files of any size, :func:`make_release`, :func:`estimate_release` and
  :func:`reconstruct_release`, with one ``engine=`` argument: ``"local"`` (streamed in
  this process), ``"partitioned"`` or ``"dask"``;
- :func:`mine` a release with no original data (a learner chosen, its accuracy on the
  original estimated);
- the learners: :class:`C45Classifier`, :class:`ReleaseTreeClassifier`,
  :class:`ReleaseForestClassifier`;
- :class:`PlanOptions`, the owner's choices.
"""

from importlib import import_module

__version__ = "0.1.0"

#: public name -> the module that defines it
_NAMES = {
    "perturb": "ppdm.api",
    "load": "ppdm.api",
    "make_release": "ppdm.api",
    "estimate_release": "ppdm.api",
    "reconstruct_release": "ppdm.api",
    "Release": "ppdm.api",
    "PlanOptions": "ppdm.options",
    "mine": "ppdm.selection",
    "C45Classifier": "ppdm.tree.classifier",
    "ReleaseTreeClassifier": "ppdm.tree.release_tree",
    "ReleaseForestClassifier": "ppdm.tree.release_forest",
}

__all__ = ["__version__", *_NAMES]


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module 'ppdm' has no attribute {name!r}")
    value = getattr(import_module(_NAMES[name]), name)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
