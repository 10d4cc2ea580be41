"""An abstention as text, the same on every face (terminal, `/v1`, MCP; the page draws the same
parts): the answer's sentence, then, apart, the passages nearest the question under
:data:`~.abstain.CLOSEST_HEADING`, each as its title and a short snippet.

Titles and snippets come from documents: each is one line of data (:func:`~.answer.neutral`: no
control characters, line breaks or square brackets); a face escapes the lines further for its
medium (a terminal's escape sequences, Markdown's HTML).
"""

from __future__ import annotations

from .abstain import CLOSEST_CHARS, CLOSEST_HEADING
from .answer import neutral


def snippet(text: str | None) -> str:
    """A closest passage's text as one line, as `closest_of` cut it (a longer one is cut the same way)."""
    line = neutral(text)
    return line if len(line) <= CLOSEST_CHARS + 1 else line[:CLOSEST_CHARS] + "…"


def closest_lines(abstained: dict | None) -> list[str]:
    """The heading and one "- Title: snippet" line per closest passage of an answer's
    ``abstained`` (its ``--json`` dict); no lines when it has none or the question was answered."""
    if not abstained or not abstained.get("closest"):
        return []
    lines = [abstained.get("heading") or CLOSEST_HEADING]
    for passage in abstained["closest"]:
        title = neutral(passage.get("title") or passage.get("document_id")) or "untitled"
        text = snippet(passage.get("text"))
        lines.append(f"- {title}: {text}" if text else f"- {title}")
    return lines


def abstained_text(answer: dict) -> str:
    """The answer's sentence and, apart, its closest passages, as plain text (what `/v1` and MCP
    give as an abstaining answer's text)."""
    sentence = answer.get("answer_with_titles") or answer.get("answer") or ""
    lines = closest_lines(answer.get("abstained"))
    return sentence + ("\n\n" + "\n".join(lines) if lines else "")


def explain_line(abstained: dict | None) -> str | None:
    """The ``--explain`` line of an abstention: who abstained and why (None: answered)."""
    if not abstained:
        return None
    return f"abstained: by {abstained.get('by')}, reason: {neutral(abstained.get('reason'))}"
