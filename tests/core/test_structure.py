"""The package's layers: the release core loads without the learners."""

import subprocess
import sys


def test_perturb_does_not_load_the_learners():
    code = (
        "import sys, ppdm.perturbation, ppdm.pipeline, ppdm.noise; "
        "bad = [m for m in ('sklearn', 'ppdm.tree', 'ppdm.noise.class_noise') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_noise_names_load_on_first_use():
    import ppdm.noise as noise

    assert callable(noise.add_class_noise)
    assert noise.CLASS_TECHNIQUES == ("random", "probabilistic", "all-leaves")
    assert "add_class_noise" in dir(noise)
