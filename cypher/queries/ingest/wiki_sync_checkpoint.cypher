// The checkpoint of one MediaWiki API load (one wiki and one selection of pages): where the
// page listing stopped (`continue`, a JSON object of the API's continuation parameters; null
// when the last run finished) and when runs started and finished.
// params: $id
// returns: id, continue, startedAt, finishedAt, pagesListed
MATCH (s:__WikiSync {id: $id})
RETURN s.id AS id, s.continue AS continue, s.startedAt AS startedAt, s.finishedAt AS finishedAt,
       s.pagesListed AS pagesListed
