"""``treexc supervised`` across model families: which family trains, and
loading either family's model file.

``-model auto`` (the default) trains the sparse linear model (``linear/``)
unless a flag only the embedding model understands is given explicitly
(``-dim``, ``-lr``, ``-epoch``, ``-loss``, ``-pretrainedVectors``, the
autotune flags, ``-tree huffman|random|cluster``, ...), which picks the
embedding model (``classify/``) instead; docs/linear.md, "When auto picks
it", has the measurements behind the rule.  The command line and the
Python API (``treexc.train_supervised``, ``treexc.load_model``) both come
through here; neither family knows of the other.
"""

import dataclasses
import sys

from .classify.autotune.search import autotune, manual_fields
from .classify.continued import continue_training
from .classify.model import load_model as load_embedding
from .classify.options import AUTOTUNE_FLAGS, Args, make_args, make_autotune_args
from .classify.training import plan_of_input
from .classify.training import train_supervised as train_embedding
from .errors import TreexcError
from .model_family import model_family
from .linear.model import load_linear
from .linear.options import LINEAR_ONLY, LinearArgs, make_linear_args
from .linear.training import plan_of_input as linear_plan_of_input
from .linear.training import train_linear_text
from .family_rules import AUTO_EMBEDDING, AUTO_LINEAR, INPUT_MODEL
from .options import flag_names
from .planning import GIVEN, Choice
from .runtime import reporter_factory
from .supervised_options import (
    AUTO,
    EMBEDDING,
    EMBEDDING_ONLY,
    EMBEDDING_TREES_ONLY,
    LINEAR,
    LINEAR_TREES_ONLY,
    NEUTRAL,
    SHARED,
    FamilyArgs,
)


def _field_of_flag(*classes):
    return {name: f.name for cls in classes for f in dataclasses.fields(cls)
            for name in flag_names(f)}


_FIELD_OF = _field_of_flag(Args, LinearArgs)
_INPUT_MODEL = flag_names(next(f for f in dataclasses.fields(FamilyArgs)
                               if f.name == "inputModel"))


def choose_family(model, flags, input_model=None):
    """The family's Choice (the first row of either family's plan: its value,
    rule and why; the rules in ``family_rules``) for ``-model model`` and the
    other flags given (name -> value; None = not given, any spelling);
    refuses a flag of the family not chosen.  ``input_model``: ``(path, its
    family)`` of ``-inputModel``, whose family a continued run keeps."""
    if input_model is not None:
        path, family = input_model
        if model == LINEAR or family == LINEAR:
            what = "-model linear" if model == LINEAR else f"{path}: a linear model"
            raise TreexcError(f"-inputModel: {what} cannot be trained further (its nodes are "
                              "solved to the optimum over all their lines: continued on new "
                              "lines alone it would forget the old ones); train on the old "
                              "and new files together")
        choose_family(EMBEDDING, flags)  # refuses the linear family's flags
        return Choice(EMBEDDING, INPUT_MODEL, "-inputModel: an embedding model, trained further")
    given = {name: value for name, value in flags.items() if value is not None}
    unknown = sorted(n for n in given if n not in _FIELD_OF and n not in AUTOTUNE_FLAGS)
    if unknown:
        raise TreexcError(f"unknown option(s): {', '.join(unknown)}")
    fields = {name: _FIELD_OF.get(name, name) for name in given}
    embedding = [n for n, f in fields.items()
                 if (f in EMBEDDING_ONLY and f not in LINEAR_ONLY) or n in AUTOTUNE_FLAGS]
    linear = [n for n, f in fields.items() if f in LINEAR_ONLY]
    tree = given.get("tree")
    if tree in EMBEDDING_TREES_ONLY:
        embedding.append(f"tree {tree}")
    if tree in LINEAR_TREES_ONLY:
        linear.append(f"tree {tree}")
    if model == LINEAR and embedding:
        raise TreexcError(f"-{embedding[0]}: an option of -model embedding, not of -model linear")
    if model == EMBEDDING and linear:
        raise TreexcError(f"-{linear[0]}: an option of -model linear, not of -model embedding")
    if model in (LINEAR, EMBEDDING):
        return Choice(model, GIVEN, f"-model {model}")
    if embedding and linear:
        raise TreexcError(f"-{embedding[0]} is an option of the embedding model and "
                          f"-{linear[0]} one of the linear model: give -model")
    if embedding:
        return Choice(EMBEDDING, AUTO_EMBEDDING, f"-model auto: -{embedding[0]} given, an "
                      "option of the embedding model")
    return Choice(LINEAR, AUTO_LINEAR, "-model auto: the sparse linear model, above the "
                  "embedding model's defaults on every set measured (docs/linear.md)")


