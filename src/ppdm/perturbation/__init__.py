"""Algorithm 1 (random substitution) over whole tables, batch by batch.

:func:`plan_release` chooses every attribute's domain and matrix (from the owner's
options and spec, or from the data), :func:`perturb_frame` and :func:`perturb_batches`
draw the perturbed table, with the same bytes on every path for the same seed.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1, RRP) and Sec. 3.2 (continuous attributes).
"""

from ..mechanism.additive import additive_noise_for_level
from ..mechanism.substitution import stratum_keys
from ..options import DEFAULT_GAMMA, DEFAULT_MAX_BINS, DEFAULT_NOISE_LEVEL, PlanOptions
from .common import canonical_values
from .draw import perturb_batches, perturb_codes, perturb_frame
from .plan import plan_from_sketches, plan_release, planned_gammas
from .pram import needs_counting, realise_matrices

__all__ = [
    "DEFAULT_GAMMA",
    "DEFAULT_MAX_BINS",
    "DEFAULT_NOISE_LEVEL",
    "PlanOptions",
    "additive_noise_for_level",
    "canonical_values",
    "needs_counting",
    "perturb_batches",
    "perturb_codes",
    "perturb_frame",
    "plan_from_sketches",
    "plan_release",
    "planned_gammas",
    "realise_matrices",
    "stratum_keys",
]
