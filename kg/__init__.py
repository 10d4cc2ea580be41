"""Knowledge-graph construction: typed entities and relations from infoboxes, records and LLMs.

Every label and relationship type that reaches Cypher comes from a :class:`schema.KGSchema`
allowlist; names, descriptions and every other value travel as parameters.
"""
