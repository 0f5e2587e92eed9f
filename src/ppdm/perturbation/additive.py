"""Additive noise (Agrawal & Srikant 2000): its plan per attribute and its draws.

References
----------
Agrawal & Srikant (2000), Sec. 2; Islam & Brankovic (noise for trees).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from ..additive import AdditiveNoise, privacy_interval_width
from ..domain import BinnedDomain, CategoricalDomain, Domain
from ..exceptions import DataError, SpecError
from ..options import (
    NOISE_KINDS,
    PlanOptions,
)
from ..random import (
    WordStream,
    stream_generator,
)
from ..release import AttributeSpec
from ..validation import check_choice, check_positive
from .common import check_class_known, numeric_values_of
from .streams import ADDITIVE, unit_uniforms


def additive_noise_for_level(kind: str, level: float, value_range: float) -> AdditiveNoise:
    """Noise whose 95 % interval width is ``level`` times ``value_range``.

    Uniform on ``[-a, a]``: width ``0.95 * 2a``; Gaussian: width ``2 * 1.96 sigma``
    (Agrawal & Srikant 2000, Sec. 2.1).

    Examples
    --------
    >>> round(additive_noise_for_level("gaussian", 1.0, 3.92).scale, 3)
    1.0
    """
    check_choice(kind, "noise", NOISE_KINDS, error=SpecError)
    level = check_positive(level, "noise_scale", error=SpecError)
    unit = privacy_interval_width(kind, 1.0, 0.95)  # width per unit of scale
    return AdditiveNoise(kind, float(level) * float(value_range) / unit)


def additive_attribute(name: str, domain: Domain, opts: PlanOptions) -> AttributeSpec:
    if isinstance(domain, CategoricalDomain):
        values = numeric_values_of(domain)
        if values is None:
            raise DataError(
                f"column {name!r} is not numeric: additive noise needs numbers; leave it "
                "unperturbed (--attributes) or use substitution"
            )
        domain = BinnedDomain(
            float(values.min()),
            float(values.max()),
            opts.bins_cap,
            bounds_from_data=domain.from_data,
        )
    if domain.missing_category:
        raise DataError(f"column {name!r}: additive noise cannot carry a 'missing' category")
    nz = additive_noise_for_level(opts.noise, opts.noise_scale, domain.high - domain.low)
    return AttributeSpec(
        name=name,
        perturbed=True,
        domain=domain.to_spec(),
        noise={"kind": nz.kind, "scale": nz.scale},
    )


def _additive_noise(noise, u: np.ndarray) -> np.ndarray:
    """Noise by inversion of its distribution function at uniforms ``u`` in (0, 1)."""
    if noise.kind == "uniform":
        return noise.scale * (2.0 * u - 1.0)
    from scipy.special import ndtri

    return noise.scale * ndtri(u)


def additive_batches(batches, spec, root, row_offset) -> Iterator[pd.DataFrame]:
    # one 64-bit word per value, addressed by row, under the key (ADDITIVE, attribute)
    plans = [
        (
            a.name,
            a.get_domain(),
            a.get_noise(),
            WordStream(stream_generator(root, ADDITIVE, a.name), row=row_offset),
        )
        for a in spec.perturbed_attributes()
    ]
    offset = 0
    for batch in batches:
        if offset == 0:
            spec.check_columns([str(c) for c in batch.columns])
        check_class_known(batch, spec, offset)
        out = batch.copy()
        for name, domain, noise, stream in plans:
            # missing values and bounds
            domain.encode(batch[name], column=name, row_offset=offset)
            x = batch[name].to_numpy(dtype=np.float64)
            if domain.out_of_bounds == "clip":
                x = np.clip(x, domain.low, domain.high)
            out[name] = x + _additive_noise(noise, unit_uniforms(stream, len(x)))
        offset += len(batch)
        yield out
