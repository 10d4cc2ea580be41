// Record (after a full run) or forget (before one: null $version) what phrases are decided with.
// params: $version, $maxChunks, $minLength
// returns: version
MERGE (s:__PhraseState {id: 'phrases'})
SET s.version = $version, s.maxChunks = $maxChunks, s.minLength = $minLength, s.at = datetime()
RETURN s.version AS version
