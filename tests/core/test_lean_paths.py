"""Fast paths of the release commands: same bytes as the plain paths, no needless imports."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd


def _loaded_after(statement: str, module: str) -> bool:
    code = f"import sys\n{statement}\nprint({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def test_pipeline_import_leaves_scipy_stats_out():
    # scipy.stats costs about a second to import; estimate and reconstruct never use it
    assert not _loaded_after("import ppdm.pipeline", "scipy.stats")


def test_additive_interval_width_still_uses_the_normal_quantile():
    from ppdm.additive import AdditiveNoise

    noise = AdditiveNoise("gaussian", 1.0)
    assert abs(noise.interval_width(0.95) - 2 * 1.959963984540054) < 1e-12


def test_csv_numbers_of_few_distinct_values_are_formatted_once_each_same_bytes():
    from ppdm.io import _few_values, write_csv_batch

    rng = np.random.default_rng(0)
    odd = [0.0, -0.0, np.nan, 1e10, 1e-5, 3.0, 2.5, -7.125, 1e16, 123456789.123, 5e-324]
    odd += [np.inf, -np.inf, 30.675, 0.1 + 0.2]
    frame = pd.DataFrame(
        {
            "few": rng.choice(np.array(odd), 50_000),
            "bins": rng.choice(np.linspace(18, 91, 20), 50_000),
            "many": rng.random(50_000) * 1e6,
        }
    )
    found = _few_values(frame["few"].to_numpy())
    assert found is not None and len(found[0]) == len(odd)  # NaN once, -0.0 apart from 0.0
    assert _few_values(frame["many"].to_numpy()) is None
    buf = io.BytesIO()
    write_csv_batch(frame, buf, header=True)
    assert buf.getvalue() == frame.to_csv(index=False, lineterminator="\n").encode()
