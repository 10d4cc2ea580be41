// The place linker's matching in the database (graphrag.link.places.match): the names of
// $config.keys in every chunk text, by one Aho–Corasick pass; each accepted match with its
// code point offsets in the stored text and up to $config.window characters on each side.
// params: $config
// returns: chunkId, docId, key, start, end, surface, before, after
CALL graphrag.link.places.match($config) YIELD chunkId, docId, key, start, end, surface, before, after
RETURN chunkId, docId, key, start, end, surface, before, after
