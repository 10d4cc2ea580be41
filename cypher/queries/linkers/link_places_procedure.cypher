// The place linker in the database (graphrag.link.places): names from the Place nodes, one
// Aho–Corasick pass over the chunk texts, the linker's deciding rules, and only the
// difference from the linker's MENTIONS edges written (in this transaction); one row of counts.
// params: $config (corpus, sources, minLength, stoplist, requireCapital, skipTails, skipSections,
//         minConfidence, contexts, dryRun, keys, returnEdges)
// returns: places, names, stoplisted, tooShort, chunksScanned, chunksSkipped, matches, overlapped,
//          notAPlace, linked, undecided, rules, mentions, created, updated, removed, total, seconds, edges
CALL graphrag.link.places($config)
YIELD places, names, stoplisted, tooShort, chunksScanned, chunksSkipped, matches, overlapped, notAPlace, linked,
      undecided, rules, mentions, created, updated, removed, total, seconds, edges
RETURN places, names, stoplisted, tooShort, chunksScanned, chunksSkipped, matches, overlapped, notAPlace, linked,
       undecided, rules, mentions, created, updated, removed, total, seconds, edges
