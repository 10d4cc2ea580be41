// The state of the last build, one node: what doctor and global search read.
// params: $state (builtAt, levels, counts, algorithm, seed, ms, fingerprint, byCorpus)
// returns: id
MERGE (s:__CommunityState {id: 'communities'})
SET s += $state
RETURN s.id AS id
