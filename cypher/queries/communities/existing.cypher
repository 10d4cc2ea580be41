// Every community in the graph with what a build compares: the hash of its members' content,
// its size and how many member edges it has (fewer when a member was deleted and loaded again).
// params: none
// returns: id, membersHash, size, edges
MATCH (c:Community)
RETURN c.id AS id, c.membersHash AS membersHash, c.size AS size, COUNT { (c)<-[:IN_COMMUNITY]-() } AS edges
