// The state of the last community build, or no row when none ran.
// params: none
// returns: builtAt, levels, counts, algorithm, seed, ms, fingerprint, byCorpus
MATCH (s:__CommunityState {id: 'communities'})
RETURN s.builtAt AS builtAt, s.levels AS levels, s.counts AS counts, s.algorithm AS algorithm, s.seed AS seed,
       s.ms AS ms, s.fingerprint AS fingerprint, coalesce(s.byCorpus, false) AS byCorpus