def pop_input_model(flags):
    """``-inputModel`` (any spelling) taken out of ``flags``, or ""."""
    given = [flags.pop(name) for name in _INPUT_MODEL if flags.get(name) is not None]
    for name in _INPUT_MODEL:
        flags.pop(name, None)
    if len(given) > 1:
        raise TreexcError("-inputModel and -input_model are the same option: give one")
    return given[0] if given else ""


def family_of_flags(flags):
    """The family ``supervised``'s flags (``model`` among them) train."""
    rest = {name: value for name, value in flags.items() if name != "model"}
    path = pop_input_model(rest)
    if path:
        return choose_family(flags.get("model") or AUTO, rest, (path, model_family(path))).value
    return choose_family(flags.get("model") or AUTO, rest).value


def linear_args(flags):
    """LinearArgs from the flags the linear family reads."""
    for name in NEUTRAL:  # -checkpoint, -resume: the embedding model's alone
        if flags.get(name):
            raise TreexcError(f"-{name}: the linear model (-model linear, also -model "
                              "auto's choice here) has no checkpoints; give -model "
                              "embedding, or train without it")
    fields = set(SHARED) | set(LINEAR_ONLY)
    return make_linear_args(**{name: value for name, value in flags.items()
                               if _FIELD_OF.get(name, name) in fields})


def _given_fields(flags):
    """The option fields the user set in ``flags`` (any spelling)."""
    return {_FIELD_OF.get(name, name) for name, value in flags.items() if value is not None}


def _chosen(flags):
    """``(model, family Choice, the other flags, -inputModel)`` of
    ``supervised``'s flags."""
    flags = dict(flags)
    model = flags.pop("model", None) or AUTO
    path = pop_input_model(flags)
    if path:
        return model, choose_family(model, flags, (path, model_family(path))), flags, path
    return model, choose_family(model, flags), flags, path


def embedding_flags(flags):
    """The flags less the linear family's (none is given: choose_family checked)."""
    return {name: value for name, value in flags.items()
            if _FIELD_OF.get(name, name) not in LINEAR_ONLY}


def train_supervised(flags, stream=None, live=True):
    """A model of either family from ``supervised``'s flags (``model``
    among them); ``stream`` (default: standard error, as it is at the
    call) gets the progress at the flags' -verbose."""
    stream = stream or sys.stderr
    model, family, flags, input_model = _chosen(flags)
    if family.value == LINEAR:
        args = linear_args(flags)
        reporter = reporter_factory(args.verbose, stream, live=live)()
        if args.verbose >= 2:
            reporter.info(f"model: linear ({family.why})")
        return train_linear_text(args, reporter, _given_fields(flags), family)
    flags = embedding_flags(flags)
    tune_flags = {name: flags.pop(name) for name in list(flags) if name in AUTOTUNE_FLAGS}
    args = make_args(**flags)
    tune = make_autotune_args(**tune_flags)
    if tune.autotuneValidationFile and (args.checkpoint or args.resume):
        raise TreexcError("-checkpoint, -resume: not with -autotune-validation (a search "
                          "trains many models)")
    if input_model:  # continued training (docs/continued.md)
        if tune.autotuneValidationFile:
            raise TreexcError("-inputModel: not with -autotune-validation (the search trains "
                              "new models)")
        reporter = reporter_factory(args.verbose, stream, live=live)()
        return continue_training(input_model, args, _given_fields(flags), reporter, family)
    if tune.autotuneValidationFile:  # fastText's autotune: the best flags' model
        tuned = autotune(args, tune, manual_fields(flags), stream)
        if tuned.plan is not None and not isinstance(tuned.plan, dict):
            tuned.plan = dataclasses.replace(tuned.plan, model=family)
        return tuned
    reporter = reporter_factory(args.verbose, stream, live=live)()
    if args.verbose >= 3 and model == AUTO:  # fastText's flags given: fastText's output
        reporter.info(f"model: embedding ({family.why})")
    return train_embedding(args, reporter, family=family)


def plan_of(flags):
    """The plan ``supervised``'s flags would train, its first row the
    family: the embedding model's (``classify/plan.py``, from the input's
    counting pass) or the linear model's (``linear/plan.py``, from the
    input's label counts)."""
    _, family, flags, input_model = _chosen(flags)
    if input_model:
        raise TreexcError("-plan: not with -inputModel (the input model's shape is kept)")
    if family.value == LINEAR:
        return linear_plan_of_input(linear_args(flags), _given_fields(flags), family)
    flags = {name: value for name, value in embedding_flags(flags).items()
             if name not in AUTOTUNE_FLAGS}
    return plan_of_input(make_args(**flags), family)


def plan_lines(flags):
    """The lines ``supervised -plan`` prints: each field of the plan, its
    value, the rule that set it and why, the family first."""
    return plan_of(flags).lines()


def load_model(path):
    """A classifier of either family from its file."""
    if model_family(path) == LINEAR:
        return load_linear(path)
    return load_embedding(path)
