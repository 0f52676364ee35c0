"""How good is a tree?  The paper's node measures and tree-wide depths.

For an internal node n with m children, over the labels i that reach it
(measured on a data set): q_i is the share of examples of label i,
p_{j|i} the mean probability the node gives child j for those examples, and
p_j = sum_i q_i p_{j|i}.  Then

* objective   J_n     = (2/m) sum_i q_i sum_j |p_j - p_{j|i}|, in [0, (4/m)(1 - 1/m)],
                        the maximum meaning perfectly balanced and pure;
* balancedness beta_n = min_j p_j (perfect at 1/m);
* purity      alpha_n = (1/m) sum_j sum_i q_i min(p_{j|i}, 1 - p_{j|i}) (perfect at 0).

Empty slots are not children: m counts the filled ones.
"""

from dataclasses import dataclass

import numpy as np


def node_measures(q, p_cond):
    """``(J, alpha, beta)`` from label shares ``q`` (L,) and conditional child
    distributions ``p_cond`` (L, m)."""
    q = np.asarray(q, dtype=np.float64)
    p_cond = np.asarray(p_cond, dtype=np.float64)
    m = p_cond.shape[1]
    p = q @ p_cond
    objective = 2.0 / m * float(q @ np.abs(p[None, :] - p_cond).sum(axis=1))
    purity = float(q @ np.minimum(p_cond, 1.0 - p_cond).sum(axis=1)) / m
    return objective, purity, float(p.min())


@dataclass
class NodeReport:
    node: int
    depth: int
    labels: np.ndarray         # ids of the labels below the node
    examples: float = 0.0      # examples that reached it (0 without data)
    objective: float = float("nan")
    purity: float = float("nan")
    balance: float = float("nan")


def measure_nodes(tree, stats_p=None, stats_n=None):
    """A NodeReport per internal node; the measures need statistics by path
    position (``loss.tree_softmax.path_statistics``)."""
    depths = tree.node_depths()
    owner = np.repeat(np.arange(tree.n_labels), np.diff(tree.path_off))
    order = np.argsort(tree.path_node, kind="stable")
    bounds = np.searchsorted(tree.path_node[order], np.arange(tree.n_internal + 1))
    reports = []
    for n in range(tree.n_internal):
        positions = order[bounds[n]:bounds[n + 1]]
        report = NodeReport(node=n, depth=int(depths[n]), labels=owner[positions])
        if stats_n is not None:
            counts = stats_n[positions]
            report.examples = float(counts.sum())
            keep = positions[counts > 0]
            present = np.flatnonzero(tree.children[n] >= 0)
            if len(keep) and len(present) > 1:
                n_i = stats_n[keep]
                p_cond = stats_p[keep][:, present] / n_i[:, None]
                report.objective, report.purity, report.balance = node_measures(
                    n_i / n_i.sum(), p_cond)
        reports.append(report)
    return reports


def depth_summary(tree, label_counts):
    """Max depth and depth averaged over labels weighted by frequency."""
    depths = tree.depths()
    counts = np.asarray(label_counts, dtype=np.float64)
    weighted = float((depths * counts).sum() / counts.sum()) if counts.sum() else \
        float(depths.mean())
    return int(depths.max()), weighted
