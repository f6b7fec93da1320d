"""Exceptions. Library errors are symshape.Error subclasses carrying the C status
(``status``: its name, e.g. "SY_EDIVZERO"; ``code``: its value) and the library's message."""


class LibraryNotFound(ImportError):
    """libsymshape.so could not be found or loaded (the message lists where it looked)."""


class Error(Exception):
    """A failed call into libsymshape."""

    status = "SY_ERROR"
    code = -1

    def __init__(self, message, status=None, code=None, offset=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.offset = offset  # byte offset of a parse error, else None


class NoMemoryError(Error, MemoryError):
    status, code = "SY_ENOMEM", -2


class InvalidError(Error, ValueError):
    status, code = "SY_EINVAL", -3


class OverflowError_(Error, OverflowError):
    status, code = "SY_EOVERFLOW", -4


class DivisionByZeroError(Error, ZeroDivisionError):
    status, code = "SY_EDIVZERO", -5


class FormatError(Error, ValueError):
    status, code = "SY_EFORMAT", -6


class VersionError(Error, ValueError):
    status, code = "SY_EVERSION", -7


class VerifyError(Error):
    status, code = "SY_EVERIFY", -8


class QuotaError(Error):
    status, code = "SY_EQUOTA", -9


class UnsupportedError(Error, NotImplementedError):
    status, code = "SY_EUNSUPPORTED", -10


_BY_CODE = {c.code: c for c in (NoMemoryError, InvalidError, OverflowError_, DivisionByZeroError, FormatError,
                                VersionError, VerifyError, QuotaError, UnsupportedError)}


def error_for(code, message, offset=None):
    """The Error subclass instance for a status code."""
    from ._lib import lib
    cls = _BY_CODE.get(code, Error)
    name = lib.sy_status_name(code).decode()
    return cls(message, status=name, code=code, offset=offset)


class ExportError(Exception):
    """The exporter met a construct it cannot capture faithfully. Carries the module path
    (``module``, "" for the root), the op (``op``) and the user's source line (``loc``:
    {"file", "line", "function"} or None)."""

    def __init__(self, message, module=None, op=None, loc=None):
        where = []
        if module is not None:
            where.append("module " + (module or "<root>"))
        if op:
            where.append("op " + op)
        if loc:
            where.append("at %s:%s in %s" % (loc.get("file"), loc.get("line"), loc.get("function")))
        super().__init__(message + (" (" + ", ".join(where) + ")" if where else ""))
        self.reason = message
        self.module = module
        self.op = op
        self.loc = loc


def _line(s):
    """s for one line of a text output: each control character (a newline too) as \\xHH, as the
    command line's text outputs write a name (cli_put_text), so a name cannot forge a line"""
    s = "" if s is None else str(s)
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f else c for c in s)
