"""The mechanisms that make a release, by name: what each plans, draws and reports, and
what the other commands can do with its releases.

:data:`MECHANISMS` maps a spec's ``method`` to its :class:`Mechanism`;
:func:`mechanism_of` looks one up for a spec or a name. A command that needs something
only some releases have asks for it by capability, ``mechanism_of(spec).require("audit")``,
and the refusal names the mechanism and what it lacks. A new mechanism is one module
beside these and one entry in the table.

References
----------
Dowd, Xu & Zhang, Sec. 3 (random substitution); Agrawal & Srikant (2000), Sec. 2
(additive noise).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Literal

from ..exceptions import SpecError

__all__ = ["CAPABILITIES", "MECHANISMS", "Mechanism", "Method", "mechanism_of"]

#: What a command may ask of a release's mechanism (:meth:`Mechanism.require`).
CAPABILITIES = (
    "codes",  # released values are codes of a finite domain (checked, encoded, counted)
    "estimators",  # estimated through a channel matrix by a choice of estimators
    "reconstruct",  # Algorithm 2 reconstruction of records
    "attacks",  # the numeric attacks on the released values
    "audit",  # the rho1-to-rho2 audit of the matrices
    "empirical_epsilon",  # the empirical epsilon of the matrices
    "pairs",  # two-way tables
    "copies",  # several perturbed copies of a record
    "budget",  # a per-record budget of amplification
    "matrix",  # matrices, gamma and rho: the owner's choice of the channel
    "noise",  # a noise distribution and its scale
)


class Mechanism(ABC):
    """How a release perturbs its attributes: the plan's fields of an attribute, the
    draw of released batches, the checks of a spec's attribute, the privacy figures and
    report lines, and the capabilities other commands ask for."""

    #: the spec's ``method``
    name: ClassVar[str]
    #: what the HTML report calls it
    label: ClassVar[str]
    #: its releases are estimated with dense N x N work (the dense cap of N)
    dense: ClassVar[bool]
    capabilities: ClassVar[frozenset[str]]
    #: the refusal of a capability it lacks, formatted with ``head`` (``where: `` or
    #: nothing), ``name`` and the values the caller gives
    refusals: ClassVar[dict[str, str]] = {}
    #: the privacy figures a release states and ``ppdm open`` checks against the spec
    checked_keys: ClassVar[tuple[str, ...]]

    def has(self, capability: str) -> bool:
        """Whether its releases have ``capability`` (one of :data:`CAPABILITIES`)."""
        return capability in self.capabilities

    def refusal(self, capability: str, where: str = "", **values: Any) -> str | None:
        """The message refusing ``capability`` (``None`` if it has it)."""
        if self.has(capability):
            return None
        head = f"{where}: " if where else ""
        if capability in self.refusals:
            return self.refusals[capability].format(head=head, name=self.name, **values)
        others = " or ".join(m.name for m in MECHANISMS.values() if m.has(capability))
        return f"{head}{capability} needs a {others} release (this one uses {self.name})"

    def require(
        self, capability: str, where: str = "", error: Callable = SpecError, **values: Any
    ) -> None:
        """Raise ``error(message)`` unless its releases have ``capability``."""
        message = self.refusal(capability, where, **values)
        if message is not None:
            raise error(message)

    @abstractmethod
    def attribute_problem(self, a, data_file: str | None) -> str | None:
        """What is wrong with the spec's perturbed attribute ``a`` (``None`` if nothing)."""

    @abstractmethod
    def plan_attribute(self, name: str, domain, opts) -> dict | None:
        """The fields of a planned perturbed attribute, or ``None`` when they are chosen
        over all attributes at once (the per-record budget's split of gamma)."""

    @abstractmethod
    def perturb(
        self, batches: Iterable, spec, root, row_offset: int, transitions: dict | None
    ) -> Iterator:
        """The released batches of ``batches`` under the streams of ``root``."""

    @abstractmethod
    def privacy(self, a, n_records: int | None, copies: int) -> dict:
        """The privacy figures of the perturbed attribute ``a``."""

    @abstractmethod
    def weakness(self, a, fig: dict, copies: int) -> str | None:
        """Why the perturbed attribute ``a`` with figures ``fig`` is unprotected after
        all: ``"unbounded"``, ``"unchanged"``, ``"revealed"`` (by its copies), or ``None``."""

    def estimate_values(self, values, a):
        """The estimate of ``a``'s distribution from its released ``values``, for a
        mechanism without ``"estimators"`` (the others are estimated from counts)."""
        raise NotImplementedError(f"{self.name} releases are estimated from counts")

    @abstractmethod
    def per_record(self, spec, unprotected: list[str]) -> dict:
        """The guarantee of a whole record (``privacy_report``'s ``per_record``)."""

    @abstractmethod
    def report_lines(self, report: dict) -> list[str]:
        """The text report's table and guarantee of a ``privacy_report``."""

    @abstractmethod
    def epsilon_lines(self, rec: dict) -> list[str]:
        """The text report's lines of the per-record epsilon and amplification."""

    @abstractmethod
    def html_table(self, rep: dict, h) -> str:
        """The HTML report's privacy table; ``h`` holds its helpers (``e``, ``num``,
        ``row``, ``table``, ``unperturbed``)."""

    @abstractmethod
    def html_guarantee(self, rep: dict) -> str:
        """The HTML report's guarantee in plain words."""

    @abstractmethod
    def html_epsilon(self, rec: dict, h) -> list[tuple[str, str]]:
        """The HTML report's rows of the per-record epsilon and amplification."""

    #: the text report's last lines, and the HTML report's legend of its table
    report_footer: ClassVar[tuple[str, ...]] = ()
    html_legend: ClassVar[str] = ""


def mechanism_of(spec_or_name) -> Mechanism:
    """The mechanism of a spec (its ``method``), a report (its ``"method"``) or a name."""
    if isinstance(spec_or_name, dict):
        spec_or_name = spec_or_name.get("method") or next(iter(MECHANISMS))
    name = getattr(spec_or_name, "method", spec_or_name)
    try:
        return MECHANISMS[name]
    except KeyError:
        raise SpecError(f"unknown method {name!r}; choose from {list(MECHANISMS)}") from None


from .additive import Additive  # noqa: E402
from .substitution import Substitution  # noqa: E402

#: The mechanisms by name; the first is the default.
MECHANISMS: dict[str, Mechanism] = {m.name: m for m in (Substitution(), Additive())}
#: A spec's ``method``: a name of the table.
Method = Literal[tuple(MECHANISMS)]
