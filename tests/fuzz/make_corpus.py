"""Write the corpus of hostile input files (``tests/fuzz/corpus/``).

Run ``python tests/fuzz/make_corpus.py`` to regenerate it; the output is deterministic.
Large inputs (a 1 MB field, a 20 MB spec) are made by the tests themselves, so the
corpus stays small. Each file is named ``CLASS--CASE.EXT``.
"""

from __future__ import annotations

import decimal
import json
import pickle
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"

GOOD_ROWS = "".join(f"{i % 10}.5,{'abc'[i % 3]},{('no', 'yes')[i % 2]}\n" for i in range(40))

CSV_TABLES: dict[str, bytes] = {
    # malformed or odd CSV tables; a valid table has columns x (number), k, y (class)
    "ragged-long": ("x,k,y\n" + GOOD_ROWS + "1.5,a,no,extra\n" + GOOD_ROWS).encode(),
    "ragged-short": ("x,k,y\n" + GOOD_ROWS + "1.5,a\n" + GOOD_ROWS).encode(),
    "empty": b"",
    "blank-lines": b"\n\n\n",
    "header-only": b"x,k,y\n",
    "duplicate-header": ("x,x,y\n" + GOOD_ROWS).encode(),
    "empty-header": (",k,y\n" + GOOD_ROWS).encode(),
    "latin1": ("x,k,y\n" + GOOD_ROWS + "2.5,caf\xe9,no\n").encode("latin-1"),
    "nul-byte": ("x,k,y\n" + GOOD_ROWS).encode() + b"3.5,a\x00b,yes\n",
    "bom": b"\xef\xbb\xbf" + ("x,k,y\n" + GOOD_ROWS).encode(),
    "crlf": ("x,k,y\n" + GOOD_ROWS).replace("\n", "\r\n").encode(),
    "quoted-newline": ("x,k,y\n" + GOOD_ROWS + '4.5,"a\nb",no\n').encode(),
    "quote-unbalanced": ("x,k,y\n" + GOOD_ROWS + '4.5,"abc,no\n' + GOOD_ROWS).encode(),
    "quote-inside": ("x,k,y\n" + GOOD_ROWS + '4.5,"say ""hi""",no\n').encode(),
    "huge-int": (
        "x,k,y\n" + "".join(f"{2**53 + 2 * i + 1},{'ab'[i % 2]},{i % 2}\n" for i in range(40))
    ).encode(),
    "int-overflow": ("x,k,y\n" + GOOD_ROWS + f"{2**70},a,no\n").encode(),
    "inf-nan": ("x,k,y\n" + GOOD_ROWS + "inf,a,no\n-inf,b,yes\nnan,c,no\n").encode(),
    "codes-leading-zero": (
        "zip,k,y\n"
        + "".join(
            f"{z},{'ab'[i % 2]},{('no', 'yes')[i % 2]}\n"
            for i, z in enumerate(["00501", "02134", "10001", "00501"] * 10)
        )
    ).encode(),
    "mixed-kinds": ("x,k,y\n" + GOOD_ROWS + "abc,a,no\n").encode(),
    "one-column": ("y\n" + "".join(f"{('no', 'yes')[i % 2]}\n" for i in range(40))).encode(),
    "one-row": b"x,k,y\n1.5,a,no\n",
    "whitespace-names": ("x , k,y\n" + GOOD_ROWS).encode(),
    "semicolons": ("x;k;y\n" + GOOD_ROWS.replace(",", ";")).encode(),
}


