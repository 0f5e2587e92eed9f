"""Workers of the local cell pool run with one BLAS/OpenMP thread each.

The pool already starts one process per core it is given; BLAS threads of their own
in each worker would only compete with the other workers.
"""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from ppdm.cells import local_mapper


def _blas_threads(cell: tuple) -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_pool_workers_use_one_blas_thread():
    if not any(lib["user_api"] == "blas" for lib in threadpool_info()):
        pytest.skip("no BLAS library reported by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):  # the parent allows two
        seen = list(local_mapper(2)(_blas_threads, [(0,), (1,), (2,)]))
        assert max(_blas_threads(())) == 2
    assert seen and all(threads and max(threads) == 1 for threads in seen), seen


def test_in_process_runs_keep_the_callers_setting():
    if not any(lib["user_api"] == "blas" for lib in threadpool_info()):
        pytest.skip("no BLAS library reported by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        (threads,) = list(local_mapper(1)(_blas_threads, [(0,)]))
    assert max(threads) == 2
