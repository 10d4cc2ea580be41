"""What `graphrag cypher` runs without --write: statements that only read the graph.

A read transaction stops writes to the graph, but Neo4j still lets it act on the server:
`TERMINATE TRANSACTIONS` ends other users' work, `LOAD CSV` and `apoc.load.*` fetch URLs
from the server, `gds.graph.project` / `gds.*.mutate` fill the heap and `gds.graph.export`
writes a database store to disk. So before a statement runs in read mode, Neo4j plans it
(`EXPLAIN`, which runs nothing) and the statement is allowed only when

- Neo4j classifies it as a read (query type ``r``; writes, schema and administration
  commands are refused);
- its plan holds none of the operators that act while reading (`LOAD CSV`,
  `TERMINATE TRANSACTIONS`, `CALL { } IN TRANSACTIONS`);
- every procedure it calls, in the plan and in the statement text, and every function
  it calls, is on the allowlists below. Built-in functions without a namespace
  (``count``, ``toLower``...) are always allowed;
- every regular expression it matches (``=~``) is a literal string whose pattern cannot
  backtrack catastrophically (:func:`regex_problem`): Neo4j's transaction timeout is not
  checked inside one regex match, so a pattern such as ``(a+)+$`` would run on past it.
  APOC's functions that take a regex (`REGEX_FUNCTIONS`) are refused for the same reason.

Names are read from the statement by a small Cypher tokenizer (strings, comments and
backtick-quoted names understood, so a name inside a string is not a call) and from the
plan's operator details, never by searching the text for a substring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from graphrag_cypher.errors import GraphragError

# Lower-case glob patterns (``*`` also matches dots). Anything not listed is refused.
READ_PROCEDURES: tuple[str, ...] = (
    # built in: schema and index reads
    "db.labels",
    "db.relationshiptypes",
    "db.propertykeys",
    "db.schema.*",
    "db.info",
    "db.ping",
    "db.awaitindex",
    "db.awaitindexes",
    "db.index.fulltext.querynodes",
    "db.index.fulltext.queryrelationships",
    "db.index.fulltext.listavailableanalyzers",
    "db.index.vector.querynodes",
    "db.index.vector.queryrelationships",
    "dbms.components",
    "dbms.info",
    "dbms.listcapabilities",
    "dbms.showcurrentuser",
    "tx.getmetadata",
    # APOC: metadata, traversals and virtual (never stored) nodes
    "apoc.help",
    "apoc.meta.stats",
    "apoc.meta.schema",
    "apoc.meta.data",
    "apoc.meta.data.of",
    "apoc.meta.graph",
    "apoc.meta.graph.of",
    "apoc.meta.graphsample",
    "apoc.meta.subgraph",
    "apoc.meta.nodetypeproperties",
    "apoc.meta.reltypeproperties",
    "apoc.path.expand",
    "apoc.path.expandconfig",
    "apoc.path.spanningtree",
    "apoc.path.subgraphall",
    "apoc.path.subgraphnodes",
    "apoc.paths.tojsontree",
    "apoc.neighbors.*",
    "apoc.algo.*",
    "apoc.coll.*",
    "apoc.convert.totree",
    "apoc.create.vnode",
    "apoc.create.vnodes",
    "apoc.create.vrelationship",
    "apoc.create.virtualpath",
    "apoc.create.clonepathtovirtual",
    "apoc.create.clonepathstovirtual",
    "apoc.create.uuids",
    "apoc.nodes.get",
    "apoc.nodes.rels",
    "apoc.nodes.cycles",
    "apoc.nodes.group",
    "apoc.nodes.collapse",
    "apoc.text.phoneticdelta",
    "apoc.math.regr",
    "apoc.schema.properties.distinct",
    "apoc.schema.properties.distinctcount",
    "apoc.stats.degrees",
    "apoc.spatial.sortbydistance",
    "apoc.util.validate",
    # GDS: results streamed from graphs already projected, statistics and estimates
    "gds.*.stream",
    "gds.*.stats",
    "gds.*.estimate",
    "gds.version",
    "gds.list",
    "gds.graph.list",
    "gds.graph.exists",
    "gds.model.list",
    "gds.model.exists",
    "gds.pipeline.list",
    "gds.pipeline.exists",
    "gds.license.state",
    "gds.debug.sysinfo",
    "gds.memory.list",
    "gds.memory.summary",
    "gds.listprogress",
    "gds.userlog",
    # this project's procedures jar: all read only (matching, walks, retrieval)
    "graphrag.link.places.match",
    "graphrag.ppr",
    "graphrag.retrieve.*",
    "graphrag.search",
    "graphrag.search.analysis",
)

READ_FUNCTIONS: tuple[str, ...] = (
    # built in, with a namespace
    "date.*",
    "datetime.*",
    "localdatetime.*",
    "time.*",
    "localtime.*",
    "duration.*",
    "point.*",
    "vector.similarity.*",
    "graph.*",
    "db.namefromelementid",
    # APOC: pure functions on values (no URL, file or nested Cypher)
    "apoc.agg.*",
    "apoc.any.*",
    "apoc.bitwise.*",
    "apoc.coll.*",
    "apoc.convert.*",
    "apoc.create.uuid*",
    "apoc.create.vnode",
    "apoc.create.vrelationship",
    "apoc.create.virtual.*",
    "apoc.data.url",
    "apoc.date.*",
    "apoc.diff.*",
    "apoc.hashing.*",
    "apoc.json.path",
    "apoc.label.*",
    "apoc.map.*",
    "apoc.math.*",
    "apoc.meta.cypher.*",
    "apoc.meta.nodes.count",
    "apoc.node.*",
    "apoc.nodes.*",
    "apoc.number.*",
    "apoc.path.*",
    "apoc.rel.*",
    "apoc.schema.*",
    "apoc.scoring.*",
    "apoc.temporal.*",
    "apoc.text.*",
    "apoc.util.md5",
    "apoc.util.sha*",
    "apoc.util.compress",
    "apoc.util.validatepredicate",
    "apoc.version",
    # GDS
    "gds.version",
    "gds.islicensed",
    "gds.graph.exists",
    "gds.util.*",
    "gds.similarity.*",
    "gds.alpha.linkprediction.*",
    "gds.alpha.ml.onehotencoding",
    # this project's procedures jar
    "graphrag.embed",
    "graphrag.fold",
    "graphrag.normname",
    "graphrag.version",
)

# APOC functions whose argument is a Java regex: one match is not interrupted by the transaction
# timeout, so read mode does not run them (the project's own Cypher files may).
REGEX_FUNCTIONS: tuple[str, ...] = (
    "apoc.text.regexgroups",
    "apoc.text.regexgroupsbyname",
    "apoc.text.regreplace",
    "apoc.text.replace",
    "apoc.text.split",
)

# The bounds on a `=~` pattern: its length in characters, and its unbounded repeats (`*`, `+`,
# `{n,}`); k of them in a row can backtrack in n^k steps on a text of n characters.
MAX_REGEX_LENGTH = 200
MAX_REGEX_REPEATS = 3

# Plan operators that act on the server although Neo4j plans them in a read query.
REFUSED_OPERATORS: dict[str, str] = {
    "LoadCSV": "LOAD CSV (the server would fetch a URL or read a file)",
    "TerminateTransactions": "TERMINATE TRANSACTIONS (it ends other transactions)",
    "TransactionApply": "CALL { } IN TRANSACTIONS (it commits on its own)",
    "TransactionForeach": "CALL { } IN TRANSACTIONS (it commits on its own)",
}

# Neo4j plans a call of a DBMS-mode procedure (dbms.components, tx.getMetaData...) as query
# type "s" like a schema command. Such a plan is still checked, not refused outright, when it
# is only the procedure call and these row operators around it.
_ROW_OPERATORS = frozenset(
    {
        "ProduceResults",
        "ProcedureCall",
        "Projection",
        "Filter",
        "Top",
        "Sort",
        "PartialSort",
        "PartialTop",
        "Limit",
        "Skip",
        "Distinct",
        "OrderedDistinct",
        "EagerAggregation",
        "OrderedAggregation",
        "Argument",
        "EmptyRow",
        "Unwind",
        "Eager",
        "CacheProperties",
    }
)

_QUERY_TYPES = {"w": "writes", "rw": "writes", "s": "changes the schema or is an administration command"}

# Cypher ends a `//` comment at \r or \n only (its lexer: '//' ~[\r\n]*); U+2028, U+2029 and
# U+0085 are blanks to it, inside a comment as well. A comment read as ending earlier or later
# than Neo4j ends it would hide code from the checks, so the tokenizer follows the lexer exactly.
_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<comment>//[^\r\n]*|/\*.*?\*/)
      | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<quoted>`(?:[^`]|``)*`)
      | (?P<param>\$(?:\w+|`(?:[^`]|``)*`))
      | (?P<number>\d[\w.]*)
      | (?P<name>[^\W\d]\w*)
      | (?P<punct>\S)""",
    re.VERBOSE | re.DOTALL,
)


