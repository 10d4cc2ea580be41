"""Source code to sections: Python by its syntax tree, other languages by top-level blocks."""

from __future__ import annotations

import ast

from graphrag_cypher.model import Section

CODE_EXTENSIONS = frozenset(
    {
        ".py",
        ".pyi",
        ".js",
        ".mjs",
        ".cjs",
        ".jsx",
        ".ts",
        ".tsx",
        ".java",
        ".kt",
        ".scala",
        ".go",
        ".rs",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".rb",
        ".php",
        ".swift",
        ".sh",
        ".bash",
        ".sql",
        ".cypher",
        ".cql",
        ".r",
        ".lua",
        ".pl",
        ".toml",
        ".yaml",
        ".yml",
        ".ini",
        ".cfg",
    }
)


def python_sections(source: str) -> list[Section]:
    """One section per top-level function/class (decorators and docstring included), plus
    the module-level rest as one section first. A file that does not parse falls back to
    block splitting, so a syntax error never loses the file."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return code_sections(source)
    lines = source.splitlines()
    taken = [False] * len(lines)
    definitions: list[Section] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        last = node.end_lineno or node.lineno
        for i in range(first, last):
            taken[i] = True
        definitions.append(Section(text="\n".join(lines[first:last]).strip("\n"), title=_title(node), kind="code"))
    rest = "\n".join(line for line, used in zip(lines, taken, strict=True) if not used)
    rest = _squeeze_blank_lines(rest)
    module = [Section(text=rest, title="module", kind="code")] if rest.strip() else []
    return module + definitions


def _title(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {node.name}"


def _squeeze_blank_lines(text: str) -> str:
    out: list[str] = []
    for line in text.splitlines():
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line.rstrip())
    return "\n".join(out).strip("\n")


def code_sections(source: str) -> list[Section]:
    """The whole file as one code section; the chunker splits it at top-level blocks."""
    text = "\n".join(line.rstrip() for line in source.splitlines()).strip("\n")
    return [Section(text=text, kind="code")] if text.strip() else []
