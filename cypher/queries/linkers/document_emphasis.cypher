// Each document's italic spans (`emphasis`, kept by the HTML/XHTML loader: titles of books,
// journals and games), as parallel lists in one row, for documents of $corpus (or all).
// params: $corpus
// returns: docIds, emphasis
MATCH (d:Document)
WHERE d.emphasis IS NOT NULL AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN collect(d.id) AS docIds, collect(d.emphasis) AS emphasis
