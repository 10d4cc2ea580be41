// Chunks carry their document's title (loaders set Chunk.title); full-text search sees it
// too, so a passage is found by the name of what it is about.
DROP INDEX chunk_text IF EXISTS;

CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.text, c.title]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};
