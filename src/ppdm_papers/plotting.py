"""Figures of the experiments (matplotlib, Agg backend), each written atomically.

Every function takes the tidy or summary table its experiment module returns and a
PNG path, and returns the path.

References
----------
Dowd, Xu & Zhang, Figs. 2-6; Kang, Theorem 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "plot_fig2",
    "plot_fig2_kang",
    "plot_fig3",
    "plot_fig4",
    "plot_fig5",
    "plot_fig6",
    "plot_kang",
]


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | os.PathLike) -> Path:
    from ppdm.io import atomic_path

    path = Path(path)
    try:
        with atomic_path(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=110, bbox_inches="tight")
    finally:
        _plt().close(fig)
    return path


def _surface(ax, frame: pd.DataFrame, value: str, **kw) -> None:
    grid = frame.pivot_table(index="N", columns="gamma", values=value)
    g, n = np.meshgrid(grid.columns.to_numpy(float), grid.index.to_numpy(float))
    ax.plot_surface(g, n, grid.to_numpy(), **kw)
    ax.set_xlabel("gamma")
    ax.set_ylabel("N")


def plot_fig2(summary: pd.DataFrame, path) -> Path:
    """Fig. 2: error surfaces of the raw inverse and set-scale, one panel per distribution,
    and the mean error of every method against N."""
    plt = _plt()
    dists = list(dict.fromkeys(summary["distribution"]))
    fig = plt.figure(figsize=(6 * len(dists), 9))
    for i, d in enumerate(dists):
        part = summary[summary["distribution"] == d]
        ax = fig.add_subplot(2, len(dists), i + 1, projection="3d")
        _surface(ax, part, "E_inverse", color="tab:red", alpha=0.55)
        _surface(ax, part, "E_set-scale", color="tab:blue", alpha=0.75)
        ax.set_zlabel("E")
        ax.set_title(f"{d}: raw inverse (red) vs set-scale (blue)")
        ax2 = fig.add_subplot(2, len(dists), len(dists) + i + 1)
        for col in [c for c in part.columns if c.startswith("E_")]:
            mean = part.groupby("N")[col].mean()
            ax2.plot(mean.index, mean.to_numpy(), marker="o", label=col[2:])
        ax2.set_yscale("log")
        ax2.set_xlabel("N")
        ax2.set_ylabel("E, mean over gamma")
        ax2.set_title(f"{d}: all methods")
        ax2.legend()
    return _save(fig, path)


def plot_fig2_kang(summary: pd.DataFrame, path) -> Path:
    """Measured relative L2 error of the raw inverse against Kang's bound, every cell."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 5))
    for d, part in summary.groupby("distribution"):
        ax.scatter(part["kang_bound"], part["rms_rel_l2"], s=10, label=d, alpha=0.7)
    lo = float(min(summary["kang_bound"].min(), summary["rms_rel_l2"].min()))
    hi = float(max(summary["kang_bound"].max(), summary["rms_rel_l2"].max()))
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="bound = measured")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Kang's bound on sigma / ||X||")
    ax.set_ylabel("measured RMS ||X_hat - X|| / ||X|| (raw inverse)")
    ax.set_title("Kang's bound on the Fig. 2 grid")
    ax.legend()
    return _save(fig, path)


def plot_fig3(frame: pd.DataFrame, path) -> Path:
    """Fig. 3: entropy surface H(M) over gamma and N."""
    plt = _plt()
    fig = plt.figure(figsize=(7, 5.5))
    ax = fig.add_subplot(1, 1, 1, projection="3d")
    _surface(ax, frame, "entropy", cmap="viridis")
    ax.set_zlabel("H(M), bits")
    ax.set_title("Entropy of the gamma-diagonal matrix")
    return _save(fig, path)


def plot_fig4(mean: pd.DataFrame, path) -> Path:
    """Fig. 4: accuracy surfaces, one panel per data set and mode."""
    plt = _plt()
    datasets = list(dict.fromkeys(mean["dataset"]))
    modes = list(dict.fromkeys(mean["mode"]))
    fig = plt.figure(figsize=(4.2 * len(datasets), 3.8 * len(modes)))
    for r, mode in enumerate(modes):
        for c, d in enumerate(datasets):
            part = mean[(mean["dataset"] == d) & (mean["mode"] == mode)]
            ax = fig.add_subplot(
                len(modes), len(datasets), r * len(datasets) + c + 1, projection="3d"
            )
            if part["gamma"].nunique() > 1 and part["N"].nunique() > 1:
                _surface(
                    ax, part.assign(accuracy=100 * part["accuracy"]), "accuracy", cmap="viridis"
                )
            ax.set_zlabel("accuracy %")
            ax.set_title(f"{d} ({mode})", fontsize=9)
    return _save(fig, path)


