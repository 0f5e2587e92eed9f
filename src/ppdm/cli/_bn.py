"""``ppdm bn``: Bayesian networks from post-randomized data (Ma & Sivakumar)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..exceptions import OutputError
from ..publish import check_output, publish_dir, publish_file
from ._common import (
    check_flag,
    distinct_outputs,
    fail,
    file_out,
    table_out,
    write_out_table,
)
from ._options import (
    OVERWRITE_DIR_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_SEED_OPTION,
    NegativeFix,
    TableFormat,
    choice_option,
    file_option,
    flag_option,
    out_option,
    path_argument,
    seed_option,
    value_option,
)

bn_app = typer.Typer(
    help="Bayesian-network parameters from post-randomized data (Ma & Sivakumar).",
    no_args_is_help=True,
)


def _read_net(path: Path):
    from ..bayesnet.files import read_network

    try:
        return read_network(path)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        fail(f"NET {str(path)!r}: {exc}")


def _parse_prior(prior: str | None) -> float | None:
    if prior is None:
        return None
    kind, _, value = prior.partition(":")
    try:
        alpha = float(value)
    except ValueError:
        alpha = float("nan")
    if kind != "dirichlet" or not alpha > 0:
        fail(f"--prior must look like dirichlet:ALPHA with ALPHA > 0 (got {prior!r})", usage=True)
    return alpha


@bn_app.command("sample")
def sample(
    net: Path = path_argument(
        "NET", "Network file (ppdm-bn/1 JSON/YAML, or BIF/XMLBIF) with every CPD."
    ),
    n: str = value_option(
        ...,
        "--n",
        "N",
        "Number of records, 1 to 1e9 (ppdm.limits.MAX_RECORDS); 1e6 notation works.",
    ),
    out: Path = out_option("FILE", "Output table: .csv or .parquet (state names)."),
    seed: int | None = seed_option("Seed for a reproducible sample."),
    codes: bool = flag_option(
        "--codes", "Write integer state codes 0..K-1 instead of state names."
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Draw N records from a network by forward sampling (one column of state names per node)."""
    from ..bayesnet.sampling import forward_sample
    from ..limits import check_n_records

    try:
        count = float(n) if any(ch in n for ch in ".eE") else int(n)
    except ValueError:
        fail(f"--n must be a whole number (got {n[:40]!r})", usage=True)
    n_records = check_flag(check_n_records, count, "--n")
    if table_out(out, overwrite, inputs=(net,)) == "arff":
        fail("--out must be .csv or .parquet", usage=True)
    network = _read_net(net)
    if not network.is_complete:
        missing = [v for v in network.names if not network.has_cpd(v)]
        fail(f"NET {str(net)!r} has no CPD for {missing}; sampling needs every CPD")
    frame = forward_sample(network, n_records, random_state=seed)
    if not codes:
        frame = network.decode(frame)
    write_out_table(frame, out)
    what = "state codes" if codes else "state names"
    typer.echo(f"wrote {n_records} records of {len(network.names)} variables ({what}) to {out}")


