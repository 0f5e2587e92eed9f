"""The mechanisms that make a release, by name (:data:`MECHANISMS`, :func:`mechanism_of`):
what each plans, draws and reports, and what other commands can do with its releases. A
command asks by capability, ``mechanism_of(spec).require("audit")``, and the refusal names
the mechanism and what it lacks. A new mechanism is one module and one entry in the table.

References
----------
Dowd, Xu & Zhang, Sec. 3 (random substitution); Agrawal & Srikant (2000), Sec. 2
(additive noise).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import ClassVar, Literal

from ..exceptions import SpecError

__all__ = ["CAPABILITIES", "MECHANISMS", "Mechanism", "Method", "mechanism_of"]

#: What a command may ask of a release's mechanism: released values are "codes" of a finite
#: domain (checked, encoded, counted), "estimators" through a channel matrix, Algorithm 2
#: ("reconstruct"), the numeric "attacks", the rho1-to-rho2 "audit", the "empirical_epsilon",
#: two-way tables ("pairs"), several "copies" of a record, a per-record "budget", the owner's
#: "matrix" (gamma, rho), a "noise" distribution and scale.
CAPABILITIES = ("codes", "estimators", "reconstruct", "attacks", "audit", "empirical_epsilon")
CAPABILITIES += ("pairs", "copies", "budget", "matrix", "noise")


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
    #: the text report's last lines, and the HTML report's legend of its table
    report_footer: ClassVar[tuple[str, ...]] = ()
    html_legend: ClassVar[str] = ""

    def has(self, capability: str) -> bool:
        """Whether its releases have ``capability`` (one of :data:`CAPABILITIES`)."""
        return capability in self.capabilities

    def refusal(self, capability: str, where: str = "", **values) -> str | None:
        """The message refusing ``capability`` (``None`` if it has it)."""
        if self.has(capability):
            return None
        head = f"{where}: " if where else ""
        if capability in self.refusals:
            return self.refusals[capability].format(head=head, name=self.name, **values)
        others = " or ".join(m.name for m in MECHANISMS.values() if m.has(capability))
        return f"{head}{capability} needs a {others} release (this one uses {self.name})"

    def require(self, capability: str, where="", error: Callable = SpecError, **values) -> None:
        """Raise ``error(message)`` unless its releases have ``capability``."""
        message = self.refusal(capability, where, **values)
        if message is not None:
            raise error(message)

    # what is wrong with the spec's perturbed attribute ``a`` (``None`` if nothing)
    @abstractmethod
    def attribute_problem(self, a, data_file: str | None) -> str | None: ...
    # the fields of a planned perturbed attribute (``None``: chosen over all at once)
    @abstractmethod
    def plan_attribute(self, name: str, domain, opts) -> dict | None: ...
    # the released batches of ``batches`` under the streams of ``root``
    @abstractmethod
    def perturb(self, batches, spec, root, row_offset: int, transitions) -> Iterator: ...
    # the privacy figures of the perturbed attribute ``a``
    @abstractmethod
    def privacy(self, a, n_records: int | None, copies: int) -> dict: ...
    # why ``a`` is unprotected after all: "unbounded", "unchanged", "revealed" (or None)
    @abstractmethod
    def weakness(self, a, fig: dict, copies: int) -> str | None: ...
    # the guarantee of a whole record (``privacy_report``'s ``per_record``)
    @abstractmethod
    def per_record(self, spec, unprotected: list[str]) -> dict: ...
    # the text report's table and guarantee, and its lines of the per-record epsilon
    @abstractmethod
    def report_lines(self, report: dict) -> list[str]: ...
    @abstractmethod
    def epsilon_lines(self, rec: dict) -> list[str]: ...
    # the same in the HTML report, written with its helpers ``h``
    @abstractmethod
    def html_table(self, rep: dict, h) -> str: ...
    @abstractmethod
    def html_guarantee(self, rep: dict) -> str: ...
    @abstractmethod
    def html_epsilon(self, rec: dict, h) -> list[tuple[str, str]]: ...

    def estimate_values(self, values, a):
        """The estimate of ``a`` from its released ``values`` (without ``"estimators"``)."""
        raise NotImplementedError(f"{self.name} releases are estimated from counts")


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
