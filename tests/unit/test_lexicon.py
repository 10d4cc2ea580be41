"""graphrag_cypher.lexicon is the one source of word lists and English inflection: its files are
read by the Python package and by the plugin's Java code (packed into its jar), and no module on
either side writes a word list of its own. English number, possessives and British/American
spellings follow one rule set, checked here on a table of words."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from graphrag_cypher import lexicon

ROOT = Path(__file__).resolve().parents[2]
LEXICON = ROOT / "core" / "lexicon"
JAVA = ROOT / "procedures" / "graphrag-procedures" / "src" / "main" / "java"


# --- the reader ------------------------------------------------------------------------------------


def test_every_file_reads_as_lower_case_words():
    files = sorted(LEXICON.glob("*.txt"))
    assert len(files) > 20
    for path in files:
        found = lexicon.words(path.stem)
        assert found, path.name
        assert all(w == w.lower() and "#" not in w for w in found), path.name


def test_words_leaves_comments_out_and_caches():
    assert "#" not in "".join(lexicon.words("stop_en"))
    assert "tell" in lexicon.words("stop_en") and "the" in lexicon.words("stop_en")
    assert lexicon.words("stop_en") is lexicon.words("stop_en")


@pytest.mark.parametrize("name", ["no_such_list", "../pyproject", "Stop_EN", ""])
def test_an_unknown_list_is_a_clear_error(name):
    with pytest.raises(ValueError, match="word list"):
        lexicon.words(name)


def test_stop_words_by_language():
    assert "the" in lexicon.stop_words("en") and "und" in lexicon.stop_words("de")
    assert "les" in lexicon.stop_words("fr") and "qué" in lexicon.stop_words("es")
    assert "什么" in lexicon.stop_words("zh")
    assert "war" not in lexicon.stop_words("de")  # an English word too
    assert lexicon.stop_words("it") == frozenset()


def test_function_words():
    assert {"who", "is", "the", "'s", "tell"} <= lexicon.function_words()
    assert "married" not in lexicon.function_words()


# --- English number ---------------------------------------------------------------------------------

# singular, plural: each way round
NUMBER = [
    ("giant", "giants"),
    ("witch", "witches"),
    ("box", "boxes"),
    ("bush", "bushes"),
    ("church", "churches"),
    ("glass", "glasses"),
    ("buzz", "buzzes"),
    ("quiz", "quizzes"),
    ("story", "stories"),
    ("entry", "entries"),
    ("day", "days"),
    ("key", "keys"),
    ("movie", "movies"),
    ("wolf", "wolves"),
    ("half", "halves"),
    ("leaf", "leaves"),
    ("thief", "thieves"),
    ("knife", "knives"),
    ("life", "lives"),
    ("roof", "roofs"),
    ("chief", "chiefs"),
    ("belief", "beliefs"),
    ("cliff", "cliffs"),
    ("safe", "safes"),
    ("glove", "gloves"),
    ("archive", "archives"),
    ("wave", "waves"),
    ("valve", "valves"),
    ("dwarf", "dwarfs"),
    ("hero", "heroes"),
    ("potato", "potatoes"),
    ("photo", "photos"),
    ("shoe", "shoes"),
    ("house", "houses"),
    ("cause", "causes"),
    ("base", "bases"),
    ("bus", "buses"),
    ("virus", "viruses"),
    ("crisis", "crises"),
    ("analysis", "analyses"),
    ("cache", "caches"),
    ("man", "men"),
    ("woman", "women"),
    ("fisherman", "fishermen"),
    ("human", "humans"),
    ("german", "germans"),
    ("specimen", "specimens"),
    ("child", "children"),
    ("mouse", "mice"),
    ("person", "people"),
    ("ox", "oxen"),
    ("cactus", "cacti"),
    ("criterion", "criteria"),
    ("doc", "docs"),
    ("colour", "colours"),
    ("harbor", "harbors"),
]


@pytest.mark.parametrize("one, many", NUMBER)
def test_singular_and_plural(one, many):
    assert lexicon.plural(one) == many
    assert lexicon.singular(many) == one
    assert lexicon.singular(one) == one, "a singular stays"
    assert lexicon.plural(many) == many, "a plural stays"


def test_a_second_plural_is_a_form_too():
    assert lexicon.singular("dwarves") == "dwarf" and lexicon.plural("dwarves") == "dwarves"
    assert lexicon.forms("dwarf") == {"dwarf", "dwarfs", "dwarves", "dwarf's", "dwarfs'", "dwarves'"}
    assert lexicon.singular("indices") == lexicon.singular("indexes") == "index"


@pytest.mark.parametrize("word", ["news", "sheep", "series", "species"])
def test_one_form_for_both(word):
    assert lexicon.singular(word) == lexicon.plural(word) == word


def test_case_possessives_and_words_that_are_not_english_letters():
    assert lexicon.plural("Witch") == "Witches"
    assert lexicon.singular("Stories") == "Story"
    assert lexicon.singular("giant's") == lexicon.singular("giants'") == lexicon.singular("giants’") == "giant"
    assert lexicon.plural("giant's") == "giants"
    assert lexicon.plural("東京") == "東京"
    assert lexicon.plural("x-ray") == "x-ray"
    # a name in mixed case keeps its capitals: the shared letters keep the word's own case
    assert lexicon.plural("CrossEncoder") == "CrossEncoders" and lexicon.plural("FastAPI") == "FastAPIs"
    assert lexicon.singular("Wolves") == "Wolf" and lexicon.plural("Child") == "Children"
    assert lexicon.plural("STORY") == "STORIES"


FORMS = [
    ("giant", {"giant", "giants", "giant's", "giants'"}),
    ("giants", {"giant", "giants", "giant's", "giants'"}),
    ("giant's", {"giant", "giants", "giant's", "giants'"}),
    ("man", {"man", "men", "man's", "men's"}),
    ("wolves", {"wolf", "wolves", "wolf's", "wolves'"}),
    (
        "colour",
        {"colour", "colours", "colour's", "colours'", "color", "colors", "color's", "colors'"},
    ),
    ("centres", {"centre", "centres", "centre's", "centres'", "center", "centers", "center's", "centers'"}),
    ("news", {"news", "news's"}),
    ("Giant", {"Giant", "Giants", "Giant's", "Giants'"}),
    ("golden mountain", {"golden mountain", "golden mountains", "golden mountain's", "golden mountains'"}),
    ("東京", {"東京"}),
    ("of", {"of"}),
    (
        "civilisation",
        {"civilisation", "civilisations", "civilisation's", "civilisations'"}
        | {"civilization", "civilizations", "civilization's", "civilizations'"},
    ),
    ("analyse", {"analyse", "analyses", "analyse's", "analyses'", "analyze", "analyzes", "analyze's", "analyzes'"}),
    ("praise", {"praise", "praises", "praise's", "praises'"}),
    # a possessive before the last word takes its two numbers
    ("kings' sons", {f"{k} {s}" for k in ("king's", "kings'") for s in ("son", "sons", "son's", "sons'")}),
]


@pytest.mark.parametrize("word, expected", FORMS)
def test_forms(word, expected):
    assert lexicon.forms(word) == expected


def test_a_singular_and_its_plural_have_the_same_forms():
    """The disagreement this module ended: one spelling of a term found more than another."""
    for one, many in NUMBER:
        assert lexicon.forms(one) == lexicon.forms(many), one


def test_number_forms_put_the_word_first_and_its_other_number_second():
    assert lexicon.number_forms("witch") == ["witch", "witches"]
    assert lexicon.number_forms("wolves") == ["wolves", "wolf"]
    assert lexicon.number_forms("harbours") == ["harbours", "harbour", "harbors", "harbor"]
    assert lexicon.number_forms("news") == ["news"]
    assert lexicon.number_forms("ox") == ["ox", "oxen"]
    assert lexicon.number_forms("of") == ["of"]
    assert lexicon.number_forms("") == [] and lexicon.forms(" ") == set()


def test_possessives():
    assert lexicon.possessives("kings'") == lexicon.possessives("king's") == ["king's", "kings'"]
    assert lexicon.possessives("man's") == ["man's", "men's"]
    assert lexicon.possessives("king") == ["king"] and lexicon.possessives("it's") == ["it's"]


def test_spellings():
    assert lexicon.spellings("Harbour") == ["Harbor"]
    assert lexicon.spellings("theaters") == ["theatres"]
    assert lexicon.spellings("hour") == [] and lexicon.spellings("door") == []
    assert lexicon.spellings("Organised") == ["Organized"] and lexicon.spellings("realization") == ["realisation"]
    assert lexicon.spellings("noise") == [] and lexicon.spellings("cruise") == []


def test_stem():
    assert lexicon.stem("stories") == "stori"
    assert lexicon.stem("married") == lexicon.stem("marry")
    assert lexicon.stem("東京") == "東京"


# --- one source: no word list outside the lexicon -------------------------------------------------

_WORD = re.compile(r"[^\W\d_][\w'’.\-]*")
MIN_PYTHON_WORDS = 8  # a module-level set of this many lower-case words is a word list
MIN_JAVA_WORDS = 4
# sets of names the code and its data formats define, not words of a language
NOT_WORDS = {
    ("core/model.py", "DOCUMENT_KINDS"),  # the values of a document's `kind`
    ("kg/documents.py", "HIDDEN"),  # property names
    ("store/ingest.py", "RESERVED"),  # property names
    ("loaders/html_content.py", "BLOCKS"),  # HTML element names
    ("loaders/mediawiki.py", "DROP_TAGS"),  # wikitext tag names
}


def _lower_word(value: object) -> bool:
    return isinstance(value, str) and bool(_WORD.fullmatch(value)) and value == value.lower()


def _literal_words(node: ast.expr) -> list[str] | None:
    """The words a set expression spells out: `{...}`, `set(...)`/`frozenset(...)` of a literal or of
    `"...".split()`, and unions of them; None for any other expression."""
    if isinstance(node, ast.Set):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.BinOp):
        left, right = _literal_words(node.left), _literal_words(node.right)
        return None if left is None and right is None else (left or []) + (right or [])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset"):
        if len(node.args) != 1:
            return None
        arg = node.args[0]
        if isinstance(arg, (ast.List, ast.Tuple, ast.Set)):
            return [e.value for e in arg.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return _split_words(arg)
    return _split_words(node)


def _split_words(node: ast.expr) -> list[str] | None:
    """The words of `"...".split()` (or of sorted/list/tuple of it)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sorted", "list", "tuple"):
        return _split_words(node.args[0]) if node.args else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and not node.args
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value.split()
    return None


