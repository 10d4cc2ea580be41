// The peak usage of each heap memory pool since the JVM started (their sum bounds the heap's peak).
// params: none
// returns: used
CALL dbms.queryJmx('java.lang:type=MemoryPool,name=*') YIELD attributes
WHERE attributes.Type.value = 'HEAP'
RETURN attributes.PeakUsage.value.properties.used AS used