@bn_app.command("randomize")
def randomize(
    data: Path = path_argument("FILE", "Table of state codes or names (.csv or .parquet)."),
    scheme: Path = file_option(
        "--scheme", "Scheme file (JSON/YAML): variables, randomize groups, party."
    ),
    net: Path | None = value_option(
        None,
        "--net",
        "NET",
        "Network whose state names the data may use.",
        show_default="codes 0..K-1",
    ),
    out: Path = out_option("DIR", "Release directory to write."),
    fmt: TableFormat = choice_option(TableFormat.PARQUET, "--format"),
    seed: int | None = RELEASE_SEED_OPTION,
    allow_unprotected: bool = flag_option(
        "--allow-unprotected",
        "Release even if the scheme randomizes no variable, or a randomized group's matrix "
        "protects nothing (infinite amplification, or a value almost never changed).",
    ),
    overwrite: bool = OVERWRITE_DIR_OPTION,
) -> None:
    """Post-randomize a party's columns and write a release (data file + release.json)."""
    from ..bayesnet.network import encode_states, read_mapping
    from ..bayesnet.parties import Release, write_release
    from ..bayesnet.pram import PramScheme
    from ..io import read_table
    from ..random import warn_seeded_release

    inputs = (data, scheme) + ((net,) if net is not None else ())
    check_output(out, inputs=inputs, directory=True, overwrite=overwrite)
    fmt = TableFormat(fmt).value
    if not scheme.exists():
        fail(f"--scheme file {str(scheme)!r} does not exist")
    try:
        spec = read_mapping(scheme)
        pram = PramScheme.from_spec(spec)
    except ValueError as exc:
        fail(f"--scheme {str(scheme)!r}: {exc}")
    _check_protection(pram, scheme, allow_unprotected)
    states = {v: tuple(str(i) for i in range(k)) for v, k in pram.cardinalities.items()}
    network = _read_net(net) if net is not None else None
    for v, k in pram.cardinalities.items():
        if network is not None and v in network.names:
            if network.cardinality(v) != k:
                fail(
                    f"--net {str(net)!r}: {v!r} has {network.cardinality(v)} states but "
                    f"--scheme {str(scheme)!r} gives {k}"
                )
            states[v] = network.node(v).states
    try:
        frame = encode_states(read_table(data), states)
        pram.check_frame(frame)
    except (ValueError, FileNotFoundError) as exc:
        fail(f"DATA {str(data)!r}: {exc}")
    if seed is not None:
        warn_seeded_release(stacklevel=1)
    party = str(spec.get("party") or data.stem)
    released = pram.randomize(frame[list(pram.variables)], random_state=seed, party=party)
    rel = Release(party, released, pram, spec.get("recipient"))
    with publish_dir(out) as tmp:
        write_release(rel, tmp, fmt=fmt)
    typer.echo(
        f"wrote release of {len(released)} records to {out} "
        f"(randomized: {', '.join(pram.randomized_variables) or 'none'})"
    )
    kept = [v for v in pram.variables if not pram.is_randomized(v)]
    if kept:
        typer.echo(f"note: released without randomization: {', '.join(kept)}", err=True)


def _check_protection(pram, scheme: Path, allow_unprotected: bool) -> None:
    """Refuse a randomized group whose matrix protects nothing (infinite amplification,
    or a value almost never changed), unless the owner allows it."""
    import numpy as np

    from ..privacy import changes_nothing

    if allow_unprotected:
        return
    if not pram.randomized_variables:
        fail(
            f"--scheme {str(scheme)!r} randomizes no variable: the release would be the data "
            "as it is; pass --allow-unprotected to write it knowingly (a party's own data for "
            "model 1)"
        )
    for r in pram.randomizations:
        if not np.isfinite(r.gamma):
            why = (
                "has infinite amplification (a zero entry lets released values reveal the original)"
            )
        elif changes_nothing(r.matrix):
            why = f"changes a value with probability {r.matrix.least_change():.2g} only"
        else:
            continue
        fail(
            f"--scheme {str(scheme)!r}: the randomization of {list(r.variables)} {why}, so it "
            "protects nothing; use a matrix with positive entries, or pass "
            "--allow-unprotected to release it knowingly"
        )


