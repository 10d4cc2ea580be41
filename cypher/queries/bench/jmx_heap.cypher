// The Neo4j heap now (used and committed bytes), sampled while a build runs.
// params: none
// returns: heap
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
RETURN attributes.HeapMemoryUsage.value.properties AS heap
