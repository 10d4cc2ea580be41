"""Draw a fresh sample of ISAW chunks to annotate, outside reference lists and earlier samples.

    python bench/annotations/draw.py --seed 4545 --n 80 [--json] [--exclude isaw-places.jsonl ...]

The chunks are the ones `graphrag load files` makes of the articles (1000 characters, 100
overlap); a chunk is eligible when its section is not one the place linker skips (a
bibliography, works cited, abbreviations: `linkers/skip_sections.txt`), it has more than 300
characters, and no earlier annotation file names it (by article and opening words). Each drawn
chunk is printed with its sample number, its article (the folder of its `index.xhtml`), its
opening words (how an annotation finds it again) and its full text, so that it is annotated
from the text alone.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import data_dir  # noqa: E402

HERE = Path(__file__).resolve().parent


def opening(text: str, words: int = 8) -> str:
    return " ".join(" ".join(text.split()).split(" ")[:words])


def isaw_chunks(data: Path) -> list[dict]:
    """Every chunk of the ISAW articles outside skipped sections: article, section, text."""
    from graphrag_cypher.chunking import chunk_document
    from graphrag_cypher.linkers.places import SKIP_SECTIONS
    from graphrag_cypher.loaders.files import parse_folder

    skip = re.compile(SKIP_SECTIONS)
    out = []
    for doc in parse_folder(data / "isaw-papers", extensions=(".xhtml",)):
        article = re.sub(r"^file:(?:[0-9a-f]{12}:)?", "", doc.id).removesuffix("/index.xhtml")
        for spec in chunk_document(doc, 1000, 100):
            if spec.section and skip.fullmatch(spec.section):
                continue
            out.append({"article": article, "section": spec.section, "text": spec.text})
    return out


def draw(seed: int, n: int, exclude: list[Path]) -> list[dict]:
    taken = set()
    for path in exclude:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                taken.add((row.get("article"), row["opening"]))
    chunks = [
        c
        for c in isaw_chunks(data_dir())
        if len(c["text"]) > 300
        and not any(a == c["article"] and " ".join(c["text"].split()).startswith(o) for a, o in taken)
    ]
    sample = random.Random(seed).sample(chunks, n)
    for i, row in enumerate(sample):
        row["sample"], row["opening"] = i, opening(row["text"])
    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--n", type=int, default=80)
    parser.add_argument("--exclude", nargs="*", default=["isaw-places.jsonl"])
    parser.add_argument("--json", action="store_true", help="one JSON object per chunk")
    args = parser.parse_args()
    rows = draw(args.seed, args.n, [HERE / p if not Path(p).is_absolute() else Path(p) for p in args.exclude])
    for row in rows:
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        else:
            print(f"=== sample {row['sample']} · article {row['article']} · section {row['section']!r}")
            print(f"opening: {row['opening']}")
            print(row["text"])
            print()


if __name__ == "__main__":
    main()
