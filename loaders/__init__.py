"""Source parsers and chunking: files, web pages, story collections, MediaWiki exports,
article chunk files and QA passage corpora become `model.ParsedDocument`s (or one-line
`model.ItemError`s), and `chunking.chunk_document` cuts them into chunks.

Submodules import their heavy libraries (bs4, pymupdf, mwparserfromhell, httpx) lazily.
"""
