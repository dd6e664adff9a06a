"""ignore_errors: the elements whose computation succeeded.

A map or filter function's error reaches this stage as an ErrorElement (see
dataset.py), which is dropped; an error its input cannot go on after (a
generator that raised) ends the iteration, as TensorFlow's ignore_errors does.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Iterator

from .dataset import Dataset, ErrorElement, IterationContext

_LOG = logging.getLogger("duograd.data")


class IgnoreErrorsDataset(Dataset):
    """Dataset.ignore_errors(log_warning): drops the elements that raised."""

    def __init__(self, source: Dataset, log_warning: bool = False) -> None:
        self._log_warning = bool(log_warning)
        super().__init__(source.element_spec, (source,))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return True

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        upstream = self._inputs[0].elements(ctx)
        while True:
            try:
                element = next(upstream)
            except StopIteration:
                return
            except Exception as error:  # noqa: BLE001 - TF ignores any input error
                self._log(error)
                return
            if type(element) is ErrorElement:
                self._log(element.error)
                continue
            yield element

    def _log(self, error: BaseException) -> None:
        if self._log_warning:
            _LOG.warning("Ignoring error: %s", error)


def ignore_errors(log_warning: bool = False) -> Callable[[Dataset], Any]:
    """dg.data.experimental.ignore_errors(): the transformation for `Dataset.apply`."""
    def apply(dataset: Dataset) -> Dataset:
        return IgnoreErrorsDataset(dataset, log_warning)
    return apply


__all__ = ["IgnoreErrorsDataset", "ignore_errors"]