@bn_app.command("learn")
def learn(
    net: Path = path_argument("NET", "Network structure (CPDs optional)."),
    release: list[Path] = value_option(..., "--release", "DIR", "Release directory (repeatable)."),
    model: int = value_option(
        2, "--model", "1|2", "1: a party learns its nodes; 2: a miner learns all."
    ),
    party: str | None = value_option(
        None, "--party", "NAME", "Model 1: the learning party's name."
    ),
    prior: str | None = value_option(
        None,
        "--prior",
        "dirichlet:ALPHA",
        "MAP estimate with a Dirichlet prior.",
        show_default="ML",
    ),
    fix: NegativeFix = choice_option(NegativeFix.NORM_SUB, "--fix"),
    out: Path = out_option(
        "FILE", "Output network file (.json/.yaml, or .bif/.xmlbif with pgmpy)."
    ),
    stderr: Path | None = out_option(
        "FILE", "Also write theta and stderr (CSV).", default=None, flag="--stderr"
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Estimate CPDs from releases: N_ijk through the Kronecker structure, then ML or MAP.

    Model 2 learns every node from all releases. Model 1 learns the nodes held by
    --party (its release must be its clean data, e.g. randomized with an empty scheme)
    from its data and the other parties' randomized parents; CPDs already in NET for
    other nodes are kept, so parties can chain their outputs to share parameters.
    """
    from ..bayesnet.estimation import estimate_parameters
    from ..bayesnet.files import write_network
    from ..bayesnet.parties import combine_releases, read_release

    if model not in (1, 2):
        fail(f"--model must be 1 or 2 (got {model})", usage=True)
    fix = NegativeFix(fix).value
    alpha = _parse_prior(prior)
    suffix = out.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml", ".bif", ".xmlbif", ".xml"):
        fail(
            f"--out must end in .json, .yaml, .yml, .bif, .xmlbif or .xml (got {str(out)!r})",
            usage=True,
        )
    inputs = (net, *release)
    distinct_outputs(("--out", out), ("--stderr", stderr))
    file_out(out, overwrite, inputs=inputs)
    if stderr is not None:
        file_out(stderr, overwrite, inputs=inputs, flag="--stderr")
    structure = _read_net(net)
    releases = []
    for d in release:
        try:
            releases.append(read_release(d))
        except (ValueError, FileNotFoundError) as exc:
            fail(f"--release {str(d)!r}: {exc}")
    try:
        frame, scheme = combine_releases(releases)
    except ValueError as exc:
        fail(str(exc))
    if model == 2:
        nodes = list(structure.topological_order)
        missing = [v for v in nodes if v not in scheme.cardinalities]
        if missing:
            fail(f"model 2 needs every variable; the releases lack {missing}")
    else:
        names = [r.party for r in releases]
        if party is None or party not in names:
            fail(
                f"model 1 needs --party naming one of the releases' parties {names} (got {party!r})",
                usage=True,
            )
        own = next(r for r in releases if r.party == party)
        if own.scheme.randomized_variables:
            fail(f"model 1: party {party!r}'s own release must be unrandomized (its clean data)")
        nodes = [v for v in structure.topological_order if v in own.scheme.cardinalities]
    try:
        fit = estimate_parameters(structure, frame, scheme, nodes=nodes, prior=alpha, fix=fix)
    except ValueError as exc:
        fail(str(exc))
    result = structure.with_cpds(fit.network.cpds)
    try:
        with publish_file(out) as tmp:
            write_network(result, tmp, fmt=suffix)
    except OutputError:
        raise  # an output over an input: the boundary reports it as a bad --out (exit 2)
    except (ImportError, ValueError) as exc:
        fail(f"--out {str(out)!r}: {exc}")
    if stderr is not None:
        stderr_table = fit.table()
        with publish_file(stderr) as tmp:
            stderr_table.to_csv(tmp, index=False)
    typer.echo(f"learnt {len(nodes)} CPDs ({'MAP' if alpha else 'ML'}, model {model}) -> {out}")
    if stderr is not None:
        typer.echo(f"wrote {len(stderr_table)} rows (theta, stderr) to {stderr}")


@bn_app.command("compare")
def compare(
    net_a: Path = path_argument("NET_A", "Reference network (e.g. learnt from clean data)."),
    net_b: Path = path_argument("NET_B", "Other network (same structure)."),
    data: Path = file_option("--data", "Table of state codes or names giving P(parents)."),
    out: Path | None = out_option("FILE", "Also write the table as CSV.", default=None),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """CKL distance per node between two parameter sets (Sec. 6.2), in nats."""
    import math

    if out is not None:
        file_out(out, overwrite, inputs=(net_a, net_b, data))

    from ..bayesnet.ckl import ckl_per_node, infinite_ckl_cause
    from ..io import read_table

    a, b = _read_net(net_a), _read_net(net_b)
    try:
        frame = a.encode(read_table(data))
    except (ValueError, FileNotFoundError) as exc:
        fail(f"--data {str(data)!r}: {exc}")
    parents = sorted({p for v in a.names for p in a.parents(v)} - set(frame.columns))
    if parents:  # P(parents) is read off the data
        fail(f"--data {str(data)!r} has no column for the parents {parents} of NET_A's nodes")
    try:
        table = ckl_per_node(a, b, frame)
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc))
    for row in table.itertuples():
        line = f"{row.node:12s} {row.ckl:.6g}"
        if math.isinf(row.ckl):
            cause = infinite_ckl_cause(a, b, row.node, frame)
            if cause:
                line += f"  (infinite: {cause})"
        typer.echo(line)
    if out is not None:
        with publish_file(out) as tmp:
            table.to_csv(tmp, index=False)
        typer.echo(f"wrote {len(table)} rows (node, ckl) to {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(bn_app, name="bn")
