"""The estimate and reconstruct paths stay lean: no heavy module they do not use."""

from __future__ import annotations

import subprocess
import sys


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
