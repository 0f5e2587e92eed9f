"""Release randomness: the CSPRNG by default, 256-bit roots, streams keyed by name and
addressed by row, one seeded-release warning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.exceptions import SeededReleaseWarning
from ppdm.matrix import ExplicitMatrix, GammaDiagonal
from ppdm.perturbation import perturb_batches, perturb_codes, perturb_frame, plan_release
from ppdm.random import WordStream, resolve_seed, stream_generator, stream_key
from ppdm_papers.multiple import perturb_copies

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _table(n: int = 997, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 12, n).clip(0, 90),
            "kids": rng.integers(0, 4, n),
            "city": rng.choice(["ams", "ber", "cph", "dub"], n),
            "label": rng.choice(["no", "yes"], n),
        }
    )


def _batches(frame: pd.DataFrame, size: int) -> list[pd.DataFrame]:
    return [frame.iloc[i : i + size] for i in range(0, len(frame), size)]


# -- the CSPRNG by default, 256 bits ---------------------------------------------------


def _no_pcg64(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a release drew from np.random.default_rng (PCG64)")

    monkeypatch.setattr(np.random, "default_rng", refuse)


def test_perturb_codes_defaults_to_the_csprng(monkeypatch):
    _no_pcg64(monkeypatch)
    codes = np.arange(10_000) % 7
    m = GammaDiagonal(7, 3.0)
    a, b = perturb_codes(codes, m), perturb_codes(codes, m)
    assert (a != codes).any() and (a != b).any()  # random, and fresh every call


def test_perturb_copies_defaults_to_the_csprng(monkeypatch):
    _no_pcg64(monkeypatch)
    codes = np.arange(10_000) % 7
    out = perturb_copies(codes, GammaDiagonal(7, 3.0), 3)
    assert out.shape == (3, 10_000) and (out[0] != out[1]).any()


def test_unseeded_roots_take_256_bits_from_the_os(monkeypatch):
    import secrets

    asked = []
    real = secrets.randbits

    def spy(k):
        asked.append(k)
        return real(k)

    monkeypatch.setattr(secrets, "randbits", spy)
    df = _table(50)
    spec = plan_release(df, class_attribute="label")
    perturb_frame(df, spec)
    perturb_codes(np.zeros(5, int), GammaDiagonal(3, 3.0))
    assert asked == [256, 256]


def test_every_bit_of_the_root_keys_the_streams():
    base = 0x5A5A5A5A << 200
    keys = {stream_key(np.random.SeedSequence(base ^ (1 << b)), "x") for b in (0, 127, 128, 255)}
    keys.add(stream_key(np.random.SeedSequence(base), "x"))
    assert len(keys) == 5
    # and the key is the root's hash, not SeedSequence's 128-bit pool
    assert stream_key(resolve_seed(3), "x") != stream_key(resolve_seed(3), "x", 0)


# -- keyed by name ---------------------------------------------------------------------------


def test_a_column_stream_does_not_depend_on_the_other_columns():
    df = _table()
    spec = plan_release(df, class_attribute="label", representative="random")
    base = perturb_frame(df, spec, random_state=7)
    other = df[["label", "city"]].assign(extra=df["kids"] % 2, age=df["age"])
    spec2 = plan_release(other, class_attribute="label", representative="random")
    moved = perturb_frame(other, spec2, random_state=7)
    for name in ("age", "city"):
        pd.testing.assert_series_equal(moved[name], base[name])


def test_different_attribute_names_get_different_streams():
    codes = np.random.default_rng(1).integers(0, 5, 20_000)
    df = pd.DataFrame({"x": codes, "y": codes})
    spec = plan_release(df)
    out = perturb_frame(df, spec, random_state=3)
    changed_x, changed_y = out["x"] != df["x"], out["y"] != df["y"]
    # independent flips: P(both) = p^2; identical streams would give p
    p, n = changed_x.mean(), len(df)
    both = (changed_x & changed_y).mean()
    assert abs(both - p * p) < 5 * np.sqrt(p * p * (1 - p * p) / n), (both, p)


def test_copy_k_is_keyed_by_k():
    df = _table(400)
    one = perturb_frame(df, plan_release(df, class_attribute="label"), random_state=5)
    three = perturb_frame(df, plan_release(df, class_attribute="label", copies=3), random_state=5)
    copy = [three.iloc[c::3].reset_index(drop=True) for c in range(3)]  # record by record
    pd.testing.assert_frame_equal(copy[0], one)
    assert not copy[1].equals(one)
    assert not copy[2].equals(copy[1])
    # every copy holds the records in their order: the class column, kept, says so
    for c in range(3):
        assert copy[c]["label"].tolist() == df["label"].tolist()


def test_bn_parties_with_one_seed_get_independent_flips():
    from ppdm.bayesnet.pram import PramScheme, binary_randomization
    from ppdm_papers.bn_parties import Party

    n = 20_000
    x = np.random.default_rng(0).integers(0, 2, n)
    m = binary_randomization(0.25, 0.25)
    p1 = Party("site1", pd.DataFrame({"A": x}), PramScheme({"A": 2}, [(["A"], m)]))
    p2 = Party("site2", pd.DataFrame({"B": x}), PramScheme({"B": 2}, [(["B"], m)]))
    fa = p1.release(random_state=2).data["A"].to_numpy() != x
    fb = p2.release(random_state=2).data["B"].to_numpy() != x
    q = 0.25
    sd = np.sqrt(q * q * (1 - q * q) / n)
    assert abs(fa.mean() - q) < 5 * np.sqrt(q * (1 - q) / n)
    assert abs((fa & fb).mean() - q * q) < 5 * sd, (fa & fb).mean()


def test_bn_cli_parties_with_one_seed_get_independent_flips(tmp_path):
    import yaml
    from typer.testing import CliRunner

    from ppdm.bayesnet.parties import read_release
    from ppdm.cli import app

    n = 20_000
    x = np.random.default_rng(0).integers(0, 2, n)
    pd.DataFrame({"A": x, "B": x}).to_csv(tmp_path / "data.csv", index=False)
    flips = []
    for party, var in (("site1", "A"), ("site2", "B")):
        spec = {
            "party": party,
            "variables": {var: 2},
            "randomize": [{"variables": [var], "matrix": {"kind": "symmetric-binary", "p": 0.25}}],
        }
        (tmp_path / f"{party}.yaml").write_text(yaml.safe_dump(spec))
        args = ["bn", "randomize", str(tmp_path / "data.csv"), "--scheme"]
        args += [str(tmp_path / f"{party}.yaml"), "--out", str(tmp_path / party), "--seed", "2"]
        with pytest.warns(SeededReleaseWarning):
            result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        flips.append(read_release(tmp_path / party).data[var].to_numpy() != x)
    both = (flips[0] & flips[1]).mean()
    assert abs(both - 0.0625) < 5 * np.sqrt(0.0625 * 0.9375 / n), both


# -- addressed by row -----------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(row=st.integers(0, 40), k=st.integers(0, 25), seed=st.integers(0, 99))
def test_word_stream_starts_at_any_row(row, k, seed):
    root = resolve_seed(seed)
    whole32 = WordStream(stream_generator(root, "w")).uint32(row + k)
    whole64 = WordStream(stream_generator(root, "w")).uint64(row + k)
    whole_u = stream_generator(root, "w").random(row + k)
    np.testing.assert_array_equal(
        WordStream(stream_generator(root, "w"), row).uint32(k), whole32[row:]
    )
    np.testing.assert_array_equal(
        WordStream(stream_generator(root, "w"), row).uint64(k), whole64[row:]
    )
    late = WordStream(stream_generator(root, "w"), row).generator.random(k)
    np.testing.assert_array_equal(late, whole_u[row:])


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 7), max_size=8), seed=st.integers(0, 99))
def test_word_stream_words_do_not_depend_on_how_they_are_asked_for(sizes, seed):
    """Requests of any sizes, empty ones among them (an empty batch or part), give the
    words of one request for their sum."""
    root = resolve_seed(seed)
    stream = WordStream(stream_generator(root, "w"))
    parts = [stream.uint32(k) for k in sizes]
    whole = WordStream(stream_generator(root, "w")).uint32(sum(sizes) + 1)
    np.testing.assert_array_equal(np.concatenate([*parts, stream.uint32(1)]), whole)


@pytest.mark.parametrize(
    "matrix",
    [
        GammaDiagonal(7, 3.0),
        GammaDiagonal(5000, 9.0),
        ExplicitMatrix(GammaDiagonal(4, 5.0).dense()),
    ],
)
def test_a_value_depends_on_key_row_and_value_only(matrix):
    codes = np.random.default_rng(2).integers(0, matrix.n_values, 1001)
    root = resolve_seed(11)
    whole = matrix.draw(codes, WordStream(stream_generator(root, "a")))
    for start in (1, 2, 3, 500, 1000):
        part = matrix.draw(codes[start:], WordStream(stream_generator(root, "a"), start))
        np.testing.assert_array_equal(part, whole[start:])
    changed = codes.copy()
    changed[10] = (changed[10] + 1) % matrix.n_values
    again = matrix.draw(changed, WordStream(stream_generator(root, "a")))
    np.testing.assert_array_equal(np.delete(again, 10), np.delete(whole, 10))


@pytest.mark.parametrize("options", [{}, {"representative": "random", "copies": 2}])
def test_same_seed_same_bytes_for_every_batch_size(options):
    df = _table(60)
    spec = plan_release(df, class_attribute="label", **options)
    whole = perturb_frame(df, spec, random_state=9)
    for size in range(1, len(df) + 1):
        parts = list(perturb_batches(_batches(df, size), spec, random_state=9))
        # with copies too: every record's copies in a row, so the batches do not show
        pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)


@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_additive_release_is_addressed_by_row(noise):
    df = _table(300)[["age", "kids"]].astype(float)
    spec = plan_release(df, method="additive", noise=noise)
    whole = perturb_frame(df, spec, random_state=4)
    for size in (1, 7, 299):
        pd.testing.assert_frame_equal(
            pd.concat(perturb_batches(_batches(df, size), spec, 4)), whole
        )
    cut = 123
    tail = next(perturb_batches([df.iloc[cut:]], spec, 4, row_offset=cut))
    pd.testing.assert_frame_equal(tail, whole.iloc[cut:])


def test_additive_noise_has_the_spec_distribution():
    """Kolmogorov-Smirnov of the released noise against the spec's noise, alpha = 0.001."""
    from scipy import stats

    df = pd.DataFrame({"x": np.zeros(20_000)})
    df.loc[0, "x"], df.loc[1, "x"] = -1.0, 1.0
    for kind in ("uniform", "gaussian"):
        spec = plan_release(df, method="additive", noise=kind)
        nz = spec.perturbed_attributes()[0].get_noise()
        y = (perturb_frame(df, spec, random_state=1)["x"] - df["x"]).to_numpy()
        dist = (
            stats.uniform(-nz.scale, 2 * nz.scale) if kind == "uniform" else stats.norm(0, nz.scale)
        )
        assert stats.kstest(y, dist.cdf).pvalue > 0.001, kind


# -- one seeded-release warning ------------------------------------------------------------


def test_seeded_releases_warn_with_one_message(tmp_path):
    from ppdm.engine import make_release_partitioned

    df = _table(40)
    spec = plan_release(df, class_attribute="label")
    messages = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perturb_frame(df, spec, random_state=1)
        make_release_partitioned(df, tmp_path / "r", random_state=1, class_attribute="label")
    seeded = [w for w in caught if issubclass(w.category, SeededReleaseWarning)]
    messages = {str(w.message) for w in seeded}
    assert len(seeded) == 2 and len(messages) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeededReleaseWarning)
        perturb_frame(df, spec)  # a real release does not warn
