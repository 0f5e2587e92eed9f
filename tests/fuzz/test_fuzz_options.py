"""Bad flag values on every command: one ``error:`` line, exit 2, nothing read changed or written."""

from __future__ import annotations

import pytest
from fuzzkit import (
    FIXED,
    REFUSED,
    USAGE,
    Snapshot,
    assert_clean,
    assert_refused,
    fuzz_class,
    xfail_until,
)
from hypothesis import given, settings
from hypothesis import strategies as st

CLICK_PARSE = (
    "click's usage errors (a value the parser cannot convert, an unknown choice, flag or "
    "command) pass the error boundary unchanged: Typer's usage panel (5-6 lines, no "
    "'error:' prefix), exit 2"
)
EXIT_ONE = (
    "a bad flag value is refused with exit code 1 (failure) where docs/cli.md documents "
    "2 (usage error: bad option value)"
)

BOUNDS_KEPT = "--bounds of a text column or of the class was dropped without a word, exit 0"
#: Refused with exit code 1 today although the flag's value alone is wrong.
EXIT_ONE_CASES = {
    "perturb-bounds-inf",
    "perturb-bounds-huge",
    "perturb-rho-reversed",
    "perturb-rho-nan",
    "perturb-rho-edge",
    "tree-compare-tolerance-neg",
    "noise-sd-nan",
    "noise-sd-neg",
    "noise-class-ext",
    "datasets-ext",
}
#: Unknown choices: click's own usage error, printed as Typer's usage panel.
PANEL_CASES = {
    "perturb-missing",
    "perturb-oob",
    "perturb-representative",
    "perturb-format",
    "perturb-method",
    "perturb-noise",
    "perturb-engine",
    "estimate-method",
    "estimate-engine",
    "reconstruct-method",
    "mine-reconstruct",
    "mine-method",
    "noise-technique",
    "noise-target",
    "noise-scope",
    "noise-boundary",
    "bn-randomize-format",
    "bn-learn-fix",
}
#: Values wrong only for this data (a column it lacks): usage error or failure.
DATA_DEPENDENT = {
    "perturb-bounds-unknown",
    "perturb-class-unknown",
    "perturb-attributes-unknown",
    "tree-class-unknown",
}
# (case id, command line with {table} {release} {model} {network} {codes} {bnrel} {out}
#  placeholders, xfail reason or None)
CASES: list[tuple[str, str, str | None]] = [
    # perturb
    ("perturb-gamma-nan", "perturb {table} --out {out} --gamma nan", None),
    ("perturb-gamma-inf", "perturb {table} --out {out} --gamma inf", None),
    ("perturb-gamma-1", "perturb {table} --out {out} --gamma 1", None),
    ("perturb-gamma-neg", "perturb {table} --out {out} --gamma -1", None),
    ("perturb-gamma-1e400", "perturb {table} --out {out} --gamma 1e400", None),
    ("perturb-gamma-text", "perturb {table} --out {out} --gamma abc", CLICK_PARSE),
    ("perturb-epsilon-record-0", "perturb {table} --out {out} --epsilon-record 0", None),
    ("perturb-epsilon-record-neg", "perturb {table} --out {out} --epsilon-record -2", None),
    ("perturb-epsilon-record-nan", "perturb {table} --out {out} --epsilon-record nan", None),
    ("perturb-epsilon-record-inf", "perturb {table} --out {out} --epsilon-record inf", None),
    (
        "perturb-epsilon-record-text",
        "perturb {table} --out {out} --epsilon-record abc",
        CLICK_PARSE,
    ),
    (
        "perturb-epsilon-split-nan",
        "perturb {table} --out {out} --epsilon-record 5 --epsilon-split x=nan",
        None,
    ),
    ("perturb-epsilon-split-alone", "perturb {table} --out {out} --epsilon-split x=1", None),
    (
        "perturb-epsilon-record-additive",
        "perturb {table} --out {out} --method additive --epsilon-record 5",
        None,
    ),
    ("perturb-bins-0", "perturb {table} --out {out} --bins 0", None),
    ("perturb-bins-1", "perturb {table} --out {out} --bins 1", None),
    ("perturb-bins-neg", "perturb {table} --out {out} --bins -5", None),
    ("perturb-bins-1e7-text", "perturb {table} --out {out} --bins 1e7", CLICK_PARSE),
    ("perturb-bins-10M", "perturb {table} --out {out} --bins 10000000", None),
    ("perturb-bounds-no-colon", "perturb {table} --out {out} --bounds x=0", None),
    ("perturb-bounds-reversed", "perturb {table} --out {out} --bounds x=10:0", None),
    ("perturb-bounds-text", "perturb {table} --out {out} --bounds x=a:b", None),
    ("perturb-bounds-no-name", "perturb {table} --out {out} --bounds =0:10", None),
    ("perturb-bounds-nan", "perturb {table} --out {out} --bounds x=nan:10", None),
    ("perturb-bounds-inf", "perturb {table} --out {out} --bounds x=0:inf", None),
    ("perturb-bounds-huge", "perturb {table} --out {out} --bounds x=-1e308:1e308", None),
    ("perturb-bounds-unknown", "perturb {table} --out {out} --bounds zz=0:1", None),
    ("perturb-bounds-categorical", "perturb {table} --out {out} --bounds k=0:5", BOUNDS_KEPT),
    ("perturb-bounds-class", "perturb {table} --out {out} --class y --bounds y=0:1", BOUNDS_KEPT),
    ("perturb-batch-0", "perturb {table} --out {out} --batch-size 0", None),
    ("perturb-batch-neg", "perturb {table} --out {out} --batch-size -1", None),
    ("perturb-copies-0", "perturb {table} --out {out} --copies 0", None),
    ("perturb-copies-neg", "perturb {table} --out {out} --copies -3", None),
    ("perturb-missing", "perturb {table} --out {out} --missing bogus", None),
    ("perturb-oob", "perturb {table} --out {out} --out-of-bounds bogus", None),
    ("perturb-representative", "perturb {table} --out {out} --representative bogus", None),
    ("perturb-format", "perturb {table} --out {out} --format xml", None),
    ("perturb-method", "perturb {table} --out {out} --method bogus", None),
    ("perturb-noise", "perturb {table} --out {out} --method additive --noise bogus", None),
    (
        "perturb-noise-scale-nan",
        "perturb {table} --out {out} --method additive --noise-scale nan",
        None,
    ),
    (
        "perturb-noise-scale-0",
        "perturb {table} --out {out} --method additive --noise-scale 0",
        None,
    ),
    ("perturb-engine", "perturb {table} --out {out} --engine bogus", None),
    ("perturb-rho-reversed", "perturb {table} --out {out} --rho 0.5 0.1", None),
    ("perturb-rho-nan", "perturb {table} --out {out} --rho nan nan", None),
    ("perturb-rho-edge", "perturb {table} --out {out} --rho 0 1", None),
    ("perturb-gamma-and-rho", "perturb {table} --out {out} --gamma 9 --rho 0.1 0.5", None),
    ("perturb-class-unknown", "perturb {table} --out {out} --class nope", None),
    ("perturb-attributes-unknown", "perturb {table} --out {out} --attributes nope", None),
    ("perturb-unknown-flag", "perturb {table} --out {out} --frobnicate", CLICK_PARSE),
    # estimate / reconstruct / report
    ("estimate-method", "estimate {release} --method bogus", None),
    ("estimate-engine", "estimate {release} --engine bogus", None),
    ("estimate-pairs-one", "estimate {release} --pairs x", None),
    ("estimate-pairs-same", "estimate {release} --pairs x,x", None),
    ("estimate-pairs-unknown", "estimate {release} --pairs x,nope", None),
    ("estimate-pairs-class", "estimate {release} --pairs x,y", None),
    ("estimate-pairs-quote", 'estimate {release} --pairs "x,k', None),
    ("estimate-pairs-three", "estimate {release} --pairs x,k,y", None),
    ("reconstruct-method", "reconstruct {release} --out {out}.csv --method bogus", None),
    ("reconstruct-batch-0", "reconstruct {release} --out {out}.csv --batch-size 0", None),
    ("reconstruct-extension", "reconstruct {release} --out {out}.txt", None),
    # mine / audit / advise
    ("mine-model-out-input", "mine {release} --test {table} --model-out {table}", None),
    ("mine-learner-bare", "mine {release} --test {table} --learner bogus", None),
    ("mine-learner-missing", "mine {release} --test {table} --learner nosuchmodule:X", None),
    ("audit-rho", "audit {release} --original {table} --rho 0.5 0.1", None),
    ("audit-alpha-0", "audit {release} --original {table} --alpha 0", None),
    ("audit-alpha-nan", "audit {release} --original {table} --alpha nan", None),
    ("audit-tolerance-neg", "audit {release} --original {table} --tolerance -1", None),
    ("audit-tolerance-nan", "audit {release} --original {table} --tolerance nan", None),
    ("audit-plot-ext", "audit {release} --original {table} --plot {out}.txt", None),
    ("audit-trials-0", "audit {release} --empirical-epsilon --trials 0", None),
    ("audit-trials-neg", "audit {release} --empirical-epsilon --trials -5", None),
    ("audit-nothing", "audit {release}", None),
    ("advise-gamma", "advise {table} --class y --out {out} --gamma x..y", None),
    ("advise-ns", "advise {table} --class y --out {out} --ns a,b", None),
    ("advise-accuracy", "advise {table} --class y --out {out} --min-accuracy 200", None),
    ("advise-reps", "advise {table} --class y --out {out} --reps 0", None),
    ("advise-jobs", "advise {table} --class y --out {out} --jobs 0", None),
    # tree
    ("tree-confidence-nan", "tree train {table} --class y --out {out}.pkl --confidence nan", None),
    ("tree-confidence-0", "tree train {table} --class y --out {out}.pkl --confidence 0", None),
    ("tree-confidence-2", "tree train {table} --class y --out {out}.pkl --confidence 2", None),
    ("tree-min-leaf-0", "tree train {table} --class y --out {out}.pkl --min-leaf 0", None),
    ("tree-class-unknown", "tree train {table} --class nope --out {out}.pkl", None),
    ("tree-predict-ext", "tree predict {model} {table} --out {out}.txt", None),
    (
        "tree-compare-tolerance",
        "tree compare {model} {model} --tolerance nan",
        "tree compare accepts --tolerance nan (exit 0, every threshold comparison false)",
    ),
    ("tree-compare-tolerance-neg", "tree compare {model} {model} --tolerance -1", None),
    # noise
    ("noise-technique", "noise class {table} --class y --out {out}.csv --technique bogus", None),
    ("noise-target", "noise attributes {table} --class y --out {out}.csv --target bogus", None),
    (
        "noise-sd-nan",
        "noise attributes {table} --class y --out {out}.csv --sd-fraction nan",
        None,
    ),
    ("noise-sd-neg", "noise attributes {table} --class y --out {out}.csv --sd-fraction -1", None),
    ("noise-scope", "noise attributes {table} --class y --out {out}.csv --scope bogus", None),
    ("noise-boundary", "noise attributes {table} --class y --out {out}.csv --boundary bogus", None),
    (
        "noise-max-targets",
        "noise attributes {table} --class y --out {out}.csv --max-targets 0",
        None,
    ),
    ("noise-class-ext", "noise class {table} --class y --out {out}.txt", None),
    # bn
    ("bn-sample-n-0", "bn sample {network} --n 0 --out {out}.csv", None),
    ("bn-sample-n-neg", "bn sample {network} --n -1 --out {out}.csv", None),
    ("bn-sample-n-1e13-text", "bn sample {network} --n 1e13 --out {out}.csv", None),
    ("bn-sample-n-1e13", "bn sample {network} --n 10000000000000 --out {out}.csv", None),
    ("bn-sample-ext", "bn sample {network} --n 10 --out {out}.arff", None),
    (
        "bn-randomize-format",
        "bn randomize {codes} --scheme {network} --out {out} --format xml",
        None,
    ),
    ("bn-learn-model", "bn learn {network} --release {bnrel} --out {out}.json --model 3", None),
    (
        "bn-learn-prior",
        "bn learn {network} --release {bnrel} --out {out}.json --prior dirichlet:-1",
        None,
    ),
    ("bn-learn-fix", "bn learn {network} --release {bnrel} --out {out}.json --fix bogus", None),
    ("bn-learn-ext", "bn learn {network} --release {bnrel} --out {out}.txt", None),
    ("bn-reproduce", "bn reproduce bogus --out {out}", None),
    # datasets / reproduce / demo
    ("datasets-unknown", "datasets export bogus --out {out}.csv", None),
    ("datasets-ext", "datasets export wisconsin --out {out}.txt", None),
    ("reproduce-unknown", "reproduce bogus --out {out}", None),
    ("reproduce-jobs", "reproduce fig3 --out {out} --jobs 0", None),
    ("reproduce-seed", "reproduce fig3 --out {out} --seed -1", None),
    ("reproduce-learner", "reproduce fig3 --out {out} --learner bogus", None),
    ("reproduce-engine", "reproduce fig3 --out {out} --engine bogus", None),
    ("demo-gamma", "demo --gamma 1", None),
    ("demo-n", "demo --n 5", None),
    ("demo-bins", "demo --bins 1", None),
    ("unknown-command", "frobnicate", CLICK_PARSE),
]


