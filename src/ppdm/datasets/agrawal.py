"""The Agrawal, Imielinski & Swami (1993) synthetic loan data and its ten class functions.

Attributes and classification functions follow MOA's ``AgrawalGenerator`` (itself after
``pred20``..``pred29`` of the authors' C generator), vectorised over whole columns.

Encoding
--------
=========== ======= ==============================================================
column      dtype   values
=========== ======= ==============================================================
salary      float   uniform on [20 000, 150 000)
commission  float   0 if salary >= 75 000, else uniform on [10 000, 75 000)
age         int     uniform on 20..80
elevel      int     education level, uniform on 0..4
car         int     make of car, uniform on 1..20 (MOA's labels ``car1``..``car20``)
zipcode     int     uniform on 1..9 (MOA's labels ``zipcode1``..``zipcode9``)
hvalue      float   uniform on [0.5 k, 1.5 k) * 100 000 with k = 10 - zipcode
hyears      int     uniform on 1..30
loan        float   uniform on [0, 500 000)
group       int     class: 0 is MOA's ``groupA``, 1 is ``groupB``
=========== ======= ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ..exceptions import ParameterError
from ..limits import MAX_RECORDS
from ..random import RandomState, check_random_state
from ..validation import check_int, check_probability, show
from .uci import Dataset

__all__ = ["AGRAWAL_COLUMNS", "agrawal", "agrawal_class", "load_synth"]

AGRAWAL_COLUMNS: tuple[str, ...] = (
    "salary",
    "commission",
    "age",
    "elevel",
    "car",
    "zipcode",
    "hvalue",
    "hyears",
    "loan",
)

# (low, high) of every numeric attribute the perturbation may move; values are clipped
# back into these ranges, as MOA does.
_PERTURB_RANGES = {
    "salary": (20_000.0, 150_000.0),
    "commission": (10_000.0, 75_000.0),
    "age": (20.0, 80.0),
    "hyears": (1.0, 30.0),
    "loan": (0.0, 500_000.0),
}
_HVALUE_MAX = 1_350_000.0


def _between(x: np.ndarray, low: float, high: float) -> np.ndarray:
    return (low <= x) & (x <= high)


def _by_age(age: np.ndarray, young, middle, old) -> np.ndarray:
    """Pick per record among three boolean arrays by age band (<40, 40..59, >=60)."""
    return np.where(age < 40, young, np.where(age < 60, middle, old))


# Each function returns True where the record belongs to group A (class 0).
def _f1(t):
    return (t["age"] < 40) | (t["age"] >= 60)


def _pay_bands(age, pay):
    """Functions 2 and 6: pay in 50K-100K (age < 40), 75K-125K (40-59), 25K-75K (60+)."""
    low, mid, high = (_between(pay, k, k + 50_000) for k in (25_000, 50_000, 75_000))
    return _by_age(age, mid, high, low)


def _f2(t):
    return _pay_bands(t["age"], t["salary"])


def _f3(t):
    e = t["elevel"]
    return _by_age(t["age"], e <= 1, (e >= 1) & (e <= 3), (e >= 2) & (e <= 4))


def _f4(t):
    """Salary in a band chosen by age and by whether function 3 holds."""
    s, age = t["salary"], t["age"]
    low, mid, high = (_between(s, k, k + 50_000) for k in (25_000, 50_000, 75_000))
    return np.where(_f3(t), _by_age(age, low, mid, mid), _by_age(age, mid, high, low))


def _f5(t):
    """Loan in a band chosen by age and by whether the salary is in function 2's band."""
    loan, age = t["loan"], t["age"]
    band = {k: _between(loan, k * 100_000, k * 100_000 + 200_000) for k in (1, 2, 3)}
    inside = _by_age(age, band[1], band[2], band[3])
    outside = _by_age(age, band[2], band[3], band[1])
    return np.where(_pay_bands(age, t["salary"]), inside, outside)


def _f6(t):
    return _pay_bands(t["age"], t["salary"] + t["commission"])


def _income(t):
    return 2.0 * (t["salary"] + t["commission"]) / 3.0


def _f7(t):
    return _income(t) - t["loan"] / 5.0 - 20_000.0 > 0


