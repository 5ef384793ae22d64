"""The best-option scorer's fast path for a pair quantifier whose edges score
independently (no shared atoms or actions), via scipy's ``linear_sum_assignment``."""

from __future__ import annotations

from planproof.ltl.options.normal_form import MatchNode
from planproof.ltl.options.table import NO_LITS, Table, join

__all__ = ["best_assignment"]


def best_assignment(node: MatchNode, live: list[int], tables: list[Table]) -> Table:
    """Best matching of exactly ``size`` edges with independent edge values: one
    rectangular assignment problem, dummy columns absorbing the unmatched rows."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    s = node.size
    rows = sorted({node.pairs[i][0] for i in live})
    cols = sorted({node.pairs[i][1] for i in live})
    flip = len(rows) > len(cols)
    if flip:
        rows, cols = cols, rows
    if s > len(rows):
        return {}
    ri = {v: k for k, v in enumerate(rows)}
    ci = {v: k for k, v in enumerate(cols)}
    plain = (NO_LITS, ())
    values = {i: tables[i][plain][0] for i in live}
    big = 2 * len(rows) * max(1, *(abs(v) for v in values.values())) + 1
    cost = np.full((len(rows), len(cols) + len(rows) - s), np.inf)
    cost[:, len(cols) :] = -big
    where: dict[tuple[int, int], int] = {}
    for i in live:
        a, b = node.pairs[i]
        if flip:
            a, b = b, a
        r, c = ri[a], ci[b]
        cost[r, c] = -values[i]
        where[(r, c)] = i
    try:
        r_ind, c_ind = linear_sum_assignment(cost)
    except ValueError:  # no matching of this size
        return {}
    chosen = [where[(int(r), int(c))] for r, c in zip(r_ind, c_ind, strict=True) if c < len(cols)]
    total, tree = 0, None
    for i in chosen:
        v, _, t = tables[i][plain]
        total += v
        tree = join(tree, t)
    return {plain: (total, (), tree)}
