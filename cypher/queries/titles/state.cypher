// The title linker's state: the rules of its last run, the most words a topic's name has, and
// how many chunks were linked then (absent before the first run: a full one).
// params: none
// returns: minLength, maxRuns, chunks
MATCH (s:__LinkState {id: 'titles'})
RETURN s.minLength AS minLength, s.maxRuns AS maxRuns, s.chunks AS chunks
