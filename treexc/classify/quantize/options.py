"""``treexc quantize``'s options (no numpy: the command line's help reads
them); what they do is ``classify/quantize/quantize.py``'s."""

from dataclasses import dataclass

from ...errors import TreexcError
from ...options import option


@dataclass
class QuantizeArgs:
    """``treexc quantize``'s flags, fastText's names and defaults (``epoch``,
    ``lr``, ``thread``, ``verbose``: the model's own when not given)."""
    output: str = option("", "the model: OUTPUT.bin is read, OUTPUT.ftz written",
                         saved=False, required=True)
    input: str = option("", "training file, to retrain on with -retrain", saved=False)
    qout: bool = option(False, "quantise the output matrix too")
    cutoff: int = option(0, "keep only the N input rows (words and n-gram buckets) of "
                         "largest norm (0 = all)")
    retrain: bool = option(False, "with -cutoff: train the kept rows again on -input")
    epoch: int = option(None, "retraining epochs (default: the model's)")
    lr: float = option(None, "retraining learning rate (default: the model's)")
    thread: int = option(None, "number of threads (default: the model's in Python, all "
                         "cores on the command line, as -thread 0)")
    verbose: int = option(None, "verbosity level (default: the model's)", saved=False)
    dsub: int = option(2, "columns of the input matrix per quantiser byte")
    qnorm: bool = option(False, "quantise the rows' norms apart")

    def check(self, dim):
        """Refuse values fastText would misuse, naming the flag."""
        for name, ok, why in (
                ("cutoff", self.cutoff >= 0, "must be >= 0"),
                ("dsub", 1 <= self.dsub <= dim, f"must be between 1 and -dim ({dim})"),
                ("epoch", self.epoch is None or self.epoch >= 1, "must be >= 1"),
                ("lr", self.lr is None or self.lr > 0, "must be > 0"),
                ("thread", self.thread is None or self.thread >= 1, "must be >= 1")):
            if not ok:
                raise TreexcError(f"-{name} {getattr(self, name)}: {why}")
