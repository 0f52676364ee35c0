"""The command line.  ``main`` (``cli/main.py``'s click group) is imported
when first asked for: the ``treexc`` command starts in ``cli/entry.py``,
which answers a small input without click."""

__all__ = ["main"]


def __getattr__(name):
    if name == "main":
        from .main import main

        globals()["main"] = main  # over the submodule the import bound to the name
        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
