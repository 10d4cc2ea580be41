"""graphrag's own procedures against the Cypher files and the Python they stand in for, on a
generated graph: weighted PPR (plugin vs the Python walk), graph neighbours (plugin vs
retrieval/seed_neighbours.cypher), the whole graph mode (graphrag.retrieve.graph vs the Cypher
files and Python's placing), what `doctor` says about the paths in use."""

from __future__ import annotations

import json
import random

import pytest

pytestmark = pytest.mark.e2e

# The words of the generated texts (accented ones too: coverage folds them as the full-text index does not).
VOCABULARY = "silver lantern thief harbour river Ephesus Babylon Alexandría troll giant bridge tower king".split()
VOCABULARY += "queen mountain forest Nikopolis Thebes temple gold stolen made sea ship".split()


def build_graph(driver, seed: int = 7) -> dict:
    """Documents, chunks with small vectors, shared phrases (one a hub), place mentions and
    title topics with their own chunks; random but fixed by `seed`."""
    rng = random.Random(seed)
    words = random.Random(seed + 1)  # the texts' own draws, so the rest of the graph stays as it was
    docs = [
        {"id": f"d{i}", "title": f"Doc {i}", "corpus": "a" if i % 3 else "b", "date": f"2020-0{1 + i % 9}-01"}
        for i in range(8)
    ]
    chunks = [
        {
            "id": f"c{i:02d}",
            "doc": f"d{i % 8}",
            "text": f"chunk {i} " + " ".join(words.sample(VOCABULARY, 5)),
            "embedding": [rng.random() for _ in range(4)],
        }
        for i in range(40)
    ]
    phrases = []
    for i in range(18):
        members = rng.sample(range(40), 12 if i == 0 else rng.randint(2, 5))  # phrase 0: a hub
        phrases.append({"id": f"p{i}", "name": f"phrase {i}", "chunks": [f"c{m:02d}" for m in members]})
    mentions = []
    for i in range(8):
        about = f"c{rng.randrange(40):02d}"
        mentions.append({"chunk": about, "entity": f"t{i}", "rule": "own-title"})
        for m in rng.sample(range(40), 3):
            mentions.append({"chunk": f"c{m:02d}", "entity": f"t{i}", "rule": rng.choice(["unique", "kind-cue"])})
    with driver.session() as session:
        session.run(
            "UNWIND $docs AS d CREATE (:Document {id: d.id, title: d.title, corpus: d.corpus, date: d.date})", docs=docs
        ).consume()
        session.run(
            "UNWIND $chunks AS c MATCH (d:Document {id: c.doc}) "
            "CREATE (:Chunk {id: c.id, text: c.text, embedding: c.embedding})-[:FROM_DOCUMENT]->(d)",
            chunks=chunks,
        ).consume()
        session.run(
            "UNWIND $phrases AS p CREATE (ph:Phrase {id: p.id, name: p.name, chunks: size(p.chunks)}) "
            "WITH ph, p UNWIND p.chunks AS cid MATCH (c:Chunk {id: cid}) CREATE (c)-[:HAS_PHRASE]->(ph)",
            phrases=phrases,
        ).consume()
        session.run(
            "UNWIND $mentions AS m MATCH (c:Chunk {id: m.chunk}) "
            "MERGE (t:__Entity__:Topic {id: m.entity}) ON CREATE SET t.name = 'Topic ' + m.entity "
            "MERGE (c)-[:MENTIONS {rule: m.rule}]->(t)",
            mentions=mentions,
        ).consume()
    return {"chunks": [c["id"] for c in chunks], "rng": rng}


@pytest.fixture
def generated(neo4j):
    with neo4j.driver() as driver:
        made = build_graph(driver)
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    with connect(load_settings()) as graph:
        yield graph, made


def test_the_test_server_has_the_plugin(generated):
    from graphrag_cypher.admin import plugin

    graph, _ = generated
    assert {
        "graphrag.ppr",
        "graphrag.link.places",
        "graphrag.link.places.match",
        "graphrag.retrieve.neighbours",
        "graphrag.retrieve.graph",
        "graphrag.normName",
    } <= set(plugin.installed(graph)["names"])


