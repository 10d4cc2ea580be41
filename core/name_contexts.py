"""What the words around a name say it names: the contexts the place linker and NER share.

`linkers/contexts.py` (both link engines' Python side; the plugin's `PlaceContexts.java` is its
port) and `kg/ner_gazetteer.py` read these same patterns, so a rule changed here changes both.
Each pattern reads the text just before (``…$``) or just after (``^…``) a name.
"""

from __future__ import annotations

import re
import unicodedata

# "Heron of Alexandria": a capitalised word and "of" just before (a person's epithet, unless the
# word is a place word: "the Gulf of Corinth").
PERSON_OF = re.compile(r"(?:^|[^\w'’])([A-Z][\w'’-]*) of\s+$")
# "P. Cairo 30758", "P.Köln", "O. Claud.", "SB", "BGU", "I. Ephesos", "T. Vindol.": a siglum's letters just before.
SIGLUM = re.compile(
    r"(?:^|[\s(\[;,/])(?:P|O|T|I|SB|BGU|PSI|CPR|SPP|Pap|Chr|Stud|Ch\.L\.A|C|Inscr|Tab)\.\s*"
    r"(?:[A-Z][\w]*\.\s*)*$"
)
# "the American School at Athens", "Institut für … in Berlin": an institution's name before.
INSTITUTION_BEFORE = re.compile(
    r"\b(?:School|Institute|Institut|Istituto|Academy|Akademie|University|Université|Università|Universität"
    r"|Universidad|Museum|Musée|Museo|Library|Bibliothèque|Society|College|Press|Foundation|Department|Center"
    r"|Centre|Seminar|Archive|Archives)s?\b(?: (?:of|for) [A-Z][\w]*(?: (?:and )?[A-Z][\w]*)*)?\s*(?:at|of|in|zu|de|di)\s+$"
)
# "Chicago University", "Oxford's Press", "the Claros project": an institution's or a project's word after.
INSTITUTION_AFTER = re.compile(
    r"^(?:['’]s)?\s+(?:University|Museum|Press|Institute|Academy|Library|Society|College|[Pp]rojects?)\b"
)
# Before a name that is usually a person's, a word that makes it a place.
PLACE_CUE = re.compile(
    r"(?:\b(?:at|in|from|to|near|towards|toward|via|city of|port of|town of|harbou?r of|site of|island of"
    r"|called|named)|\b(?:City|Port|Town|Harbou?r) of)\s+$",
    re.I,
)
# Before a name that is usually a person's, a title that makes it one ("Queen Berenice").
ROYAL_TITLE = re.compile(r"\b(?:[Qq]ueen|[Kk]ing|[Pp]rincess|[Pp]rince|[Ee]mperor|[Ee]mpress|[Ss]aint|St\.|[Ss]t)\s+$")


def capitalised(surface: str) -> bool:
    """Has an upper-case letter and is not a short acronym ("URI", "LOD")."""
    categories = [unicodedata.category(c) for c in unicodedata.normalize("NFC", surface)]
    return "Lu" in categories and ("Ll" in categories or len(categories) > 4)
