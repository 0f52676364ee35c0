"""Option machinery shared by both model families: options dataclasses
built from keyword flags, and the range checks every saved option passes."""

import dataclasses
import math
import os

from .errors import TreexcError


def options_from_flags(cls, flags):
    """An options dataclass from keyword flags (None = default); unknown
    names are refused.  ``thread`` 0 becomes the number of cores."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(flags) - names)
    if unknown:
        raise TreexcError(f"unknown option(s): {', '.join(unknown)}")
    options = cls(**{k: v for k, v in flags.items() if v is not None})
    if not options.thread:
        options.thread = default_threads()
    return options



def bad_option(name, value, why):
    raise TreexcError(f"-{name} {value}: {why}")



def check_number_ranges(options, wide=("seed",)):
    """Every number option within what a saved model may hold (the loader,
    ``modelfile.options``, refuses the rest): ints in int32, ``wide`` ones
    in int64; floats finite."""
    for field in dataclasses.fields(options):
        value = getattr(options, field.name)
        if type(value) is int:
            bits = 63 if field.name in wide else 31
            if not -2 ** bits <= value < 2 ** bits:
                bad_option(field.name, value, f"must be between -2^{bits} and 2^{bits}")
        elif type(value) is float and not (math.isfinite(value) and abs(value) < 2 ** 63):
            bad_option(field.name, value, "must be a finite number below 2^63")


def default_threads():
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))
