"""Every figure ppdm draws: estimates, two-way tables, the audit, the advice.

One convention for error bars: **two standard errors** either side of an estimate
(about a 95 % interval for a normal estimate), stated in each figure's legend or title
(:func:`se_label`). Intervals that are not standard errors (the audit's exact
Clopper-Pearson limits) say what they are.
"""

#: Error bars reach this many standard errors either side of an estimate.
SE_BARS = 2


def se_label() -> str:
    """How a figure states its error bars: ``"± 2 s.e."``."""
    return f"± {SE_BARS} s.e."
