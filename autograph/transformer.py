"""The AST rewrite of one function: statements and expressions into AutoGraph operators.

`convert_function_def` rewrites a `def` in place, nested functions first:
1. lowering (lowering.py): break / continue / loop else / return;
2. liveness (analysis.py) on the lowered body;
3. expressions: `and`/`or`/`not`/`x if c else y` become `ag__.and_` etc.,
   every call `f(...)` becomes `ag__.converted_call(f)(...)` (user functions
   called from converted code are converted too), and a read of a variable
   that may be unassigned becomes `ag__.ld(x)`;
4. statements: `if`, `while` and `for` become local functions for their
   bodies (writing the function's variables through `nonlocal`) and a call
   of `ag__.if_stmt` / `while_stmt` / `for_stmt`;
5. each variable those statements assign starts as `ag__.Undefined('x')`.
Generated nodes carry the line of the statement they replace, so tracebacks
and error messages point at the user's source.
"""
from __future__ import annotations

import ast
import itertools
from typing import Any, List, Optional, Sequence, Set

from . import analysis
from .lowering import JumpLowering, ReturnLowering, needs_return_lowering

AG = "ag__"


def _ag(attr: str) -> ast.expr:
    return ast.Attribute(value=ast.Name(id=AG, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def _thunk(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def _place(nodes: Sequence[ast.AST], ref: Any) -> None:
    """Gives generated nodes (and their unplaced children) the location of `ref`."""
    if not hasattr(ref, "lineno"):
        return  # `ref` is generated too: ast.fix_missing_locations places both
    for node in nodes:
        sub: Any
        for sub in ast.walk(node):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                # one line: Python reports a call at the line its callee expression ends
                sub.lineno, sub.col_offset = ref.lineno, ref.col_offset
                sub.end_lineno, sub.end_col_offset = ref.lineno, ref.col_offset


def function_def(name: str, args: ast.arguments, body: List[ast.stmt]) -> ast.FunctionDef:
    """A `def` node without decorators (with Python 3.12's `type_params` when it has them)."""
    node: Any = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[],
                                returns=None)
    if "type_params" in ast.FunctionDef._fields:
        node.type_params = []
    return node


class Namer:
    """Fresh names that do not clash with any name of the function."""

    def __init__(self, taken: Set[str]) -> None:
        self.taken = set(taken)

    def __call__(self, base: str) -> str:
        for k in itertools.count():
            name = base if k == 0 else f"{base}_{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name
        raise AssertionError("unreachable")


def all_names(tree: ast.AST) -> Set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


class _Expressions(ast.NodeTransformer):
    """Boolean operators, conditional expressions, calls and undefined-able reads."""

    def __init__(self, maybe_undefined: Set[str], self_name: Optional[str]) -> None:
        self.maybe_undefined = maybe_undefined
        self.self_name = self_name

    def visit_FunctionDef(self, node):
        return node  # converted on its own

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_For(self, node):
        self.generic_visit(node)
        extra = getattr(node, "ag_extra_test", None)
        if extra is not None:
            node.ag_extra_test = self.visit(extra)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.maybe_undefined:
            return ast.copy_location(_call(_ag("ld"), node), node)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        func = _ag("and_" if isinstance(node.op, ast.And) else "or_")
        values = node.values
        result = values[-1]
        for value in reversed(values[:-1]):
            result = _call(func, _thunk(value), _thunk(result))
        _place([result], node)
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), node.operand), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        result = _call(_ag("if_exp"), node.test, _thunk(node.body), _thunk(node.orelse))
        _place([result], node)
        return result

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == AG or _is_loop_options(node):
            return node  # an operator call made by the lowering, or loop options
        if isinstance(func, ast.Name) and func.id == "super" and not node.args \
                and self.self_name is not None:
            # zero-argument super() needs the class cell, which the converted code
            # reads explicitly (the original function's `__class__` cell)
            node.args = [ast.Name(id="__class__", ctx=ast.Load()),
                         ast.Name(id=self.self_name, ctx=ast.Load())]
            _place(node.args, node)
            return node
        wrapped = _call(_ag("converted_call"), func)
        _place([wrapped], node)
        node.func = wrapped
        return node


