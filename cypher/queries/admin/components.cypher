// The DBMS name, version and edition.
// params: none
// returns: name, version, edition
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
