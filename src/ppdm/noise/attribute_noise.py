"""Attribute noise on the attributes a leaf does not test (LIA and TIA), leaf by leaf.

The records of each leaf (or of the heterogeneous leaves only) get zero-mean discrete
noise ``A* = A + epsilon`` on their Leaf Innocent Attributes, their Total Innocent
Attributes, or both; no tested attribute changes, so every record stays in its leaf.
The noise laws and how values stay in the domain are on docs/noise.md.

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining,
Sec. 3.2 and Sec. 4 (Fig. 3: noise with standard deviation 27.6 % of the value).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize

from ..exceptions import DataError, ParameterError
from ..fields import fields_dict
from ..random import RandomState, release_generator
from ..validation import check_positive, show
from .class_noise import original_tree
from .leaves import LeafInfo, innocent_attributes

__all__ = [
    "ATTRIBUTE_TARGETS",
    "AttributeNoiseResult",
    "DiscreteNoise",
    "add_attribute_noise",
    "discrete_gaussian",
    "paper_noise",
]

#: Which innocent attributes receive noise.
ATTRIBUTE_TARGETS = ("lia", "tia", "both")
_SCOPES = ("all", "heterogeneous")
_BOUNDARIES = ("reflect", "resample")

#: The paper's standard deviation, as a fraction of the attribute value.
PAPER_SD_FRACTION = 0.276


@dataclass(frozen=True, eq=False)
class DiscreteNoise:
    """A zero-mean discrete noise law: offsets and their probabilities.

    Parameters
    ----------
    offsets : array-like of float
        Distinct noise values.  With ``relative=True`` they are fractions of the
        record's value (``A* = A + A * offset``).
    probabilities : array-like of float
        Their probabilities (non-negative, summing to 1).
    relative : bool, default=False
    name : str, default="discrete"
        A label for reports.

    References
    ----------
    Islam & Brankovic, Sec. 3.2 (``epsilon`` discrete with mean zero).

    Examples
    --------
    >>> noise = DiscreteNoise([-1.0, 0.0, 1.0], [0.25, 0.5, 0.25])
    >>> noise.sd
    0.7071067811865476
    """

    offsets: np.ndarray
    probabilities: np.ndarray
    relative: bool = False
    name: str = "discrete"

    def __post_init__(self) -> None:
        off = np.asarray(self.offsets, dtype=float)
        p = np.asarray(self.probabilities, dtype=float)
        if off.ndim != 1 or off.shape != p.shape or off.size == 0:
            raise ParameterError(
                "offsets and probabilities must be 1-D arrays of the same non-zero length "
                f"(got shapes {off.shape} and {p.shape})"
            )
        if not np.isfinite(off).all() or np.unique(off).size != off.size:
            raise ParameterError("offsets must be distinct finite numbers")
        if not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
            raise ParameterError(
                f"probabilities must be >= 0 and sum to 1 (got sum {show(p.sum())})"
            )
        scale = max(float(np.abs(off).max()), 1.0)
        mean = float(off @ p)
        if abs(mean) > 1e-9 * scale:
            raise ParameterError(f"the noise must have mean zero (got mean {mean:g})")
        object.__setattr__(self, "offsets", off)
        object.__setattr__(self, "probabilities", p / p.sum())

    @property
    def sd(self) -> float:
        """Standard deviation (a fraction of the value when ``relative``)."""
        return float(np.sqrt(self.probabilities @ self.offsets**2))

    def sample(self, size, random_state: RandomState = None) -> np.ndarray:
        """Draw offsets (fractions of the value when ``relative``)."""
        rng = release_generator(random_state, warn=False)
        return rng.choice(self.offsets, size=size, p=self.probabilities)

    def describe(self) -> dict:
        """A JSON-ready description."""
        return {
            **fields_dict(self, "name relative sd"),
            "min_offset": float(self.offsets.min()),
            "max_offset": float(self.offsets.max()),
            "n_offsets": int(self.offsets.size),
        }


def _normal_on_grid(step: float, limit: float, sd: float, what: str):
    """The grid ``-limit..limit`` by ``step``, probabilities ``~ exp(-g^2 / (2 s^2))`` of sd ``sd``."""
    k = int(round(limit / step))
    grid = np.arange(-k, k + 1) * step

    def spread(log_s: float) -> float:
        w = np.exp(-0.5 * (grid / np.exp(log_s)) ** 2)
        w /= w.sum()
        return float(np.sqrt(w @ grid**2)) - sd

    widest = float(np.sqrt((grid**2).mean()))  # the uniform law on the grid
    if not (np.isfinite(sd) and 0 < sd < widest * (1 - 1e-6)):
        raise ParameterError(
            f"{what} must be in (0, {widest:.4g}) for a normal shape on this grid (got {sd})"
        )
    step = float(np.min(np.diff(grid)))
    lo, hi = np.log(step * 1e-3), np.log(float(np.abs(grid).max()) * 1e3)
    log_s = optimize.brentq(spread, lo, hi, xtol=1e-13, rtol=1e-13)
    w = np.exp(-0.5 * (grid / np.exp(log_s)) ** 2)
    return grid, w / w.sum()


def paper_noise(
    sd_fraction: float = PAPER_SD_FRACTION, *, step: float = 0.01, limit: float = 1.0
) -> DiscreteNoise:
    """The paper's noise: relative, zero mean, standard deviation 27.6 % of the value.

    A discretised normal on the grid ``-limit, ..., -step, 0, step, ..., limit``
    (fractions of the value: 1 % steps from -100 % to +100 % by default), with its
    spread solved so that the standard deviation is exactly ``sd_fraction``.

    Parameters
    ----------
    sd_fraction : float, default=0.276
        Standard deviation as a fraction of the attribute value.
    step : float, default=0.01
    limit : float, default=1.0
        Largest relative offset (1.0 keeps positive values non-negative).

    Returns
    -------
    DiscreteNoise

    References
    ----------
    Islam & Brankovic, Sec. 4 and Fig. 3 (sd 27.6 % of the attribute value).

    Examples
    --------
    >>> round(paper_noise().sd, 6)
    0.276
    """
    if not (np.isfinite(step) and step > 0 and np.isfinite(limit) and limit >= step):
        raise ParameterError(f"need 0 < step <= limit (got step={step}, limit={limit})")
    grid, p = _normal_on_grid(step, limit, float(sd_fraction), "sd_fraction")
    return DiscreteNoise(grid, p, relative=True, name=f"paper: relative, sd {sd_fraction:.1%}")


def discrete_gaussian(sd: float, *, step: float = 1.0, limit: float | None = None) -> DiscreteNoise:
    """Absolute zero-mean noise: a discretised normal on multiples of ``step`` with sd ``sd``.

    Parameters
    ----------
    sd : float
        Standard deviation, in the attribute's units.
    step : float, default=1.0
    limit : float, optional
        Largest offset (default: about 4 sd, at least 2 steps).

    Returns
    -------
    DiscreteNoise

    References
    ----------
    Islam & Brankovic, Sec. 3.2 (noise of the owner's choice).

    Examples
    --------
    >>> round(discrete_gaussian(1.5).sd, 6)
    1.5
    """
    check_positive(step, "step", error=ParameterError)
    if limit is None:
        limit = max(2.0, np.ceil(4 * sd / step)) * step if np.isfinite(sd) else step
    grid, p = _normal_on_grid(step, limit, float(sd), "sd")
    return DiscreteNoise(grid, p, relative=False, name=f"discretised normal, sd {sd:g}")


def _reflect(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    width = hi - lo
    if width <= 0:
        return np.full_like(v, lo)
    z = np.mod(v - lo, 2 * width)
    return lo + np.where(z > width, 2 * width - z, z)


def _noisy(x: np.ndarray, off: np.ndarray, relative: bool, integer: bool) -> np.ndarray:
    # the same expression for sampling and for the transition tables, so values match exactly
    v = x + x * off if relative else x + off
    return np.rint(v) if integer else v


@dataclass
class AttributeNoiseResult:
    """An attribute-noise release and what was perturbed.

    Attributes
    ----------
    X : DataFrame
        Released attributes (same columns, dtypes and row order as the input).
    original : DataFrame
        The original attributes.
    y : ndarray
        The class (unchanged).
    columns : list of str
    eligible : ndarray of bool, shape (n_samples, n_features)
        Cells that received noise (it may have been zero).
    changed : ndarray of bool, shape (n_samples, n_features)
        Cells whose released value differs from the original.
    noise : DiscreteNoise
    target : {"lia", "tia", "both"}
    scope : {"all", "heterogeneous"}
    boundary : {"reflect", "resample"}
    bounds : dict
        Attribute -> (low, high) domain.
    integer : dict
        Attribute -> whether it is rounded to integers.
    tree : C45Classifier
    info : LeafInfo
    innocent : DataFrame
        Per leaf: path attributes, LIA, TIA and the attributes perturbed there.

    References
    ----------
    Islam & Brankovic, Sec. 3.2.
    """

    X: pd.DataFrame
    original: pd.DataFrame
    y: np.ndarray
    columns: list
    eligible: np.ndarray
    changed: np.ndarray
    noise: DiscreteNoise
    target: str
    scope: str
    boundary: str
    bounds: dict
    integer: dict
    tree: object = field(repr=False)
    info: LeafInfo = field(repr=False)
    innocent: pd.DataFrame = field(repr=False)

    def transition(self, name: str, from_values, to_values) -> np.ndarray:
        """``P(A* = to | A = from)`` on attribute ``name`` for a record whose leaf got noise on it.

        ``to_values`` must be sorted and distinct.
        """
        lo, hi = self.bounds[name]
        x = np.asarray(from_values, dtype=float)[:, None]
        to = np.asarray(to_values, dtype=float)
        v = _noisy(x, self.noise.offsets[None, :], self.noise.relative, self.integer[name])
        w = np.broadcast_to(self.noise.probabilities, v.shape).copy()
        if self.boundary == "reflect":
            v = _reflect(v, lo, hi)
        else:
            w *= (v >= lo) & (v <= hi)
            w /= w.sum(axis=1, keepdims=True)
        idx = np.clip(np.searchsorted(to, v), 0, max(to.size - 1, 0))
        hit = (to.size > 0) & (to[idx] == v) & (w > 0)
        rows = np.broadcast_to(np.arange(x.shape[0])[:, None], v.shape)
        flat = np.bincount(
            rows[hit] * to.size + idx[hit], weights=w[hit], minlength=x.shape[0] * to.size
        )
        return flat.reshape(x.shape[0], to.size)

    def to_dict(self) -> dict:
        """A JSON-ready summary: noise, cells perturbed and changed, per-leaf attributes."""
        per_attr = {
            c: {
                "perturbed": int(self.eligible[:, j].sum()),
                "changed": int(self.changed[:, j].sum()),
            }
            for j, c in enumerate(self.columns)
            if self.eligible[:, j].any()
        }
        return {
            **fields_dict(self, "target scope boundary"),
            "noise": self.noise.describe(),
            "n_records": int(len(self.X)),
            "n_cells_perturbed": int(self.eligible.sum()),
            "n_cells_changed": int(self.changed.sum()),
            "attributes": per_attr,
            "bounds": {k: [float(v[0]), float(v[1])] for k, v in self.bounds.items()},
            "leaves": self.innocent.to_dict(orient="records"),
        }


def _check_choice(name: str, value: str, choices: tuple) -> str:
    v = str(value).strip().lower()
    if v not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(choices)} (got {show(value)})")
    return v


def add_attribute_noise(
    X,
    y,
    target: str = "tia",
    *,
    noise: DiscreteNoise | None = None,
    scope: str = "all",
    attributes=None,
    bounds: dict | None = None,
    boundary: str = "reflect",
    tree=None,
    random_state: RandomState = None,
) -> AttributeNoiseResult:
    """Add zero-mean discrete noise to the innocent attributes of each leaf's records.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Original attributes.
    y : array-like of shape (n_samples,)
        Original class (not changed).
    target : {"lia", "tia", "both"}, default="tia"
        Leaf Innocent Attributes, Total Innocent Attributes, or both.
    noise : DiscreteNoise, optional
        Default :func:`paper_noise` (relative, sd 27.6 % of the value).
    scope : {"all", "heterogeneous"}, default="all"
        Perturb the records of every leaf, or only of heterogeneous leaves.
    attributes : list of str, optional
        Only these attributes may receive noise (default: every attribute).
    bounds : dict, optional
        Attribute -> (low, high) domain (default: min and max of the original values).
    boundary : {"reflect", "resample"}, default="reflect"
        A value pushed out of the domain is reflected at the bound (``lo - d`` becomes
        ``lo + d``), or its noise is drawn again until it falls inside.
    tree : C45Classifier, optional
        The tree built on ``X, y`` (default: ppdm's C4.5 with J48's defaults).
    random_state : None, int, SeedSequence or Generator, default=None
        None: a cryptographically strong generator; a seed (experiments only) warns.

    Returns
    -------
    AttributeNoiseResult

    Raises
    ------
    DataError
        A class with a single value, an attribute to perturb that is not numeric,
        or nothing to perturb (no such innocent attribute, or no heterogeneous leaf).

    References
    ----------
    Islam & Brankovic, Sec. 3.2 (LIA, TIA; ``A* = A + epsilon``) and Sec. 4.

    Examples
    --------
    >>> import warnings
    >>> from ppdm.datasets import load_wisconsin
    >>> d = load_wisconsin()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = add_attribute_noise(d.X, d.y, "tia", random_state=0)
    >>> r.X.dtypes.eq("int64").all(), bool((r.X >= 1).all().all() and (r.X <= 10).all().all())
    (np.True_, True)
    """
    target = _check_choice("target", target, ATTRIBUTE_TARGETS)
    scope = _check_choice("scope", scope, _SCOPES)
    boundary = _check_choice("boundary", boundary, _BOUNDARIES)
    noise = paper_noise() if noise is None else noise
    if not isinstance(noise, DiscreteNoise):
        raise ParameterError(f"noise must be a DiscreteNoise (got {type(noise).__name__})")
    tree, info = original_tree(X, y, tree)
    names = list(tree.feature_names_)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=names)
    frame = frame.reset_index(drop=True)  # a copy: the input stays as it is
    allowed = set(names) if attributes is None else set(attributes)
    unknown = sorted(allowed - set(names))
    if unknown:
        raise DataError(f"attributes names columns not in X: {unknown}; columns: {names}")
    inn, eligible = _eligible_cells(frame, names, tree, info, target, scope, allowed)
    used = [names[j] for j in np.flatnonzero(eligible.any(axis=0))]
    dom, integer = _noise_domains(frame, used, bounds, noise)
    released, changed = _draw_noise(
        frame, eligible, dom, integer, noise, boundary, release_generator(random_state)
    )
    return AttributeNoiseResult(
        X=released,
        original=frame,
        y=np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y),
        columns=names,
        eligible=eligible,
        changed=changed,
        noise=noise,
        target=target,
        scope=scope,
        boundary=boundary,
        bounds=dom,
        integer=integer,
        tree=tree,
        info=info,
        innocent=inn,
    )


def _eligible_cells(frame, names, tree, info, target: str, scope: str, allowed: set):
    """The innocent attributes of every leaf (with the ones perturbed) and the cells of
    ``frame`` that may receive noise."""
    inn = innocent_attributes(tree)
    leaf_rows = {int(leaf): k for k, leaf in enumerate(info.leaves)}
    het = info.heterogeneous
    col = {c: j for j, c in enumerate(names)}
    eligible = np.zeros(frame.shape, dtype=bool)
    perturbed_lists = []
    pos = info.row_position
    # a column without a known value has nothing to perturb
    allowed = {a for a in allowed if not frame[a].isna().all()}
    for leaf, lia, tia in zip(inn["leaf"], inn["lia"], inn["tia"]):
        wanted = (lia if target != "tia" else []) + (tia if target != "lia" else [])
        chosen = [a for a in names if a in wanted and a in allowed]
        k = leaf_rows.get(int(leaf))
        in_scope = k is not None and (scope == "all" or het[k])
        perturbed_lists.append(chosen if in_scope else [])
        if in_scope and chosen:
            rows = np.flatnonzero(pos == k)
            eligible[np.ix_(rows, [col[a] for a in chosen])] = True
    if not eligible.any():
        where = "heterogeneous leaves" if scope == "heterogeneous" else "leaves"
        if scope == "heterogeneous" and not het.any():
            why = "the tree built on the original data has no heterogeneous leaves"
        else:
            why = f"no {where} have a {target.upper() if target != 'both' else 'LIA or TIA'}"
        raise DataError(f"nothing to perturb: {why}")
    return inn.assign(perturbed=perturbed_lists), eligible


def _noise_domains(frame, used: list, bounds: dict | None, noise: DiscreteNoise):
    """Every perturbed attribute's domain (the owner's bounds, else its min and max) and
    whether it holds integers; a column noise cannot take is refused."""
    dom, integer = {}, {}
    for name in used:
        dt = frame[name].dtype
        if not pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt):
            raise DataError(
                f"attribute {name!r} is not numeric (dtype {dt}); numeric noise needs numbers: "
                "leave it out with attributes=[...] (--attribute on the command line)"
            )
    for name in used:
        values = frame[name].to_numpy(dtype=float, na_value=np.nan)
        lo, hi = (bounds or {}).get(name, (np.nanmin(values), np.nanmax(values)))
        if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
            raise ParameterError(
                f"bounds for {name!r} must be finite with low <= high (got {(lo, hi)})"
            )
        if np.any((values < lo) | (values > hi)):  # a missing value compares False
            raise DataError(f"values of {name!r} fall outside its bounds {(lo, hi)}")
        top = float(max(abs(lo), abs(hi)))
        if noise.relative and top > np.finfo(float).max / 2:  # x (1 + offset) overflows
            raise DataError(
                f"values of {name!r} reach {top:g}, too large for noise relative to the value "
                "(up to twice the value): leave it out with attributes=[...] (--attribute on "
                "the command line)"
            )
        dom[name] = (float(lo), float(hi))
        integer[name] = bool(pd.api.types.is_integer_dtype(frame[name].dtype))
    return dom, integer


def _draw_noise(frame, eligible, dom: dict, integer: dict, noise, boundary: str, rng):
    """The released attributes (noise added to the eligible cells, kept in each domain by
    ``boundary``) and which cells changed."""
    released = frame.copy()
    changed = np.zeros(frame.shape, dtype=bool)
    col = {c: j for j, c in enumerate(frame.columns)}
    for name in dom:
        j = col[name]
        rows = np.flatnonzero(eligible[:, j])
        new_col = frame[name].to_numpy(dtype=float, na_value=np.nan, copy=True)
        x = new_col[rows]
        lo, hi = dom[name]
        off = noise.sample(rows.size, rng)
        v = _noisy(x, off, noise.relative, integer[name])
        if boundary == "reflect":
            v = _reflect(v, lo, hi)
        else:
            out = np.flatnonzero((v < lo) | (v > hi))
            # rejection sampling draws from the noise law truncated to the domain; the
            # zero offset always lands inside, so after 200 rounds the few values left
            # (only where almost every offset leaves the domain) keep their original value
            for _ in range(200):
                if out.size == 0:
                    break
                redo = _noisy(x[out], noise.sample(out.size, rng), noise.relative, integer[name])
                v[out] = redo
                out = out[(redo < lo) | (redo > hi)]
            v[out] = x[out]
        new_col[rows] = v
        released[name] = pd.Series(new_col, index=frame.index).astype(frame[name].dtype)
        changed[rows, j] = v != x
    return released, changed