def _package_folders(root: Path) -> list[Path]:
    dirs = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"]
    return sorted({root / folder for folder in dirs.values()})


def word_lists_outside_lexicon(root: Path) -> list[str]:
    """Module-level word lists written in the package's Python outside core/lexicon — a set or
    frozenset (literal, or of a split string) of at least 8 lower-case words, but the sets of names
    in NOT_WORDS — as "path:line NAME (n words)"."""
    found = []
    lexicon_dir = root / "core" / "lexicon"
    for folder in _package_folders(root):
        for path in sorted(folder.rglob("*.py")):
            if lexicon_dir in path.parents:
                continue
            tree = ast.parse(path.read_text("utf-8"), filename=str(path))
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign):
                    targets, value = stmt.targets, stmt.value
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    targets, value = [stmt.target], stmt.value
                else:
                    continue
                words = {w for w in (_literal_words(value) or []) if _lower_word(w)}
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                module = path.relative_to(root).as_posix()
                if len(words) >= MIN_PYTHON_WORDS and not all((module, name) in NOT_WORDS for name in names):
                    found.append(f"{module}:{stmt.lineno} {', '.join(names)} ({len(words)} words)")
    return found


_JAVA_STRING = re.compile(r'"""(.*?)"""|"((?:[^"\\\n]|\\.)*)"', re.S)


