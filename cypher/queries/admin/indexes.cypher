// Every index with its state and population progress.
// params: none
// returns: name, type, state, entityType, labelsOrTypes, properties, populationPercent, options
SHOW INDEXES
YIELD name, type, state, entityType, labelsOrTypes, properties, populationPercent, options
RETURN name, type, state, entityType, labelsOrTypes, properties, populationPercent,
       options.indexConfig AS config, options.indexProvider AS provider
ORDER BY name