def _f8(t):
    return _income(t) - 5_000.0 * t["elevel"] - 20_000.0 > 0


def _f9(t):
    return _income(t) - 5_000.0 * t["elevel"] - t["loan"] / 5.0 - 10_000.0 > 0


def _f10(t):
    hyears = np.asarray(t["hyears"], dtype=float)
    equity = np.where(hyears >= 20, t["hvalue"] * (hyears - 20.0) / 10.0, 0.0)
    return _income(t) - 5_000.0 * t["elevel"] + equity / 5.0 - 10_000.0 > 0


_FUNCTIONS: dict[int, Callable] = dict(
    enumerate((_f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10), start=1)
)


def _check_function(function: int) -> int:
    if isinstance(function, bool) or not isinstance(function, (int, np.integer)):
        raise ParameterError(f"function must be an int in 1..10 (got {show(function)})")
    if function not in _FUNCTIONS:
        raise ParameterError(f"function must be in 1..10 (got {function})")
    return int(function)


def agrawal_class(table: pd.DataFrame | dict, function: int = 1) -> np.ndarray:
    """Class of each record (0 group A, 1 group B) under Agrawal function 1..10, from the
    columns of :data:`AGRAWAL_COLUMNS` it reads in this module's encoding (zipcode 1..9).

    References
    ----------
    Agrawal, Imielinski & Swami (1993), "Database mining: a performance perspective",
    IEEE TKDE 5(6), p. 924 (functions 1-10); MOA ``AgrawalGenerator``.
    """
    f = _FUNCTIONS[_check_function(function)]
    cols = {k: np.asarray(table[k]) for k in table if k in AGRAWAL_COLUMNS}
    return np.where(f(cols), 0, 1).astype(np.int64)


