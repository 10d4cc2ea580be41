// Every entity a chunk of corpus $corpus MENTIONS, with the rules that link it and how often
// (bench/entities.py's junk audit).
// params: $corpus
// returns: id, name, type, rules, mentions
MATCH (d:Document {corpus: $corpus})<-[:FROM_DOCUMENT]-(:Chunk)-[m:MENTIONS]->(e:__Entity__)
RETURN e.id AS id, coalesce(e.name, e.title, e.id) AS name,
       coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])) AS type,
       collect(DISTINCT m.rule) AS rules, count(m) AS mentions
ORDER BY id
