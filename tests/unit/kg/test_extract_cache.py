"""The reply cache's key and the ordered concurrent map the LLM steps share."""

import threading
import time

from graphrag_cypher import llm
from graphrag_cypher.kg import llm_extract
from graphrag_cypher.schema import load_schema


def test_the_key_changes_with_prompt_schema_model_and_text():
    folktale, generic = load_schema("folktale"), load_schema("generic")
    story, document = llm_extract.STORY_PROMPT, llm_extract.DOCUMENT_PROMPT
    prefix = llm_extract.ReplyCache.prefix("m", folktale, story)
    assert prefix == llm_extract.ReplyCache.prefix("m", folktale, story)
    others = {
        llm_extract.ReplyCache.prefix("m", folktale, document),
        llm_extract.ReplyCache.prefix("m", generic, story),
        llm_extract.ReplyCache.prefix("other", folktale, story),
        llm_extract.ReplyCache.prefix("m", folktale, llm_extract.Prompt("story", "Tale", story.version)),
    }
    assert prefix not in others and len(others) == 4
    key = llm_extract.ReplyCache.key
    assert key(prefix, "a text") != key(prefix, "a text.")


def test_the_cache_keeps_replies_across_connections_and_threads(tmp_path):
    path = tmp_path / "c" / "extract.sqlite"
    cache = llm_extract.ReplyCache(path)
    threads = [threading.Thread(target=cache.put, args=(f"k{i}", {"entities": [i]})) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache.close()
    again = llm_extract.ReplyCache(path)
    assert again.get("k7") == {"entities": [7]} and again.get("missing") is None


def test_the_story_prompt_is_the_one_its_version_names():
    text = llm_extract.system_prompt(load_schema("folktale"))
    assert text.startswith("You extract a knowledge graph from a story. Return only a JSON object")
    assert llm_extract.PROMPT_VERSION == "kg-extract-1"


def test_map_ordered_keeps_the_order_and_runs_at_once():
    in_flight, most = [0], [0]
    lock = threading.Lock()

    def slow(n):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.02 * (n % 3))
        with lock:
            in_flight[0] -= 1
        return n * n

    assert list(llm.map_ordered(slow, range(40), 8)) == [n * n for n in range(40)]
    assert most[0] > 1
    most[0] = 0
    assert list(llm.map_ordered(slow, range(5), 1)) == [0, 1, 4, 9, 16] and most[0] == 1
