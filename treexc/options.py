"""One option machinery for both model families.

An options class is a dataclass whose fields are made by :func:`option`.
Each field carries its help text, the flags it is spelled as, the range or
choices it must lie in, whether it defines the model's shape (a model file
without it is corrupt) and whether it is saved with the model.  Everything
else derives from the fields: the command line's click options
(``cli.common.option_flags``), the Python API's keyword flags
(:func:`options_from_flags`, aliases included), the common checks
(:func:`check_fields`), the options a model file holds
(:func:`option_values`) and the list of shape options (:func:`shape_names`).

This module imports neither numpy nor Numba: ``treexc --help`` reads it.
"""

import dataclasses
import math
import numbers
import os

from .errors import TreexcError

# The trees of either model's output layer, by name: one vocabulary for
# ``-tree`` in both commands (each family lists the ones it builds).
TREES = ("learned", "huffman", "random", "cluster")

# ``saved`` of an option added after models were written with the old set:
# saved only when it holds another value than its default, so that the
# headers of models that do not use it stay byte for byte what they were
# (and older treexc versions, which ignore unknown names, still load them).
IF_SET = "if set"


def option(default, help, *, shape=False, saved=True, flags=(), required=False,
           choices=(), value_aliases=None, above=None, at_least=None, at_most=None):
    """A field of an options dataclass.

    ``help``: one line for ``-h``; ``shape``: defines the model's shape
    (checked present on load); ``saved``: True, False (file names,
    verbosity: nothing about the model) or :data:`IF_SET`; ``flags``: the
    names it is spelled as on the command line and in Python, the first
    shown first (default: the field's name, which is always accepted);
    ``required``: the command line refuses to run without it; ``choices``,
    ``value_aliases`` (old spelling -> value), ``above``, ``at_least`` and
    ``at_most``: the checks of :func:`check_fields`."""
    metadata = {"help": help, "shape": shape, "saved": saved, "flags": tuple(flags),
                "required": required, "choices": tuple(choices),
                "value_aliases": dict(value_aliases or {}), "above": above,
                "at_least": at_least, "at_most": at_most}
    return dataclasses.field(default=default, metadata=metadata)


def flag_names(field):
    """The names ``field`` is spelled as, the first the one help shows first."""
    names = field.metadata.get("flags") or (field.name,)
    return names if field.name in names else (*names, field.name)


def help_text(field):
    """The line of ``-h``: the help and the default (none for a required
    option or an empty text)."""
    default = field.default
    shown = field.metadata.get("required") or default == "" or default is None
    return field.metadata["help"] + ("" if shown else f" [{default}]")


def options_from_flags(cls, flags):
    """An options dataclass from keyword flags (None = default), spelled as
    any of a field's names; unknown names are refused, old spellings of
    values replaced.  ``thread`` 0 becomes the number of cores."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    field_of = {name: f.name for f in fields.values() for name in flag_names(f)}
    unknown = sorted(set(flags) - set(field_of))
    if unknown:
        raise TreexcError(f"unknown option(s): {', '.join(unknown)}")
    values, spelled = {}, {}
    for name, value in flags.items():
        if value is None:
            continue
        target = field_of[name]
        if target in values:
            raise TreexcError(f"-{spelled[target]} and -{name} are the same option: give one")
        value = typed_value(fields[target], name, value)
        aliases = fields[target].metadata.get("value_aliases", {})
        values[target] = aliases.get(value, value) if isinstance(value, str) else value
        spelled[target] = name
    options = cls(**values)
    if "thread" in fields and not options.thread:
        options.thread = default_threads()
    return options


def check_integer(name, value):
    """A Python call's count argument (``k``): an integer, not a bool.  Else
    a TypeError, as Python and fastText's members raise for a wrong type,
    but one that names the argument (not numpy's, from deep inside)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    return int(value)


def typed_value(field, name, value):
    """``value`` as the field's type (the Python API takes any value): an
    int option any integral number but a bool, a float option any real
    number, a text option a str or a path; anything else is refused, since
    the kernels and the saved model (which the loader checks) need that
    type."""
    kind = field.type
    if kind is bool and isinstance(value, (bool, numbers.Integral)) and value in (0, 1):
        return bool(value)
    if kind is int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if kind is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if kind is str and isinstance(value, (str, bytes, os.PathLike)):
        return os.fsdecode(value)
    if kind not in (bool, int, float, str):
        return value
    wanted = {bool: "True or False", int: "an integer", float: "a number",
              str: "a text (str)"}[kind]
    bad_option(name, repr(value), f"must be {wanted}, not {type(value).__name__}")


def typed_options(cls, **values):
    """``cls(**values)``, each value given (not None) as its field's type
    (:func:`typed_value`): for options built from a Python call's arguments."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    return cls(**{name: value if value is None else typed_value(fields[name], name, value)
                  for name, value in values.items()})


def bad_option(name, value, why):
    """Refuse option ``-name`` (as the user may have typed it) set to ``value``."""
    raise TreexcError(f"-{name} {value}: {why}")


def check_fields(options, wide=("seed",)):
    """The checks every field declares (ranges, choices), after the ones of
    :func:`check_number_ranges`; the first that fails raises
    ``TreexcError("-name value: why")``."""
    check_number_ranges(options, wide)
    for field in dataclasses.fields(options):
        meta, name = field.metadata, flag_names(field)[0]
        value = getattr(options, field.name)
        choices = meta.get("choices")
        if choices and value not in choices:
            if isinstance(value, str):
                listed = [c for c in (*choices, *meta["value_aliases"]) if c]
                bad_option(name, value, f"unknown {name} (choose from {', '.join(listed)})")
            bad_option(name, value, f"must be {' or '.join(map(str, choices))}")
        # `not value >= x`, not `value < x`: NaN fails too
        if meta.get("above") is not None and not value > meta["above"]:
            bad_option(name, value, f"must be > {meta['above']}")
        if meta.get("at_least") is not None and not value >= meta["at_least"]:
            bad_option(name, value, f"must be >= {meta['at_least']}")
        if meta.get("at_most") is not None and not value <= meta["at_most"]:
            bad_option(name, value, f"must be <= {meta['at_most']}")
    return options


def check_number_ranges(options, wide=("seed",)):
    """Every number option within what a saved model may hold (the loader,
    ``contents.options``, refuses the rest): ints in int32, ``wide`` ones
    in int64; floats finite."""
    for field in dataclasses.fields(options):
        value, name = getattr(options, field.name), flag_names(field)[0]
        if type(value) is int:
            bits = 63 if field.name in wide else 31
            if not -2 ** bits <= value < 2 ** bits:
                bad_option(name, value, f"must be between -2^{bits} and 2^{bits}")
        elif type(value) is float and not (math.isfinite(value) and abs(value) < 2 ** 63):
            bad_option(name, value, "must be a finite number below 2^63")


def option_values(options, saved_only=False):
    """The options as a dict in field order, less the :data:`IF_SET` ones
    that hold their default; with ``saved_only``, also less the unsaved ones:
    what a model file's header holds."""
    values = {}
    for field in dataclasses.fields(options):
        value = getattr(options, field.name)
        saved = field.metadata.get("saved", True)
        if saved == IF_SET and value == field.default:
            continue
        if saved_only and not saved:
            continue
        values[field.name] = value
    return values


def shape_names(cls):
    """The options that define a model's shape: a model file must hold them."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("shape"))


def default_threads():
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))
