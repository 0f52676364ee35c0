"""``dump-tree``: a model's output tree as text, JSON or Graphviz DOT.

Works on any model that offers ``tree``, ``tree_label_names()``,
``tree_label_counts()`` and, for the node measures, ``tree_statistics(path)``
(statistics by path position measured on a data file).
"""

import json
import math

import numpy as np

from ..errors import TreexcError
from ..io.textio import printable
from .stats import depth_summary, measure_nodes


def tree_report(model, data_path=None, top=5):
    tree = model.tree
    if tree is None:
        raise TreexcError(f"this model has no tree (-loss {model.args.loss})")
    # control characters escaped: a label must not break a line of the dump
    names = [printable(name) for name in model.tree_label_names()]
    counts = np.asarray(model.tree_label_counts(), dtype=np.float64)
    stats = model.tree_statistics(data_path) if data_path else (None, None)
    reports = measure_nodes(tree, *stats)
    depth_max, depth_avg = depth_summary(tree, counts)
    nodes = []
    for r in reports:
        below = r.labels[np.argsort(-counts[r.labels], kind="stable")]
        children = []
        for c in tree.children[r.node].tolist():
            if c < 0:
                children.append(None)
            elif c < tree.n_labels:
                children.append({"label": names[c]})
            else:
                children.append({"node": c - tree.n_labels})
        node = {"id": r.node, "depth": r.depth, "children": children,
                "n_labels": int(len(r.labels)),
                "top_labels": [names[i] for i in below[:top]]}
        if data_path:
            node.update(examples=r.examples, objective=_num(r.objective),
                        purity=_num(r.purity), balance=_num(r.balance))
        nodes.append(node)
    report = {"arity": tree.arity, "labels": tree.n_labels,
              "internal_nodes": tree.n_internal, "depth_max": depth_max,
              "depth_avg_weighted": round(depth_avg, 4), "nodes": nodes}
    if data_path:
        measured = [n for n in nodes if n["objective"] is not None]
        weights = np.array([n["examples"] for n in measured])
        if len(measured) and weights.sum() > 0:
            report["objective_avg_weighted"] = round(float(
                np.dot(weights, [n["objective"] for n in measured]) / weights.sum()), 6)
    return report


def _num(x):
    return None if math.isnan(x) else round(float(x), 6)


def _measures(node):
    if node.get("objective") is None:
        return ""
    return (f"  J={node['objective']:.4f} alpha={node['purity']:.4f} "
            f"beta={node['balance']:.4f} examples={node['examples']:.0f}")


def summary_lines(report):
    lines = [f"arity {report['arity']}, {report['labels']} labels, "
             f"{report['internal_nodes']} internal nodes, depth max {report['depth_max']}, "
             f"average (weighted by label frequency) {report['depth_avg_weighted']:.3f}"]
    if "objective_avg_weighted" in report:
        lines.append(f"mean J_n weighted by examples: {report['objective_avg_weighted']:.4f}")
    return lines


def node_line(node):
    leaves = sum(1 for c in node["children"] if c and "label" in c)
    inner = sum(1 for c in node["children"] if c and "node" in c)
    return (f"node {node['id']} depth {node['depth']}: {node['n_labels']} labels, "
            f"{inner} subtrees, {leaves} leaves; top: {' '.join(node['top_labels'])}"
            + _measures(node))


def format_text(report):
    return "\n".join(summary_lines(report) + [node_line(n) for n in report["nodes"]]) + "\n"


def format_json(report):
    return json.dumps(report, indent=1) + "\n"


def format_dot(report):
    out = ["digraph tree {", "  node [shape=box, fontsize=10];"]
    for node in report["nodes"]:
        text = f"node {node['id']} ({node['n_labels']})\\n" + "\\n".join(
            _dot_escape(x) for x in node["top_labels"])
        if node.get("objective") is not None:
            text += f"\\nJ={node['objective']:.3f}"
        out.append(f'  n{node["id"]} [label="{text}"];')
        for j, c in enumerate(node["children"]):
            if c and "node" in c:
                out.append(f"  n{node['id']} -> n{c['node']};")
            elif c and "label" in c:
                leaf = f"l{node['id']}_{j}"
                out.append(f'  {leaf} [label="{_dot_escape(c["label"])}", shape=plaintext];')
                out.append(f"  n{node['id']} -> {leaf};")
    out.append("}")
    return "\n".join(out) + "\n"


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')
