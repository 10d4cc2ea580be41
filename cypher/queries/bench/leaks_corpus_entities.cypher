// Entities, phrases and topics only the chunks of a corpus point at (bench/leaks.py: names that
// must not reach a key of another corpus).
// params: $corpus
// returns: id, name
MATCH (e)
WHERE (e:__Entity__ OR e:Phrase OR e:Topic)
  AND EXISTS { (e)<-[]-(:Chunk)-[:FROM_DOCUMENT]->(:Document {corpus: $corpus}) }
  AND NOT EXISTS { (e)<-[]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE d.corpus <> $corpus }
RETURN e.id AS id, coalesce(e.name, e.text) AS name
