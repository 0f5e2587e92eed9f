"""``ppdm noise class | attributes``: noise where the decision tree does not look (Islam & Brankovic)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..validation import check_at_least, check_positive
from ._common import (
    check_flag,
    check_tree_flags,
    fail,
    read_labelled,
    short,
    table_out,
    write_out_table,
)
from ._options import (
    CLASS_OPTION,
    CONFIDENCE_OPTION,
    MIN_LEAF_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_SEED_OPTION,
    InnocentTarget,
    NoiseBoundary,
    NoiseScope,
    NoiseTechnique,
    choice_option,
    flag_option,
    out_option,
    path_argument,
    value_option,
)

noise_app = typer.Typer(
    help="Noise for decision trees (Islam & Brankovic): class noise in heterogeneous leaves, "
    "attribute noise on Leaf / Total Innocent Attributes.",
    no_args_is_help=True,
)


def _load(data: Path, class_column: str):
    frame = read_labelled(data, class_column)
    y = frame[class_column]
    missing = y.isna().to_numpy().nonzero()[0]
    if missing.size:  # the tree and the noise need every record's class
        fail(
            f"input file {str(data)!r} class column {class_column!r} has {missing.size} "
            f"missing value(s), the first at data row {missing[0] + 1}; drop or fill them first"
        )
    return frame, frame.drop(columns=[class_column]), y


def _fmt(v) -> str:
    if isinstance(v, float):
        return "-" if v != v else f"{v:.4f}"
    return "-" if v is None else str(v)


def _table(rows: list[dict], columns: list[tuple[str, str]]) -> str:
    head = [title for _, title in columns]
    body = [[_fmt(r[key]) for key, _ in columns] for r in rows]
    # text columns are left-aligned, numbers right-aligned
    text = [bool(rows) and isinstance(rows[0][key], str) for key, _ in columns]
    widths = [max([len(h)] + [len(b[i]) for b in body]) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(
            c.ljust(w) if t else c.rjust(w) for c, w, t in zip(cells, widths, text)
        ).rstrip()

    return "\n".join([line(head)] + [line(b) for b in body])


DATA = path_argument("FILE", "Original table: .csv, .parquet or .arff.")
OUT = out_option("FILE", "Released table (.csv, .parquet, .arff).", short=True)
JSON = flag_option("--json", "Print the security figures as JSON.")


@noise_app.command("class")
def class_noise(
    data: Path = DATA,
    class_column: str = CLASS_OPTION,
    technique: NoiseTechnique = choice_option(NoiseTechnique.RANDOM, "--technique", short="-t"),
    out: Path = OUT,
    overwrite: bool = OVERWRITE_FILE_OPTION,
    seed: int | None = RELEASE_SEED_OPTION,
    as_json: bool = JSON,
    confidence: float = CONFIDENCE_OPTION,
    min_leaf: int = MIN_LEAF_OPTION,
) -> None:
    """Perturb the class in the heterogeneous leaves of the tree built on the data.

    Prints E(N), the number of changed classes and, per leaf, the probability that a
    released class equals the original one.
    """
    from ..noise import add_class_noise
    from ..tree import C45Classifier

    technique = NoiseTechnique(technique).value

    tree = check_tree_flags(C45Classifier(confidence=confidence, min_leaf=min_leaf))
    table_out(out, overwrite, inputs=(data,))  # a bad --out is refused before any work
    frame, X, y = _load(data, class_column)
    if y.nunique(dropna=True) < 2:
        fail(
            f"class column {class_column!r} has a single value; class noise needs at least "
            "two classes"
        )
    tree.fit(X, y)
    result = add_class_noise(X, y, technique, tree=tree, random_state=seed)
    released = frame.copy()
    released[class_column] = result.y
    write_out_table(released, out, nominal=[class_column])  # ARFF: a class for J48
    report = result.to_dict()
    report["out"] = str(out)
    if as_json:
        typer.echo(json.dumps(report, indent=2, default=str))
        return
    p_all = report["all_leaves_probability"]
    lines = [
        f"{report['technique']} class noise on {report['n_records']} records; tree: "
        f"{report['n_leaves']} leaves, {report['n_heterogeneous_leaves']} heterogeneous",
        f"expected changed classes E(N) = {report['expected_changes']:.3f} "
        f"(sd {report['sd_changes']:.3f}); changed: {report['n_changed']}",
        *([] if p_all is None else [f"every class changed with p = E(N) / N_Total = {p_all:.5f}"]),
        f"class counts: original {report['class_counts_original']}, "
        f"released {report['class_counts_released']}",
        f"mean probability that a released class is the original: {report['mean_p_same']:.4f}",
        "",
        _table(
            report["leaves"],
            [
                ("leaf", "leaf"),
                ("depth", "depth"),
                ("leaf_class", "class"),
                ("n_majority", "m_k"),
                ("n_minority", "n_k"),
                ("expected_changes", "E(N_k)"),
                ("p_same_majority", "P(same|maj)"),
                ("p_same_minority", "P(same|min)"),
                ("p_majority", "P(orig=leaf class)"),
            ],
        ),
        f"\nreleased table written to {out}",
    ]
    typer.echo("\n".join(lines))


@noise_app.command("attributes")
def attribute_noise(
    data: Path = DATA,
    class_column: str = CLASS_OPTION,
    target: InnocentTarget = choice_option(InnocentTarget.TIA, "--target", short="-t"),
    out: Path = OUT,
    overwrite: bool = OVERWRITE_FILE_OPTION,
    sd_fraction: float = value_option(
        0.276, "--sd-fraction", "FRACTION", "Noise sd as a fraction of the value (paper: 0.276)."
    ),
    scope: NoiseScope = choice_option(NoiseScope.ALL, "--scope"),
    boundary: NoiseBoundary = choice_option(NoiseBoundary.REFLECT, "--boundary"),
    attribute: list[str] = value_option(
        None, "--attribute", "COL", "Only these attributes may get noise (repeatable).", short="-a"
    ),
    threshold: float = value_option(0.01, "--threshold", "P", "Candidate records: p(X -> Y) >= P."),
    max_targets: int = value_option(
        1000, "--max-targets", "N", "Re-identification figures on at most N records."
    ),
    seed: int | None = RELEASE_SEED_OPTION,
    as_json: bool = JSON,
    confidence: float = CONFIDENCE_OPTION,
    min_leaf: int = MIN_LEAF_OPTION,
) -> None:
    """Add zero-mean discrete noise to each leaf's innocent attributes.

    The noise is the paper's: relative to the value, a discretised normal on 1 %
    steps within +-100 % with sd --sd-fraction; integers stay integers and values
    stay within each attribute's min and max. Prints the re-identification figures.
    """
    import numpy as np

    from ..noise import add_attribute_noise, paper_noise, reidentification
    from ..tree import C45Classifier

    target, scope = InnocentTarget(target).value, NoiseScope(scope).value
    boundary = NoiseBoundary(boundary).value

    check_flag(check_at_least, max_targets, "--max-targets", 1)
    if not 0 < threshold <= 1:  # also refuses nan
        fail(f"--threshold must be a probability in (0, 1] (got {threshold})", usage=True)
    check_flag(check_positive, sd_fraction, "--sd-fraction")
    try:
        noise = paper_noise(sd_fraction)
    except ValueError as exc:
        fail(f"--sd-fraction: {exc}", usage=True)
    tree = check_tree_flags(C45Classifier(confidence=confidence, min_leaf=min_leaf))
    table_out(out, overwrite, inputs=(data,))  # a bad --out is refused before any work
    frame, X, y = _load(data, class_column)
    unknown = [a for a in attribute or [] if a not in X.columns]
    if unknown:
        fail(f"--attribute names {short(unknown)}, not attributes of {str(data)!r}; its "
             f"columns: {short(list(X.columns))}", usage=True)  # fmt: skip
    if y.nunique(dropna=True) < 2:
        fail(
            f"class column {class_column!r} has a single value; the tree needs at least two classes"
        )
    tree = tree.fit(X, y)
    result = add_attribute_noise(
        X,
        y,
        target,
        noise=noise,
        scope=scope,
        attributes=attribute or None,
        boundary=boundary,
        tree=tree,
        random_state=seed,
    )
    released = frame.copy()
    for name in result.columns:
        released[name] = result.X[name].to_numpy()
    n = len(frame)
    targets = np.unique(np.linspace(0, n - 1, min(n, max_targets)).round().astype(int))
    rep = reidentification(result, threshold=threshold, targets=targets)
    write_out_table(released, out, nominal=[class_column])  # ARFF: a class for J48
    report = result.to_dict()
    report["reidentification"] = rep.summary()
    # the baselines: what an intruder has without the release (a uniform guess of the
    # record, the class shares for the class)
    shares = y.map(y.value_counts(normalize=True)).to_numpy(dtype=float)
    report["reidentification"]["baseline_posterior_true"] = 1.0 / n
    report["reidentification"]["baseline_class_probability"] = float(np.nanmean(shares[targets]))
    report["out"] = str(out)
    if as_json:
        typer.echo(json.dumps(report, indent=2, default=str))
        return
    s = report["reidentification"]
    lines = [
        f"{target.upper()} noise ({report['noise']['name']}) on the records of "
        f"{'every leaf' if scope == 'all' else 'the heterogeneous leaves'}: "
        f"{report['n_cells_perturbed']} values perturbed, {report['n_cells_changed']} changed",
        "",
        _table(
            [
                {
                    "leaf": r["leaf"],
                    "path": ", ".join(r["path"]) or "-",
                    "lia": ", ".join(r["lia"]) or "-",
                    "perturbed": ", ".join(r["perturbed"]) or "-",
                }
                for r in report["leaves"]
            ],
            [("leaf", "leaf"), ("path", "path"), ("lia", "LIA"), ("perturbed", "perturbed")],
        ),
        "",
        "TIA (tested nowhere): " + (", ".join(report["leaves"][0]["tia"]) or "-"),
        "",
        f"re-identification, p(X -> Y) = prod_i p_i(A_i* - A_i) over {len(s['attributes'])} "
        f"known attributes, on {s['n_targets']} records:",
        f"  records a target could be (p > 0): median {s['median_possible']:.0f}, "
        f"mean {s['mean_possible']:.1f}",
        f"  candidates with p >= {s['threshold']:g}: median {s['median_candidates']:.0f}, "
        f"mean {s['mean_candidates']:.1f}"
        + (
            f" (p multiplies {len(s['attributes'])} attributes' probabilities, so for most "
            "targets even the true record's is below the threshold: the records it could be "
            "and the posterior tell more)"
            if s["median_candidates"] == 0 and s["median_possible"] > 0
            else ""
        ),
        f"  mean posterior of the true record: {s['mean_posterior_true']:.4f} "
        f"(a guess without the release: {s['baseline_posterior_true']:.4f}); "
        f"uniquely re-identified: {s['share_unique']:.2%}",
        f"  mean intruder probability of the true class: {s['mean_class_posterior']:.4f} "
        f"(the class shares alone: {s['baseline_class_probability']:.4f})",
        f"\nreleased table written to {out}",
    ]
    typer.echo("\n".join(lines))


def register(app: typer.Typer) -> None:
    app.add_typer(noise_app, name="noise")
