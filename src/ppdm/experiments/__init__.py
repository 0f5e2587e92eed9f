"""Writers of experiment outputs (:mod:`ppdm.experiments.runner`: atomic CSV and JSON).

The papers' reproductions themselves (``ppdm reproduce``) are the separate package
:mod:`ppdm_papers`, which ppdm never imports.
"""

__all__ = ["runner"]
