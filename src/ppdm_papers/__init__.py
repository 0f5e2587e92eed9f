"""The papers' reproduction harness: ``ppdm reproduce`` and what only it runs.

One module per figure or table, each returning a tidy :class:`pandas.DataFrame`
(Dowd, Xu & Zhang: :mod:`~ppdm_papers.fig2`, :mod:`~ppdm_papers.fig3`,
:mod:`~ppdm_papers.table1`, :mod:`~ppdm_papers.accuracy`; Kang:
:mod:`~ppdm_papers.kang`; the attacks, Islam & Brankovic and Ma & Sivakumar families:
:mod:`~ppdm_papers.attacks`, :mod:`~ppdm_papers.noise`, :mod:`~ppdm_papers.bayesnet`);
plotting in :mod:`~ppdm_papers.plotting`, a grid's run options in
:mod:`~ppdm_papers.cellrun`, the name -> runner table in :mod:`~ppdm_papers.registry`
and the commands in :mod:`~ppdm_papers.cli`. It builds on :mod:`ppdm`, which never
imports it (an import-linter contract). Submodules are imported on use.

References
----------
Dowd, Xu & Zhang, Sec. 6-7 (Table 1, Figs. 2-6); Kang, Theorem 1; Islam & Brankovic;
Ma & Sivakumar, Sec. 6.
"""