def test_a_plugin_built_before_scopes_sends_a_scoped_keys_graph_questions_down_the_cypher_path(generated):
    """The plugin says which config keys it takes (graphrag.configKeys); one that cannot say so
    (built before it, so before `corpora`) is not sent a scoped key's question, which it would
    refuse, and doctor names what it lacks. The older plugin is this one seen without the function."""
    from graphrag_cypher.admin import plugin
    from graphrag_cypher.principal import Principal, acting_as
    from graphrag_cypher.retrieval.procedures import GRAPH, has_graph_procedure

    graph, _ = generated
    scoped = Principal("team", ("a",))
    assert plugin.accepts(graph, GRAPH, "corpora") and not plugin.accepts(graph, GRAPH, "no-such-key")
    assert plugin.stale(graph) == []
    with acting_as(scoped):
        assert has_graph_procedure(graph)
    current = plugin.installed(graph)
    graph._graphrag_plugin = {**current, "names": [n for n in current["names"] if n != "graphrag.configKeys"]}
    try:
        assert plugin.stale(graph) == ["graphrag.retrieve.graph: corpora", "graphrag.retrieve.neighbours: corpora"]
        assert has_graph_procedure(graph), "an unscoped question still runs in Neo4j"
        with acting_as(scoped):
            assert not has_graph_procedure(graph)
    finally:
        graph._graphrag_plugin = current


def test_weighted_ppr_in_python_ranks_as_the_procedure(generated):
    from graphrag_cypher.retrieval.ppr import python_ppr

    graph, made = generated
    rng = made["rng"]
    reached = 0
    for trial in range(8):
        seeds = {c: round(rng.random() + 0.05, 3) for c in rng.sample(made["chunks"], 1 + trial % 4)}
        if trial == 5:
            seeds["t0"] = 0.7  # an entity seed
        config = {
            "relationshipTypes": {"HAS_PHRASE": 1.0, "MENTIONS": [1.0, 0.5, 2.0][trial % 3]},
            "damping": [0.5, 0.85][trial % 2],
            "iterations": 40,
            "tolerance": 1e-12,
            "maxDegree": 8,
            "labels": ["Chunk"],
            "k": 40,
        }
        procedure = graph.read_text(
            "CALL graphrag.ppr($seeds, $config) YIELD id, score RETURN id, score", seeds=seeds, config=config
        )
        python = python_ppr(graph, seeds, config, with_scores=True)
        assert [r["id"] for r in procedure] == [c for c, _ in python], (trial, seeds, procedure, python)
        assert [r["score"] for r in procedure] == pytest.approx([s for _, s in python], rel=1e-9, abs=1e-12)
        reached += len(procedure) > len(seeds)
    assert reached >= 5, "the walks reach beyond their seeds"
    weighted = graph.read_text("CALL graphrag.ppr({c00: 1.0, c01: 0.01}, {}) YIELD id RETURN collect(id) AS ids")
    flipped = graph.read_text("CALL graphrag.ppr({c00: 0.01, c01: 1.0}, {}) YIELD id RETURN collect(id) AS ids")
    assert weighted[0]["ids"][0] == "c00" and flipped[0]["ids"][0] == "c01", "seed weights steer the walk"


def test_ppr_mode_walks_alike_with_and_without_the_plugin(generated):
    from graphrag_cypher.retrieval.ppr import PPR_WEIGHTS, PPRRetriever

    graph, _ = generated
    retriever = PPRRetriever(graph)
    seeds = {"c03": 0.03, "c11": 0.02, "t2": 0.03}
    for filters in ({"corpus": None, "from": None, "to": None}, {"corpus": "a", "from": "2020-02-01", "to": None}):
        with_plugin = retriever.walk(seeds, PPR_WEIGHTS, 15, filters)
        graph._graphrag_plugin = {"version": None, "names": []}  # as on a server without the jar
        without = retriever.walk(seeds, PPR_WEIGHTS, 15, filters)
        del graph._graphrag_plugin
        assert [e.chunk_id for e in with_plugin] == [e.chunk_id for e in without] and with_plugin, filters
        assert [e.title for e in with_plugin] == [e.title for e in without]


