"""Autotune: the ``supervised`` flags that score best on a validation file
within a time budget (fastText's ``-autotune-*`` flags, same metrics).

The search (docs/autotune.md says why) is asynchronous successive halving
run one trial at a time: a new configuration is first trained with 1/9 of
its epochs; whenever a configuration is in the best third of those scored
at its rung and not yet promoted, it is trained again with three times the
epochs (1/3, then all).  Cheap trials sort out poor configurations, and
full ones go to the promising.  New configurations come from a broad prior
at first, then mostly from perturbing one of the three best so far (in log
scale, each flag with probability 1/2, steps shrinking with the trials),
fastText's local search widened from one incumbent to three.  The flags the
user gave are not searched (fastText's rule).

Every trial's model is a real model: the best one seen (at any rung) is kept
in memory and returned, with the flags it was trained with, so nothing is
retrained after the budget.  With ``-thread 1`` the trial sequence depends
on the seed alone; the budget decides where it is cut.
"""

import dataclasses
import math
import os
import signal
import time

import numpy as np

from ...errors import TreexcError
from ...io.textio import display_name, read_text
from ...options import flag_names
from ...runtime import SilentReporter
from ...text.dictionary import build_dictionary
from ...loss.registry import KERNEL_PLT, LOSSES
from ...meter import Meter
from ..options import Args, parse_metric, validate
from ..plan import default_rate
from ..plan_rules import AUTO_PLT_MIN_LABELS_PER_LINE, FLAT_SOFTMAX_MAX_LABELS, default_tree_arity
from ..training import train_supervised

ETA = 3             # each rung keeps the best third, and trains it 3x longer
RUNGS = 3           # epoch fractions 1/9, 1/3, 1
N_PRIOR = 6         # configurations drawn from the prior before local search
P_PRIOR = 0.25      # afterwards, the share still drawn from the prior
ELITE = 3           # local search perturbs one of the best ELITE configurations
MINN_CHOICES = (0, 2, 3)   # fastText's; maxn = minn + 3
DEPTHS = (-1, 2, 3)        # a learned tree's -depth: auto (mass-capped), 2, 3 levels
SEARCHED = ("epoch", "lr", "dim", "wordNgrams", "loss", "bucket", "minn", "maxn",
            "arity", "maxDepth", "tree")
# log2-scale steps of the local search at its start, and each flag's range
LOG_STEPS = {"lr": (1.0, 0.01, 5.0), "epoch": (1.0, 1, 100), "dim": (1.0, 4, 300),
             "bucket": (1.5, 10000, 2000000), "arity": (0.7, 2, 1 << 20)}
# Input matrix cells (rows x dim) a searched trial may ask for: the default's
# 2M buckets x dim 100 (800 MB).  Allocating and initialising the matrix
# cannot be cut short at the deadline (at 4M x 500 it took a minute), so
# -bucket is also held to twice the training file's word occurrences: more
# buckets than n-grams lower collisions little, and cost seconds per trial.
MAX_INPUT_CELLS = 2000000 * 100
MIN_LABELS_FOR_TREE = 16   # fewer labels: the flat softmax only


class PastDeadline(Exception):
    """The budget ran out during a trial (raised from its progress poll)."""


def manual_fields(flags):
    """The ``Args`` fields set in ``flags`` (any spelling): not searched."""
    field_of = {name: f.name for f in dataclasses.fields(Args) for name in flag_names(f)}
    return {field_of[name] for name, value in flags.items()
            if value is not None and name in field_of}


def autotune(args, tune, manual, stream=None, max_trials=None):
    """The best model found within ``tune.autotuneDuration`` seconds (from
    this call on: reading the files counts); ``args``: the user's flags
    (``make_args``), ``tune``: ``AutotuneArgs``, ``manual``: the fields the
    user set, ``stream``: where progress goes; ``max_trials``: stop after
    that many trials too (the tests' reproducible runs)."""
    start = time.monotonic()
    if tune.autotuneModelSize:
        raise TreexcError(f"-autotune-modelsize {tune.autotuneModelSize}: the search does not "
                          "size models yet; tune without it, then compress the best model "
                          "with treexc quantize (-cutoff, -dsub)")
    if args.input == "-" or not os.path.isfile(args.input):
        raise TreexcError(f"-input {display_name(args.input)}: autotune trains on it many "
                          "times: give a file (not standard input or a pipe)")
    search = Search(args, tune, manual, stream, start, max_trials)
    return search.run()


