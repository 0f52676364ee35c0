"""The one exception type users see: a message that fits on one line."""


class TreexcError(Exception):
    """A problem with the user's input, flags or files.

    The CLI prints ``treexc: <message>`` and exits with status 1; the Python
    API lets it propagate.  Messages name the file (and line) concerned.
    """


class TrainingDiverged(TreexcError):
    """Training met NaN, infinite or runaway weights: the learning rate was
    too high.  A classifier trained at the default rate tries again at half
    of it (``classify.training``)."""


def os_error_message(name, error, kind="file"):
    """One line for an OSError met while opening ``name``."""
    if isinstance(error, FileNotFoundError):
        return f"{name}: no such {kind}"
    if isinstance(error, IsADirectoryError):
        return f"{name}: is a directory, not a {kind}"
    if isinstance(error, PermissionError):
        return f"{name}: permission denied"
    if isinstance(error, NotADirectoryError):
        return f"{name}: a part of the path is not a folder"
    return f"{name}: cannot read: {error.strerror or error}"
