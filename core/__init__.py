"""graphrag: a Neo4j-native GraphRAG toolkit.

The import package is ``graphrag_cypher``; the console script is ``graphrag``.
Keep this module free of heavy imports: ``graphrag --help`` must stay instant.
"""

__version__ = "0.1.0"
