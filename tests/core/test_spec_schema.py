"""The release spec as typed models: matrix and domain kinds, JSON Schema, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ppdm.bayesnet.pram import scheme_matrix
from ppdm.exceptions import SpecError
from ppdm.matrix import MATRIX_KINDS, matrix_from_spec
from ppdm.release import ReleaseSpec, read_spec, spec_json_schema

ROOT = Path(__file__).resolve().parents[2]

#: One hand-written entry per matrix kind, with the categorical values it fits.
KIND_EXAMPLES = {
    "gamma-diagonal": ({"kind": "gamma-diagonal", "gamma": 4.0}, ["a", "b", "c"]),
    "identity": ({"kind": "identity"}, ["a", "b"]),
    "explicit": ({"kind": "explicit", "matrix": [[0.7, 0.2], [0.3, 0.8]]}, ["a", "b"]),
    "symmetric": ({"kind": "symmetric", "p": 0.3}, ["a", "b", "c", "d"]),
    "symmetric-binary": ({"kind": "symmetric-binary", "p": 0.2}, ["a", "b"]),
    "symmetric-ternary": ({"kind": "symmetric-ternary", "p": 0.3}, ["a", "b", "c"]),
    "binary": ({"kind": "binary", "p1": 0.1, "p2": 0.25}, ["a", "b"]),
    "block-diagonal": (
        {"kind": "block-diagonal", "groups": [[0, 2], [1]], "p": 0.2},
        ["a", "b", "c"],
    ),
}


#: Kinds built from the data's marginal (tested in test_pram_kinds.py).
DATA_KIND_EXAMPLES = {
    "invariant-pram": ({"kind": "invariant-pram", "retention": 0.8, "alpha": 0.5}, ["a", "b"]),
    "sdcmicro-pram": ({"kind": "sdcmicro-pram", "pd": 0.8, "alpha": 0.5}, ["a", "b", "c"]),
    "stratified": (
        {
            "kind": "stratified",
            "strata": "region",
            "matrices": {"n": {"kind": "gamma-diagonal", "gamma": 4.0}},
        },
        ["a", "b"],
    ),
}


def test_every_kind_of_the_table_has_an_example():
    assert set(KIND_EXAMPLES) | set(DATA_KIND_EXAMPLES) == set(MATRIX_KINDS)


@pytest.mark.parametrize("kind", sorted(KIND_EXAMPLES))
def test_release_spec_and_bn_scheme_build_the_same_matrix(kind):
    entry, values = KIND_EXAMPLES[kind]
    a = matrix_from_spec(entry, len(values))
    b = scheme_matrix(entry, len(values))
    np.testing.assert_array_equal(a.dense(), b.dense())
    # the written form (to_spec) reads back to the same matrix
    back = matrix_from_spec(json.loads(json.dumps(a.to_spec())), len(values))
    np.testing.assert_allclose(back.dense(), a.dense(), atol=0)


@pytest.mark.parametrize("kind", sorted(KIND_EXAMPLES))
def test_every_matrix_kind_perturbs_and_round_trips(run_cli, tmp_path, kind):
    entry, values = KIND_EXAMPLES[kind]
    rng = np.random.default_rng(1)
    data = tmp_path / "data.csv"
    pd.DataFrame({"v": rng.choice(values, 300), "y": rng.integers(0, 2, 300)}).to_csv(
        data, index=False
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "class_attribute": "y",
                "attributes": [
                    {
                        "name": "v",
                        "domain": {"kind": "categorical", "values": values},
                        "matrix": entry,
                    }
                ],
            }
        )
    )
    code, out, err = run_cli("report", spec)
    assert code == 0, err
    assert "records: not yet released" in out and "None" not in out
    args = ["perturb", data, "--out", tmp_path / "rel", "--spec", spec, "--seed", "3"]
    code, out, err = run_cli(
        *args, *(["--allow-unprotected"] if kind in ("identity", "block-diagonal") else [])
    )
    assert code == 0, err
    released = read_spec(tmp_path / "rel")
    m = released.attribute("v").get_matrix()
    np.testing.assert_allclose(m.dense(), matrix_from_spec(entry, len(values)).dense())
    assert released.attribute("v").matrix["kind"] == kind
    # the released spec reads back unchanged, byte for byte
    text = (tmp_path / "rel" / "spec.json").read_text()
    again = ReleaseSpec.model_validate_json(text)
    assert again.model_dump_json(indent=2, exclude_none=True) + "\n" == text
    code, out, err = run_cli("report", tmp_path / "rel")
    assert code == 0, err
    assert "records: 300" in out


def _readme_spec() -> dict:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?class_attribute: group.*?)```", text, re.S)
    assert block, "the README has a hand-written spec example"
    lines = block.group(1).splitlines()
    indent = min(len(x) - len(x.lstrip()) for x in lines if x.strip())
    return yaml.safe_load("\n".join(x[indent:] for x in lines))


def test_schema_validates_the_readme_example_and_rejects_bad_specs():
    jsonschema = pytest.importorskip("jsonschema")
    schema = spec_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    example = _readme_spec()
    validator.validate(example)
    ReleaseSpec.model_validate(example)
    for entry, _ in (*KIND_EXAMPLES.values(), *DATA_KIND_EXAMPLES.values()):
        validator.validate({"attributes": [{"name": "v", "matrix": entry}]})
    bad = {"attributes": [{"name": "v", "domain": {"kind": "binned", "low": 0, "high": 1}}]}
    assert not validator.is_valid(bad)  # n_bins is missing
    bad = {"attributes": [{"name": "v", "matrix": {"kind": "binary", "p1": 0.1, "q": 1}}]}
    assert not validator.is_valid(bad)


def test_schema_command_prints_the_schema(run_cli):
    code, out, err = run_cli("spec", "schema")
    assert code == 0, err
    assert json.loads(out) == spec_json_schema()


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        (
            {"name": "x", "domain": {"kind": "binned", "low": 0, "high": 1, "n_bins": 3, "w": 1}},
            "invalid at attributes.0.domain.w: unknown key 'w' (allowed: kind, low, high,",
        ),
        ({"name": "x", "colour": 3}, "invalid at attributes.0.colour: unknown key 'colour'"),
        (
            {
                "name": "x",
                "domain": {"kind": "categorical", "values": [1, 2]},
                "matrix": {"kind": "wow"},
            },
            "invalid at attributes.0.matrix: matrix kind must be one of gamma-diagonal,",
        ),
        (
            {
                "name": "x",
                "domain": {"kind": "categorical", "values": [1, 2]},
                "matrix": {"kind": "binary", "p1": 0.1},
            },
            "invalid at attributes.0.matrix.p2: the key 'p2' is missing",
        ),
        (
            {"name": "x", "domain": {"kind": "binned", "low": 2, "high": 1, "n_bins": 3}},
            "invalid at attributes.0: attribute 'x': bad domain: bounds must be finite",
        ),
        (
            {"name": "x", "domain": {"kind": "ordinal"}},
            "invalid at attributes.0.domain: domain kind must be 'categorical' or 'binned'",
        ),
    ],
)
def test_spec_errors_are_one_line_in_the_spec_words(run_cli, tmp_path, attribute, message):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"attributes": [attribute]}))
    with pytest.raises(SpecError) as info:
        read_spec(spec)
    text = str(info.value)
    assert message in text, text
    assert "Value error" not in text and "TypeError" not in text and "\n" not in text
    code, out, err = run_cli("report", spec)
    assert code == 1 and message in err and "Traceback" not in err


def test_report_of_a_spec_without_a_matrix_uses_the_default_gamma(run_cli, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "attributes:\n  - {name: t, domain: {kind: categorical, values: [a, b, c]}}\n"
        "  - {name: u, matrix: {kind: gamma-diagonal, gamma: 5}}\n"
    )
    code, out, err = run_cli("report", spec, "--json")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["n_records"] is None
    assert [a["name"] for a in rep["attributes"]] == ["t"]
    assert rep["attributes"][0]["gamma"] == pytest.approx(9.0)
    assert "'u' has no domain" in err
