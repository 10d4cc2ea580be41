// The distinct phrases the chunks of one document are linked to (what forgetting it touches).
// params: $id
// returns: phrases
OPTIONAL MATCH (:Document {id: $id})<-[:FROM_DOCUMENT]-(:Chunk)-[:HAS_PHRASE]->(p:Phrase)
RETURN count(DISTINCT p) AS phrases