class _Statements(ast.NodeTransformer):
    """if / while / for into local body functions and AutoGraph operator calls."""

    def __init__(self, unique: Namer, global_names: Set[str]) -> None:
        self.unique = unique
        self.global_names = global_names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def _modified(self, node: Any) -> List[str]:
        parts = [node.body, getattr(node, "orelse", [])]
        if isinstance(node, ast.For):
            parts.append([node.target])
        symbols = analysis.assigned_names(itertools.chain(*parts), composites=True)
        # plain names first (the nonlocal declarations), then composite symbols
        return sorted(symbols, key=lambda n: (analysis.is_composite(n), n))

    def _decl(self, names: List[str]) -> List[ast.stmt]:
        names = [n for n in names if not analysis.is_composite(n)]
        local = [n for n in names if n not in self.global_names]
        glob = [n for n in names if n in self.global_names]
        decl: List[ast.stmt] = []
        if local:
            decl.append(ast.Nonlocal(names=local))
        if glob:
            decl.append(ast.Global(names=glob))
        return decl

    def _def(self, name: str, params: List[str], decl: List[str],
             body: List[ast.stmt]) -> ast.FunctionDef:
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                             kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        return function_def(name, args, self._decl(decl) + (body or [ast.Pass()]))

    def _state_functions(self, names: List[str], ref: ast.AST):
        get_name, set_name = self.unique("get_state"), self.unique("set_state")
        values = ast.Tuple(elts=[_state_value(n) for n in names], ctx=ast.Load())
        getter = self._def(get_name, [], [], [ast.Return(value=values)])
        arg = self.unique("vars_")
        setter_body = [_state_assignment(n, arg, k) for k, n in enumerate(names)]
        setter = self._def(set_name, [arg], names, setter_body)
        return [getter, setter], get_name, set_name

    @staticmethod
    def _names_tuple(names: List[str]) -> ast.expr:
        return ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())

    def visit_If(self, node):
        if _has_return(node):
            return self.generic_visit(node)  # a Python return stays a Python statement
        modified = self._modified(node)
        self.generic_visit(node)
        local = [n for n in modified if n not in self.global_names]
        outs = [n for n in local if analysis.is_live(n, node.ag_live_out)]
        state = outs + [n for n in local if n not in outs]
        defs, get_name, set_name = self._state_functions(state, node)
        body_name, else_name = self.unique("if_body"), self.unique("else_body")
        defs.append(self._def(body_name, [], modified, node.body))
        defs.append(self._def(else_name, [], modified, node.orelse))
        call = ast.Expr(value=_call(
            _ag("if_stmt"), node.test, ast.Name(id=body_name, ctx=ast.Load()),
            ast.Name(id=else_name, ctx=ast.Load()), ast.Name(id=get_name, ctx=ast.Load()),
            ast.Name(id=set_name, ctx=ast.Load()), self._names_tuple(state),
            ast.Constant(value=len(outs))))
        _place(defs + [call], node)
        return defs + [call]

    def visit_Assert(self, node):
        self.generic_visit(node)
        message = node.msg if node.msg is not None else ast.Constant(value="Assertion error")
        call = ast.Expr(value=_call(_ag("assert_stmt"), node.test, _thunk(message)))
        _place([call], node)
        return call

    def _loop_state(self, node: Any, modified: List[str]) -> List[str]:
        live = node.ag_live_head | node.ag_live_out
        return [n for n in modified if n not in self.global_names and analysis.is_live(n, live)]

    def _loop_parts(self, node: Any):
        """Converts the loop's body; returns the names it assigns, its loop state (those
        live across iterations) and the state's getter/setter definitions and names."""
        modified = self._modified(node)
        self.generic_visit(node)
        state = self._loop_state(node, modified)
        defs, get_name, set_name = self._state_functions(state, node)
        return modified, state, defs, get_name, set_name

    def visit_While(self, node):
        if _has_return(node):
            return self.generic_visit(node)
        modified, state, defs, get_name, set_name = self._loop_parts(node)
        test_name, body_name = self.unique("loop_test"), self.unique("loop_body")
        options = _take_loop_options(node)
        defs.append(self._def(test_name, [], [], [ast.Return(value=node.test)]))
        defs.append(self._def(body_name, [], modified, node.body))
        call = ast.Expr(value=_call(
            _ag("while_stmt"), ast.Name(id=test_name, ctx=ast.Load()),
            ast.Name(id=body_name, ctx=ast.Load()), ast.Name(id=get_name, ctx=ast.Load()),
            ast.Name(id=set_name, ctx=ast.Load()), self._names_tuple(state), options))
        _place(defs + [call], node)
        return defs + [call]

    def visit_For(self, node):
        if _has_return(node):
            return self.generic_visit(node)
        modified, state, defs, get_name, set_name = self._loop_parts(node)
        body_name, itr = self.unique("loop_body"), self.unique("itr")
        options = _take_loop_options(node)
        bind = ast.Assign(targets=[node.target], value=ast.Name(id=itr, ctx=ast.Load()))
        _place([bind], node.target)
        defs.append(self._def(body_name, [itr], modified, [bind] + node.body))
        extra = getattr(node, "ag_extra_test", None)
        extra_arg: ast.expr = ast.Constant(value=None)
        if extra is not None:
            extra_name = self.unique("extra_test")
            defs.append(self._def(extra_name, [], [], [ast.Return(value=extra)]))
            extra_arg = ast.Name(id=extra_name, ctx=ast.Load())
        call = ast.Expr(value=_call(
            _ag("for_stmt"), node.iter, extra_arg, ast.Name(id=body_name, ctx=ast.Load()),
            ast.Name(id=get_name, ctx=ast.Load()), ast.Name(id=set_name, ctx=ast.Load()),
            self._names_tuple(state), options))
        _place(defs + [call], node)
        return defs + [call]


