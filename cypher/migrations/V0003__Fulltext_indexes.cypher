// Full-text indexes. `standard-folding` is Lucene's standard analyzer plus ASCII folding,
// so "Alexandría" and "alexandria" meet in the same term.
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};

CREATE FULLTEXT INDEX entity_names IF NOT EXISTS
FOR (e:__Entity__) ON EACH [e.name, e.title, e.aliases, e.names]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};
