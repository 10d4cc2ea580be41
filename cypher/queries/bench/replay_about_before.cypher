// The passages about the question's entities as the graph mode found them before the growth cut
// (bench/replay.py --explain --own): of each entity's first $perEntity mentioning chunks, those
// whose rule is in $aboutRules; the rule checked after the cut, so an entity many passages name in
// passing can lose its own passage.
// params: $entityIds, $perEntity, $aboutRules
// returns: chunkId
UNWIND $entityIds AS entityId
MATCH (e:__Entity__ {id: entityId})<-[m:MENTIONS]-(n:Chunk)
WITH e, collect({n: n, rule: m.rule})[0..$perEntity] AS hits
UNWIND hits AS hit
WITH hit WHERE hit.rule IN $aboutRules
RETURN hit.n.id AS chunkId
