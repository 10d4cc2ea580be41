"""Every shipped query file is one parameterised statement with an honest header."""

import re
from importlib import resources

import pytest

from graphrag_cypher.admin.migrations import split_statements
from graphrag_cypher.db import params_of, query

ROOT = resources.files("graphrag_cypher.cypher").joinpath("queries")


def query_names():
    names = []
    for area in ROOT.iterdir():
        if area.is_dir() and not area.name.startswith("__"):
            names += [f"{area.name}/{f.name[:-7]}" for f in area.iterdir() if f.name.endswith(".cypher")]
    return sorted(names)


@pytest.mark.parametrize("name", query_names())
def test_query_file_header_and_params(name):
    text = query(name)
    assert re.search(r"^// params:", text, re.M), f"{name}: header must name its params"
    assert re.search(r"^// returns:", text, re.M), f"{name}: header must say what it returns"
    assert len(split_statements(text)) == 1, f"{name}: one statement per file"
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    used = set(re.findall(r"\$(\w+)", body))
    assert used == params_of(name), f"{name}: header params {params_of(name)} but uses {used}"


def test_unknown_query_is_a_clear_error():
    from graphrag_cypher.errors import GraphragError

    with pytest.raises(GraphragError, match="no Cypher query named"):
        query("admin/does_not_exist")
