"""dg.errors: TensorFlow's runtime exception classes."""
from __future__ import annotations

from typing import Any


class OpError(Exception):
    """A runtime error raised while executing an op; names the op when known."""

    def __init__(self, node_def: Any = None, op: Any = None, message: str = "") -> None:
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidArgumentError(OpError):
    """A kernel received bad runtime values (e.g. incompatible shapes)."""


class FailedPreconditionError(OpError):
    """The system is not in a state to run the op (e.g. uninitialised variable)."""


class NotFoundError(OpError):
    """A requested entity was not found."""


class UnimplementedError(OpError):
    """The operation is not implemented for these arguments."""


class OutOfRangeError(OpError):
    """An index or iteration went past its valid range."""


class InternalError(OpError):
    """An invariant of the runtime was broken."""


class UnknownError(OpError):
    """An error of no other class (e.g. a Python exception in a dataset's generator)."""


class DeadlineExceededError(OpError):
    """An operation did not finish before its deadline (e.g. a collective timed out)."""


class UnavailableError(OpError):
    """The service is unavailable (e.g. a collective group was aborted)."""


class DataLossError(OpError):
    """Unrecoverable data loss or corruption (e.g. a damaged checkpoint file)."""


class ResourceExhaustedError(OpError):
    """A resource ran out: a tensor larger than the machine's memory (TF's OOM)."""


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where a Python value is needed (bool, iteration,
    a name) while building a graph."""


# How TF's py_func reports a Python exception raised by user code it runs (py_function,
# Dataset.from_generator): the class by the exception's, anything else UnknownError.
_PYTHON_ERROR_CLASSES = ((ValueError, InvalidArgumentError), (TypeError, InvalidArgumentError),
                         (StopIteration, OutOfRangeError),
                         (NotImplementedError, UnimplementedError),
                         (MemoryError, ResourceExhaustedError))


def from_python_error(error: Exception, where: str = "") -> OpError:
    """`error`, raised by user Python code TF runs as an op, as TF's status: its class
    (an OpError stays itself) and a message starting with the exception's class and
    text, then `where` on a line of its own when given."""
    if isinstance(error, OpError):
        return error
    kind: type = UnknownError
    for python_class, op_class in _PYTHON_ERROR_CLASSES:
        if isinstance(error, python_class):
            kind = op_class
            break
    message = f"{type(error).__name__}: {error}" + (f"\n({where})" if where else "")
    return kind(None, None, message)


__all__ = ["OpError", "InvalidArgumentError", "FailedPreconditionError",
           "NotFoundError", "UnimplementedError", "OutOfRangeError", "InternalError", "UnknownError",
           "OperatorNotAllowedInGraphError", "DeadlineExceededError", "UnavailableError",
           "DataLossError", "ResourceExhaustedError"]
