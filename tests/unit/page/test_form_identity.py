"""A form is known by what stays from one load of its page to the next (issue 48): its action,
method and field names; its name, id and hidden values only tell apart forms that share them."""

from __future__ import annotations

from deepcrawl.page.groups import find_form
from deepcrawl.page.static_forms import parse_forms

PAGE = "http://shop.example/find"


def _page(mark: str, *, token: str = "t1", second: str = "") -> str:
    return (
        f"<html><body><form name='form-{mark}' id='f-{mark}' class='s-{mark}' "
        "action='/search?lang=en' method='get'>"
        f"<input type='hidden' name='tk' value='{token}'>"
        f"<input type='text' id='q-{mark}' name='q'><select name='cat'><option>a</option>"
        "</select><input type='submit' value='Search'></form>"
        "<form id='news' action='/subscribe' method='post'><input type='email' name='email'>"
        f"<input type='submit' value='Subscribe'></form>{second}</body></html>"
    )


def test_a_form_renamed_on_another_load_is_the_same_form() -> None:
    first = parse_forms(_page("290e6614"), PAGE)[0]
    again = parse_forms(_page("e0b7d2c2", token="t2"), PAGE)
    assert first.locator != again[0].locator  # what the page load changed
    assert first.identity == again[0].identity
    found = find_form(again, first)
    assert found is again[0]
    token = found.field("tk")
    assert token is not None
    assert token.value == "t2"  # the hidden token as this load set it


def test_the_identity_is_action_method_and_visible_field_names() -> None:
    form = parse_forms(_page("a"), PAGE)[0]
    # a GET form's action query is none of it: submitting replaces it by the fields
    assert form.identity == ("http://shop.example/search", (), "GET", ("cat", "q"), False)
    other = parse_forms(_page("a").replace("/search?lang=en", "/find"), PAGE)[0]
    assert other.identity != form.identity


def test_a_post_form_is_known_by_its_action_query_names_not_their_values() -> None:
    post = _page("a").replace("method='get'", "method='post'")
    form = parse_forms(post, PAGE)[0]
    assert form.identity == ("http://shop.example/search", ("lang",), "POST", ("cat", "q"), False)
    token = parse_forms(post.replace("?lang=en", "?lang=fr"), PAGE)[0]
    assert token.identity == form.identity
    other = parse_forms(post.replace("/search?lang=en", "/search"), PAGE)[0]
    assert other.identity != form.identity


def test_a_get_form_with_an_empty_action_is_one_form_on_its_page_and_its_results() -> None:
    blank = _page("a").replace("action='/search?lang=en'", "action=''")
    home = parse_forms(blank, "http://shop.example/search")[0]
    results = parse_forms(blank, "http://shop.example/search?q=river")[0]
    assert home.identity == results.identity
    assert find_form([results], home) is results


def test_forms_of_one_identity_are_told_apart_by_their_name() -> None:
    twin = (
        "<form name='lower' action='/search?lang=en' method='get'><input name='q'>"
        "<select name='cat'></select><input type='submit' value='Go'></form>"
    )
    forms = parse_forms(_page("a", second=twin), PAGE)
    lower = next(f for f in forms if f.name == "lower")
    assert lower.identity == forms[0].identity
    assert find_form(forms, lower) is lower
    assert find_form(forms, forms[0]) is forms[0]
    # renamed both: the first of them
    renamed = parse_forms(_page("b", second=twin.replace("lower", "x1")), PAGE)
    assert find_form(renamed, forms[0]) is renamed[0]


def test_a_form_whose_fields_changed_is_not_found() -> None:
    first = parse_forms(_page("a"), PAGE)[0]
    changed = parse_forms(_page("b").replace("name='cat'", "name='section'"), PAGE)
    assert find_form(changed, first) is None
