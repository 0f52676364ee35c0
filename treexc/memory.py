"""Memory a training run will need, estimated from its shapes before it
allocates anything, against the memory this process can still get.

A run whose settings ask for more than the machine has (``-dim 100000``,
``-arity 2000000000``, ``lm -arity 100000``) is refused up front with the
figures, instead of swapping for minutes and failing late with a
half-written model.  The estimates count the large arrays only (weights,
Adagrad accumulators, per-thread gradients and statistics) and count each
once, so they are a floor: a refused run would certainly not have fit.

Two checks per run: one before the data is read, from the options alone
(``bucket x dim``, ``arity``), and an exact one once the vocabulary and the
labels are known.  What is already allocated (the text, the encoded
corpus) is already out of :func:`available_bytes`.  Each model family
estimates its own arrays (``classify/memory.py``, ``lm/memory.py``; a
learned tree's rebuild: ``trees/capacity.rebuild_memory_parts``); this
module holds what they share: the memory left, the refusal.
"""

import os
import resource

from .errors import TreexcError


def available_bytes():
    """What this process can still allocate: the least of the machine's
    ``MemAvailable`` (RAM: swapping Hogwild's random row access would crawl),
    the cgroup's limit less its usage (containers) and ``RLIMIT_AS`` less
    the address space in use.  ``None`` when none of them can be read."""
    limits = []
    meminfo = _read_kb_fields("/proc/meminfo")
    if "MemAvailable" in meminfo:
        limits.append(meminfo["MemAvailable"])
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        # cgroup v1 writes "no limit" as a huge number near 2**63
        if limit is not None and usage is not None and limit < 2 ** 60:
            limits.append(max(0, limit - usage))
            break
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        status = _read_kb_fields("/proc/self/status")
        limits.append(max(0, soft - status.get("VmSize", 0)))
    return min(limits) if limits else None


def _read_kb_fields(path):
    fields = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, rest = line.partition(":")
                parts = rest.split()
                if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                    fields[name] = int(parts[0]) * 1024
    except OSError:
        pass
    return fields


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def format_bytes(n):
    if n >= 1e9:
        return f"{n / 1e9:,.1f} GB"
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} kB"


def check(parts, available=None):
    """Refuse a run whose ``parts`` do not fit.

    ``parts``: ``(what, bytes, flags)`` triples, e.g. ``("input matrix",
    4e9, "-dim/-bucket")``.  Raises ``TreexcError`` naming the total, the
    largest parts, what is available and the flags of the largest parts.
    """
    total = sum(b for _, b, _ in parts)
    if available is None:
        available = available_bytes()
    if available is None or total <= available:
        return
    big = sorted((p for p in parts if p[1] > 0), key=lambda p: -p[1])
    shown = [p for p in big if p[1] >= 0.01 * total][:4]
    flags = []
    for _, _, f in shown:
        for flag in f.split("/"):
            if flag not in flags:
                flags.append(flag)
    what = ", ".join(f"{name} {format_bytes(b)}" for name, b, _ in shown)
    raise TreexcError(f"this run needs about {format_bytes(total)} of memory ({what}); "
                      f"{format_bytes(available)} are available: lower {'/'.join(flags)}")


def refuse_oversized(parts):
    """:func:`check` unless ``TREEXC_NO_MEMORY_CHECK`` is set (for a machine
    where the estimate is wrong: overcommitted swap, a ballooning VM)."""
    if os.environ.get("TREEXC_NO_MEMORY_CHECK"):
        return
    check(parts)
