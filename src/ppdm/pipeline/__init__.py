"""File-level workflows: make a release, estimate from it, reconstruct it, streamed in
batches (memory bounded by the batch size) and published whole.

Its modules, each importing only those above it: :mod:`.batches`, :mod:`.opening`,
:mod:`.writing`, :mod:`.estimating` and :mod:`.reconstructing`.

References
----------
Dowd, Xu & Zhang, Algorithms 1 and 2 and Sec. 4.2-4.3.
"""

from .batches import (
    DEFAULT_BATCH,
    Progress,
    batch_rows,
    read_ahead,
    spare_core,
    spec_kinds,
)
from .estimating import (
    AttributeEstimate,
    check_by_class,
    count_pass,
    estimate_release,
    estimates_from_counts,
)
from .opening import (
    Release,
    check_release_rows,
    check_release_spec,
    checked_batches,
    class_codes,
    load_release,
    release_values,
    sorted_classes,
    value_domains,
    verify_release,
)
from .reconstructing import (
    assign_batches,
    rank_keys,
    rank_tables,
    reconstruct_batches,
    reconstruct_frame,
    reconstruct_release,
    reconstruction_multisets,
)
from .writing import (
    check_written_release,
    make_release,
    plan_from_footers,
    save_release,
    values_round_trip,
    with_privacy,
    write_spec_and_report,
    written_shape,
)

__all__ = [
    "AttributeEstimate",
    "DEFAULT_BATCH",
    "Progress",
    "Release",
    "assign_batches",
    "batch_rows",
    "check_by_class",
    "check_release_rows",
    "check_release_spec",
    "check_written_release",
    "checked_batches",
    "class_codes",
    "count_pass",
    "estimate_release",
    "estimates_from_counts",
    "load_release",
    "make_release",
    "plan_from_footers",
    "rank_keys",
    "rank_tables",
    "read_ahead",
    "reconstruct_batches",
    "reconstruct_frame",
    "reconstruct_release",
    "reconstruction_multisets",
    "release_values",
    "save_release",
    "sorted_classes",
    "spare_core",
    "spec_kinds",
    "value_domains",
    "values_round_trip",
    "verify_release",
    "with_privacy",
    "write_spec_and_report",
    "written_shape",
]
