// What the last full phrase run decided with; no row: no run of this version yet.
// params: none
// returns: version, maxChunks, minLength, at
MATCH (s:__PhraseState {id: 'phrases'})
RETURN s.version AS version, s.maxChunks AS maxChunks, s.minLength AS minLength, s.at AS at