FIXTURES = {
    "table": "table",
    "release": "release",
    "model": "model",
    "network": "network",
    "codes": "codes",
    "bnrel": "bn_release",
}


# fixed since they were written down; kept to document what was found
FIXED.add(CLICK_PARSE)
FIXED.add(EXIT_ONE)
FIXED.add(BOUNDS_KEPT)
FIXED.add("tree compare accepts --tolerance nan (exit 0, every threshold comparison false)")


def _paths(request, line: str) -> dict:
    """Build only the inputs the command line names."""
    paths = {k: request.getfixturevalue(f) for k, f in FIXTURES.items() if "{" + k + "}" in line}
    paths["out"] = request.getfixturevalue("tmp_path") / "out"
    return paths


def _params():
    for case_id, line, reason in CASES:
        marks = [fuzz_class("bad options")]
        if case_id in EXIT_ONE_CASES:
            reason = EXIT_ONE
        if case_id in PANEL_CASES:
            reason = CLICK_PARSE
        if reason:
            marks.append(xfail_until(reason))
        exits = REFUSED if case_id in DATA_DEPENDENT else USAGE
        yield pytest.param(line, exits, id=case_id, marks=marks)


@pytest.mark.parametrize(("line", "exits"), list(_params()))
def test_bad_option_is_refused(cli, request, line, exits):
    paths = _paths(request, line)
    args = [part.format(**paths) for part in line.split()]
    inputs = [p for k, p in paths.items() if k != "out"]
    outputs = [paths["out"]] + [
        paths["out"].with_name(f"out.{e}") for e in ("csv", "pkl", "json", "txt", "arff")
    ]
    snap = Snapshot(inputs=inputs, outputs=outputs)
    assert_refused(cli(*args), snap, exits)


