// The entity linker's state: the rules of its last run, how many entities it had linked and
// how many chunks were linked then (absent before the first run: a full one).
// params: none
// returns: minLength, requireCapital, maxPerChunk, minConfidence, entities, chunks
MATCH (s:__LinkState {id: 'entities'})
RETURN s.minLength AS minLength, s.requireCapital AS requireCapital, s.maxPerChunk AS maxPerChunk,
       s.minConfidence AS minConfidence,
       s.entities AS entities, s.chunks AS chunks
