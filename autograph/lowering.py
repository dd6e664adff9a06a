"""Lowers `break`, `continue`, loop `else` and `return` into flags and guarded blocks.

After lowering, a function scope has no jump statements inside `if`/loop
bodies: `break` sets a flag the loop test checks, `continue` sets a flag
that guards the rest of the body, and `return x` inside a branch or loop sets
`do_return` and `retval_` (the rest of the block runs under
`if not do_return`; as in TF's AutoGraph, when one branch of an `if` always
returns, the statements after the `if` move into the other branch). The
control-flow conversion then turns flags that became tensors into cond and
while_loop state like any other variable.
"""
from __future__ import annotations

import ast
from typing import Any, Callable, List, Optional, Sequence, Tuple

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.While, ast.For)


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _set(flag: str, value: bool, ref: ast.AST) -> ast.stmt:
    node = ast.Assign(targets=[_name(flag, True)], value=ast.Constant(value=value))
    return ast.copy_location(node, ref)


def _not(flag: str) -> ast.expr:
    return ast.UnaryOp(op=ast.Not(), operand=_name(flag))


def _guard(body: List[ast.stmt], flag: str, ref: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.If(test=_not(flag), body=body, orelse=[]), ref)


def _contains(stmts: Sequence[ast.AST], kind: type, into_loops: bool) -> bool:
    """True when a `kind` statement occurs in `stmts` (not in nested scopes, and in
    nested loops only when `into_loops`)."""
    stack: List[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, _NESTED) or (not into_loops and isinstance(node, _LOOPS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _lower_jumps(stmts: List[ast.stmt], kind: type, flag: str) -> Tuple[List[ast.stmt], bool]:
    """Replaces `kind` (Break or Continue) of the current loop with `flag = True` and
    guards what follows a statement that may jump. Returns (stmts, may_jump)."""
    out: List[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, kind):
            out.append(_set(flag, True, stmt))
            return out, True  # the rest of the block is unreachable
        may = False
        if isinstance(stmt, ast.If):
            stmt.body, in_body = _lower_jumps(stmt.body, kind, flag)
            stmt.orelse, in_else = _lower_jumps(stmt.orelse, kind, flag)
            may = in_body or in_else
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            stmt.body, may = _lower_jumps(stmt.body, kind, flag)
        elif isinstance(stmt, ast.Try):
            parts = [stmt.body, stmt.orelse, stmt.finalbody] + [h.body for h in stmt.handlers]
            lowered = [_lower_jumps(p, kind, flag) for p in parts]
            stmt.body, stmt.orelse, stmt.finalbody = (lowered[0][0], lowered[1][0],
                                                      lowered[2][0])
            for handler, (body, _) in zip(stmt.handlers, lowered[3:], strict=True):
                handler.body = body
            may = any(m for _, m in lowered)
        out.append(stmt)
        if may:
            rest, _ = _lower_jumps(stmts[i + 1:], kind, flag)
            if rest:
                out.append(_guard(rest, flag, stmts[i + 1]))
            return out, True
    return out, False


def _and_not(test: Optional[ast.expr], flag: str) -> ast.expr:
    """`not flag and test` (the flag first: a finished loop does not evaluate `test`)."""
    if test is None:
        return _not(flag)
    return ast.BoolOp(op=ast.And(), values=[_not(flag), test])


class JumpLowering(ast.NodeTransformer):
    """Lowers break/continue/loop-else of every loop of one scope, innermost first."""

    def __init__(self, unique: Callable[[str], str]) -> None:
        self.unique = unique

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        return node  # nested scopes are lowered on their own

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_While(self, node: ast.AST) -> List[ast.stmt]:
        return self._loop(node)

    def visit_For(self, node: ast.AST) -> List[ast.stmt]:
        return self._loop(node)

    def _loop(self, node) -> List[ast.stmt]:
        self.generic_visit(node)
        before: List[ast.stmt] = []
        after: List[ast.stmt] = []
        if _contains(node.body, ast.Continue, into_loops=False):
            flag = self.unique("continue_")
            body, _ = _lower_jumps(node.body, ast.Continue, flag)
            node.body = [_set(flag, False, node)] + body
        if _contains(node.body, ast.Break, into_loops=False):
            flag = self.unique("break_")
            node.body, _ = _lower_jumps(node.body, ast.Break, flag)
            before.append(_set(flag, False, node))
            if isinstance(node, ast.While):
                node.test = _and_not(node.test, flag)
            else:
                node.ag_extra_test = _and_not(getattr(node, "ag_extra_test", None), flag)
            if node.orelse:
                after.append(_guard(node.orelse, flag, node.orelse[0]))
        else:
            after.extend(node.orelse)
        node.orelse = []
        return before + [node] + after


# -- return ------------------------------------------------------------------------
def _definitely_returns(stmts: List[ast.stmt]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, ast.If) and _definitely_returns(stmt.body) \
                and _definitely_returns(stmt.orelse):
            return True
        if isinstance(stmt, (ast.With, ast.AsyncWith)) and _definitely_returns(stmt.body):
            return True
        if isinstance(stmt, ast.Try) and (_definitely_returns(stmt.finalbody) or (
                _definitely_returns(stmt.body) and
                all(_definitely_returns(h.body) for h in stmt.handlers))):
            return True
    return False


def needs_return_lowering(body: List[ast.stmt]) -> bool:
    """True when a `return` sits inside an if, loop, with or try block of this scope."""
    nested = [s for s in body if isinstance(s, (ast.If, ast.While, ast.For, ast.With,
                                                ast.AsyncWith, ast.Try))]
    return _contains(nested, ast.Return, into_loops=True)


class ReturnLowering:
    """Rewrites the returns of one scope into `do_return` / `retval_` assignments."""

    def __init__(self, do_return: str, retval: str) -> None:
        self.do_return = do_return
        self.retval = retval

    def block(self, stmts: List[ast.stmt]) -> Tuple[List[ast.stmt], bool, bool]:
        """(lowered stmts, may return, definitely returns)."""
        out: List[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else ast.Constant(value=None)
                assign = ast.Assign(targets=[_name(self.retval, True)], value=value)
                # the value first: if computing it raises, no return happened
                out += [ast.copy_location(assign, stmt), _set(self.do_return, True, stmt)]
                return out, True, True
            may = definite = False
            if isinstance(stmt, ast.If):
                body_returns, else_returns = (_definitely_returns(stmt.body),
                                              _definitely_returns(stmt.orelse))
                if body_returns and not else_returns:
                    stmt.orelse, rest = stmt.orelse + rest, []
                elif else_returns and not body_returns:
                    stmt.body, rest = stmt.body + rest, []
                stmt.body, bm, bd = self.block(stmt.body)
                stmt.orelse, om, od = self.block(stmt.orelse)
                may, definite = bm or om, bd and od
            elif isinstance(stmt, _LOOPS):
                loop: Any = stmt  # carries the `ag_extra_test` annotation
                loop.body, may, _ = self.block(loop.body)
                if may:
                    if isinstance(loop, ast.While):
                        loop.test = _and_not(loop.test, self.do_return)
                    else:
                        loop.ag_extra_test = _and_not(getattr(loop, "ag_extra_test", None),
                                                      self.do_return)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                stmt.body, may, definite = self.block(stmt.body)
            elif isinstance(stmt, ast.Try):
                may, definite = self._try(stmt)
            out.append(stmt)
            if definite:
                return out, True, True
            if may:
                if rest:
                    lowered, _, _ = self.block(rest)
                    out.append(_guard(lowered, self.do_return, rest[0]))
                return out, True, False
        return out, False, False

    def _try(self, stmt: ast.Try) -> Tuple[bool, bool]:
        """Lowers the blocks of a try statement; (may return, definitely returns)."""
        stmt.body, body_may, body_def = self.block(stmt.body)
        handlers_def = True
        may = body_may
        for handler in stmt.handlers:
            handler.body, h_may, h_def = self.block(handler.body)
            may, handlers_def = may or h_may, handlers_def and h_def
        stmt.orelse, else_may, _ = self.block(stmt.orelse)
        stmt.finalbody, final_may, final_def = self.block(stmt.finalbody)
        return (may or else_may or final_may,
                final_def or (body_def and handlers_def))