def _mode_panels(frame: pd.DataFrame, width: float, height: float) -> tuple:
    """One panel per reconstruction mode, side by side, each ``width`` x ``height`` inches.

    Returns the figure and, per mode in order of appearance, ``(axes, mode, rows)``.
    """
    modes = list(dict.fromkeys(frame["mode"]))
    fig, axes = _plt().subplots(1, len(modes), figsize=(width * len(modes), height), squeeze=False)
    return fig, [(ax, m, frame[frame["mode"] == m]) for ax, m in zip(axes[0], modes)]


def _bands_by_n(ax, frame: pd.DataFrame, **style) -> None:
    """Accuracy (%) against entropy, one line of triangles per N, coloured by N's rank."""
    cmap = _plt().get_cmap("viridis")
    ns = sorted(frame["N"].unique())
    for i, n in enumerate(ns):
        band = frame[frame["N"] == n].sort_values("entropy")
        color = cmap(i / max(len(ns) - 1, 1))
        ax.plot(
            band["entropy"],
            100 * band["accuracy"],
            "^-",
            ms=4,
            color=color,
            label=f"N={n}",
            **style,
        )


def plot_fig5(mean: pd.DataFrame, path) -> Path:
    """Fig. 5: accuracy against entropy, one line per data set (per mode)."""
    fig, panels = _mode_panels(mean, 7, 5)
    for ax, mode, rows in panels:
        for d, part in rows.groupby("dataset", sort=False):
            part = part.sort_values("entropy")
            ax.plot(part["entropy"], 100 * part["accuracy"], marker=".", lw=0.6, label=d)
        ax.set_xlabel("entropy of M (bits)")
        ax.set_ylabel("accuracy %")
        ax.set_title(f"Entropy vs accuracy ({mode})")
        ax.legend(fontsize=8)
    return _save(fig, path)


def plot_fig6(bands: pd.DataFrame, path) -> Path:
    """Fig. 6: average accuracy, gamma and N against entropy; one band per N."""
    fig, panels = _mode_panels(bands, 8, 5.5)
    for ax, mode, part in panels:
        _bands_by_n(ax, part, lw=0.8)
        ax.set_ylim(0, 100)
        ax.set_xlabel("entropy of M (bits)")
        ax.set_ylabel("average accuracy % (triangles)")
        twin = ax.twinx()
        twin.scatter(part["entropy"], part["gamma"], marker="D", s=8, c="grey", label="gamma")
        twin.scatter(part["entropy"], part["N"], marker="s", s=8, c="black", label="N")
        twin.set_ylabel("gamma (diamonds), N (squares)")
        ax.set_title(f"Entropy vs gamma, N and average accuracy ({mode})")
        ax.legend(fontsize=7, loc="lower left", ncol=2)
    return _save(fig, path)


def plot_kang(summary: pd.DataFrame, path) -> Path:
    """Error vs number of copies m against Kang's bound, with the single-copy comparison."""
    plt = _plt()
    part = summary[summary["method"] == "inverse"]
    settings = list(dict.fromkeys(zip(part["gamma"], part["N"])))
    dists = list(dict.fromkeys(part["distribution"]))
    fig, axes = plt.subplots(
        len(dists), len(settings), figsize=(5 * len(settings), 4 * len(dists)), squeeze=False
    )
    for r, d in enumerate(dists):
        for c, (g, n) in enumerate(settings):
            ax = axes[r][c]
            sel = part[(part["distribution"] == d) & (part["gamma"] == g) & (part["N"] == n)]
            cp = sel[sel["scheme"] == "copies"].sort_values("m")
            sg = sel[sel["scheme"] == "single"].sort_values("m")
            ax.plot(cp["m"], cp["rms_rel_l2"], "o-", label="m copies, pooled (measured)")
            ax.plot(cp["m"], cp["kang_bound"], "k--", label="Kang's bound at m n")
            ax.plot(sg["m"], sg["rms_rel_l2"], "s:", label="one copy at gamma^m (measured)")
            ax.set_yscale("log")
            ax.set_xlabel("m (copies)")
            ax.set_ylabel("||X_hat - X|| / ||X||")
            ax.set_title(f"{d}, gamma={g}, N={n}", fontsize=10)
            if r == 0 and c == 0:
                ax.legend(fontsize=8)
    return _save(fig, path)