def _parquet_tables() -> dict[str, object]:
    import pyarrow as pa

    n = 40
    y = pa.array([("no", "yes")[i % 2] for i in range(n)])
    x = pa.array([float(i % 10) + 0.5 for i in range(n)])
    return {
        "nested-list": pa.table({"x": x, "k": pa.array([[i, i + 1] for i in range(n)]), "y": y}),
        "nested-struct": pa.table(
            {"x": x, "k": pa.array([{"a": i, "b": str(i)} for i in range(n)]), "y": y}
        ),
        "nested-map": pa.table(
            {
                "x": x,
                "k": pa.array(
                    [[("a", i)] for i in range(n)], type=pa.map_(pa.string(), pa.int64())
                ),
                "y": y,
            }
        ),
        "timestamps": pa.table(
            {
                "x": pa.array([i * 86_400_000_000 for i in range(n)], type=pa.timestamp("us")),
                "k": pa.array(["abc"[i % 3] for i in range(n)]),
                "y": y,
            }
        ),
        "decimals": pa.table(
            {
                "x": pa.array(
                    [decimal.Decimal(f"{i}.25") for i in range(n)], type=pa.decimal128(10, 2)
                ),
                "k": pa.array(["abc"[i % 3] for i in range(n)]),
                "y": y,
            }
        ),
        "bools": pa.table({"x": x, "k": pa.array([i % 3 == 0 for i in range(n)]), "y": y}),
        "huge-int": pa.table(
            {"x": pa.array([2**62 + i for i in range(n)], type=pa.int64()), "k": y, "y": y}
        ),
        "uint64-max": pa.table(
            {"x": pa.array([2**64 - 1 - i for i in range(n)], type=pa.uint64()), "k": y, "y": y}
        ),
        "binary": pa.table({"x": x, "k": pa.array([bytes([i, 0, 255]) for i in range(n)]), "y": y}),
        "dictionary": pa.table(
            {"x": x, "k": pa.array(["abc"[i % 3] for i in range(n)]).dictionary_encode(), "y": y}
        ),
        "all-null": pa.table({"x": pa.array([None] * n, type=pa.float64()), "k": y, "y": y}),
        "no-rows": pa.table(
            {
                "x": pa.array([], type=pa.float64()),
                "k": pa.array([], pa.string()),
                "y": pa.array([], pa.string()),
            }
        ),
        "inf-nan": pa.table(
            {
                "x": pa.array([float("inf"), float("-inf"), float("nan")] + [1.0] * (n - 3)),
                "k": y,
                "y": y,
            }
        ),
    }


SPECS: dict[str, str] = {
    # hand-written specs for perturb --spec and report
    "null.json": "null",
    "list.json": "[]",
    "string.json": '"attributes"',
    "number.json": "1e400",
    "empty-object.json": "{}",
    "bad-json.json": '{"attributes": [',
    "deep.json": "[" * 50_000 + "]" * 50_000,
    "deep-object.json": '{"a":' * 20_000 + "1" + "}" * 20_000,
    "nan.json": '{"attributes": [{"name": "x", "domain": {"kind": "binned", "low": NaN, '
    '"high": 1, "n_bins": 2}}]}',
    "bins-huge.json": '{"attributes": [{"name": "x", "domain": {"kind": "binned", "low": 0, '
    '"high": 10, "n_bins": 10000000}}, {"name": "k", "perturbed": false}, '
    '{"name": "y", "perturbed": false}]}',
    "matrix-huge.json": '{"attributes": [{"name": "x", "domain": {"kind": "binned", "low": 0, '
    '"high": 10, "n_bins": 100000}, "matrix": {"kind": "gamma-diagonal", "gamma": 9}}, '
    '{"name": "k", "perturbed": false}, {"name": "y", "perturbed": false}]}',
    "alias-bomb.yaml": "\n".join(
        ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
        + ["attributes: *a8", ""]
    ),
    "yaml-python-tag.yaml": "attributes: !!python/object/apply:os.system ['echo pwned']\n",
    "yaml-tabs.yaml": "attributes:\n\t- name: x\n",
    "unknown-key.json": '{"attributes": [{"name": "x"}], "seed": 42}',
    "gamma-negative.json": '{"attributes": [{"name": "x", "domain": {"kind": "binned", "low": 0, '
    '"high": 10, "n_bins": 4}, "matrix": {"kind": "gamma-diagonal", "gamma": -3}}, '
    '{"name": "k", "perturbed": false}, {"name": "y", "perturbed": false}]}',
    # PRAM matrices (docs/pram.md): each bad parameter named with its attribute and value
    **{
        f"pram-{case}.json": json.dumps(
            {
                "attributes": [
                    {"name": "x", "perturbed": False},
                    {"name": "k", "matrix": matrix},
                    {"name": "y", "perturbed": False},
                ]
            }
        )
        for case, matrix in {
            "pd-zero": {"kind": "sdcmicro-pram", "pd": 0, "alpha": 0.5},
            "pd-above-one": {"kind": "sdcmicro-pram", "pd": 1.5, "alpha": 0.5},
            "alpha-negative": {"kind": "sdcmicro-pram", "pd": 0.8, "alpha": -0.5},
            "alpha-above-one": {"kind": "invariant-pram", "retention": 0.8, "alpha": 2},
            "retention-zero": {"kind": "invariant-pram", "retention": [0.9, 0, 0.9], "alpha": 0.5},
            "base-not-stochastic": {
                "kind": "invariant-pram",
                "base": [[0.5, 0.2, 0.2], [0.2, 0.5, 0.2], [0.2, 0.2, 0.5]],
                "alpha": 0.5,
            },
            "base-negative": {
                "kind": "invariant-pram",
                "base": [[1.1, 0.2, 0.2], [-0.1, 0.6, 0.2], [0.0, 0.2, 0.6]],
                "alpha": 0.5,
            },
            "stratum-unseen": {
                "kind": "stratified",
                "strata": "x",
                "matrices": {"99": {"kind": "gamma-diagonal", "gamma": 9}},
            },
            "stratum-matrix-bad": {
                "kind": "stratified",
                "strata": "x",
                "matrices": {"1": {"kind": "sdcmicro-pram", "pd": -1, "alpha": 0.5}},
            },
        }.items()
    },
}