def _java_set_of_bodies(source: str) -> list[tuple[int, str]]:
    """(line, argument text) of every `Set.of(...)` call, the parentheses matched outside strings."""
    out = []
    for call in re.finditer(r"\bSet\.of\(", source):
        depth, i = 1, call.end()
        while depth and i < len(source):
            string = _JAVA_STRING.match(source, i)
            if string:
                i = string.end()
                continue
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        out.append((source.count("\n", 0, call.start()) + 1, source[call.end() : i - 1]))
    return out


def java_word_lists(root: Path) -> list[str]:
    """`Set.of(...)` word sets in the plugin's main Java sources — only lower-case words in string
    literals or text blocks, at least 4 of them — as "file:line (n words)"."""
    found = []
    for path in sorted((root / JAVA.relative_to(ROOT)).rglob("*.java")):
        for line, body in _java_set_of_bodies(path.read_text("utf-8")):
            literals = [m.group(1) if m.group(1) is not None else m.group(2) for m in _JAVA_STRING.finditer(body)]
            words = [w for lit in literals for w in lit.split()]
            if len(words) >= MIN_JAVA_WORDS and all(_lower_word(w) for w in words):
                found.append(f"{path.name}:{line} ({len(words)} words)")
    return found


def test_the_plugin_writes_no_word_list_of_its_own():
    assert java_word_lists(ROOT) == []


