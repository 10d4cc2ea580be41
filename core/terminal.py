"""Text from documents, made safe to print in a terminal.

Stored text is data: it must not move the cursor, set a window title, open a hidden
hyperlink (ANSI CSI/OSC sequences) or be read as Rich markup or emoji codes.
"""

from __future__ import annotations

import re

# ESC-introduced sequences (CSI, OSC terminated by BEL or ST, and two-byte escapes),
# then any other C0/C1 control character except newline and tab.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC ... ST
    r"|\x1b[@-_]?"  # other two-byte escapes, a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # remaining control characters
)


def safe_text(text: str, keep_newlines: bool = True) -> str:
    """`text` without terminal control sequences; newlines (and tabs) kept unless told not to."""
    cleaned = _ESCAPES.sub("", text)
    if not keep_newlines:
        cleaned = re.sub(r"[\r\n\t]+", " ", cleaned)
    return cleaned


def rich_text(text: str, keep_newlines: bool = True):
    """A Rich `Text` holding `text` literally: no markup, no emoji codes, no control sequences."""
    from rich.text import Text

    return Text(safe_text(text, keep_newlines))