class Search:
    def __init__(self, args, tune, manual, stream, start, max_trials=None):
        self.base, self.tune, self.manual = args, tune, set(manual)
        self.start, self.max_trials = start, max_trials
        self.deadline = start + tune.autotuneDuration
        self.verbose = args.verbose if stream is not None else 0
        self.stream = stream
        self.metric = parse_metric(tune.autotuneMetric)
        data = read_text(args.input)
        dictionary = build_dictionary(data, args, display_name(args.input))
        corpus = dictionary.encode(data)
        corpus.drop_bare_lines(dictionary.eos_id(), last_piece=True)
        self.labels_per_line = corpus.labels_per_line
        self.default_lr = default_rate(dictionary.label_counts).value  # what -lr 0 trains at
        del data, corpus
        labels = dictionary.labels()
        self.n_labels = len(labels)
        # more buckets than twice the word occurrences only cost time and memory
        self.max_bucket = int(max(10000, 2 * dictionary.counts[:dictionary.nwords].sum()))
        if self.metric[2] and self.metric[2] not in labels:
            raise TreexcError(f"-autotune-metric {tune.autotuneMetric}: label "
                              f"{self.metric[2]} is not among the labels of "
                              f"{display_name(args.input)}")
        self.valid = read_text(tune.autotuneValidationFile)
        if not len(dictionary.encode(self.valid).labels):  # every trial would score nan
            raise TreexcError(f"-autotune-validation {display_name(tune.autotuneValidationFile)}"
                              f": no line has a label of {display_name(args.input)}; the "
                              "search scores its trials on them")
        self.rng = np.random.default_rng(args.seed)
        self.losses = self.loss_choices()
        self.configs = []                             # points: Args field values
        self.scores = [{} for _ in range(RUNGS)]      # rung -> {config: score}
        self.epochs = [{} for _ in range(RUNGS)]      # rung -> {config: epochs}
        self.promoted = [set() for _ in range(RUNGS)]
        self.trials = 0
        self.best = None                              # (score, trial, args, model)
        self.last_print = 0.0

    # -- the search space ------------------------------------------------------
    def loss_choices(self):
        if "loss" in self.manual or "tree" in self.manual:
            return [self.base.loss]
        if self.labels_per_line >= AUTO_PLT_MIN_LABELS_PER_LINE:
            # multi-label data: -loss auto's choice, for the same reason
            return [name for name, entry in LOSSES.items() if entry.kernel == KERNEL_PLT]
        searched = [name for name, entry in LOSSES.items() if entry.autotuned]
        if self.n_labels < MIN_LABELS_FOR_TREE:
            return [name for name in searched if LOSSES[name].tree == "flat"]
        # above it the flat softmax costs too much per trial
        return [name for name in searched
                if self.n_labels <= FLAT_SOFTMAX_MAX_LABELS or LOSSES[name].tree != "flat"]

    def log_uniform(self, lo, hi):
        return float(np.exp(self.rng.uniform(np.log(lo), np.log(hi))))

    def draw_prior(self):
        r = self.rng
        minn = MINN_CHOICES[r.integers(len(MINN_CHOICES))]
        point = {"lr": self.log_uniform(0.05, 2.0), "epoch": round(self.log_uniform(5, 50)),
                 "dim": round(self.log_uniform(16, 200)), "wordNgrams": int(r.integers(1, 4)),
                 "minn": minn, "maxn": minn + 3 if minn else 0,
                 "bucket": round(self.log_uniform(1e5, 2e6)),
                 "loss": self.losses[r.integers(len(self.losses))],
                 "maxDepth": DEPTHS[r.integers(len(DEPTHS))]}
        depth = point["maxDepth"] if point["maxDepth"] > 0 else 2
        point["arity"] = round(default_tree_arity(self.n_labels, depth)
                               * 2 ** r.normal(0, 0.5))
        return self.complete(point)

    def perturb(self, parent, shrink):
        r, point = self.rng, dict(parent)
        names = ["lr", "epoch", "dim", "wordNgrams", "minn", "bucket", "loss", "maxDepth",
                 "arity"]
        chosen = [n for n in names if r.random() < 0.5] or [names[r.integers(len(names))]]
        for name in chosen:
            if name in LOG_STEPS:
                sigma, lo, hi = LOG_STEPS[name]
                value = min(max(point[name] * 2 ** r.normal(0, sigma * shrink), lo), hi)
                point[name] = float(value) if name == "lr" else round(value)
            elif name == "wordNgrams":
                point[name] = min(max(point[name] + round(r.normal(0, 1.5 * shrink)), 1), 5)
            elif name == "minn":
                i = MINN_CHOICES.index(point["minn"]) if point["minn"] in MINN_CHOICES else 0
                i = min(max(i + round(r.normal(0, 1.0 * shrink)), 0), len(MINN_CHOICES) - 1)
                point["minn"] = MINN_CHOICES[i]
                point["maxn"] = point["minn"] + 3 if point["minn"] else 0
            elif name == "loss" and r.random() < 0.4:
                point["loss"] = self.losses[r.integers(len(self.losses))]
            elif name == "maxDepth" and r.random() < 0.4:
                point["maxDepth"] = DEPTHS[r.integers(len(DEPTHS))]
        return self.complete(point)

    def complete(self, point):
        """The user's flags over the searched ones; a fixed-depth tree wide
        enough for the labels."""
        for name in SEARCHED:
            if name in self.manual or name not in point:
                point[name] = getattr(self.base, name)
        if not point["lr"]:  # -lr 0 stands for the default rate: a rate to perturb
            point["lr"] = self.default_lr
        if "bucket" not in self.manual and point["bucket"] == 0:
            point["bucket"] = 2000000  # make_args zeroed it: unused without n-grams
        if "bucket" not in self.manual:
            point["bucket"] = min(point["bucket"], self.max_bucket,
                                  MAX_INPUT_CELLS // point["dim"])
        if point["maxDepth"] > 0 and "arity" not in self.manual:
            point["arity"] = max(point["arity"], default_tree_arity(self.n_labels,
                                                                    point["maxDepth"]))
        point["arity"] = min(max(point["arity"], 2), max(self.n_labels, 2)) \
            if point["arity"] else point["arity"]
        return point

    def trial_args(self, point, rung):
        """The Args of ``point`` trained at ``rung`` (its share of the epochs)."""
        args = dataclasses.replace(self.base, **point, verbose=0)
        args.epoch = max(1, round(point["epoch"] * ETA ** (rung - RUNGS + 1)))
        # a searched learned tree takes the point's shape; another loss its own
        # (arity 0: the plan's)
        if searched_shape(args.loss) and "tree" not in self.manual:
            args.tree = ""
        elif not searched_shape(args.loss) and "arity" not in self.manual:
            args.arity = 0
            args.maxDepth = self.base.maxDepth
        if args.wordNgrams <= 1 and args.maxn == 0:
            args.bucket = 0
        return validate(args)

    # -- successive halving ----------------------------------------------------
    def next_job(self):
        """``(config, rung)``: first the user's flags with all their epochs
        (the model training without autotune would give: the search never
        returns a worse one on the validation file), then a promotion if
        one is due (highest rung first), else a new configuration at rung 0."""
        if not self.configs:
            self.configs.append(self.new_config())
            return 0, RUNGS - 1
        for rung in reversed(range(RUNGS - 1)):
            done = self.scores[rung]
            ranked = sorted((c for c in done if done[c] > -math.inf),
                            key=lambda c: (-done[c], c))
            for c in ranked[:len(done) // ETA]:
                if c not in self.promoted[rung]:
                    self.promoted[rung].add(c)
                    return c, rung + 1
        self.configs.append(self.new_config())
        return len(self.configs) - 1, 0

    def new_config(self):
        """The user's flags first, then prior draws and perturbations of the
        elite; one already tried is drawn again (up to 20 times)."""
        if not self.configs:
            return self.complete({name: getattr(self.base, name) for name in SEARCHED})
        elite = self.elite()
        shrink = max(0.3, 1.0 - len(self.configs) / 50)
        for _ in range(20):
            if len(self.configs) < N_PRIOR or not elite or self.rng.random() < P_PRIOR:
                point = self.draw_prior()
            else:
                point = self.perturb(self.configs[elite[self.rng.integers(len(elite))]],
                                     shrink)
            if not any(self.same(point, c) for c in self.configs):
                break
        return point

    def same(self, a, b):
        """Whether points ``a`` and ``b`` train the same models."""
        try:
            return all(self.trial_args(a, rung) == self.trial_args(b, rung)
                       for rung in (0, RUNGS - 1))
        except TreexcError:
            return a == b

    def elite(self):
        """The best configurations: highest rung reached first, then score."""
        rank = {}
        for rung in range(RUNGS):
            for c, score in self.scores[rung].items():
                if score > -math.inf:
                    rank[c] = (rung, score)
        return sorted(rank, key=lambda c: (-rank[c][0], -rank[c][1], c))[:ELITE]

    # -- trials ----------------------------------------------------------------
    def run(self):
        for name in sorted(self.manual & set(SEARCHED)):
            self.say(f"Warning : {name} is manually set to a specific value. "
                     "It will not be automatically optimized.")
        try:
            while time.monotonic() < self.deadline and self.trials != self.max_trials:
                config, rung = self.next_job()
                if not self.run_trial(config, rung):
                    break
        except (KeyboardInterrupt, SystemError) as e:
            if not is_ctrl_c(e):
                raise  # SIGTERM, SIGHUP: stop without saving
            self.say("\nAborting autotune...")
        self.show_progress(final=True)
        if self.best is None:
            raise TreexcError(f"autotune: no trial finished within "
                              f"{self.tune.autotuneDuration} s: raise -autotune-duration")
        score, trial, args, model = self.best
        model.args = dataclasses.replace(args, verbose=self.base.verbose)
        self.say(f"Best score: {score:.6f} (trial {trial} of {self.trials})")
        self.say(f"Best flags: {flags_text(model.args)}")
        return model

    def run_trial(self, config, rung):
        """Train and score one trial; False once the budget is spent."""
        try:
            args = self.trial_args(self.configs[config], rung)
        except TreexcError:  # flags that do not go together: never trained
            self.scores[rung][config] = -math.inf
            return True
        self.epochs[rung][config] = args.epoch
        if rung and self.epochs[rung - 1].get(config) == args.epoch:
            # as many epochs as the rung below: the same model, the same score
            self.scores[rung][config] = self.scores[rung - 1][config]
            return True
        self.trials += 1
        trial = self.trials
        began = time.monotonic()
        try:
            model = train_supervised(args, DeadlineReporter(self))
        except PastDeadline:
            self.trials -= 1  # cut short: not a trial
            return False
        except TreexcError as e:  # diverged, or too big for memory: go on
            self.scores[rung][config] = -math.inf
            self.log(f"trial {trial} ({flags_text(args)}): {e}")
            return True
        score = self.score(model)
        key = score if not math.isnan(score) else -math.inf
        self.scores[rung][config] = key
        if self.best is None or key > (self.best[0] if not math.isnan(self.best[0])
                                       else -math.inf):
            self.best = (score, trial, model.args, model)
        # the planned options: what -loss auto and the other rules chose
        self.log(f"trial {trial} rung {rung} ({flags_text(model.args)}): score {score:.6f}, "
                 f"{time.monotonic() - began:.1f} s")
        self.show_progress(force=True)
        return True

    def score(self, model):
        corpus = model.encode_text(self.valid)
        labels, log_probs, counts = model.predict_corpus(corpus, self.tune.autotunePredictions,
                                                         0.0)
        meter = Meter.from_predictions(corpus, labels, counts, model.nlabels, log_probs)
        name, value, label = self.metric
        label_id = model.get_labels().index(label) if label else None
        if name == "f1":
            return meter.f1() if label_id is None else meter.label_f1(label_id)
        if name == "precisionAtRecall":
            return meter.precision_at_recall(value, label_id)
        return meter.recall_at_precision(value, label_id)

    # -- printing, as fastText's autotune ---------------------------------------
    def show_progress(self, force=False, final=False):
        if self.verbose < 1:
            return
        now = time.monotonic()
        tty = self.stream.isatty()
        if not final and not (force or (tty and now - self.last_print >= 0.5)):
            return
        self.last_print = now
        duration = self.tune.autotuneDuration
        elapsed = now - self.start
        best = "unknown" if self.best is None else f"{self.best[0]:9.6f}"
        left = int(max(duration - elapsed, 0))
        line = (f"Progress: {min(100.0, 100 * elapsed / duration):5.1f}% Trials: "
                f"{self.trials:4d} Best score: {best:>9} ETA: "
                f"{left // 3600:3d}h{left // 60 % 60:2d}m{left % 60:2d}s")
        end = "" if tty and not final else "\n"
        print(("\r" if tty else "") + line, end=end, file=self.stream, flush=True)

    def say(self, message):
        if self.verbose >= 1:
            print(message, file=self.stream, flush=True)

    def log(self, message):
        if self.verbose >= 3:
            print(("\n" if self.stream.isatty() else "") + message, file=self.stream,
                  flush=True)


class DeadlineReporter(SilentReporter):
    """A trial's reporter: stops the trial when the budget is spent and
    keeps the search's progress line fresh."""

    def __init__(self, search):
        self.search = search

    def update(self, progress):
        if time.monotonic() >= self.search.deadline:
            raise PastDeadline()
        self.search.show_progress()


def is_ctrl_c(e):
    """Whether ``e`` is SIGINT's KeyboardInterrupt, also when Python wrapped
    it in SystemErrors (the signal arrived while a kernel ran in this thread)."""
    while isinstance(e, SystemError):
        e = e.__cause__
    return isinstance(e, KeyboardInterrupt) and getattr(e, "signum", signal.SIGINT) == \
        signal.SIGINT


def searched_shape(loss_name):
    """Whether the search draws the tree's arity and depth for this loss: a
    learned tree it searches (``autotuned`` in loss/registry.py)."""
    entry = LOSSES.get(loss_name)
    return entry is not None and entry.autotuned and entry.learned


def flags_text(args):
    """The searched flags of ``args``, as a command line's."""
    parts = [f"-loss {args.loss}"]
    if searched_shape(args.loss):
        parts.append(f"-arity {args.arity} -depth {args.maxDepth}")
    parts.append(f"-lr {args.lr:.4g} -epoch {args.epoch} -dim {args.dim} "
                 f"-wordNgrams {args.wordNgrams} -minn {args.minn} -maxn {args.maxn} "
                 f"-bucket {args.bucket}")
    return " ".join(parts)
