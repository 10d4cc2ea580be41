"""The phrase rule of `graphrag link phrases`: what counts as a named phrase."""

from graphrag_cypher.linkers.phrases import extract_phrases, lowercase_vocabulary


def test_runs_of_capitalised_words_and_their_words():
    found = extract_phrases("He was the first president of the American Psychological Association in 1892.")
    assert found["american psychological association"] == "American Psychological Association"
    assert {"american", "psychological", "association"} <= set(found)
    assert "he" not in found and "president" not in found


def test_connectors_join_names_but_do_not_start_or_end_them():
    found = extract_phrases("She moved to the Bank of Finland and then to the Bay of Biscay of.")
    assert "bank of finland" in found and "bay of biscay" in found
    assert "of" not in found and not any(key.endswith(" of") for key in found)


def test_clause_breaks_split_names():
    found = extract_phrases("McRae is a city in White County, Arkansas, United States.")
    assert {"mcrae", "white county", "arkansas", "united states"} <= set(found)
    assert not any("," in key or "arkansas united" in key for key in found)


def test_a_sentence_initial_common_word_is_not_a_name():
    text = "Notably the band Signmark left. The band notably played at night."
    found = extract_phrases(text, lowercase_vocabulary([text]))
    assert "notably" not in found and "signmark" in found
    # without the corpus vocabulary the capitalised first word stays
    assert "notably" in extract_phrases("Notably the war.")


def test_possessives_accents_and_case_fold_to_one_key():
    a = extract_phrases("Signmark won Finland's national final.")
    b = extract_phrases("The currency of FINLAND was the markka; Akinoshū Kenji visited.")
    assert "finland" in a and "finland" in b
    assert "akinoshu kenji" in b and b["akinoshu kenji"] == "Akinoshū Kenji"


def test_short_and_numeric_phrases_are_dropped():
    found = extract_phrases("In 1998 the UK and J. R. Smith met at Route 52.", min_length=3)
    assert "uk" not in found and "1998" not in found
    assert "route" in found
