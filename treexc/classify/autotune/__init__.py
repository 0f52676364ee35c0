"""fastText's ``-autotune-*`` search over the classifier's flags
(``search``: successive halving over epochs with a local search,
docs/autotune.md)."""
