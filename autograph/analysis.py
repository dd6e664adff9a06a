"""Static analysis of one function scope for AutoGraph: which names a statement
assigns, which it reads, and which are live after it.

Liveness is a backward data flow over the structured statements of one
function (loops iterate to a fixed point). It is conservative: a read inside
a nested function, lambda or comprehension counts as a read where that
expression is, and `try` bodies keep everything their handlers read alive.
The results are stored on the `If`, `While` and `For` nodes
(`ag_live_out`, and for loops `ag_live_head`, the names live when the loop
test runs) for the control-flow conversion.
"""
from __future__ import annotations

import ast
from typing import Any, Iterable, List, Optional, Set

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def composite_name(node: ast.AST) -> Optional[str]:
    """`a.b`, `a['k']`, `a[0].c`...: the text of an attribute/constant-subscript chain
    on a variable (a composite symbol, tracked like a variable), else None."""
    parts = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            parts.append(f".{node.attr}")
        elif isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (str, int)) \
                and not isinstance(node.slice.value, bool):
            parts.append(f"[{node.slice.value!r}]")
        else:
            return None
        node = node.value
    if not parts or not isinstance(node, ast.Name):
        return None
    return node.id + "".join(reversed(parts))


def is_composite(symbol: str) -> bool:
    return not symbol.isidentifier()


def is_live(symbol: str, live: Set[str]) -> bool:
    """A symbol is live when it or an object it belongs to (`x` for `x['k']`) is read."""
    if symbol in live:
        return True
    return any(symbol.startswith(p) and symbol[len(p)] in ".[" for p in live
               if len(p) < len(symbol))


def assigned_names(nodes: Iterable[ast.AST], composites: bool = False) -> Set[str]:
    """Names bound by the statements `nodes`, not looking into nested scopes (with
    `composites`, also the composite symbols they assign)."""
    found: Set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, _SCOPES):
            continue
        if composites and isinstance(node, (ast.Attribute, ast.Subscript)) \
                and isinstance(node.ctx, ast.Store):
            symbol = composite_name(node)
            if symbol is not None:
                found.add(symbol)
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return found


def read_names(node: ast.AST) -> Set[str]:
    """Every name read anywhere in `node` (nested scopes included)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            found.add(sub.id)
        elif isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, ast.Load):
            symbol = composite_name(sub)
            if symbol is not None:
                found.add(symbol)
        elif isinstance(sub, ast.AugAssign):
            symbol = sub.target.id if isinstance(sub.target, ast.Name) else \
                composite_name(sub.target)
            if symbol is not None:
                found.add(symbol)
    extra = getattr(node, "ag_extra_test", None)
    if extra is not None:
        found |= read_names(extra)
    return found


def declared(scope: ast.AST, kind: type) -> Set[str]:
    """Names a `global` or `nonlocal` statement of this scope declares."""
    found: Set[str] = set()
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)) and isinstance(node, kind):
            found.update(node.names)
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return found


def definitely_assigned(stmts: List[ast.stmt]) -> Set[str]:
    """Names every path through `stmts` assigns (loops and try may not run)."""
    found: Set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            found |= definitely_assigned(stmt.body) & definitely_assigned(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            found |= definitely_assigned(stmt.body) | assigned_names(
                [i.optional_vars for i in stmt.items if i.optional_vars is not None])
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.FunctionDef,
                               ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                               ast.ImportFrom)):
            if not (isinstance(stmt, ast.AnnAssign) and stmt.value is None):
                found |= assigned_names([stmt], composites=True)
    return found


def _killed(live: Set[str], assigned: Set[str]) -> Set[str]:
    """`live` less what `assigned` overwrites (a variable takes its parts with it)."""
    return {s for s in live if s not in assigned and not any(
        s.startswith(a) and s[len(a)] in ".[" for a in assigned if len(a) < len(s))}


def _annotate(node: Any, live_out: Set[str], live_head: Optional[Set[str]] = None) -> None:
    """Stores what the control-flow conversion reads on an If/While/For node."""
    node.ag_live_out = set(live_out)
    if live_head is not None:
        node.ag_live_head = live_head


class Liveness:
    """Annotates If/While/For nodes of one scope with the names live after them."""

    def block(self, stmts: List[ast.stmt], live_after: Set[str]) -> Set[str]:
        live = set(live_after)
        for stmt in reversed(stmts):
            live = self.statement(stmt, live)
        return live

    def statement(self, stmt: Any, live: Set[str]) -> Set[str]:
        """The names live before `stmt` (annotating If/While/For nodes on the way)."""
        if isinstance(stmt, ast.If):
            _annotate(stmt, live)
            return read_names(stmt.test) | self.block(stmt.body, live) | \
                self.block(stmt.orelse, live)
        if isinstance(stmt, ast.While):
            head = set(live) | read_names(stmt.test)
            while True:
                new = set(live) | read_names(stmt.test) | self.block(stmt.body, head)
                if new == head:
                    break
                head = new
            _annotate(stmt, live, head)
            return head
        if isinstance(stmt, ast.For):
            return self._for(stmt, live)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            inner = self.block(stmt.body, live)
            targets = assigned_names([i.optional_vars for i in stmt.items
                                      if i.optional_vars is not None])
            return _killed(inner, targets) | set().union(*(read_names(i.context_expr)
                                                     for i in stmt.items))
        if isinstance(stmt, ast.Try):
            after = self.block(stmt.finalbody, live)
            handlers = set().union(set(), *(self.block(h.body, after) for h in stmt.handlers))
            orelse = self.block(stmt.orelse, after)
            body = self.block(stmt.body, after | handlers | orelse)
            return body | handlers | after | set().union(
                set(), *(read_names(h.type) for h in stmt.handlers if h.type is not None))
        if isinstance(stmt, ast.Return):
            return set() if stmt.value is None else read_names(stmt.value)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return (live - {stmt.name}) | read_names(stmt)
        return _killed(live, definitely_assigned([stmt])) | read_names(stmt)

    def _for(self, stmt: Any, live: Set[str]) -> Set[str]:
        extra = getattr(stmt, "ag_extra_test", None)
        extra_reads = set() if extra is None else read_names(extra)
        targets = assigned_names([stmt.target], composites=True)
        head = set(live) | extra_reads
        while True:
            body = _killed(self.block(stmt.body, head), targets)
            new = set(live) | extra_reads | body | read_names(stmt.target)
            if new == head:
                break
            head = new
        _annotate(stmt, live, head)
        return head | read_names(stmt.iter)
