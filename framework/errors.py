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


__all__ = ["OpError", "InvalidArgumentError", "FailedPreconditionError",
           "NotFoundError", "UnimplementedError", "OutOfRangeError", "InternalError", "UnknownError",
           "OperatorNotAllowedInGraphError", "DeadlineExceededError", "UnavailableError",
           "DataLossError", "ResourceExhaustedError"]
