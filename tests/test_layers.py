"""The package's layering, checked on its own sources (docs/design.md):

* no import circle between modules, nor between packages (``trees/`` ->
  ``io/`` -> ``memory`` -> ``trees/`` is a circle of three packages even
  where no module imports itself back);
* the model families (``classify/``, ``lm/``, and any later sibling) import
  no other family: they meet only in shared layers;
* package imports inside function bodies only in ``cli/`` and
  ``treexc/__init__.py`` (start-up time);
* no module over :data:`MAX_LINES` lines.

Every rule is also run on a small made-up package that breaks it, so a
check that stopped finding anything would fail here.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "treexc"
FAMILIES = ("classify", "lm", "linear", "vectors")
LAZY_ALLOWED = ("treexc", "treexc.cli")
MAX_LINES = 450


def module_files(package):
    """``{module name: path}`` of every module under ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(modules):
    """``(edges, lazy)``: for each module the modules of the package it
    imports, and those it imports inside a function."""
    edges, lazy = {}, {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = {id(node) for fn in ast.walk(tree)
                  if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for node in ast.walk(fn)}
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                base = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    edges.setdefault(name, set()).add(target)
                    if id(node) in inside:
                        lazy.setdefault(name, set()).add(target)
    return edges, lazy


def circles(edges):
    """The strongly connected components of more than one node (Tarjan,
    iterative: a deep chain of imports needs no recursion limit)."""
    index, low, on, stack, found = {}, {}, set(), [], []
    for start in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_of(module):
    """``treexc.classify`` for any module under ``classify/`` (sub-packages
    included); a top-level module is its own."""
    return ".".join(module.split(".")[:2])


def family(module):
    part = module.split(".")[1:2]
    return part[0] if part and part[0] in FAMILIES else None


def findings(package):
    modules = module_files(package)
    edges, lazy = imports(modules)
    found = [f"import circle: {' <-> '.join(c)}" for c in circles(edges)]
    packages = {}
    for a, targets in edges.items():
        for b in targets:
            if package_of(a) != package_of(b):
                packages.setdefault(package_of(a), set()).add(package_of(b))
    found += [f"package circle: {' <-> '.join(c)}" for c in circles(packages)]
    found += [f"{a} imports {b}: the model families meet only in shared layers"
              for a, targets in sorted(edges.items()) for b in sorted(targets)
              if family(a) and family(b) and family(a) != family(b)]
    found += [f"{m} imports {', '.join(sorted(ts))} inside a function"
              for m, ts in sorted(lazy.items())
              if m != LAZY_ALLOWED[0] and not m.startswith(LAZY_ALLOWED[1])]
    for name, path in modules.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{name}: {lines} lines")
    return found


def test_the_package_keeps_its_layers():
    assert findings(PACKAGE) == []


def write_package(root, files):
    for name, text in files.items():
        path = root / "treexc" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "treexc"


def test_each_rule_finds_what_breaks_it(tmp_path):
    package = write_package(tmp_path, {
        "__init__.py": "",
        "memory.py": "from .trees import capacity\n",
        "trees/__init__.py": "", "trees/capacity.py": "",
        "trees/dump.py": "from ..io import textio\n",
        "io/__init__.py": "", "io/textio.py": "from .. import memory\n",
        "a.py": "from . import b\n", "b.py": "from .a import x\n",
        "classify/__init__.py": "", "classify/model.py": "from ..lm import model\n",
        "lm/__init__.py": "", "lm/model.py": "def f():\n    from .. import a\n",
        "big.py": "x = 1\n" * (MAX_LINES + 1),
        "cli/__init__.py": "", "cli/main.py": "def main():\n    from ..classify import model\n",
    })
    found = findings(package)
    assert "import circle: treexc.a <-> treexc.b" in found
    assert ("package circle: treexc.io <-> treexc.memory <-> treexc.trees" in found)
    assert not any("import circle" in f and "memory" in f for f in found)  # modules: no circle
    assert ("treexc.classify.model imports treexc.lm.model: the model families meet only "
            "in shared layers") in found
    assert "treexc.lm.model imports treexc.a inside a function" in found
    assert f"treexc.big: {MAX_LINES + 1} lines" in found
    assert not any(f.startswith("treexc.cli") for f in found)
