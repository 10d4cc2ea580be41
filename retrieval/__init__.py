"""Question in, evidence out, answer back: the retrieval modes, one module each.

- vector   — `db.index.vector.queryNodes` on chunk embeddings (vector.py)
- fulltext — `db.index.fulltext.queryNodes` on chunk text, query escaped (fulltext.py)
- hybrid   — weighted reciprocal-rank fusion of the two (hybrid.py)
- graph    — hybrid, then each top seed followed by the chunk it leads to through a shared
             rare phrase or a topic it names, and the chunks about the question's entities (graph.py)
- ppr      — Open GDS personalized PageRank over the chunk–entity graph, seeded by the
             question's entities and the top hybrid chunks (ppr.py)

`modes.py` is the registry of the modes (every face reads it); `retriever.py` the interface (a
neo4j-graphrag retriever); `base.py` `Evidence`, `Filters`, `Analysis` and the fusion weights;
`question/` the question analysis (time expressions, relation phrases, keywords, language) and its
entities; `about.py` the
entity `--about` names; `relation.py`
the "how are A and B related" route; `context.py` the context graph; `answer.py` the cited
answer; `qa.py` one question end to end; `chat.py` multi-turn state. Filters (corpus, date
range, about) hold in every mode; everything runs in read transactions.
"""