def test_the_phrase_cut_off_grows_with_the_number_of_chunks(indexed):
    """A phrase more chunks share than max(maxPhraseChunks, phraseChunksShare x all chunks) links
    nothing: the hub phrase (12 of the 40 chunks) links under a share of 0.3 (a cut-off of 12), not
    under 0.2 (8), on both paths."""
    from graphrag_cypher.retrieval.procedures import neighbour_config, neighbours_via_procedure

    graph, made = indexed
    embedding = [0.3, 0.1, 0.9, 0.4]
    filters = {"corpus": None, "from": None, "to": None, "about": None}
    for share, hub_links in ((0.2, False), (0.3, True)):
        weights = {"maxPhraseChunks": 4, "phraseChunksShare": share, "leadsPerSeed": 1000}
        config = {k: v for k, v in neighbour_config(weights).items() if k not in filters}
        cypher = graph.read(
            "retrieval/seed_neighbours", seedIds=made["chunks"], embedding=embedding, **config, **filters
        )
        proc = neighbours_via_procedure(graph, made["chunks"], embedding, weights=weights)
        for rows in (cypher, proc):
            assert rows
            assert any("phrase 0" in r["via"] for r in rows) is hub_links, (share, len(rows))


def test_neighbours_procedure_gives_the_rows_of_the_cypher_file(indexed):
    from graphrag_cypher.retrieval.base import WEIGHTS
    from graphrag_cypher.retrieval.procedures import neighbour_config, neighbours_via_procedure

    graph, made = indexed
    embedding = [0.3, 0.1, 0.9, 0.4]
    for filters in ({"corpus": None, "from": None, "to": None}, {"corpus": "a", "from": None, "to": "2020-06-01"}):
        for weights in (
            {},
            {"maxPhraseChunks": 4, "phraseChunksShare": 0.0, "leadsPerSeed": 3},
            {"maxPhraseChunks": 4, "phraseChunksShare": 0.3, "leadsPerSeed": 3},
            {"phraseCap": 0.3, "linkWeight": 2.0, "aboutWeight": 0.5, "leadsPerSeed": 1},
            {"leadPool": 2, "leadHits": 6, "leadsPerSeed": 5},  # few scored: the cut is the same on both paths
        ):
            config = neighbour_config(weights)
            cypher = graph.read(
                "retrieval/seed_neighbours",
                seedIds=made["chunks"],
                embedding=embedding,
                **{k: v for k, v in config.items() if k not in filters},
                **filters,
            )
            proc = neighbours_via_procedure(
                graph,
                made["chunks"],
                embedding,
                weights=weights,
                corpus=filters["corpus"],
                date_from=filters["from"],
                date_to=filters["to"],
            )
            assert len(cypher) > 20 if config["perSeed"] > 1 else len(cypher) > 10
            # the same rows, each seed's in the same order (the strongest `perSeed`)
            want, got = {}, {}
            for rows, into in ((cypher, want), (proc, got)):
                for r in rows:
                    into.setdefault(r["seedId"], []).append(r)
            assert set(got) == set(want)
            for seed, rows in want.items():
                assert [r["chunkId"] for r in got[seed]] == [r["chunkId"] for r in rows], (seed, weights)
                for mine, row in zip(got[seed], rows, strict=True):
                    for field in ("documentId", "title", "uri", "text", "similarity", "seedSimilarity", "weight"):
                        assert mine[field] == row[field], (seed, row["chunkId"], field)
                    assert mine["strength"] == row["strength"], (seed, row["chunkId"])
                    assert mine["via"] == row["via"], (seed, row["chunkId"])
    assert config["perSeed"] == 5 and WEIGHTS["leadsPerSeed"] > 1
    pairs = graph.read_text(
        "MATCH (s:Chunk {id: $s}), (n:Chunk {id: $n}) "
        "RETURN 2 * vector.similarity.cosine(s.embedding, n.embedding) - 1 AS v",
        s=proc[0]["seedId"],
        n=proc[0]["chunkId"],
    )
    assert proc[0]["seedSimilarity"] == pairs[0]["v"]


