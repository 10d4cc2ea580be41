// Incremental phrase linking (`graphrag link phrases`): every candidate phrase is a :Term
// (a :Phrase too while 2..max chunks share it), the lower-case vocabulary is :Word, and
// too-common terms are counted through their chunk counts.
CREATE CONSTRAINT term_id IF NOT EXISTS
FOR (t:Term) REQUIRE t.id IS UNIQUE;

CREATE CONSTRAINT word_id IF NOT EXISTS
FOR (w:Word) REQUIRE w.id IS UNIQUE;

CREATE INDEX term_chunks IF NOT EXISTS
FOR (t:Term) ON (t.chunks);
