"""Converting a Python function: source, rewrite, compile, cache, rebind.

`convert(f)` returns `f` rewritten by transformer.py, or `f` itself when it is
not user code (duograd, NumPy, the standard library, installed packages),
has no retrievable source (functions typed at a prompt; lambdas are found
by their code positions), is a generator or coroutine, or is marked
`do_not_convert`. The rewritten code is compiled once per original code
object (the conversion cache, with the set of produced code objects and
their sources the only tables here) with the original file name and line
numbers, then bound to the function's own globals, closure cells and
defaults, so globals and closures stay live. `converted_call(f)` is what converted code calls for every
`f(...)`: builtins with tensor meaning (`range`, `len`) are replaced, user
functions, methods and callable objects are converted recursively.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import logging
import sysconfig
import textwrap
import types
from typing import Any, Callable, Dict, Optional

from ..ops.control_flow.cond_ops import cond
from ..ops.control_flow.functional_ops import map_fn, scan
from ..ops.control_flow.while_loop_ops import while_loop
from . import operators
from .transformer import AG, Namer, all_names, convert_function_def, function_def

_log = logging.getLogger("duograd.autograph")

DO_NOT_CONVERT = "__dg_autograph_do_not_convert__"
_SKIPPED_MODULES = {"duograd", "numpy", "builtins", "pytest", "_pytest", "pluggy",
                    "hypothesis", "functools", "typing"}
_LIBRARY_PATHS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                           "platlib")})
_CO_UNCONVERTIBLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR

_TAKE_FUNCTIONS = (cond, while_loop, map_fn, scan)

# original code object -> converted code object (None: convert failed, run as is)
_converted: Dict[types.CodeType, Optional[types.CodeType]] = {}
# converted code object -> its source text (dg.autograph.to_code)
_sources: Dict[types.CodeType, str] = {}
# every code object that conversion produced (nested functions included)
_produced: set = set()


def is_user_function(fn: types.FunctionType) -> bool:
    """True for a function AutoGraph converts (see the module docstring)."""
    code = fn.__code__
    if getattr(fn, DO_NOT_CONVERT, False) or code in _produced:
        return False
    if code.co_flags & _CO_UNCONVERTIBLE:
        return False
    # the defining module (functools.wraps copies the wrapped function's __module__)
    module = (fn.__globals__.get("__name__") or "").split(".")[0]
    if module in _SKIPPED_MODULES:
        return False
    return not code.co_filename.startswith(_LIBRARY_PATHS)


def convert(fn: Any) -> Any:
    """`fn` with its control flow converted (methods and callables included)."""
    if isinstance(fn, functools.partial):
        return functools.partial(convert(fn.func), *fn.args, **fn.keywords)
    if isinstance(fn, types.MethodType):
        inner = convert(fn.__func__)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if isinstance(fn, types.FunctionType):
        return _convert_function(fn) if is_user_function(fn) else fn
    if callable(fn) and not isinstance(fn, type):
        call = inspect.getattr_static(type(fn), "__call__", None)
        if isinstance(call, types.FunctionType) and is_user_function(call):
            return types.MethodType(_convert_function(call), fn)
    return fn


def converted_call(fn: Any) -> Any:
    """What converted code calls instead of `fn`."""
    # identity tests only: `fn` may be any object (a tensor's == is elementwise)
    for builtin, override in operators.BUILTIN_OVERRIDES:
        if fn is builtin:
            return override
    if any(fn is f for f in _TAKE_FUNCTIONS):
        return functools.partial(_call_converting_functions, fn)
    return convert(fn)


def _call_converting_functions(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """`fn` (dg.cond, dg.while_loop, dg.map_fn, dg.scan) given converted versions of its
    function arguments, as TF's control flow converts the functions it is given."""
    args = tuple(convert(a) if isinstance(a, types.FunctionType) else a for a in args)
    kwargs = {k: convert(v) if isinstance(v, types.FunctionType) else v
              for k, v in kwargs.items()}
    return fn(*args, **kwargs)


def _convert_function(fn: types.FunctionType) -> types.FunctionType:
    code = fn.__code__
    if code not in _converted:
        _converted[code] = _convert_code(fn)
    new_code = _converted[code]
    if new_code is None:
        return fn
    return _bind(fn, new_code)


