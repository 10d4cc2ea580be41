"""Errors as the API shows them: JSON with one message, never a traceback."""

from __future__ import annotations


def one_line(exc: BaseException) -> str:
    from graphrag_cypher.errors import GraphragError

    if isinstance(exc, GraphragError) or type(exc).__module__.split(".")[0] == "neo4j":
        text = str(exc) or type(exc).__name__
        code = getattr(exc, "code", None)
        if type(exc).__module__.split(".")[0] == "neo4j" and code:
            text = f"Neo4j error {code}: {text}"
    else:
        text = f"internal error ({type(exc).__name__}); see the server's log"
    return " ".join(text.strip().splitlines()[:1]) or type(exc).__name__


def status_for(exc: BaseException) -> int:
    from graphrag_cypher.errors import GraphragError, Neo4jUnavailable
    from graphrag_cypher.llm import LLMError
    from graphrag_cypher.store.documents import DocumentNotFound

    if isinstance(exc, LLMError):  # the LLM behind us failed or refused
        return 502
    if isinstance(exc, DocumentNotFound):
        return 404
    if isinstance(exc, Neo4jUnavailable):
        return 503
    if isinstance(exc, GraphragError):
        return 400
    return 500
