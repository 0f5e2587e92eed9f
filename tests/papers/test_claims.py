"""Claim rows of ``ppdm reproduce claims`` for Fig. 2, Kang, Figs. 4-6, fig4-readings and the attacks.

Each test builds a small frame whose statistics are known by hand, so a wrong formula fails.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm_papers.claims import (
    attacks_claims,
    claims,
    fig2_claims,
    fig4_claims,
    kang_claims,
    readings_claims,
)


def _values(frame: pd.DataFrame) -> pd.Series:
    return frame.set_index("claim")["value"]


def _fig2_summary() -> pd.DataFrame:
    rows = []
    # (E_inverse, E_set-scale, E_norm-sub, E_ibu, rms, exact, bound) per cell
    cells = {
        "plateau": [(1.0, 0.4, 0.5, 0.6, 0.5, 0.3, 0.6), (2.0, 1.0, 0.9, 1.2, 0.7, 0.6, 0.6)],
        "triangles": [(0.5, 0.5, 0.5, 0.4, 0.2, 0.1, 0.4), (4.0, 3.0, 3.5, 3.0, 0.3, 0.2, 0.25)],
    }
    for dist, values in cells.items():
        for (gamma, n), v in zip([(2, 5), (9, 10)], values):
            rows.append(
                dict(
                    distribution=dist,
                    gamma=gamma,
                    N=n,
                    **{"E_inverse": v[0], "E_set-scale": v[1], "E_norm-sub": v[2], "E_ibu": v[3]},
                    rms_rel_l2=v[4],
                    exact_rel_l2=v[5],
                    kang_bound=v[6],
                )
            )
    return pd.DataFrame(rows)


def test_fig2_claims_from_a_hand_built_summary():
    c = _values(fig2_claims(_fig2_summary()))
    assert c["plateau mean E inverse"] == pytest.approx(1.5)
    assert c["plateau mean E set-scale"] == pytest.approx(0.7)
    assert c["triangles mean E IBU"] == pytest.approx(1.7)
    assert c["plateau reduction of the mean E (%)"] == pytest.approx(100 * (1 - 0.7 / 1.5))
    # |p - t| / max: inverse cells 0.5/1.0 and 2.0/4.0 -> median 0.5
    assert c["inverse surfaces: median relative difference (%)"] == pytest.approx(50.0)
    # set-scale cells 0.1/0.5 and 2.0/3.0 -> median (0.2 + 2/3) / 2
    assert c["set-scale surfaces: median relative difference (%)"] == pytest.approx(
        100 * (0.2 + 2 / 3) / 2
    )
    assert c["cells with set-scale E <= inverse E"] == 4 and c["cells"] == 4
    assert c["largest 5-run mean E, inverse"] == 4.0
    assert c["plateau median per-cell reduction (%)"] == pytest.approx(100 * (0.6 + 0.5) / 2)
    assert c["plateau share of cells reduced >= 50 % (%)"] == pytest.approx(100.0)
    assert c["triangles share of cells reduced >= 50 % (%)"] == pytest.approx(0.0)
    assert c["triangles share of cells not reduced (%)"] == pytest.approx(50.0)
    assert c["plateau share of cells not reduced (%)"] == pytest.approx(0.0)
    # N = 5: plateau 0.6, triangles 0 -> median 0.3; N = 10: 0.5 and 0.25
    assert c["median per-cell reduction at N = 5 (%)"] == pytest.approx(30.0)
    assert c["median per-cell reduction at N = 10 (%)"] == pytest.approx(37.5)
    # best of set-scale / Norm-Sub / IBU: 0.4 set-scale, 0.9 Norm-Sub, 0.4 IBU, tie 3.0
    assert c["cells where set-scale is best"] == 2
    assert c["cells where Norm-Sub is best"] == 1
    assert c["cells where IBU is best"] == 1
    assert c["cells with exact rel. L2 below Kang's bound"] == 4
    assert c["plateau median exact / Kang bound"] == pytest.approx((0.5 + 1.0) / 2)
    assert c["triangles median exact / Kang bound"] == pytest.approx((0.25 + 0.8) / 2)
    # rms above the bound: plateau 0.7 > 0.6 (one of two), triangles 0.3 > 0.25
    assert c["plateau share of cells with 5-run RMS above the bound (%)"] == pytest.approx(50.0)
    assert c["triangles share of cells with 5-run RMS above the bound (%)"] == pytest.approx(50.0)


def test_fig2_rounding_does_not_count_as_set_scale_losing():
    s = _fig2_summary()
    s.loc[0, "E_set-scale"] = s.loc[0, "E_inverse"] + 1e-17
    c = _values(fig2_claims(s))
    assert c["cells with set-scale E <= inverse E"] == 4
    s.loc[0, "E_set-scale"] = s.loc[0, "E_inverse"] + 1e-6
    assert _values(fig2_claims(s))["cells with set-scale E <= inverse E"] == 3


def test_kang_claims_read_the_quoted_cell_and_count_cells_under_the_bound():
    rows = []
    for m in (1, 4, 10):
        for scheme, rms in (("copies", 1.0 / np.sqrt(m)), ("single", 0.1 / m)):
            for method in ("inverse", "set-scale"):
                rows.append(
                    dict(
                        distribution="plateau",
                        gamma=9,
                        N=100,
                        m=m,
                        scheme=scheme,
                        method=method,
                        rms_rel_l2=rms if method == "inverse" else 9.0,
                        kang_bound=1.2 / np.sqrt(m),
                        amplification=9**m,
                    )
                )
    frame = pd.DataFrame(rows)
    frame.loc[
        (frame.scheme == "copies") & (frame.method == "inverse") & (frame.m == 10), "rms_rel_l2"
    ] = 0.5
    c = kang_claims(frame)
    v = _values(c)
    # set-scale rows (9.0) are not counted; m = 10 copies (0.5 > 0.379) is over the bound
    assert v["copies cells under the bound"] == 2 and v["copies cells"] == 3
    assert v["plateau, gamma 9, N 100: 4 copies, RMS rel. L2"] == pytest.approx(0.5)
    assert v["plateau, gamma 9, N 100: 4 copies, Kang bound"] == pytest.approx(0.6)
    assert v["plateau, gamma 9, N 100: one copy at gamma^4, RMS rel. L2"] == pytest.approx(0.025)
    assert (
        "6561"
        in c.set_index("claim").loc[
            "plateau, gamma 9, N 100: one copy at gamma^4, RMS rel. L2", "note"
        ]
    )


def _readings() -> pd.DataFrame:
    acc = {
        # reading: {dataset: (rep 0, rep 1)}
        "paper": {
            "synth1": (0.8, 0.6),
            "synth2": (0.5, 0.5),
            "pendigits": (0.4, 0.2),
            "spambase": (0.6, 0.6),
        },
        "by-class": {
            "synth1": (0.9, 0.9),
            "synth2": (0.7, 0.5),
            "pendigits": (0.8, 0.8),
            "spambase": (0.7, 0.9),
        },
        "left": {
            "synth1": (0.7, 0.5),
            "synth2": (0.4, 0.4),
            "pendigits": (0.3, 0.3),
            "spambase": (0.6, 0.6),
        },
        "weka-j48": {
            "synth1": (0.75, None),
            "synth2": (0.5, None),
            "pendigits": (0.4, None),
            "spambase": (0.62, None),
        },
    }
    rows = []
    for reading, sets in acc.items():
        for dataset, reps in sets.items():
            for rep, a in enumerate(reps):
                rows.append(
                    dict(dataset=dataset, gamma=5, N=10, rep=rep, reading=reading, accuracy=a)
                )
    return pd.DataFrame(rows)


def test_readings_claims_levels_changes_and_weka():
    r = _readings()
    c = _values(readings_claims(r))
    # paper: synthetic mean of (0.7, 0.5) = 60 %; UCI mean of (0.3, 0.6) = 45 %
    assert c["paper synthetic"] == pytest.approx(60.0)
    assert c["paper UCI"] == pytest.approx(45.0)
    assert c["paper pendigits"] == pytest.approx(30.0)
    assert c["by-class synthetic"] == pytest.approx(75.0)
    assert c["by-class UCI change vs paper"] == pytest.approx(80.0 - 45.0)
    assert c["left synthetic change vs paper"] == pytest.approx(-10.0)
    assert c["representation readings: largest change vs paper"] == pytest.approx(10.0)
    # Weka's J48 only on rep 0: compared with paper's rep 0, not with its two-run mean
    assert c["weka-j48 cell synthetic: J48"] == pytest.approx(62.5)
    assert c["weka-j48 cell synthetic: ppdm C4.5"] == pytest.approx(65.0)
    assert c["weka-j48 cell UCI: ppdm C4.5"] == pytest.approx(50.0)
    assert c["weka-j48: largest |J48 - ppdm C4.5| per data set"] == pytest.approx(5.0)


def test_readings_claims_count_runs_equal_to_fig4():
    r = _readings()
    key = ["dataset", "gamma", "N", "rep"]
    fig4 = pd.concat(
        [
            r[r.reading == "paper"][key + ["accuracy"]].assign(mode="global"),
            r[r.reading == "by-class"][key + ["accuracy"]].assign(mode="by-class"),
        ]
    )
    c = _values(readings_claims(r, fig4))
    assert c["paper runs equal to fig4.csv (global)"] == 8
    assert c["by-class runs equal to fig4.csv (by-class)"] == 8
    fig4.loc[(fig4["mode"] == "global") & (fig4["dataset"] == "synth1"), "accuracy"] += 0.01
    c = _values(readings_claims(r, fig4))
    assert c["paper runs equal to fig4.csv (global)"] == 6
    assert c["by-class runs equal to fig4.csv (by-class)"] == 8


def test_readings_claims_quote_the_fig4_means_over_their_cells():
    r = _readings()
    key = ["dataset", "gamma", "N", "rep"]
    fig4 = pd.concat(
        [
            r[r.reading == "paper"][key + ["accuracy"]].assign(mode="global"),
            r[r.reading == "by-class"][key + ["accuracy"]].assign(mode="by-class"),
        ]
    )
    # a third Fig. 4 run of the cell counts; another (gamma, N) cell does not
    extra = fig4[fig4["rep"] == 0].assign(rep=2, accuracy=1.0)
    other = fig4.assign(gamma=21, accuracy=0.0)
    c = _values(readings_claims(r, pd.concat([fig4, extra, other])))
    # global synthetic: synth1 (0.8, 0.6, 1.0), synth2 (0.5, 0.5, 1.0) -> (0.8 + 2/3) / 2
    assert c["fig4.csv global synthetic mean over the readings' cells"] == pytest.approx(
        100 * (0.8 + 2 / 3) / 2
    )
    # by-class UCI: pendigits (0.8, 0.8, 1.0), spambase (0.7, 0.9, 1.0)
    assert c["fig4.csv by-class UCI mean over the readings' cells"] == pytest.approx(
        100 * ((2.6 / 3) + (2.6 / 3)) / 2
    )


def _fig4() -> pd.DataFrame:
    """Two data sets, gamma 2 and 9, N 5, 10, 15, 20 and 60, two repetitions.

    synth1 (by-class) is 1.0 everywhere; the other accuracies are set by a formula so that
    the N = 5 band is below N = 10 at gamma 9 and above it at gamma 2 in the global mode.
    """
    rows = []
    for dataset in ("synth1", "pendigits"):
        for mode in ("global", "by-class"):
            for gamma in (2, 9):
                for n in (5, 10, 15, 20, 60):
                    for rep in (0, 1):
                        if dataset == "synth1" and mode == "by-class":
                            acc = 1.0
                        elif mode == "global" and n == 5:
                            acc = 0.7
                        else:
                            acc = 0.5 + 0.02 * gamma - 0.001 * n + 0.01 * rep
                        rows.append(
                            dict(
                                dataset=dataset,
                                gamma=gamma,
                                N=n,
                                rep=rep,
                                mode=mode,
                                accuracy=acc,
                                entropy=float(n) / gamma,
                            )
                        )
    return pd.DataFrame(rows)


def test_fig4_claims_levels_ranges_bands_and_n5_gaps():
    f = _fig4()
    c = _values(fig4_claims(f))
    notes = fig4_claims(f).set_index("claim")["note"]
    # synth1 by class: all 10 cells at 100 % in both runs; one run below 100 % breaks a cell
    assert c["synth1 by-class cells at 100 % in every run"] == 10
    assert c["synth1 global cells at 100 % in every run"] == 0
    g = f.copy()
    g.loc[(g.dataset == "synth1") & (g["mode"] == "by-class") & (g.N == 60), "accuracy"] = 0.99
    assert _values(fig4_claims(g))["synth1 by-class cells at 100 % in every run"] == 8
    # per-data-set means: pendigits by class, rep 0: mean over gamma and N of the formula
    expected = 100 * np.mean(
        [0.5 + 0.02 * a - 0.001 * n for a in (2, 9) for n in (5, 10, 15, 20, 60)]
    )
    assert c["by-class pendigits mean (rep 0)"] == pytest.approx(expected)
    assert c["by-class pendigits mean (all reps)"] == pytest.approx(expected + 0.5)
    # band entry (5-run mean averaged over data sets): by class, gamma 9, N 10
    band = (100.0 + 100 * (0.5 + 0.18 - 0.010 + 0.005)) / 2
    assert c["by-class band N 10, gamma 9"] == pytest.approx(band)
    # N >= 60 bands: global gamma 2 (lowest) and gamma 9 (highest)
    low = 100 * (0.5 + 0.04 - 0.06 + 0.005)
    assert c["global bands N >= 60: lowest"] == pytest.approx(low)
    assert c["global bands N >= 60: highest"] == pytest.approx(low + 14.0)
    # global: N = 5 is 70 %; N = 10 is 53.5 % at gamma 2, 67.5 % at gamma 9
    assert c["global N=10 minus N=5 at gamma 2"] == pytest.approx(-16.5)
    assert c["global N=10 minus N=5 at gamma 9"] == pytest.approx(-2.5)
    assert c["global N=5 above N=10: largest gap"] == pytest.approx(16.5)
    assert notes["global N=5 above N=10: largest gap"] == "gammas 2,9"
    assert c["global N=5 below N=15: gammas"] == 0
    # by class N = 5 is above N = 10 (the formula falls with N): no gamma below
    assert c["by-class N=5 below N=20: gammas"] == 0
    assert c["by-class N=10 minus N=5 at gamma 9"] == pytest.approx(-0.25)
    # region ranges over the seven-set (here two-set) averages of the 5-run means
    assert c["global seven-set average, whole grid: highest"] == pytest.approx(70.0)
    assert c["by-class seven-set average, gamma >= 9 and N <= 30: lowest"] == pytest.approx(
        (100.0 + 100 * (0.5 + 0.18 - 0.020 + 0.005)) / 2
    )
    # the lowest band says where it is
    assert notes["by-class lowest cell"] == "gamma 2, N 60"
    # Synth2's best at fixed N is quoted only when Synth2 is there
    assert not any("at N = 15" in k for k in c.index)
    s2 = f[f.dataset == "pendigits"].assign(dataset="synth2")
    c2 = fig4_claims(s2).set_index("claim")
    assert c2.loc["synth2 best 5-run mean at N = 15", "value"] == pytest.approx(
        100 * (0.5 + 0.18 - 0.015 + 0.005)
    )
    assert c2.loc["synth2 best 5-run mean at N = 15", "note"] == "by-class, gamma 9, 2 runs"


def _attacks() -> pd.DataFrame:
    rows = []

    def add(method, attack, rmse, rec, prior=np.nan, t=np.nan):
        rows.append(
            dict(
                experiment="recovery",
                dataset="low-rank",
                privacy_level=0.9,
                method=method,
                attack=attack,
                t=t,
                rmse_rel=rmse,
                recovered=rec,
                prior_only=prior,
            )
        )

    add("additive", "released", 2.0, 0.3)
    add("additive", "spectral_filtering", 1.5, 0.4)
    add("additive", "bayes_reconstruct", 0.5, 0.6)
    add("substitution", "released", 1.6, 0.6, 0.5)
    add("substitution", "spectral_filtering", 0.9, 0.45, 0.5)
    add("substitution", "pca_reconstruct", 1.1, 0.4, 0.5)
    add("substitution", "bayes_reconstruct", 1.0, 0.3, 0.5)
    add("substitution", "bayes_map", 1.1, 0.7, 0.5)
    for t, v in enumerate((0.7, 0.6, 0.55, 0.52)):
        add("substitution", "repeated_map", 1.0, v, 0.5, t)
    rows.append(dict(experiment="entropy", dataset="low-rank", attack=np.nan))
    return pd.DataFrame(rows)


def test_attacks_claims_table_and_counts():
    a = _attacks()
    out = attacks_claims(a)
    c = _values(out)
    notes = out.set_index("claim")["note"]
    assert c["low-rank, pi 0.90: additive released"] == 2.0
    assert c["low-rank, pi 0.90: best attack on additive"] == 0.5
    assert notes["low-rank, pi 0.90: best attack on additive"] == "BE-DR"
    assert c["low-rank, pi 0.90: best attack on substitution"] == 0.9
    assert notes["low-rank, pi 0.90: best attack on substitution"] == "spectral"
    assert c["low-rank, pi 0.90: Bayes MAP recovered"] == 0.7
    assert c["low-rank, pi 0.90: prior-only recovered"] == 0.5
    assert c["low-rank, pi 0.90: repeated MAP recovered, t = 3"] == 0.52
    assert c["largest cut of the additive error by an attack (%)"] == pytest.approx(75.0)
    assert c["levels"] == 1
    assert c["levels where BE-DR lowers the substitution error"] == 1
    assert c["levels where repeated MAP falls at every t"] == 1
    assert c["levels where every data-recovery attack recovers less than MAP"] == 1
    assert c["levels where every data-recovery attack recovers less than prior-only"] == 1
    # a repeated-MAP rise, a BE-DR that does not help and an attack above prior-only
    a.loc[(a.attack == "repeated_map") & (a.t == 2), "recovered"] = 0.65
    a.loc[(a.method == "substitution") & (a.attack == "bayes_reconstruct"), "rmse_rel"] = 1.7
    a.loc[(a.method == "substitution") & (a.attack == "spectral_filtering"), "recovered"] = 0.55
    c = _values(attacks_claims(a))
    assert c["levels where repeated MAP falls at every t"] == 0
    assert c["levels where BE-DR lowers the substitution error"] == 0
    assert c["levels where every data-recovery attack recovers less than prior-only"] == 0
    assert c["levels where every data-recovery attack recovers less than MAP"] == 1


def test_claims_reads_the_new_files_from_out(tmp_path):
    _fig2_summary().to_csv(tmp_path / "fig2_summary.csv", index=False)
    _readings().to_csv(tmp_path / "readings.csv", index=False)
    _attacks().to_csv(tmp_path / "attacks.csv", index=False)
    c = claims(tmp_path)
    assert {"fig2", "readings", "attacks"} == set(c["section"])