def test_only_the_strongest_links_and_the_questions_nearest_are_scored(indexed):
    """A seed's neighbours scored are its leadPool most strongly linked (weight, then id) and those among
    the question's leadHits nearest chunks: the same rows, with the same strength, as when every
    neighbour is scored, on both paths; the others are left out."""
    from graphrag_cypher.retrieval.procedures import neighbour_config, neighbours_via_procedure

    graph, made = indexed
    embedding = [0.3, 0.1, 0.9, 0.4]
    filters = {"corpus": None, "from": None, "to": None, "about": None}
    near = {
        r["id"]
        for r in graph.read_text(
            "CALL db.index.vector.queryNodes('chunk_embedding', 6, $e) YIELD node RETURN node.id AS id", e=embedding
        )
    }
    every = {"leadPool": 1000, "leadHits": 0, "leadsPerSeed": 1000}
    few = {"leadPool": 2, "leadHits": 6, "leadsPerSeed": 1000}

    def rows(weights: dict) -> dict:
        config = {k: v for k, v in neighbour_config(weights).items() if k not in filters}
        cypher = graph.read(
            "retrieval/seed_neighbours", seedIds=made["chunks"], embedding=embedding, **config, **filters
        )
        proc = neighbours_via_procedure(graph, made["chunks"], embedding, weights=weights)
        by_path: list[dict] = [{}, {}]
        for found, into in zip((cypher, proc), by_path, strict=True):
            for r in found:
                into.setdefault(r["seedId"], {})[r["chunkId"]] = r
        assert {s: [(c, r["strength"]) for c, r in rs.items()] for s, rs in by_path[0].items()} == {
            s: [(c, r["strength"]) for c, r in rs.items()] for s, rs in by_path[1].items()
        }
        return by_path[1]

    full, cut = rows(every), rows(few)
    left_out = 0
    for seed, leads in full.items():
        linked = sorted(leads.values(), key=lambda r: (-r["weight"], r["chunkId"]))
        want = {r["chunkId"] for r in linked[:2]} | (set(leads) & near)
        assert set(cut.get(seed, {})) == want, seed
        for chunk in want:
            assert cut[seed][chunk]["strength"] == leads[chunk]["strength"]
        left_out += len(leads) - len(want)
    assert left_out > 20, left_out


@pytest.fixture
def indexed(generated):
    """The generated graph with the two indexes hybrid search reads (4-dimensional vectors)."""
    graph, made = generated
    with graph.driver.session(database=graph.database) as session:
        session.run(
            "CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding "
            "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}"
        ).consume()
        session.run("CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]").consume()
        session.run("CALL db.awaitIndexes(60)").consume()
    return graph, made


def test_graph_procedure_ranks_as_the_cypher_files(indexed):
    from graphrag_cypher.retrieval.base import Analysis, Filters
    from graphrag_cypher.retrieval.graph import GraphRetriever

    graph, made = indexed
    rng = random.Random(11)
    linked = about = 0
    for trial in range(12):
        keywords = rng.sample(VOCABULARY, 1 + trial % 3)
        entities = [{"id": f"t{i}"} for i in rng.sample(range(8), trial % 3)]
        filters = [Filters(), Filters(corpus="a"), Filters(date_from="2020-03-01", date_to="2020-08-01")][trial % 3]
        weights = [{}, {"linksPerSeed": 2, "linkSeeds": 6}, {"coverWeight": 2.0, "graphCandidates": 12}][trial % 3]
        k = [5, 12, 30][trial % 3]
        analysis = Analysis(
            question=" ".join(keywords),
            search_text=" ".join(keywords),
            keywords=keywords,
            entities=entities,
            route=None,
            language="en",
            filters=filters,
            embedding=[rng.uniform(-1, 1) for _ in range(4)],
        )
        retriever = GraphRetriever(graph, None, weights)
        inside = retriever.rank(analysis, k)
        graph._graphrag_plugin = {"version": None, "names": []}  # as on a server without the jar
        try:
            outside = retriever.rank(analysis, k)
        finally:
            del graph._graphrag_plugin
        assert inside, trial
        assert [e.chunk_id for e in inside] == [e.chunk_id for e in outside], trial
        assert [e.to_dict() for e in inside] == [e.to_dict() for e in outside], trial
        linked += sum(e.via[0].startswith("linked by") for e in inside)
        about += sum(e.via[0].startswith("about question entity") for e in inside)
    assert linked > 20 and about > 3, (linked, about)


def test_doctor_says_which_path_is_in_use(neo4j, run_cli):
    out = json.loads(run_cli("doctor", "--json").stdout)
    assert out["graphrag_plugin"]["version"]
    assert out["graphrag_plugin"]["paths"]["ppr"] == "procedure graphrag.ppr"
    assert out["graphrag_plugin"]["paths"]["link places"] == "procedure graphrag.link.places"
    assert out["graphrag_plugin"]["paths"]["graph mode"] == "procedure graphrag.retrieve.graph"
    human = run_cli("doctor").output
    assert "graphrag plugin" in human and "graphrag.ppr" in human
