"""The owner's options of a release plan (:class:`PlanOptions`), validated once and passed
down whole.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1), Sec. 3.2 (continuous attributes) and Sec. 7
(choice of N); Kang, Sec. 2 (copies); Agrawal & Srikant (2000), Sec. 2.1 (additive noise).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Literal

from .exceptions import OptionError, ParameterError
from .limits import check_copies, check_n_values
from .mechanism import MECHANISMS, Method, mechanism_of
from .mechanism.additive import NOISE_KINDS
from .release import ReleaseSpec
from .validation import (
    check_at_least,
    check_choice,
    check_gamma,
    check_int,
    check_interval,
    check_positive,
    show,
)

__all__ = [
    "DEFAULT_GAMMA",
    "DEFAULT_MAX_BINS",
    "DEFAULT_NOISE_LEVEL",
    "METHODS",
    "NOISE_KINDS",
    "MISSING_RULES",
    "OUT_OF_BOUNDS_RULES",
    "REPRESENTATIVES",
    "PlanOptions",
    "plan_options",
]

#: Default amplification: rho1 = 0.1 gives rho2 = 0.5.
DEFAULT_GAMMA = 9.0
#: Default additive privacy level: 95 % interval width = the attribute's range.
DEFAULT_NOISE_LEVEL = 1.0
#: Default N for continuous attributes (and the largest d kept as categorical).
DEFAULT_MAX_BINS = 20

METHODS = tuple(MECHANISMS)
MISSING_RULES = ("error", "category")
OUT_OF_BOUNDS_RULES = ("error", "clip")
REPRESENTATIVES = ("center", "left", "right", "random")

Bounds = tuple[tuple[str, tuple[float, float]], ...]
Split = tuple[tuple[str, float], ...]


def _checked(field: str, check: Callable[..., Any], *args, **kwargs) -> Any:
    """``check(*args, **kwargs)``, its ``ValueError`` re-raised as the option's error."""
    try:
        return check(*args, **kwargs)
    except ValueError as exc:
        raise OptionError(field, str(exc)) from None


def _by_column(field: str, value, what: str, check: Callable, convert=lambda v: v) -> tuple:
    """``value``, a mapping or pairs, as ``((column, check(column, convert(v))), ...)``, every
    column named once; ``what`` says what a column maps to."""
    if value is None:
        return ()
    pairs = value.items() if isinstance(value, Mapping) else value
    try:
        pairs = [(name, convert(v)) for name, v in pairs]
    except (TypeError, ValueError):
        raise OptionError(field, f"{field} must map column -> {what} (got {show(value)})") from None
    out = []
    for name, v in pairs:
        if not isinstance(name, str) or not name:
            raise OptionError(field, f"{field}: a column name must be text (got {show(name)})")
        out.append((name, check(name, v)))
    names = [name for name, _ in out]
    if len(set(names)) != len(names):
        verb = "name" if field == "bounds" else "names"  # "bounds name", "epsilon_split names"
        raise OptionError(field, f"{field} {verb} a column twice (got {names})")
    return tuple(out)


def _bound(name: str, rng: tuple) -> tuple[float, float]:
    """Owner bounds of a column: finite numbers, low < high."""
    if len(rng) != 2:
        raise OptionError(
            "bounds", f"bounds for {name!r} must be two numbers (low, high) (got {show(rng)})"
        )
    return _checked("bounds", check_interval, *rng, f"bounds for {name!r}")


def _weight(name: str, weight) -> float:
    """A column's weight in the budget's split: a finite number > 0."""
    return _checked("epsilon_split", check_positive, weight, f"epsilon_split weight of {name!r}")


