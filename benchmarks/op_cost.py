"""Where each microsecond of one eager op goes (W2's chain of add, mul, tanh on 16 floats):
numpy's arithmetic, dispatch and the Tensor wrapper, recording (Node, edges, saved tensors),
the backward formulas, the backward engine (ordering, hand-over, accumulation), and freeing
the graph; each measured live as the difference of two real runs, interleaved, medians
(labkit.utils.benchmark.op_cost). Then W2's own figure from the same kind of interleaved run
(benchmarks/timing.py), torch eager alongside.
"""
from labkit.utils.benchmark.op_cost import op_cost

import w2_op_chain


def main():
    print(op_cost(n_ops=100, rounds=31).table())
    print()
    w2_op_chain.main()


if __name__ == "__main__":
    main()
