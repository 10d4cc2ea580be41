"""Writing documents into the graph: the one loader pipeline, authors, forgetting, bulk export/import."""
