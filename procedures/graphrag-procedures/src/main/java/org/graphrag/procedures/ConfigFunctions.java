package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.UserFunction;

/**
 * {@code graphrag.configKeys(procedure)}: the config keys a procedure of this plugin accepts, so the
 * Python side can tell a plugin built before a key it sends (e.g. {@code corpora}, a scoped key's
 * corpora) and take the Cypher path instead of being refused.
 */
public class ConfigFunctions {

    @UserFunction("graphrag.configKeys")
    @Description("graphrag.configKeys(procedure) :: LIST<STRING> - the config keys the graphrag procedure accepts, "
            + "sorted; null for a name that is not one of its procedures with a config. "
            + "Example: RETURN graphrag.configKeys('graphrag.retrieve.graph')")
    public List<String> configKeys(@Name("procedure") String procedure) {
        Map<String, ProcedureConfig.Rule> rules = ProcedureConfig.rules(procedure);
        return rules == null ? null : new ArrayList<>(new TreeSet<>(rules.keySet()));
    }
}
