"""The language a question is written in (``detect_language``), and the languages an answer can be asked for.

The language is told by lingua-language-detector where it is installed, else by the script and a
vote of function words."""

from __future__ import annotations

import re
import threading

from ...lexicon import words

__all__ = ["LANGUAGE_NAMES", "detect_language", "language_detector", "warm_language_detectors"]

# the CJK unified ideographs (with extension A and the compatibility block): Chinese characters
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

# The languages an answer can be asked for: code -> the name the answer instruction uses.
LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "hu": "Hungarian",
    "pl": "Polish",
    "cs": "Czech",
    "sk": "Slovak",
    "ro": "Romanian",
    "sv": "Swedish",
    "tr": "Turkish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "bg": "Bulgarian",
    "ar": "Arabic",
    "fa": "Persian",
    "hi": "Hindi",
    "el": "Greek",
    "he": "Hebrew",
    "th": "Thai",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
}
# The ones lingua-language-detector tells apart (its models ship in the wheel), by script: one
# detector per script, built with its models on the first question in that script. The others,
# and every language when lingua is absent or unsure, are told by their script.
_LINGUA_SCRIPTS = {
    "latin": ("en", "de", "fr", "es", "pt", "it", "nl", "hu", "pl", "cs", "sk", "ro", "sv", "tr"),
    "cyrillic": ("ru", "uk", "bg"),
    "arabic": ("ar", "fa"),
}
# A script's language when lingua cannot tell (Latin: the word votes below decide).
_SCRIPT_LANGUAGE = {
    "cyrillic": "ru",
    "greek": "el",
    "arabic": "ar",
    "hebrew": "he",
    "devanagari": "hi",
    "thai": "th",
    "hangul": "ko",
}
# lingua's confidence values are relative (they sum to 1 over the candidates); below this the top one
# is a guess (one name alone, "Paris", splits its mass over many languages)
MIN_CONFIDENCE = 0.12

# a question's words vote for the languages whose common words they are (where lingua cannot tell)
_VOTES = {lang: words(f"question_votes_{lang}") for lang in ("en", "de", "fr", "es")}
_HAN = re.compile(rf"[{_CJK}]")
_KANA = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_SCRIPT_NAMES = ("LATIN", "CYRILLIC", "GREEK", "ARABIC", "HEBREW", "DEVANAGARI", "THAI", "HANGUL")


def detect_language(question: str) -> str:
    """The question's language as an ISO 639-1 code (a key of LANGUAGE_NAMES; "en" when nothing tells).

    Chinese, Japanese and Korean by their script (kana: Japanese; Han alone: Chinese; Hangul:
    Korean). Words in the Latin, Cyrillic or Arabic script go to lingua-language-detector,
    restricted to that script's languages and built once, on the first such question. When lingua
    is absent or unsure (one word, a low confidence) the script decides: its language (Cyrillic:
    Russian, …), and for Latin the word votes (German, French, Spanish, else English). A question in
    plain English (ASCII, two English function words, none of another language's) is English
    without lingua: loading the Latin-script models takes seconds (README "Answer language")."""
    if not question or not question.strip():
        return "en"
    han = len(_HAN.findall(question))
    kana = len(_KANA.findall(question))
    words = _LATIN_WORD.findall(_KANA.sub(" ", _HAN.sub(" ", question)))
    if kana and han + kana >= len(words):
        return "ja"
    if han and han >= len(words) + kana:
        return "zh"
    script = _main_script(words)
    if script == "latin" and _plain_english(question, words):
        return "en"
    if len(words) >= 2 and script in _LINGUA_SCRIPTS:
        found = _lingua(_KANA.sub(" ", _HAN.sub(" ", question)), script)
        if found is not None:
            return found
    if script == "latin" or script is None:
        return _voted(question, words)
    return _SCRIPT_LANGUAGE[script]


def _main_script(words: list[str]) -> str | None:
    """The script most of the words are written in (lower case: "latin", "cyrillic", …)."""
    import unicodedata

    counts: dict[str, int] = {}
    for word in words:
        name = unicodedata.name(word[0], "")
        script = next((s for s in _SCRIPT_NAMES if name.startswith(s)), None)
        if script is not None:
            counts[script.lower()] = counts.get(script.lower(), 0) + 1
    return max(counts, key=lambda s: counts[s]) if counts else None


def _votes(question: str, words: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(_VOTES, 0)
    for word in (w.lower().replace("’", "'") for w in words):
        for lang, vocab in _VOTES.items():
            if word in vocab:
                counts[lang] += 1
        if re.match(r"^(?:l|d|qu|c|j|n|s)'", word):
            counts["fr"] += 1
    if "¿" in question or "¡" in question:
        counts["es"] += 2
    return counts


def _plain_english(question: str, words: list[str]) -> bool:
    counts = _votes(question, words)
    return question.isascii() and counts["en"] >= 2 and not any(counts[lang] for lang in ("de", "fr", "es"))


def _voted(question: str, words: list[str]) -> str:
    """German, French or Spanish when their function words outvote English's, else English."""
    counts = _votes(question, words)
    best = max(("de", "fr", "es"), key=lambda lang: counts[lang])
    if counts[best] > counts["en"] and list(counts.values()).count(counts[best]) == 1:
        return best
    return "en"


_detectors: dict[str, object] = {}  # script -> its detector, or None when lingua is not installed
_detectors_lock = threading.Lock()


def _lingua(question: str, script: str) -> str | None:
    """lingua's language for the question among its script's LANGUAGE_NAMES, when lingua is sure enough."""
    detector = language_detector(script)
    if detector is None:
        return None
    values = detector.compute_language_confidence_values(question)
    if not values or values[0].value < MIN_CONFIDENCE:
        return None
    code = values[0].language.iso_code_639_1.name.lower()
    return code if code in LANGUAGE_NAMES else None


def warm_language_detectors() -> None:
    """Build every script's detector now. Building one holds the GIL (lingua's models load in
    native code: about 1 s for the Latin languages), so a server does it before it answers,
    not on the first question, when every request and `/health/live` would wait for it."""
    for script in _LINGUA_SCRIPTS:
        language_detector(script)


def language_detector(script: str = "latin"):
    """lingua's detector for the languages of `script` in _LINGUA_SCRIPTS (None without lingua),
    built once, on first use, with its models loaded (in parallel: faster than lingua's lazy loading;
    measured in README "Answer language")."""
    with _detectors_lock:
        if script not in _detectors:
            try:
                from lingua import IsoCode639_1, LanguageDetectorBuilder
            except ImportError:
                _detectors[script] = None
            else:
                codes = [getattr(IsoCode639_1, code.upper()) for code in _LINGUA_SCRIPTS[script]]
                builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).with_preloaded_language_models()
                _detectors[script] = builder.build()
        return _detectors[script]