def _bind(fn: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """A function running `code` with `fn`'s globals, closure cells and defaults."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True))
    closure = tuple(_AG_CELL if name == AG else cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn)  # names, docstring, __dict__, __wrapped__
    return new


def _convert_code(fn: types.FunctionType) -> Optional[types.CodeType]:
    try:
        node = _parse(fn)
    except (OSError, TypeError, SyntaxError, ValueError) as error:
        _log.warning("AutoGraph could not convert %s and will run it as-is: %s",
                     fn.__qualname__, error)
        return None
    node.decorator_list = []
    _strip_evaluated_parts(node)
    convert_function_def(node, Namer(all_names(node) | {AG}),
                         class_cell="__class__" in fn.__code__.co_freevars)
    # Compiled under another name, so that the factory's `def` does not bind the
    # function's own name: a recursive call finds the function where Python would.
    original_name = node.name
    node.name = f"{AG}converted_{original_name}"
    factory = _factory(node, fn.__code__.co_freevars)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    try:
        compiled = compile(module, fn.__code__.co_filename, "exec", dont_inherit=True)
    except SyntaxError as error:  # a construct the conversion does not handle yet
        _log.warning("AutoGraph could not convert %s and will run it as-is: %s",
                     fn.__qualname__, error)
        return None
    code = _find_code(compiled, node.name, factory.name).replace(co_name=fn.__code__.co_name)
    node.name = original_name
    _produced.update(_all_codes(code))
    _sources[code] = ast.unparse(node)
    return code


def _parse(fn: types.FunctionType) -> ast.FunctionDef:
    """The function's `def` (a lambda: as a `def` returning its body), with line
    numbers of its file."""
    if fn.__code__.co_name == "<lambda>":
        return _parse_lambda(fn.__code__)
    source = inspect.getsource(fn.__code__)  # the code's own source, not a __wrapped__ one
    first = fn.__code__.co_firstlineno
    tree: Any
    try:
        tree = ast.parse(textwrap.dedent(source))
        offset = first - 1
    except SyntaxError:  # e.g. an indented multi-line string defeats dedent
        tree = ast.parse("if 1:\n" + source)
        tree.body = tree.body[0].body
        offset = first - 2
    ast.increment_lineno(tree, offset)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != fn.__code__.co_name:
        raise ValueError(f"the source found for {fn.__qualname__} is not its definition")
    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    if start != first:
        raise ValueError(f"the source found for {fn.__qualname__} is not its definition")
    return node


def _parse_lambda(code: types.CodeType) -> ast.FunctionDef:
    """The one lambda of the source lines that holds the positions of all the code's
    instructions (several lambdas may share a line: `cond(p, lambda: a, lambda: b)`)."""
    try:  # the whole file: a lambda may span lines of a larger expression
        tree, indent = ast.parse("".join(linecache.getlines(code.co_filename))), 0
    except (SyntaxError, ValueError):
        lines = inspect.getsource(code).splitlines(keepends=True)
        indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
        tree = ast.parse(textwrap.dedent("".join(lines)))
        ast.increment_lineno(tree, code.co_firstlineno - 1)
    positions = getattr(code, "co_positions", None)  # Python 3.11+
    if positions is None:
        raise ValueError("lambdas are converted from Python 3.11 on")
    where = [(line, col) for line, end_line, col, end_col in positions()
             if line is not None and col is not None and (end_line, end_col) > (line, col)]
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and where and all(_contains(node, w, indent) for w in where)]
    if len(found) != 1:
        raise ValueError(f"could not find the source of the lambda at line "
                         f"{code.co_firstlineno}")
    node = function_def("__ag_lambda", found[0].args,
                        [ast.copy_location(ast.Return(value=found[0].body), found[0].body)])
    return ast.copy_location(node, found[0])


def _contains(node: Any, where: tuple, indent: int) -> bool:
    """True when the (line, column) `where` of the original file lies inside `node`."""
    start = (node.lineno, node.col_offset + indent)
    end = (node.end_lineno, node.end_col_offset + indent)
    return start <= where < end


def _strip_evaluated_parts(node: ast.FunctionDef) -> None:
    """Defaults and annotations are the original function's; drop them from the
    rewritten `def` so compiling it evaluates nothing."""
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kwonlyargs)
    node.returns = None
    for arg in ast.walk(node.args):
        if isinstance(arg, ast.arg):
            arg.annotation = None


def _factory(node: ast.FunctionDef, freevars: tuple) -> ast.FunctionDef:
    """`def factory(): ag__ = None; <free vars> = None; def f...` so that the compiled
    `f` has cells for `ag__` and for the original free variables."""
    cells = [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                        value=ast.Constant(value=None)) for name in (AG,) + tuple(freevars)]
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    factory = function_def("__ag_factory", args,
                           cells + [node, ast.Return(value=ast.Name(id=node.name,
                                                                    ctx=ast.Load()))])
    for stmt in cells + [factory]:
        ast.copy_location(stmt, node)
    return factory


def _find_code(module_code: types.CodeType, name: str, factory: str) -> types.CodeType:
    outer = next(c for c in module_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == factory)
    return next(c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _all_codes(code: types.CodeType):
    stack = [code]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))


def _namespace() -> types.SimpleNamespace:
    members = {name: getattr(operators, name) for name in (
        "Undefined", "UndefinedReturnValue", "ld", "ldu", "retval", "and_", "or_", "not_", "if_exp",
        "if_stmt", "while_stmt", "for_stmt", "assert_stmt")}
    members["converted_call"] = converted_call
    return types.SimpleNamespace(**members)


_AG_CELL = types.CellType(_namespace())


def to_code(fn: Any) -> str:
    """The source of `fn` as AutoGraph converted it."""
    converted = convert(fn)
    function = getattr(converted, "__func__", converted)
    code = getattr(function, "__code__", None)
    if code not in _sources:
        raise ValueError(f"AutoGraph does not convert {fn!r}")
    return _sources[code]


def do_not_convert(func: Optional[Callable] = None) -> Any:
    """Marks `func` to run as written inside converted code (a decorator)."""
    if func is None:
        return do_not_convert
    setattr(func, DO_NOT_CONVERT, True)
    return func