def _names(field: str, value: Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise OptionError(field, f"{field} must be a list of column names (got {show(value)})")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name:
            raise OptionError(field, f"{field}: a column name must be text (got {show(name)})")
    if len(set(names)) != len(names):
        raise OptionError(field, f"{field} names a column twice (got {list(names)})")
    return names


@dataclasses.dataclass(frozen=True, kw_only=True)
class PlanOptions:
    """The owner's choices for a release plan, validated when built.

    Build it once (from keywords, or from command-line flags) and pass it to
    :func:`ppdm.perturbation.plan_release`, :func:`ppdm.pipeline.make_release` or the
    partitioned engines. Every field is checked here, before any data is read; a
    bad value raises :class:`ppdm.exceptions.OptionError` (a ``SpecError``) whose
    message starts with the field's name and shows the value.

    Parameters
    ----------
    class_attribute : str, optional
        The class column; kept unless ``perturb_class``. Default: the spec's.
    gamma : float, optional
        Amplification of the default gamma-diagonal matrices (> 1). ``None`` (not
        given): 9 (:attr:`gamma_or_default`), or planned from ``epsilon_record``.
    epsilon_record : float, optional
        Per-record budget E > 0: the sum over the perturbed attributes of
        ``copies ln gamma_j`` may not exceed it. Without ``gamma`` the plan splits E
        across the attributes without a matrix of their own, in proportion to
        ``epsilon_split`` (equally by default: ``gamma = exp(E / (m copies))``); with
        ``gamma``, or matrices in the spec, a plan over E is refused. Default: the
        spec's ``epsilon_record``.
    epsilon_split : dict of column -> weight, optional
        Positive weights of the split of ``epsilon_record`` (a column not named weighs
        1). Stored as ``((column, weight), ...)``. Default: the spec's.
    n_bins : int, optional
        N for continuous attributes (>= 2; default ``max_bins``).
    max_bins : int, default=20
        N of continuous attributes without ``n_bins``, and the largest number of
        values an attribute may have to be kept categorical.
    bounds : dict of column -> (low, high), optional
        Owner-chosen bounds (finite, low < high); other numeric columns take the
        data's min and max (warned). Stored as ``((column, (low, high)), ...)``.
    spec : ReleaseSpec, optional
        Owner's hand-written spec: per-attribute domains, matrices, ``perturbed: false``.
    attributes : list of str, optional
        Attributes to perturb (default: all but the class). Others are released as is.
        Stored as a tuple.
    perturb_class : bool, default=False
    missing : {"error", "category"}, default="error"
        A missing value is an error, or one more category (see :mod:`ppdm.domain`).
    out_of_bounds : {"error", "clip"}, default="error"
    representative : {"center", "left", "right", "random"}, default="center"
        The value a bin decodes to.
    copies : int, default=1
        Independent perturbed copies of every record (substitution only).
    method : {"substitution", "additive"}, default="substitution"
        ``"additive"`` releases ``x + y`` with noise ``y`` (Agrawal & Srikant 2000)
        instead of substituted values; every perturbed attribute must be numeric.
    noise : {"uniform", "gaussian"}, default="gaussian"
        Additive noise family.
    noise_scale : float, default=1.0
        Additive privacy level: the width of the interval that holds the original
        with 95 % confidence given the released value, as a fraction of the
        attribute's range (Agrawal & Srikant's privacy metric; their "100 %
        privacy" is 1.0).
    allow_unprotected : bool, default=False
        Allow a release in which no attribute is perturbed, or a matrix has
        infinite amplification.

    Examples
    --------
    >>> opts = PlanOptions(class_attribute="y", gamma=19, bounds={"age": (20, 80)})
    >>> opts.gamma, opts.bounds, opts.bins_cap
    (19.0, (('age', (20.0, 80.0)),), 20)
    >>> PlanOptions(gamma=0.5)
    Traceback (most recent call last):
    ...
    ppdm.exceptions.OptionError: gamma must be > 1 (got 0.5): gamma = 1 makes the matrix singular and gamma < 1 is not a valid amplification

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N); Kang, Sec. 2 (copies);
    Agrawal & Srikant (2000), Sec. 2.1 (additive noise and its privacy level).
    """

    class_attribute: str | None = None
    gamma: float | None = None
    epsilon_record: float | None = None
    epsilon_split: Split | Mapping[str, float] = ()
    n_bins: int | None = None
    max_bins: int = DEFAULT_MAX_BINS
    bounds: Bounds | Mapping[str, tuple[float, float]] = ()
    spec: ReleaseSpec | None = dataclasses.field(default=None, hash=False)
    attributes: tuple[str, ...] | Sequence[str] | None = None
    perturb_class: bool = False
    missing: Literal["error", "category"] = "error"
    out_of_bounds: Literal["error", "clip"] = "error"
    representative: Literal["center", "left", "right", "random"] = "center"
    copies: int = 1
    method: Method = "substitution"
    noise: Literal["uniform", "gaussian"] = "gaussian"
    noise_scale: float = DEFAULT_NOISE_LEVEL
    allow_unprotected: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # how a frozen dataclass stores its normalised fields
        method = _checked("method", check_choice, self.method, "method", METHODS)
        for field, choices in (
            ("missing", MISSING_RULES),
            ("out_of_bounds", OUT_OF_BOUNDS_RULES),
            ("representative", REPRESENTATIVES),
            ("noise", NOISE_KINDS),
        ):
            _checked(field, check_choice, getattr(self, field), field, choices)
        if self.class_attribute is not None and (
            not isinstance(self.class_attribute, str) or not self.class_attribute
        ):
            raise OptionError(
                "class_attribute",
                f"class_attribute must be a column name (got {show(self.class_attribute)})",
            )
        if self.spec is not None and not isinstance(self.spec, ReleaseSpec):
            raise OptionError(
                "spec", f"spec must be a ReleaseSpec (got {type(self.spec).__name__})"
            )
        if self.gamma is not None:
            set_(self, "gamma", _checked("gamma", check_gamma, self.gamma, "gamma"))
        self._check_budget(method)
        dense = mechanism_of(method).dense  # estimated with dense N x N work, or not
        if self.n_bins is not None:  # N of every continuous attribute: capped here
            n_bins = _checked("n_bins", check_n_values, self.n_bins, "n_bins", dense=dense)
            set_(self, "n_bins", _checked("n_bins", check_at_least, n_bins, "n_bins (N)", 2))
        # max_bins is a default: each attribute's N is capped when its domain is built
        set_(self, "max_bins", _checked("max_bins", check_int, self.max_bins, "max_bins", low=2))
        set_(self, "bounds", _by_column("bounds", self.bounds, "(low, high)", _bound, tuple))
        set_(self, "attributes", _names("attributes", self.attributes))
        set_(self, "perturb_class", bool(self.perturb_class))
        set_(self, "allow_unprotected", bool(self.allow_unprotected))
        set_(self, "copies", _checked("copies", check_copies, self.copies, "copies"))
        if self.copies != 1:
            mechanism_of(method).require(
                "copies", error=partial(OptionError, "copies"), copies=self.copies
            )
        set_(
            self,
            "noise_scale",
            _checked("noise_scale", check_positive, self.noise_scale, "noise_scale"),
        )
        if self.spec is not None:
            self._agree_with_spec()
        cls = self.class_column
        if self.attributes is not None and cls in self.attributes and not self.perturb_class:
            raise OptionError(
                "attributes",
                f"attributes names the class column {cls!r}, which is released as is; "
                "add --perturb-class (perturb_class=True) to perturb it, or leave it out",
            )
        kept = [name for name, _ in self.bounds if name == cls and not self.perturb_class]
        if self.attributes is not None:
            kept += [name for name, _ in self.bounds if name not in self.attributes and name != cls]
        if kept:
            raise OptionError(
                "bounds",
                f"bounds are given for {kept}, which is released as is (not perturbed): "
                "bounds apply to perturbed columns only; drop them, or perturb the column",
            )

    def _check_budget(self, method: str) -> None:
        """Check ``epsilon_record`` and ``epsilon_split``, which go with a budget."""
        set_ = object.__setattr__
        if self.epsilon_record is not None:
            e = _checked("epsilon_record", check_positive, self.epsilon_record, "epsilon_record")
            set_(self, "epsilon_record", e)
        split = _by_column("epsilon_split", self.epsilon_split, "weight", _weight)
        set_(self, "epsilon_split", split)
        if self.epsilon_split and self.budget is None:
            raise OptionError(
                "epsilon_split",
                "epsilon_split splits a per-record budget: give one (epsilon_record, "
                "--epsilon-record)",
            )
        if self.budget is not None:
            mechanism_of(method).require(
                "budget", error=partial(OptionError, "epsilon_record"), budget=show(self.budget)
            )

    @property
    def gamma_or_default(self) -> float:
        """``gamma``, or :data:`DEFAULT_GAMMA` when not given."""
        return DEFAULT_GAMMA if self.gamma is None else self.gamma

    @property
    def budget(self) -> float | None:
        """The per-record budget E: ``epsilon_record``, else the spec's, else ``None``."""
        if self.epsilon_record is None and self.spec is not None:
            return self.spec.epsilon_record
        return self.epsilon_record

    @property
    def split(self) -> dict[str, float]:
        """The weights of the budget's split: ``epsilon_split``, else the spec's."""
        if not self.epsilon_split and self.spec is not None:
            return dict(self.spec.epsilon_split or {})
        return dict(self.epsilon_split)

    def _agree_with_spec(self) -> None:
        """Refuse options that override what the spec states (class, copies, what is
        perturbed, budget, domains)."""
        given = self.spec.class_attribute
        if self.class_attribute is not None and given is not None and given != self.class_attribute:
            raise OptionError(
                "class_attribute",
                f"class_attribute {self.class_attribute!r} differs from the spec's class "
                f"attribute {given!r}; give one of them",
            )
        if self.spec.copies != self.copies:
            raise OptionError(
                "copies",
                f"copies is {self.copies} but the spec asks for {self.spec.copies}; give "
                "the same number",
            )
        cls = self.class_column
        entry = next((a for a in self.spec.attributes if a.name == cls), None)
        if (
            cls is not None
            and not self.perturb_class
            and (self.spec.class_perturbed or (entry is not None and entry.perturbed))
        ):
            why = "says class_perturbed: true" if self.spec.class_perturbed else (
                f"gives the class {cls!r} a perturbed entry")  # fmt: skip
            raise OptionError(
                "perturb_class",
                f"the spec {why}, but perturb_class is off; set perturb_class=True "
                f"(--perturb-class), or mark {cls!r} perturbed: false in the spec",
            )
        if self.perturb_class and entry is not None and not entry.perturbed:
            raise OptionError(
                "perturb_class",
                f"perturb_class is on, but the spec marks the class {cls!r} perturbed: "
                "false; give it a matrix in the spec, or leave perturb_class off",
            )
        kept = {a.name for a in self.spec.attributes if not a.perturbed}
        asked = [name for name in self.attributes or () if name in kept and name != cls]
        if asked:
            raise OptionError(
                "attributes",
                f"attributes names {asked}, which the spec marks perturbed: false; give "
                "what to perturb in one place",
            )
        given = {"epsilon_record": self.epsilon_record, "epsilon_split": dict(self.epsilon_split)}
        for field, mine in given.items():
            theirs = getattr(self.spec, field)
            if mine and theirs is not None and mine != theirs:
                raise OptionError(
                    field,
                    f"{field} is {show(mine)} but the spec asks for {show(theirs)}; give it in "
                    "one place",
                )
        described = {a.name for a in self.spec.attributes if a.domain is not None}
        for names, why in (
            (kept, "which the spec marks perturbed: false; bounds apply to perturbed columns only"),
            (
                described,
                "whose domain the spec describes; give the bounds in one place (the spec's "
                "domain, or bounds without it)",
            ),
        ):
            clash = [name for name, _ in self.bounds if name in names]
            if clash:
                raise OptionError("bounds", f"bounds are given for {clash}, {why}")

    @property
    def class_column(self) -> str | None:
        """The class column: ``class_attribute``, else the spec's."""
        if self.class_attribute is None and self.spec is not None:
            return self.spec.class_attribute
        return self.class_attribute

    @property
    def bins_cap(self) -> int:
        """The most values a column's sketch keeps: ``n_bins``, else ``max_bins``."""
        return self.n_bins if self.n_bins is not None else self.max_bins

    def bounds_of(self, column: str) -> tuple[float, float] | None:
        """The owner's bounds of ``column``, or ``None``."""
        return dict(self.bounds).get(column)

    def replace(self, **changes) -> PlanOptions:
        """A copy with some fields changed, validated again."""
        return dataclasses.replace(self, **changes)


def plan_options(options: PlanOptions | None = None, /, **keywords) -> PlanOptions:
    """The options of a call, ``f(data, options=PlanOptions(...))`` or ``f(data, gamma=9)``:
    ``options``, with any ``keywords`` replacing its fields."""
    if options is None:
        return PlanOptions(**keywords)
    if not isinstance(options, PlanOptions):
        raise ParameterError(f"options must be a PlanOptions (got {type(options).__name__})")
    return options.replace(**keywords) if keywords else options
