"""Commands on model files of either kind: dump-tree and check."""

import sys

import click

from .common import NumberArgsCommand, load_classifier


@click.command("dump-tree", cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
@click.option("-input", "--input", "data_path", default=None,
              help="labelled data to measure each node's J_n, purity and balance on")
@click.option("-format", "--format", "fmt", type=click.Choice(["text", "json", "dot"]),
              default="text", show_default=True)
@click.option("-top", "--top", type=click.IntRange(min=0), default=5, show_default=True,
              help="most frequent labels shown per node")
def dump_tree(model_path, data_path, fmt, top):
    """Print the output tree: each node's depth, children, labels below it,
    and with -input its objective J_n, purity alpha_n and balance beta_n.

    \b
    treexc dump-tree model.bin -input valid.txt
    treexc dump-tree model.bin -format dot | dot -Tsvg > tree.svg
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..trees import dump as dumptree

    report = dumptree.tree_report(_load_tree_model(model_path), data_path, top)
    if fmt == "json":
        sys.stdout.write(dumptree.format_json(report))
    elif fmt == "dot":
        sys.stdout.write(dumptree.format_dot(report))
    elif sys.stdout.isatty():
        _print_rich_tree(report)
    else:
        sys.stdout.write(dumptree.format_text(report))



def _load_tree_model(path):
    # imported here, not above: only a running command loads numpy and Numba
    from ..io import modelfile
    from ..io.fasttext_model import starts_like_fasttext

    if starts_like_fasttext(path):  # a fastText classifier, read as its conversion
        return load_classifier(path)
    kind = modelfile.load_header(path).get("kind")
    if kind == "lm":
        # imported here, not above: only a running command loads numpy and Numba
        from ..lm.model import load_lm
        return load_lm(path)
    return load_classifier(path)



def _print_rich_tree(report):
    # imported here: rich is needed only for a terminal
    from rich.console import Console
    from rich.tree import Tree as RichTree

    from ..trees.dump import node_line, summary_lines

    nodes = report["nodes"]

    def add(branch, node_id, depth_left):
        node = nodes[node_id]
        sub = branch.add(node_line(node))
        if depth_left == 0:
            return
        for c in node["children"]:
            if c and "node" in c:
                add(sub, c["node"], depth_left - 1)

    console = Console()
    root = RichTree("\n".join(summary_lines(report)))
    add(root, 0, 3)
    console.print(root)
    if len(nodes) > 1 and any(n["depth"] > 3 for n in nodes):
        console.print("(deeper nodes omitted; use -format text or json for all)")



@click.command(cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
def check(model_path):
    """Verify a model file: every checksum (also of arrays too large to be
    verified at each load), then every check a load makes.

    \b
    treexc check model.bin
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io import modelfile

    header, version, n_arrays = modelfile.verify(model_path)
    kind = header.get("kind")
    if kind == "lm":
        # imported here, not above: only a running command loads numpy and Numba
        from ..lm.model import load_lm
        load_lm(model_path)
    else:
        load_classifier(model_path)
    sums = "checksums verified" if version >= 2 else "no checksums (format version 1)"
    click.echo(f"{model_path}: ok ({kind} model, format version {version}, "
               f"{n_arrays} arrays, {sums})")



COMMANDS = (dump_tree, check)
