"""Name normalisation shared by extraction and resolution (the one rule lives in `graphrag_cypher.text`)."""

from __future__ import annotations

from graphrag_cypher.text import norm_name

__all__ = ["norm_name"]
