"""Every seam is small: no protocol in the package declares more than five required members.

A required member is one a backend must provide: a method or property whose body is only a
docstring and ``...`` (or ``raise NotImplementedError``), or an annotated attribute.
Conveniences built on the required methods inside the protocol are not counted; a protocol
that combines others (``ChatStorage``) is counted by what it adds.
"""

from __future__ import annotations

import ast
from pathlib import Path

import longtalk

PACKAGE = Path(longtalk.__file__).parent
MAX_REQUIRED = 5


def is_protocol(node: ast.ClassDef) -> bool:
    return any(ast.unparse(base).split(".")[-1].startswith("Protocol") for base in node.bases)


def is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if not body:
        return True
    if len(body) > 1:
        return False
    only = body[0]
    if isinstance(only, ast.Pass):
        return True
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return only.value.value is Ellipsis
    return isinstance(only, ast.Raise) and "NotImplementedError" in ast.unparse(only)


def required(node: ast.ClassDef) -> list[str]:
    names = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and is_stub(item):
            names.append(item.name)
        elif isinstance(item, ast.AnnAssign):
            names.append(ast.unparse(item.target))
    return names


def protocols() -> dict[str, list[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and is_protocol(node):
                found[f"{path.relative_to(PACKAGE)}:{node.name}"] = required(node)
    return found


def test_the_counter_sees_the_seams() -> None:
    found = protocols()
    assert found["storage/base.py:MessageStore"] == ["commit_turn", "list_messages", "load_state"]
    assert found["storage/base.py:ChatStorage"] == ["setup", "close"]
    assert len(found) > 20


def test_no_protocol_has_more_than_five_required_members() -> None:
    wide = {name: members for name, members in protocols().items() if len(members) > MAX_REQUIRED}
    assert wide == {}
