"""graphrag's HTTP face: a JSON and streaming API, an OpenAI-compatible endpoint, MCP and a page.

Like the CLI, it only parses, asks the core and shows: answers come from the same `qa.ask`
the CLI uses (through :mod:`.engine`). Only `graphrag serve` / `graphrag mcp` import it.

- ``app.py`` builds the application (``create_app``): errors, the guard, the routers, MCP
- ``routes/`` one router per resource: page, health, modes, chat, graph, communities,
  documents (uploads and crawls), jobs; ``openai_api.py`` the OpenAI-compatible one
- ``common.py`` what the routers share (``State``, ``ApiError``); ``streaming.py`` server-sent
  events; ``guard.py`` the key check and size limits; ``options.py`` ``ServerOptions``
- ``engine.py`` the calls into the rest of graphrag; ``mcp_tools.py`` the MCP tools;
  ``jobs.py`` the learning queue

Safety: loopback by default; any other host needs an API key (GRAPHRAG_API_KEY), then asked
on every endpoint (bearer); writes (crawl, uploads, forget, MCP learn) always need it; request
bodies and uploads are size-limited; no CORS unless origins are given; errors are JSON with
one message.
"""
