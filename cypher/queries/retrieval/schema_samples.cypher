// The live schema for text-to-Cypher: a few distinct string values of the name-like
// properties $keys per label, read from the first $scan nodes; the first in sort order, so the
// prompt does not change with the order the store keeps its nodes in.
// params: $scan, $keys, $samples
// returns: label, key, values
MATCH (n)
WITH n
  LIMIT $scan
UNWIND labels(n) AS label
UNWIND [k IN $keys WHERE n[k] IS :: STRING NOT NULL] AS key
WITH label, key, n[key] AS value
  ORDER BY value
WITH label, key, collect(DISTINCT value) AS values
RETURN label, key, values[..$samples] AS values
