// One meaning of normName on __Entity__: the key of the entity's name (for a Place, its first
// matchable name, names[0]: the title without editorial marks such as "(Egypt)"), as
// graphrag_cypher.text.norm_name computes it (and the plugin function graphrag.normName):
// the accent fold (canonical decomposition, combining marks dropped, each character through its upper case and back to
// lower case when that stays one character, else its lower case), joiners (hyphens, dashes,
// apostrophes) removed, other punctuation and "_" as spaces, whitespace collapsed.
// Earlier writers stored other forms (compatibility decomposition and case folding, or the
// fold with punctuation kept); this recomputes every stored value from the name, in Cypher and
// APOC only, so that servers without the graphrag plugin can run it too.
MATCH (e:__Entity__)
WHERE e.normName IS NOT NULL AND e.name IS :: STRING NOT NULL
CALL (e) {
  WITH e, CASE WHEN e:Place AND e.names IS :: LIST<STRING NOT NULL> NOT NULL AND size(e.names) > 0
               THEN e.names[0] ELSE e.name END AS name
  WITH e, [g IN apoc.text.regexGroups(apoc.text.replace(normalize(name, NFD), '\\p{M}+', ''), '(?s).') | g[0]] AS chars
  WITH e, reduce(s = '', ch IN chars |
         s + CASE WHEN size(toLower(toUpper(ch))) = 1 THEN toLower(toUpper(ch)) ELSE toLower(ch) END) AS folded
  WITH e, apoc.text.replace(apoc.text.replace(folded, "[\\-\u2010\u2011\u2012\u2013\u2014'\u2019`\u00b4]", ''),
                            '[^\\p{L}\\p{N}\\s\\p{Z}\\x{1c}-\\x{1f}\\x{85}]|_', ' ') AS spaced
  SET e.normName = trim(apoc.text.replace(spaced, '[\\s\\p{Z}\\x{1c}-\\x{1f}\\x{85}]+', ' '))
} IN TRANSACTIONS OF 10000 ROWS