def _is_loop_options(node: ast.AST) -> bool:
    """A call of (dg.autograph.experimental.)set_loop_options."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


def _take_loop_options(node: Any) -> ast.expr:
    """Removes the loop body's set_loop_options(...) statements; their keywords as a dict
    expression (evaluated when the loop starts), or None."""
    keys: List[Optional[ast.expr]] = []
    values: List[ast.expr] = []
    kept = []
    for stmt in node.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and _is_loop_options(stmt.value):
            for keyword in stmt.value.keywords:
                keys.append(ast.Constant(value=keyword.arg))
                values.append(keyword.value)
        else:
            kept.append(stmt)
    node.body = kept or [ast.Pass()]
    return ast.Dict(keys=keys, values=values) if keys else ast.Constant(value=None)


def _parsed(source: str, mode: str = "exec") -> Any:
    """Parsed generated code without locations (they come from the statement replaced)."""
    tree = ast.parse(source, mode=mode)
    for sub in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(sub, attr):
                delattr(sub, attr)
    return tree


def _state_value(symbol: str) -> ast.expr:
    """A variable's value; a composite symbol's, or Undefined when it does not exist."""
    if not analysis.is_composite(symbol):
        return ast.Name(id=symbol, ctx=ast.Load())
    read = _parsed(symbol, mode="eval").body
    return _call(_ag("ldu"), _thunk(read), ast.Constant(value=symbol))


def _state_assignment(symbol: str, arg: str, k: int) -> ast.stmt:
    """`symbol = arg[k]`; a composite symbol whose value is Undefined is removed."""
    if not analysis.is_composite(symbol):
        return _parsed(f"{symbol} = {arg}[{k}]").body[0]
    return _parsed(f"if isinstance({arg}[{k}], {AG}.Undefined):\n"
                     f"    try:\n        del {symbol}\n"
                     f"    except (KeyError, AttributeError, IndexError):\n        pass\n"
                     f"else:\n    {symbol} = {arg}[{k}]\n").body[0]


def _has_return(node: ast.stmt) -> bool:
    """A `return` of this scope inside `node` (none remain after lowering; a safety net)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Return):
            return True
        if not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                ast.Lambda)):
            stack.extend(ast.iter_child_nodes(sub))
    return False


