// The config keys a graphrag procedure accepts (the plugin's graphrag.configKeys; null for a name
// that is not one of its procedures with a config).
// params: $procedure
// returns: keys
RETURN graphrag.configKeys($procedure) AS keys
