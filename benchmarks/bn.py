"""Benchmark: learn a 20-node network from 1e6 randomized records, beside pgmpy's MLE.

ppdm estimates N_ijk from *randomized* data (Kronecker inverse factor by factor,
Theorem 1-2 standard errors, negative-count fix, ML parameters); pgmpy's
MaximumLikelihoodEstimator counts the *unrandomized* data. Prints a table and, with
``--write``, records the figures in BENCHMARKS.md under "## Bayesian networks".

Run: ``PYTHONPATH=src python benchmarks/bn.py [--n 1000000] [--write]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
from _timing import best_seconds

from ppdm.bayesnet import BayesNet, Node, estimate_parameters, forward_sample
from ppdm.bayesnet.pram import PramScheme
from ppdm.matrix import symmetric_channel
from ppdm_papers.bayesnet import clean_ml


def random_network(n_nodes: int = 20, max_parents: int = 4, seed: int = 0) -> BayesNet:
    """A random DAG: node i draws up to ``max_parents`` parents among nodes < i, 2-4 states."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 5, n_nodes)
    nodes, cpds = [], {}
    for i in range(n_nodes):
        q = int(rng.integers(0, min(i, max_parents) + 1))
        parents = tuple(f"V{p}" for p in sorted(rng.choice(i, q, replace=False))) if q else ()
        nodes.append(Node(f"V{i}", tuple(str(s) for s in range(cards[i])), parents))
        j = int(np.prod([cards[int(p[1:])] for p in parents])) if parents else 1
        cpds[f"V{i}"] = rng.dirichlet(np.ones(cards[i]) * 2.0, size=j).T
    return BayesNet(nodes, cpds, name="random-20")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--p", type=float, default=0.2, help="symmetric randomization level")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = parser.parse_args()

    net = random_network()
    structure = net.structure()
    data = forward_sample(net, args.n, random_state=1)
    scheme = PramScheme(
        net.cardinalities,
        [([v], symmetric_channel(k, args.p)) for v, k in net.cardinalities.items()],
    )
    t0 = time.perf_counter()
    released = scheme.randomize(data, random_state=2)
    t_rand = time.perf_counter() - t0

    fit = None

    def ours():
        nonlocal fit
        fit = estimate_parameters(structure, released, scheme)

    t_ours = best_seconds(ours, args.repeat)
    t_clean = best_seconds(lambda: clean_ml(structure, data), args.repeat)
    rows = [
        (f"ppdm: randomize {args.n:.0e} x 20 (AES-counter streams)", t_rand),
        ("ppdm: estimate_parameters on randomized data", t_ours),
        ("ppdm: ML counts on clean data (reference)", t_clean),
    ]
    try:
        from pgmpy.estimators import MaximumLikelihoodEstimator

        from ppdm.bayesnet.interop import to_pgmpy

        model = to_pgmpy(structure)
        frame = data.astype(str)  # pgmpy state names are the strings "0", "1", ...

        def pgmpy_fit():
            est = MaximumLikelihoodEstimator(model, frame)
            return [est.estimate_cpd(v) for v in structure.names]

        t_pg = best_seconds(pgmpy_fit, max(1, args.repeat - 1))
        rows.append(("pgmpy: MaximumLikelihoodEstimator on clean data", t_pg))
    except ImportError:
        t_pg = None
    diffs = np.concatenate([np.abs(fit.network.cpd(v) - net.cpd(v)).ravel() for v in net.names])
    err = f"median {np.median(diffs):.4f}, 90th percentile {np.quantile(diffs, 0.9):.4f}"

    n_params = sum((net.cardinality(v) - 1) * net.n_configurations(v) for v in net.names)
    width = max(len(r[0]) for r in rows)
    lines = [f"| {'step':{width}s} | seconds |", f"|{'-' * (width + 2)}|---------|"]
    lines += [f"| {name:{width}s} | {t:7.3f} |" for name, t in rows]
    table = "\n".join(lines)
    print(f"network: 20 nodes, {n_params} free parameters; n = {args.n}; p = {args.p}")
    print(table)
    print(f"|theta_hat - theta| from randomized data: {err}")
    if t_pg is not None:
        print(f"speed-up over pgmpy: {t_pg / t_ours:.1f}x")

    if args.write:
        cpu = platform.processor() or platform.machine()
        try:
            with open("/proc/cpuinfo") as f:
                m = re.search(r"model name\s*:\s*(.*)", f.read())
                cpu = m.group(1) if m else cpu
        except OSError:
            pass
        import pgmpy

        section = "\n".join(
            [
                "## Bayesian networks",
                "",
                "Learning the parameters of a random 20-node network (up to 4 parents, 2-4 "
                f"states, {n_params} free parameters) from {args.n:,} records. ppdm works on "
                f"*randomized* records (every variable through a symmetric channel, p = {args.p}) "
                "and estimates N_ijk through the Kronecker inverse factor by factor, with "
                "Theorem 1-2 standard errors and the negative-count fix; pgmpy's "
                "MaximumLikelihoodEstimator counts the *unrandomized* records. Best of "
                f"{args.repeat} runs (pgmpy: {max(1, args.repeat - 1)}).",
                "",
                table,
                "",
                f"|theta_hat - theta| from randomized data: {err}."
                + (f" Speed-up over pgmpy: {t_pg / t_ours:.1f}x." if t_pg else ""),
                "",
                f"Machine: {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
                f"NumPy {np.__version__}, pgmpy {pgmpy.__version__}.",
                f"Command: `PYTHONPATH=src python benchmarks/bn.py --n {args.n} --write`.",
                "",
            ]
        )
        path = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
        text = path.read_text() if path.exists() else "# Benchmarks\n\n"
        pattern = re.compile(r"## Bayesian networks\n.*?(?=\n## |\Z)", re.S)
        text = (
            pattern.sub(section.rstrip("\n") + "\n", text)
            if pattern.search(text)
            else (text.rstrip("\n") + "\n\n" + section)
        )
        path.write_text(text)
        print(f"updated {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