# -- generated option values ------------------------------------------------------------

NUMBERS = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "0", "1", "1.0000000001", "2", "9"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
)


@fuzz_class("bad options", examples=30)
@settings(settings.get_profile("fuzz"), max_examples=30)
@given(gamma=NUMBERS, bins=st.one_of(st.none(), st.integers(-3, 70)), lo=NUMBERS, hi=NUMBERS)
def test_generated_gamma_bins_bounds(cli, tmp_path_factory, table, gamma, bins, lo, hi):
    out = tmp_path_factory.mktemp("opt") / "rel"
    args = ["perturb", table, "--out", out, "--gamma", gamma, "--bounds", f"x={lo}:{hi}"]
    if bins is not None:
        args += ["--bins", str(bins)]
    snap = Snapshot(inputs=[table], outputs=[out])
    result = cli(*args, "--out-of-bounds", "clip")
    if assert_clean(result, snap, USAGE | {1}):
        from ppdm.pipeline import load_release, verify_release

        spec = load_release(out).spec
        assert verify_release(out) == spec.n_records
        g = float(gamma)
        assert 1 < g < float("inf")
        privacy = spec.attribute("x").privacy
        assert privacy["gamma"] <= g * (1 + 1e-9)
        # the integer sampler realises a channel never more amplifying than asked for
        assert 1 < privacy["gamma_realised"] <= privacy["gamma"]
