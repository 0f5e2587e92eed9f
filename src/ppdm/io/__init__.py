"""Table input and output: CSV, Parquet and ARFF, whole or batch by batch; outputs are
published whole (:func:`atomic_path`, :func:`write_table_atomic`).

Its modules: :mod:`.files` (formats, parts), :mod:`.kinds` (column kinds), :mod:`.csv`,
:mod:`.parquet` and :mod:`.arff` (each format), :mod:`.tables` (any table) and
:mod:`.writers`.
"""

from .arff import arff_quote, label_text, read_arff, write_arff
from .csv import count_csv_records, names_as_read
from .files import check_regular_file, is_glob, partition_files, table_format
from .kinds import TEXT_ATTR, infer_kind, numbers_of_text
from .parquet import check_parts_alike, footer_kinds, parquet_kinds, parquet_rows, table_columns
from .tables import iter_batches, read_table
from .writers import (
    ROW_GROUP_ROWS,
    BatchWriter,
    atomic_path,
    write_csv_atomic,
    write_csv_batch,
    write_json_atomic,
    write_table,
    write_table_atomic,
)

__all__ = [
    "write_csv_atomic",
    "write_json_atomic",
    "BatchWriter",
    "ROW_GROUP_ROWS",
    "TEXT_ATTR",
    "arff_quote",
    "atomic_path",
    "check_parts_alike",
    "check_regular_file",
    "count_csv_records",
    "footer_kinds",
    "infer_kind",
    "is_glob",
    "iter_batches",
    "label_text",
    "names_as_read",
    "numbers_of_text",
    "parquet_kinds",
    "parquet_rows",
    "partition_files",
    "read_arff",
    "read_table",
    "table_columns",
    "table_format",
    "write_arff",
    "write_csv_batch",
    "write_table",
    "write_table_atomic",
]
