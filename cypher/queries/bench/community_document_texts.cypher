// The text of a document's chunks that belong to a community (does a theme line quote its own community?).
// params: $doc, $community
// returns: text
MATCH (d:Document {id: $doc})<-[:FROM_DOCUMENT]-(c:Chunk)-[:IN_COMMUNITY]->(:Community {id: $community})
RETURN c.text AS text
