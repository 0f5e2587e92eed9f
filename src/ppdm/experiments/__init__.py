"""Reproductions of the papers' experiments (the advisor itself is :mod:`ppdm.advise`).

One module per figure or table, each returning a tidy :class:`pandas.DataFrame`;
plotting lives in :mod:`ppdm.experiments.plotting`, the grid machinery (per-cell seeds,
mappers, checkpoints) in :mod:`ppdm.experiments.runner`, and the name -> runner table of
``ppdm reproduce`` in :mod:`ppdm.experiments.registry`. Submodules are imported on use.

References
----------
Dowd, Xu & Zhang, Sec. 6-7 (Table 1, Figs. 2-6); Kang, Theorem 1.
"""

__all__ = [
    "accuracy",
    "core",
    "data",
    "fig2",
    "fig3",
    "grid",
    "kang",
    "learners",
    "plotting",
    "registry",
    "runner",
    "table1",
]
