"""Every figure ppdm draws: estimates, two-way tables, the audit.

One convention for error bars: **two standard errors** either side of an estimate
(about a 95 % interval for a normal estimate), stated in each figure's legend or title
(:func:`se_label`). Intervals that are not standard errors (the audit's exact
Clopper-Pearson limits) say what they are.

Modules: :mod:`.estimates` (released and estimated counts, by class; the plot helper
process), :mod:`.pairs` (two-way tables as heat maps), :mod:`.audit` (the audit's
rates against their bounds).
"""

#: Error bars reach this many standard errors either side of an estimate.
SE_BARS = 2


def se_label() -> str:
    """How a figure states its error bars: ``"± 2 s.e."``."""
    return f"± {SE_BARS} s.e."