NETWORKS: dict[str, str] = {
    "null.yaml": "null\n",
    "list.yaml": "- a\n- b\n",
    "no-nodes.yaml": "format: ppdm-bn/1\nname: x\n",
    "cycle.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: ['0', '1'], parents: [B]}\n"
    "  - {name: B, states: ['0', '1'], parents: [A]}\n",
    "unknown-parent.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: ['0', '1'], parents: [Z]}\n",
    "cpd-negative.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: ['0', '1'], parents: [], cpd: [-0.5, 1.5]}\n",
    "cpd-nan.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: ['0', '1'], parents: [], cpd: [.nan, .nan]}\n",
    "cpd-shape.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: ['0', '1'], parents: [], cpd: [[0.5], [0.5], [0.1]]}\n",
    "states-huge.yaml": "format: ppdm-bn/1\nnodes:\n"
    "  - {name: A, states: 100000000, parents: []}\n",
    "alias-bomb.yaml": SPECS["alias-bomb.yaml"].replace("attributes:", "nodes:"),
    "python-tag.yaml": "format: ppdm-bn/1\nnodes: !!python/object/apply:os.system ['echo pwned']\n",
    "not-yaml.yaml": "nodes: [unclosed\n",
}


def build(directory: Path = CORPUS) -> list[Path]:
    """Write every corpus file into ``directory``; return their paths."""
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in CSV_TABLES.items():
        p = directory / f"table--{name}.csv"
        p.write_bytes(data)
        written.append(p)
    for name, t in _parquet_tables().items():
        p = directory / f"table--{name}.parquet"
        pq.write_table(t, p)
        written.append(p)
    for name, text in SPECS.items():
        p = directory / f"spec--{name}"
        p.write_text(text, encoding="utf-8")
        written.append(p)
    for name, text in NETWORKS.items():
        p = directory / f"network--{name}"
        p.write_text(text, encoding="utf-8")
        written.append(p)
    p = directory / "model--random.bin"
    p.write_bytes(bytes((i * 131 + 7) % 256 for i in range(4096)))
    written.append(p)
    p = directory / "model--not-a-dict.pkl"
    p.write_bytes(pickle.dumps(42, protocol=4))
    written.append(p)
    p = directory / "model--truncated.pkl"
    p.write_bytes(b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c")
    written.append(p)
    p = directory / "model--wrong-format.pkl"
    p.write_bytes(pickle.dumps({"format": "bad", "version": 1}, protocol=4))
    written.append(p)
    (directory / "README").write_text(
        "Hostile inputs of the fuzz suite, written by tests/fuzz/make_corpus.py.\n"
        "Names are CLASS--CASE.EXT. Do not edit by hand: change the script and rerun it.\n"
    )
    return written


if __name__ == "__main__":
    files = build()
    total = sum(p.stat().st_size for p in files)
    print(f"wrote {len(files)} files, {total} bytes, to {CORPUS}")
