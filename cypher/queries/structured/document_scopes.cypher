// The kinds of documents the graph holds: their secondary labels and corpora, with counts
// (what "tales", "articles" or "ISAW papers" in a question can refer to).
// params: (none)
// returns: labels, corpus, documents
MATCH (d:Document)
RETURN [l IN labels(d) WHERE l <> 'Document'] AS labels, d.corpus AS corpus, count(*) AS documents