class Refused(GraphragError):
    """A statement read mode does not run; the message names what was refused. `reason` says
    the same without the console's wording ("it calls apoc.load.json, which is not allowed"),
    for callers that run statements they did not write."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason or message


@dataclass(frozen=True)
class Token:
    kind: str  # "name" (plain or backtick-quoted), "string", "param", "number", "punct"
    text: str  # a name without its backticks
    start: int
    end: int
    quoted: bool = False

    def is_keyword(self, word: str) -> bool:
        return self.kind == "name" and not self.quoted and self.text.upper() == word


def tokens(text: str) -> list[Token]:
    """The statement's tokens, without spaces and comments. Raises Refused on text it cannot
    split (an unterminated string or comment), so nothing unread is let through."""
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:  # the pattern ends in a one-character catch-all: unreachable, but say so
            raise Refused("read mode refuses a statement it cannot read", "it cannot be read")
        kind = match.lastgroup or ""
        value = match.group()
        if kind == "punct" and (value in "'\"`" or text.startswith("/*", pos)):
            raise Refused(
                "read mode refuses a statement it cannot read (an unterminated string, name or comment)",
                "it cannot be read (an unterminated string, name or comment)",
            )
        if kind == "quoted":
            out.append(Token("name", value[1:-1].replace("``", "`"), match.start(), match.end(), quoted=True))
        elif kind not in ("space", "comment"):
            out.append(Token(kind, value, match.start(), match.end()))
        pos = match.end()
    return out


@dataclass
class Calls:
    procedures: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    clauses: set[str] = field(default_factory=set)  # refused clauses seen in the text


def calls(text: str) -> Calls:
    """Procedures (after CALL, with or without parentheses), namespaced functions (a dotted
    name before "(") and the LOAD CSV / TERMINATE clauses of a statement."""
    found = Calls()
    toks = tokens(text)
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind != "name" or (i and toks[i - 1].text == "." and toks[i - 1].kind == "punct"):
            i += 1
            continue
        if tok.is_keyword("LOAD") and i + 1 < len(toks) and toks[i + 1].is_keyword("CSV"):
            found.clauses.add(REFUSED_OPERATORS["LoadCSV"])
        if (
            tok.is_keyword("TERMINATE")
            and i + 1 < len(toks)
            and toks[i + 1].kind == "name"
            and toks[i + 1].text.upper() in ("TRANSACTION", "TRANSACTIONS")
        ):
            found.clauses.add(REFUSED_OPERATORS["TerminateTransactions"])
        parts, j = [tok.text], i + 1
        while j + 1 < len(toks) and toks[j].kind == "punct" and toks[j].text == "." and toks[j + 1].kind == "name":
            parts.append(toks[j + 1].text)
            j += 2
        name = ".".join(parts)
        after_call = i > 0 and toks[i - 1].is_keyword("CALL")
        if after_call:
            found.procedures.add(name)
        elif "." in name and j < len(toks) and toks[j].kind == "punct" and toks[j].text == "(":
            found.functions.add(name)
        i = j
    return found


def allowed(name: str, patterns: Iterable[str]) -> bool:
    lowered = name.lower()
    return any(fnmatchcase(lowered, pattern) for pattern in patterns)


def _operators(plan: dict) -> Iterable[dict]:
    yield plan
    for child in plan.get("children") or ():
        yield from _operators(child)


def _operator_name(op: dict) -> str:
    return str(op.get("operatorType", "")).split("@", 1)[0]


def plan_calls(plan: dict) -> tuple[set[str], set[str], Calls]:
    """(operator names, procedure names, calls in the operators' details) of an EXPLAIN plan."""
    names: set[str] = set()
    procedures: set[str] = set()
    details = Calls()
    for op in _operators(plan):
        name = _operator_name(op)
        names.add(name)
        detail = str((op.get("args") or {}).get("Details") or "")
        if not detail:
            continue
        if name in ("ProcedureCall", "SystemProcedureCall"):
            # "apoc.load.json($autostring_0) :: (value :: MAP)": the procedure, then its arguments.
            head = calls("CALL " + detail)
            procedures |= head.procedures
            details.functions |= head.functions
        else:
            found = calls(detail)
            details.functions |= found.functions | found.procedures
    return names, procedures, details


_WRITE_CLAUSES = ("CREATE", "MERGE", "INSERT", "SET", "DELETE", "DETACH", "REMOVE", "FOREACH")


def write_clause(text: str) -> str | None:
    """The first clause of the statement that writes (``CREATE``, ``DETACH DELETE``...), or None."""
    toks = tokens(text)
    for i, tok in enumerate(toks):
        if tok.kind != "name" or tok.quoted or tok.text.upper() not in _WRITE_CLAUSES:
            continue
        before = toks[i - 1].text if i else ""
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        if before in (".", ":") or after == ":":  # a property, a label or a map key named so
            continue
        return "DETACH DELETE" if tok.text.upper() == "DETACH" else tok.text.upper()
    return None


def _not_a_read(query_type: str, text: str) -> str:
    if query_type in ("w", "rw"):
        clause = write_clause(text)
        return f"it writes to the graph ({clause})" if clause else "it writes to the graph"
    if query_type == "s":
        return "it changes the schema or is an administration command"
    return f"it is not a read (query type {query_type!r})"


_CYPHER_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def string_value(literal: str) -> str:
    """The value of a Cypher string literal token (quotes included): its escapes read as Cypher
    reads them (an unknown escape keeps its backslash)."""
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _CYPHER_ESCAPES:
            out.append(_CYPHER_ESCAPES[nxt])
            i += 2
        elif nxt in "uU" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _marked_alternations(pattern: str) -> str | None:
    """The pattern with `(?:)` after every `|` outside a character class, so that the parser keeps
    `(a|a)` a branch (it would fold one-character alternatives into a class, which Java's engine
    does not); None when a class nests `[` or starts with `]` (Java and Python read those apart)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "[":
                return None
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            rest = pattern[i + 1 :].lstrip("^")
            if rest.startswith("]"):
                return None
        elif ch == "|":
            out.append("|(?:)")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def regex_problem(pattern: str) -> str | None:
    """Why a regular expression could backtrack catastrophically in Java's engine, or None when it
    cannot: longer than MAX_REGEX_LENGTH, a repeat inside a repeat (`(a+)+`, `(a?){30}`: star height
    over 1; a fixed count such as `(ab{2}){3}` is fine), an
    alternation inside a repeat (`(a|ab)*`), a backreference or conditional group, more than
    MAX_REGEX_REPEATS unbounded repeats, or a pattern that does not parse. Conservative: a safe
    pattern may be refused, a refused one is never run."""
    import re._constants as sre
    import re._parser as sre_parse

    if len(pattern) > MAX_REGEX_LENGTH:
        return f"is {len(pattern)} characters long (at most {MAX_REGEX_LENGTH})"
    marked = _marked_alternations(pattern)
    if marked is None:
        return "has a nested character class"
    try:
        parsed = sre_parse.parse(marked)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"does not parse ({str(exc).split(' at position')[0]})"
    repeats = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
    unbounded = 0

    def walk(items, in_repeat: bool) -> str | None:
        nonlocal unbounded
        for op, arg in items:
            if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
                return "uses a backreference or a conditional group"
            if op in repeats:
                low, high, sub = arg
                many = high is sre.MAXREPEAT or high > 1
                if high is sre.MAXREPEAT:
                    unbounded += 1
                if in_repeat and low != high:  # (a+)+, (a?){30}: exponentially many ways to match
                    return "repeats a repeat (nested quantifiers)"
                problem = walk(sub, in_repeat or many)
            elif op == sre.BRANCH:
                if in_repeat:
                    return "repeats an alternation"
                problem = next((p for branch in arg[1] if (p := walk(branch, in_repeat))), None)
            elif op == sre.SUBPATTERN:
                problem = walk(arg[-1], in_repeat)
            elif op == sre.ATOMIC_GROUP:
                problem = walk(arg, in_repeat)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                problem = walk(arg[1], in_repeat)
            else:
                problem = None
            if problem:
                return problem
        return None

    problem = walk(parsed, False)
    if problem is None and unbounded > MAX_REGEX_REPEATS:
        problem = f"has {unbounded} unbounded repeats (at most {MAX_REGEX_REPEATS})"
    return problem


# Operators that bind tighter than `=~`: a string literal followed by one is not the whole pattern.
_TIGHTER = frozenset({"+", "-", "*", "/", "%", "^", "[", ".", "|", "("})


def check_regexes(text: str) -> None:
    """Refuse a `=~` whose pattern is not one literal string, or whose literal pattern could
    backtrack catastrophically (:func:`regex_problem`)."""
    toks = tokens(text)
    for i, tok in enumerate(toks):
        if not (
            tok.kind == "punct" and tok.text == "~" and i and toks[i - 1].kind == "punct" and toks[i - 1].text == "="
        ):
            continue
        literal = toks[i + 1] if i + 1 < len(toks) else None
        after = toks[i + 2] if i + 2 < len(toks) else None
        if (
            literal is None
            or literal.kind != "string"
            or (after is not None and after.kind == "punct" and after.text in _TIGHTER)
        ):
            raise Refused(
                "read mode refuses a regular expression (=~) that is not one literal string "
                "(one match cannot be stopped by the transaction timeout); add --write to run it",
                "it matches a regular expression (=~) that is not one literal string",
            )
        pattern = string_value(literal.text)
        problem = regex_problem(pattern)
        if problem:
            shown = pattern if len(pattern) <= 40 else pattern[:40] + "…"
            raise Refused(
                f"read mode refuses the regular expression {shown!r}: it {problem}, and one match cannot be "
                "stopped by the transaction timeout; add --write to run it",
                f"its regular expression {shown!r} {problem}",
            )


def check(query_type: str | None, plan: dict | None, text: str) -> None:
    """Raise Refused, naming the first thing read mode does not run, or return."""
    names, procedures, in_plan = plan_calls(plan or {})
    if query_type == "s" and "ProcedureCall" in names and names <= _ROW_OPERATORS:
        query_type = "r"  # a DBMS-mode procedure: its name is checked below
    if query_type not in (None, "r"):
        raise Refused(
            f"read mode refuses a statement that {_QUERY_TYPES.get(query_type, 'is not a read')} "
            f"(Neo4j plans it as query type {query_type!r}); add --write to run it",
            _not_a_read(query_type, text),
        )
    in_text = calls(text)
    for name in sorted(names):
        if name in REFUSED_OPERATORS:
            raise Refused(
                f"read mode refuses {REFUSED_OPERATORS[name]}; add --write to run it",
                f"it uses {REFUSED_OPERATORS[name]}",
            )
    _check_calls(in_text.clauses, procedures | in_text.procedures, in_text.functions | in_plan.functions)
    check_regexes(text)


def check_text(text: str) -> None:
    """The checks that need no plan, made before Neo4j is asked: the refused clauses, procedures
    and functions the statement names (a procedure that is not installed is refused as well,
    not reported by the planner as unknown), and its regular expressions."""
    in_text = calls(text)
    _check_calls(in_text.clauses, in_text.procedures, in_text.functions)
    check_regexes(text)


def _check_calls(clauses: set[str], procedures: set[str], functions: set[str]) -> None:
    if clauses:
        clause = sorted(clauses)[0]
        raise Refused(f"read mode refuses {clause}; add --write to run it", f"it uses {clause}")
    for proc in sorted(procedures):
        if not allowed(proc, READ_PROCEDURES):
            raise Refused(
                f"read mode refuses procedure {proc} (not on the read-only allowlist); add --write to run it",
                f"it calls {proc}, which is not allowed",
            )
    for func in sorted(functions):
        if func.lower() in REGEX_FUNCTIONS:
            raise Refused(
                f"read mode refuses function {func} (it runs a regular expression the transaction timeout "
                "cannot stop); add --write to run it",
                f"it calls {func}, which runs a regular expression the transaction timeout cannot stop",
            )
        if not allowed(func, READ_FUNCTIONS):
            raise Refused(
                f"read mode refuses function {func} (not on the read-only allowlist); add --write to run it",
                f"it calls {func}, which is not allowed",
            )


def explain_text(text: str) -> str | None:
    """The statement to plan: EXPLAIN in front, or in place of a leading PROFILE; None when the
    statement is an EXPLAIN already (it runs nothing)."""
    toks = tokens(text)
    i = 0
    if toks and toks[0].is_keyword("CYPHER"):  # pre-parser options: CYPHER 5 runtime=slotted ...
        i = 1
        while i < len(toks):
            if toks[i].kind == "number":
                i += 1
            elif toks[i].kind == "name" and i + 1 < len(toks) and toks[i + 1].text == "=":
                i += 3
            else:
                break
    if i < len(toks) and toks[i].is_keyword("EXPLAIN"):
        return None
    if i < len(toks) and toks[i].is_keyword("PROFILE"):
        return text[: toks[i].start] + "EXPLAIN" + text[toks[i].end :]
    return "EXPLAIN " + text


def run_read(
    session: Any, text: str, params: dict, timeout: float | None = None
) -> tuple[list[str], list[list[Any]], dict]:
    """Check the statement on its plan, then run it once in one read transaction that Neo4j ends
    after `timeout` seconds (the driver's managed transactions would retry it on a transient
    error; a user's query is not retried)."""
    planned = explain_text(text)
    with session.begin_transaction(timeout=timeout) as tx:
        if planned is not None:
            summary = tx.run(planned, params).consume()
            check(summary.query_type, summary.plan, text)
        result = tx.run(text, params)
        records = list(result)
        keys = list(result.keys())
        summary = result.consume()
        tx.rollback()
    counters = {k: v for k, v in vars(summary.counters).items() if not k.startswith("_")}
    return keys, [list(r.values()) for r in records], counters


def run_statement(graph: Any, text: str, params: dict, write: bool = False) -> tuple[list[str], list[list[Any]], dict]:
    """A user's statement: (columns, rows, counters). Read mode (the default) goes through
    :func:`run_read`; with `write`, it runs once as an auto-commit statement, so schema
    statements and ``CALL { } IN TRANSACTIONS`` work too. Each carries the Graph's transaction
    timeout (a read GRAPHRAG_STATEMENT_TIMEOUT, a write GRAPHRAG_WRITE_TIMEOUT), and a statement
    Neo4j ends at it is one StatementTimeout line."""
    from neo4j import Query

    from graphrag_cypher.db import statement_timeout_error, timed_out

    read_timeout = getattr(graph, "read_timeout", None)
    write_timeout = getattr(graph, "write_timeout", None)
    try:
        with graph.session(read_only=not write) as session:
            if not write:
                return run_read(session, text, params, read_timeout)
            result = session.run(Query(text, timeout=write_timeout), params)
            records = list(result)
            keys = list(result.keys())
            summary = result.consume()
            counters = {k: v for k, v in vars(summary.counters).items() if not k.startswith("_")}
            return keys, [list(r.values()) for r in records], counters
    except Exception as exc:
        if timed_out(exc):
            raise (
                statement_timeout_error(write_timeout, "GRAPHRAG_WRITE_TIMEOUT")
                if write
                else statement_timeout_error(read_timeout, "GRAPHRAG_STATEMENT_TIMEOUT")
            ) from exc
        raise