def test_the_scanners_see_a_word_list(tmp_path):
    """The two checks above and in test_architecture would pass on nothing: they find one written."""
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools]\npackage-dir = { "graphrag_cypher" = "core" }\n')
    (tmp_path / "core" / "lexicon").mkdir(parents=True)
    (tmp_path / "core" / "lexicon" / "__init__.py").write_text('A = {"a", "b", "c", "d", "e", "f", "g", "h"}\n')
    (tmp_path / "core" / "m.py").write_text(
        'STOP = frozenset("a an the of in on at by".split())\nNAMES = {"A", "B", "C", "D", "E", "F", "G", "H"}\n'
        'SMALL = {"a", "b"}\nU = X | {"one", "two", "three", "four", "five", "six", "seven", "eight"}\n'
    )
    assert word_lists_outside_lexicon(tmp_path) == ["core/m.py:1 STOP (8 words)", "core/m.py:4 U (8 words)"]
    java = tmp_path / JAVA.relative_to(ROOT)
    java.mkdir(parents=True)
    (java / "A.java").write_text(
        'class A {\n  static final Set<String> W = Set.of("at", "of", "in", "zu");\n'
        '  static final Set<String> T = Set.of(("""\n    gulf bay\n    isle sea\n    """).split(" "));\n'
        '  Set<String> k = Set.of("corpus", "minLength", "keys", "dryRun");\n  Set<String> e = Set.of();\n}\n'
    )
    assert java_word_lists(tmp_path) == ["A.java:2 (4 words)", "A.java:3 (4 words)"]


def test_the_plugin_reads_the_lexicon_files_it_names():
    pom = (ROOT / "procedures" / "graphrag-procedures" / "pom.xml").read_text("utf-8")
    assert "../../core/lexicon</directory>" in pom
    names = set()
    for path in JAVA.rglob("*.java"):
        names |= set(re.findall(r'Lexicon\.words\("(\w+)"\)', path.read_text("utf-8")))
    assert {"lucene_stop_words", "place_of_words", "place_generic", "place_link_words", "place_area_kinds"} <= names
    assert all((LEXICON / f"{name}.txt").is_file() for name in names)
    assert "stop_zh" in names
    # graphrag.search's keywords drop the stop words of every language the Python keywords drop
    question_words = (JAVA / "org" / "graphrag" / "procedures" / "QuestionWords.java").read_text("utf-8")
    languages = re.search(
        r'for \(String language : List\.of\(([^)]*)\)\) \{\s*STOP\.addAll\(Lexicon\.words\("stop_"', question_words
    )
    assert set(re.findall(r'"(\w+)"', languages[1])) == set(lexicon.STOP_LANGUAGES) - {"zh"}


def test_no_python_word_list_outside_the_lexicon():
    assert word_lists_outside_lexicon(ROOT) == []
