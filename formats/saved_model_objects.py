"""The Python objects a loaded SavedModel is made of.

- `LoadedObject`: a user object (`tf.Module`, Keras layer...): its children are
  attributes and `trackable_children()` (so `dg.train.Checkpoint` saves it);
- `LoadedConcreteFunction`: one traced function, callable with tensors (or
  anything `convert_to_tensor` accepts) matching its input signature; returns
  its outputs in their saved structure (a dict for signatures);
- `LoadedFunction`: a `tf.function` with its traces: calls the first trace
  whose signature accepts the arguments.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..framework import nest
from ..framework.tensor_shape import TensorShape
from .function_run import FunctionLibrary


class LoadedObject:
    """A user object of a SavedModel; its saved children are its attributes."""

    def __init__(self, identifier: str = "_generic_user_object") -> None:
        self._loaded_identifier = identifier
        self._loaded_children: Dict[str, Any] = {}

    def set_child(self, name: str, value: Any) -> None:
        self._loaded_children[name] = value
        if name.isidentifier() and not hasattr(type(self), name):
            object.__setattr__(self, name, value)

    def trackable_children(self) -> Dict[str, Any]:
        return {name: child for name, child in self._loaded_children.items()
                if not isinstance(child, (LoadedFunction, LoadedConcreteFunction,
                                          SignatureMap))}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = self._loaded_children.get("__call__")
        if function is None:
            raise TypeError(f"{self!r} is not callable (it saved no __call__)")
        return function(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        """`variables` / `trainable_variables` when the SavedModel saved no such child."""
        if name == "variables":
            return self._reachable_variables()
        if name == "trainable_variables":
            return [v for v in self._reachable_variables() if v.trainable]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _reachable_variables(self) -> List[Any]:
        """Every variable reachable from this object (each once, in discovery order)."""
        from ..ops.state.variables import Variable
        found: List[Any] = []
        seen = {id(self)}
        stack: List[Any] = [self]
        while stack:
            obj = stack.pop(0)
            children = obj.trackable_children().values() if isinstance(obj, LoadedObject) \
                else (obj.values() if isinstance(obj, dict) else
                      (obj if isinstance(obj, (list, tuple)) else ()))
            for child in children:
                if id(child) in seen:
                    continue
                seen.add(id(child))
                if isinstance(child, Variable):
                    found.append(child)
                else:
                    stack.append(child)
        return found

    def __repr__(self) -> str:
        return f"<duograd loaded SavedModel object {self._loaded_identifier}>"


class SignatureMap(dict):
    """`loaded.signatures`: signature key -> concrete function returning a dict."""


class LoadedConcreteFunction:
    """One saved trace: its FunctionDef, input/output structure and captured variables."""

    def __init__(self, library: FunctionLibrary, name: str, input_structure: Any,
                 output_structure: Any, captures: Sequence[Any],
                 argument_keywords: Sequence[str] = (), positional: Optional[int] = None
                 ) -> None:
        self.name = name
        self._library = library
        self.structured_input_signature = input_structure
        self.structured_outputs = output_structure
        self.captured_inputs = list(captures)
        self._argument_keywords = list(argument_keywords)
        self._positional = positional

    @property
    def variables(self) -> List[Any]:
        return list(self.captured_inputs)

    def _flat_inputs(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> List[Any]:
        arg_specs, kwarg_specs = self.structured_input_signature
        args = list(args)
        if kwarg_specs and not arg_specs and args:  # a signature called positionally
            names = self._argument_keywords or sorted(kwarg_specs)
            if len(args) > len(names):
                raise TypeError(f"{self.name} takes {len(names)} positional arguments, "
                                f"got {len(args)}")
            kwargs = {**dict(zip(names, args, strict=False)), **kwargs}
            args = []
        if len(args) != len(arg_specs) or set(kwargs) != set(kwarg_specs or {}):
            raise TypeError(f"{self.name} was saved for arguments {arg_specs} and keywords "
                            f"{sorted(kwarg_specs or {})}; got {len(args)} positional and "
                            f"{sorted(kwargs)}")
        specs = nest.flatten((tuple(arg_specs), dict(kwarg_specs or {})))
        given = nest.flatten((tuple(args), dict(kwargs)))
        if len(specs) != len(given):
            raise TypeError(f"{self.name}: the arguments do not have the saved structure")
        return [_convert(value, spec, self.name) for value, spec in
                zip(given, specs, strict=True)]

    def accepts(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> bool:
        try:
            self._flat_inputs(args, kwargs)
        except (TypeError, ValueError):
            return False
        return True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = self._flat_inputs(args, kwargs)
        outputs = self._library.call(self.name, inputs + self.captured_inputs)
        leaves = nest.flatten(self.structured_outputs)
        if len(leaves) != len(outputs):
            return outputs[0] if len(outputs) == 1 else outputs
        return nest.pack_sequence_as(self.structured_outputs, outputs)

    def __repr__(self) -> str:
        return f"<duograd loaded ConcreteFunction {self.name}>"


class LoadedFunction:
    """A saved `tf.function`: its traces, called by signature."""

    def __init__(self, concrete_functions: Sequence[LoadedConcreteFunction]) -> None:
        self.concrete_functions = list(concrete_functions)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for function in self.concrete_functions:
            if function.accepts(args, kwargs):
                return function(*args, **kwargs)
        raise ValueError("Could not find matching concrete function to call loaded from the "
                         f"SavedModel. Got {len(args)} positional argument(s) and keywords "
                         f"{sorted(kwargs)}; the saved traces take "
                         f"{[f.structured_input_signature for f in self.concrete_functions]}")

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> LoadedConcreteFunction:
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        for function in self.concrete_functions:
            if function.accepts(args, kwargs):
                return function
        raise ValueError("No saved trace matches these arguments")


def _convert(value: Any, spec: Any, name: str) -> Any:
    import duograd as dg
    from ..framework.tensor_spec import TensorSpec
    if not isinstance(spec, TensorSpec):
        if value != spec:
            raise ValueError(f"{name}: expected the constant argument {spec!r}, got {value!r}")
        return value
    tensor = dg.convert_to_tensor(value, dtype=spec.dtype)
    if not TensorShape(spec.shape).is_compatible_with(tensor.shape):
        raise ValueError(f"{name}: argument of shape {tensor.shape} does not match the saved "
                         f"shape {spec.shape}")
    return tensor
