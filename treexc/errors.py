"""The one exception type users see: a message that fits on one line."""


class TreexcError(Exception):
    """A problem with the user's input, flags or files.

    The CLI prints ``treexc: <message>`` and exits with status 1; the Python
    API lets it propagate.  Messages name the file (and line) concerned.
    """
