// The ids bench/leaks.py's probes name: a document, a chunk and an entity (its name holding $name)
// of $corpus, the entity named $shared, the largest community of $corpus alone and one that
// mixes it with another corpus ("" where the graph has none).
// params: $corpus, $name, $shared
// returns: document, chunk, entity, shared, community, mixed_community
RETURN
  coalesce(head(COLLECT { MATCH (d:Document {corpus: $corpus}) RETURN d.id ORDER BY d.id LIMIT 1 }), '') AS document,
  coalesce(head(COLLECT {
    MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {corpus: $corpus}) RETURN c.id ORDER BY c.id LIMIT 1
  }), '') AS chunk,
  coalesce(head(COLLECT {
    MATCH (e:__Entity__) WHERE toLower(e.name) CONTAINS toLower($name) RETURN e.id ORDER BY size(e.name), e.id LIMIT 1
  }), '') AS entity,
  coalesce(head(COLLECT { MATCH (e:__Entity__ {name: $shared}) RETURN e.id ORDER BY e.id LIMIT 1 }), '') AS shared,
  coalesce(head(COLLECT {
    MATCH (c:Community) WHERE c.corpora = [$corpus] RETURN c.id ORDER BY c.size DESC, c.id LIMIT 1
  }), '') AS community,
  coalesce(head(COLLECT {
    MATCH (c:Community) WHERE $corpus IN c.corpora AND size(c.corpora) > 1 RETURN c.id ORDER BY c.level, c.id LIMIT 1
  }), '') AS mixed_community
