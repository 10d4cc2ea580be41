"""Rendering an entity's document: what goes in, what stays out, and the run's scope."""

from graphrag_cypher.kg.documents import Selection, render, to_document


def row(**extra):
    base = {
        "id": "got:aria",
        "name": "Aria",
        "type": "Character",
        "labels": ["__Entity__", "Character"],
        "props": {
            "name": "Aria",
            "aliases": ["Aria", "the Wolf"],
            "description": "A girl of the north.",
            "normName": "aria",
            "confidence": "High",
            "typeScores": '{"Character": 5}',
            "documentId": "wiki:x:Aria",
            "extractedAt": "2024-01-01",
            "weapons": ["Needle", "a stick"],
            "heightMetres": 1.5,
            "living": True,
            "dead": False,
            "notes": '{"not": "json"',
        },
        "outgoing": [{"type": "CHILD_OF", "id": "got:ned", "name": "Ned", "otherType": "Character"}],
        "incoming": [
            {
                "type": "WIELDED_BY",
                "id": "got:needle",
                "name": "Needle",
                "otherType": None,
                "description": "a small sword",
            }
        ],
        "outgoingTotal": 1,
        "incomingTotal": 3,
    }
    base.update(extra)
    return base


def test_render_keeps_knowledge_and_leaves_bookkeeping_out():
    text = render(row())
    assert text.splitlines()[:3] == ["Aria", "Aria is a Character.", "Also known as: the Wolf."]
    assert "A girl of the north." in text
    assert "weapons: Needle; a stick" in text and "height metres: 1.5" in text and "living: yes" in text
    assert 'notes: {"not": "json"' in text  # not a JSON object: kept as text
    for hidden in ("aria\n", "High", 'Character": 5', "wiki:x", "2024", "dead"):
        assert hidden not in text
    assert "Aria child of Ned (Character)." in text
    assert "Needle wielded by Aria: a small sword." in text
    assert "… and 2 more relations to Aria." in text
    assert render(row()) == text


def test_article_and_type_from_labels():
    assert "Ormund is an Object." in render(row(name="Ormund", type="Object"))
    assert "Ormund is a Place." in render(row(name="Ormund", type=None, labels=["__Entity__", "Place"]))


def test_document_id_kind_and_labels():
    doc = to_document(row())
    assert doc.id == "entity:got:aria" and doc.kind == "entity" and doc.labels == ("EntityDocument",)
    assert doc.metadata == {"entityId": "got:aria", "entityType": "Character"}
    assert to_document(row()).content_hash == doc.content_hash
    assert to_document(row(outgoing=[])).content_hash != doc.content_hash


def test_selection_scope():
    assert Selection().covers("Character", []) and not Selection().covers("Topic", ["Topic"])
    only = Selection(types=("House",))
    assert only.covers("House", []) and only.covers(None, ["__Entity__", "House"]) and not only.covers("Character", [])
    assert Selection(types=("Topic",)).covers("Topic", []) and Selection(types=("Topic",)).excluded == []