def _control_flow_nodes(stmts: List[ast.stmt]):
    stack: List[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.If, ast.While, ast.For)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _undefine_deletes(body: List[ast.stmt]) -> Set[str]:
    """`del name` inside an if/while/for becomes `name = Undefined('name')` (as TF's
    AutoGraph does), so the branch or loop body, which runs as a local function,
    hands an undefined variable on rather than deleting the enclosing cell; a later
    read raises as Python would. Returns the names so deleted."""
    deleted: Set[str] = set()
    for stmt in list(_control_flow_nodes(body)):
        for block in (stmt.body, stmt.orelse):
            rewritten: List[ast.stmt] = []
            for sub in block:
                if isinstance(sub, ast.Delete) and all(isinstance(t, ast.Name)
                                                       for t in sub.targets):
                    names = [t.id for t in sub.targets if isinstance(t, ast.Name)]
                    new = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                                      value=_call(_ag("Undefined"), ast.Constant(value=n)))
                           for n in names]
                    _place(new, sub)
                    rewritten.extend(new)
                    deleted.update(names)
                else:
                    rewritten.append(sub)
            block[:] = rewritten
    return deleted


def _params(node: ast.FunctionDef) -> Set[str]:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return set(names)


def convert_function_def(node: ast.FunctionDef, unique: Namer, class_cell: bool = False) -> None:
    """Rewrites `node` (and the functions defined in it) in place; `class_cell`: the
    function is a method whose zero-argument `super()` reads the `__class__` cell."""
    for inner in list(_nested_defs(node)):
        convert_function_def(inner, unique)
    module = ast.Module(body=node.body, type_ignores=[])
    JumpLowering(unique).visit(module)
    body = module.body
    if needs_return_lowering(body):
        do_return, retval = unique("do_return"), unique("retval_")
        lowered, _, _ = ReturnLowering(do_return, retval).block(body)
        start: List[ast.stmt] = [
            ast.Assign(targets=[ast.Name(id=do_return, ctx=ast.Store())],
                       value=ast.Constant(value=False)),
            ast.Assign(targets=[ast.Name(id=retval, ctx=ast.Store())],
                       value=_call(_ag("UndefinedReturnValue")))]
        end: List[ast.stmt] = [
            ast.Return(value=_call(_ag("retval"), ast.Name(id=retval, ctx=ast.Load())))]
        _place(start, node)
        _place(end, body[-1] if body else node)
        body = start + lowered + end
    global_names = analysis.declared(node, ast.Global)
    nonlocal_names = analysis.declared(node, ast.Nonlocal)
    deleted = _undefine_deletes(body) - global_names - nonlocal_names
    analysis.Liveness().block(body, set(nonlocal_names | global_names))
    assigned = set()
    for stmt in _control_flow_nodes(body):
        parts = [stmt.body, stmt.orelse] + ([[stmt.target]] if isinstance(stmt, ast.For) else [])
        assigned |= analysis.assigned_names(itertools.chain(*parts))
    maybe_undefined = (assigned - _params(node) - global_names - nonlocal_names) | deleted
    module = ast.Module(body=body, type_ignores=[])
    first = (node.args.posonlyargs + node.args.args)[:1]
    self_name = first[0].arg if first and class_cell else None
    _Expressions(maybe_undefined, self_name).visit(module)
    _Statements(unique, global_names).visit(module)
    init = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                       value=_call(_ag("Undefined"), ast.Constant(value=n)))
            for n in sorted(maybe_undefined - _params(node))]
    _place(init, node)
    node.body = _docstring(node) + init + [s for s in module.body if not _is_docstring(s, node)]


def _nested_defs(node: ast.FunctionDef):
    stack = list(ast.iter_child_nodes(node))
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.FunctionDef):
            yield sub
            continue
        if not isinstance(sub, (ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(sub))


def _is_docstring(stmt: ast.stmt, node: ast.FunctionDef) -> bool:
    return bool(node.body) and stmt is node.body[0] and isinstance(stmt, ast.Expr) \
        and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _docstring(node: ast.FunctionDef) -> List[ast.stmt]:
    return [node.body[0]] if node.body and _is_docstring(node.body[0], node) else []