def _draw(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    salary = 20_000.0 + 130_000.0 * rng.random(n)
    commission = np.where(salary >= 75_000.0, 0.0, 10_000.0 + 65_000.0 * rng.random(n))
    zipcode = rng.integers(1, 10, size=n)
    return {
        "salary": salary,
        "commission": commission,
        "age": rng.integers(20, 81, size=n),
        "elevel": rng.integers(0, 5, size=n),
        "car": rng.integers(1, 21, size=n),
        "zipcode": zipcode,
        "hvalue": (10 - zipcode) * 100_000.0 * (0.5 + rng.random(n)),
        "hyears": rng.integers(1, 31, size=n),
        "loan": 500_000.0 * rng.random(n),
    }


def _balanced(n: int, function: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw until each class has enough records, then interleave B, A, B, A, ... (MOA's order)."""
    need = {1: (n + 1) // 2, 0: n // 2}
    got: dict[int, list[dict[str, np.ndarray]]] = {0: [], 1: []}
    have = {0: 0, 1: 0}
    while have[0] < need[0] or have[1] < need[1]:
        batch = _draw(max(2 * n, 1024), rng)
        y = agrawal_class(batch, function)
        for c in (0, 1):
            idx = np.flatnonzero(y == c)[: need[c] - have[c]]
            got[c].append({k: v[idx] for k, v in batch.items()})
            have[c] += idx.size
    j = np.arange(n)
    take = j // 2 + (j % 2) * need[1]  # in the B records, then the A records
    return {
        k: np.concatenate([g[k] for c in (1, 0) for g in got[c]])[take] for k in AGRAWAL_COLUMNS
    }


def _perturb(cols: dict[str, np.ndarray], p: float, rng: np.random.Generator) -> None:
    """MOA's perturbFraction: add uniform noise of +-p * range, clip back into the range."""
    n = cols["salary"].size
    for name, (low, high) in _PERTURB_RANGES.items():
        x = cols[name].astype(float)
        moved = x + (high - low) * p * (2.0 * rng.random(n) - 1.0)
        moved = np.clip(moved, low, high)
        if name == "commission":
            moved = np.where(x > 0, moved, 0.0)  # a zero commission stays zero, as in MOA
        if name in ("age", "hyears"):
            moved = np.rint(moved).astype(np.int64)
        cols[name] = moved
    width = (10 - cols["zipcode"]) * 100_000.0
    cols["hvalue"] = np.clip(
        cols["hvalue"] + width * p * (2.0 * rng.random(n) - 1.0), 0.0, _HVALUE_MAX
    )


def agrawal(
    n: int,
    function: int = 1,
    perturbation: float = 0.0,
    *,
    balance: bool = False,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """Draw ``n`` records of the Agrawal loan data, classified by one of ten functions.

    Parameters
    ----------
    n : int
        Number of records, >= 0.
    function : int, default=1
        Classification function, 1..10.
    perturbation : float, default=0.0
        MOA's ``perturbFraction`` in [0, 1]: after the class is fixed, each numeric
        attribute (salary, non-zero commission, age, hvalue, hyears, loan) moves by a
        uniform amount in ``+-perturbation * range`` and is clipped back into its range,
        so the class becomes noisy. Age and hyears are rounded back to integers.
    balance : bool, default=False
        Alternate the classes (B, A, B, ...) as MOA's ``balanceClasses`` does, by
        rejection; class proportions are then exactly one half.
    random_state : None, int, SeedSequence or Generator, default=None
        Same seed, same table.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`AGRAWAL_COLUMNS` then ``group`` (int, 0 = group A, 1 = group B);
        see the module docstring for the encoding.

    Notes
    -----
    Deviation from MOA: MOA clips a perturbed ``hvalue`` to ``[0, 135000]``, which cuts
    off most house values (they reach 1 350 000); we read it as a dropped zero and clip
    to ``[0, 1350000]``. The noise width for ``hvalue`` is MOA's, ``(10 - zipcode) * 100000``
    in our 1..9 zipcode coding.

    References
    ----------
    Agrawal, Imielinski & Swami (1993), "Database mining: a performance perspective",
    IEEE TKDE 5(6), Sec. 4 and p. 924; MOA ``AgrawalGenerator`` (perturbation, balance).

    Examples
    --------
    >>> t = agrawal(1000, function=2, random_state=0)
    >>> t.shape
    (1000, 10)
    >>> agrawal(5, random_state=1).equals(agrawal(5, random_state=1))
    True
    """
    check_int(n, "n", low=0, error=ParameterError)
    function = _check_function(function)
    check_probability(perturbation, "perturbation", closed=True, error=ParameterError)
    rng = check_random_state(random_state)
    n = int(n)
    if n > MAX_RECORDS:
        raise ParameterError(
            f"n is {n}, above the cap of {MAX_RECORDS} records (ppdm.limits.MAX_RECORDS)"
        )
    cols = _balanced(n, function, rng) if balance and n > 0 else _draw(n, rng)
    group = agrawal_class(cols, function)
    if perturbation > 0.0:
        _perturb(cols, float(perturbation), rng)
    frame = pd.DataFrame({k: cols[k] for k in AGRAWAL_COLUMNS})
    frame["group"] = group
    return frame


def load_synth(
    k: int,
    n_train: int = 100_000,
    n_test: int = 5_000,
    random_state: RandomState = 0,
) -> tuple[Dataset, Dataset]:
    """Synth1..Synth5 of the papers: Agrawal functions 1..5, a train and a test table.

    Train and test are drawn in one stream (train first), so they are independent
    samples and the same seed gives the same pair.

    Parameters
    ----------
    k : int
        Which synthetic set, 1..5 (classification function ``k``).
    n_train, n_test : int, default=100_000, 5_000
        Table sizes (Dowd, Xu & Zhang Table 1: 100K train, 5K test).
    random_state : None, int, SeedSequence or Generator, default=0

    Returns
    -------
    (Dataset, Dataset)
        Train and test, class column ``group``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.2 and Table 1; Agrawal & Srikant (2000), Sec. 5.

    Examples
    --------
    >>> train, test = load_synth(1, n_train=100, n_test=10)
    >>> len(train.frame), len(test.frame), train.target
    (100, 10, 'group')
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 5:
        raise ParameterError(f"k must be an int in 1..5 (got {show(k)})")
    frame = agrawal(n_train + n_test, function=int(k), random_state=random_state)
    train = frame.iloc[:n_train].reset_index(drop=True)
    test = frame.iloc[n_train:].reset_index(drop=True)
    return Dataset(f"synth{k}", train, "group"), Dataset(f"synth{k}-test", test, "group")
