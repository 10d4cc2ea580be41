"""Errors a user can act on.

Every exception raised for a user's mistake or an unavailable service derives from
``GraphragError``; the CLI turns it into one line on stderr and exit code 1.
"""


class GraphragError(Exception):
    """A problem the user can fix; its message is one actionable line."""


class Neo4jUnavailable(GraphragError):
    """Neo4j could not be reached or refused our credentials."""


class MigrationError(GraphragError):
    """A migration file is invalid, changed after being applied, or failed."""


class LLMError(GraphragError):
    """The LLM could not answer (one line, naming the endpoint)."""


class LLMRequestRefused(LLMError):
    """The endpoint refused this request (HTTP 400): for example a response format it lacks."""
