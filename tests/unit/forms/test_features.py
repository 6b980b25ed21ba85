"""Feature extraction: structural dicts and stemmed, stop-word-filtered, source-tagged text."""

from __future__ import annotations

from sklearn.feature_extraction import DictVectorizer
from sklearn.pipeline import make_pipeline

from deepcrawl.forms.features import FormStructure, FormText, stem_tokens
from deepcrawl.forms.words import tokens
from deepcrawl.page import parse_forms

PAGE = "http://site.test/"
FORM = parse_forms(
    "<p>Antique maps</p>"
    "<form id='searchForm' action='/find/books?lang=en' method='post'>"
    "<label for='q'>Searching the catalogues</label><input id='q' name='searchQuery'>"
    "<select name='cat'><option>All</option><option>Novels</option></select>"
    "<input type='hidden' name='t' value='1'><input type='checkbox' name='c'>"
    "<input type='password' name='p'><input type='file' name='f'><textarea name='x'></textarea>"
    "<input type='reset'><input type='submit' value='Go'><input type='image' alt='Search'>"
    "</form>",
    PAGE,
)[0]


def test_tokens_split_camel_and_snake_case() -> None:
    assert tokens("searchQuery my_field-Name2") == ["search", "query", "my", "field", "name2"]


def test_stemming_drops_stop_words_and_digits() -> None:
    assert stem_tokens("the searching of catalogues 2024") == ["search", "catalogu"]
    assert "the" in stem_tokens("the", keep_stop_words=True)


def test_structure_counts_fields_and_flags_keywords() -> None:
    (features,) = FormStructure().fit_transform([FORM])
    assert features["n_text"] == 1
    assert features["n_select"] == 1
    assert features["n_select_options"] == 2
    assert features["n_hidden"] == 1
    assert features["n_checkbox"] == 1
    assert features["n_password"] == 1
    assert features["n_file"] == 1
    assert features["n_textarea"] == 1
    assert features["n_reset"] == 1
    assert features["n_submit_input"] == 1
    assert features["n_submit_image"] == 1
    assert features["method_post"] == 1
    assert features["kw_search_attrs"] == 1  # id="searchForm"
    assert features["kw_search_action"] == 1  # /find/…
    assert features["kw_search_names"] == 1
    assert features["kw_search_labels"] == 1
    assert features["kw_search_buttons"] == 1
    assert "kw_order_buttons" not in features


def test_text_is_source_tagged_and_stemmed() -> None:
    (text,) = FormText().fit_transform([FORM])
    words = text.split()
    assert "labels:search" in words
    assert "labels:catalogu" in words
    assert "action:book" in words
    assert "context:map" in words
    assert "options:novel" in words
    assert not any(w.endswith(":the") for w in words)
    (plain,) = FormText(tag_sources=False).fit_transform(["Searching for novels"])
    assert plain.split() == ["search", "novel"]


def test_transformers_compose_in_a_pipeline() -> None:
    matrix = make_pipeline(FormStructure(), DictVectorizer()).fit_transform([FORM, FORM])
    assert matrix.shape[0] == 2
