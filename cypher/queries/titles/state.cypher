// The title linker's state: the rules of its last run (absent before the first: a full run).
// params: none
// returns: minLength
MATCH (s:__LinkState {id: 'titles'})
RETURN s.minLength AS minLength
