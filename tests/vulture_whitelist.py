# ruff: noqa: B018
"""Names `make deadcode` (vulture) cannot see used, each with the reason.

Linker results are printed by `LinkResult.to_dict`, which walks `dataclasses.fields`: every
field is output (--json), though no code reads it by name.
"""

_ = object()
_.matches, _.co_occurs, _.co_occurs_created, _.co_occurs_removed  # linkers/entities.py results
_.entities_changed, _.chunks_shortlisted, _.new_titles, _.topics_created, _.topics_removed  # entities, titles results
_.phrases_found, _.phrases_written, _.phrases_removed  # linkers/phrases.py results
_.mentions_total, _.names_searched, _.entities_created  # places (a --json key), titles, wikidata
_.embedded_text  # web.WebChunk: what was embedded, kept for --json traces and learning
_.KINDS  # linkers/contexts.py: the documented kinds of place
_.daemon_threads, _.protocol_version  # socketserver / http.server read these class attributes
_.__signature__, _.__annotations__  # server/ask_params.py: MCP reads a tool's parameters from them
