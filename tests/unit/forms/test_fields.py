"""Field values and form choice: ``--field NAME=VALUE`` and ``--form N|SELECTOR`` checked
against the form model, before anything is submitted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.crawler.inputs import keep_field_values
from deepcrawl.errors import ConfigError, UnsafeFormError
from deepcrawl.forms.critic import CriticVerdict
from deepcrawl.forms.fields import (
    check_field_values,
    missing_required,
    parse_field_values,
    parse_form_choice,
    pick_form,
    user_verdict,
)
from deepcrawl.page import parse_forms
from deepcrawl.page.form import Form
from deepcrawl.search.results import ResultPage, error_marker
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from pathlib import Path

PAGE = "http://archive.test/"
CATALOGUE = (
    "<form id='catalogue' action='/search'>"
    "<input type='hidden' name='token' value='x'>"
    "<input name='q'>"
    "<label>Postcode <input name='postcode' required></label>"
    "<input type='date' name='from'>"
    "<select name='cat'><option value=''>All collections</option>"
    "<option value='history'>History</option><option value='art'>Art</option></select>"
    "<label><input type='radio' name='scope' value='titles' checked> Titles</label>"
    "<label><input type='radio' name='scope' value='all'> Everything</label>"
    "<input type='checkbox' name='digitised' value='1'>"
    "<input type='submit' value='Find'></form>"
)
WORDS = Settings().forms.refused_words


def _form(html: str = CATALOGUE) -> Form:
    return parse_forms(html, PAGE)[0]


def _verdict(*, searchable: bool = True, score: float = 0.9, **kw: object) -> CriticVerdict:
    reasons = () if searchable else ("not searchable (score 0.20 < 0.50)",)
    return CriticVerdict(
        type=str(kw.get("type", "search")),
        searchable=searchable,
        score=score,
        query_field="q" if searchable else None,
        reasons=reasons,
    )


# -- parsing ------------------------------------------------------------------------------------


def test_field_values_parse_in_order_with_empty_values_and_equal_signs() -> None:
    assert parse_field_values(["cat=history", "postcode=AB1 2CD", "q2=a=b", "cat=history"]) == {
        "cat": "history",
        "postcode": "AB1 2CD",
        "q2": "a=b",
    }
    assert parse_field_values(["cat="]) == {"cat": ""}


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["category"], "expected NAME=VALUE"),
        (["=history"], "expected NAME=VALUE"),
        (["cat=art", "cat=history"], "given twice"),
    ],
)
def test_bad_field_values_are_named(items: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_field_values(items)


def test_form_choice_is_a_number_from_one_or_a_selector() -> None:
    assert parse_form_choice(None) is None
    assert parse_form_choice("2") == 2
    assert parse_form_choice(3) == 3
    assert parse_form_choice(" #catalogue ") == "#catalogue"
    with pytest.raises(ConfigError, match="numbered from 1"):
        parse_form_choice("0")
    with pytest.raises(ConfigError, match="give a form's number"):
        parse_form_choice(" ")


# -- values against the form --------------------------------------------------------------------


def test_values_are_checked_and_options_named_by_their_text() -> None:
    fixed = check_field_values(
        _form(),
        {"cat": "History", "postcode": "AB1 2CD", "from": "2024-01-31", "scope": "Everything",
         "digitised": "1"},
        query_field="q",
    )  # fmt: skip
    assert fixed == {
        "cat": "history",
        "postcode": "AB1 2CD",
        "from": "2024-01-31",
        "scope": "all",
        "digitised": "1",
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"category": "art"}, r"'category' names no field of the form .*its fields: q \(the "
         r"keywords go here\); postcode \(text, required\); from \(date\); cat \(select: '' "
         r"All collections, 'history' History, 'art' Art\); scope \(radio: 'titles', 'all'\)"),
        ({"cat": "poetry"}, r"the select 'cat' has no option 'poetry'; cat \(select: '' All"),
        ({"scope": "abstracts"}, r"the radio 'scope' has no value 'abstracts'; its values: "
         r"'titles', 'all'"),
        ({"q": "water"}, "'q' is the field the keywords go into"),
        ({"token": "y"}, "'token' is not a field the user can set"),
        ({"from": "31/01/2024"}, "'from' is a date input, which takes YYYY-MM-DD"),
    ],
)  # fmt: skip
def test_a_value_that_does_not_fit_names_the_input_and_what_exists(
    values: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        check_field_values(_form(), values, query_field="q")
    name, value = next(iter(values.items()))
    assert str(caught.value).startswith(f"--field {name}={value}: ")


def test_a_checkbox_without_a_value_attribute_is_checked_by_on() -> None:
    form = _form("<form><input name='q'><input type='checkbox' name='open'></form>")
    assert check_field_values(form, {"open": "on"}, query_field="q") == {
        "open": form.fields[1].value
    }


def test_required_fields_without_a_value_are_found() -> None:
    form = _form(
        "<form><input name='q' required><input name='postcode' required>"
        "<input name='year' value='2024' required>"
        "<select name='county' required><option value=''>Choose</option><option>Kent</option>"
        "</select><select name='lang' required><option>en</option></select>"
        "<input type='checkbox' name='agree' required>"
        "<input type='radio' name='kind' value='a' required><input type='radio' name='kind' "
        "value='b'><input type='radio' name='era' value='x' checked required></form>"
    )
    missing = missing_required(form, {}, query_field="q")
    assert [f.name for f in missing] == ["postcode", "county", "agree", "kind"]
    given = {"postcode": "AB1 2CD", "county": "Kent", "agree": "on", "kind": "a"}
    assert missing_required(form, given, query_field="q") == []


# -- which form ---------------------------------------------------------------------------------


def test_the_critic_picks_the_best_accepted_form_and_the_user_any_other() -> None:
    forms = [_form("<form id='site'><input name='q'></form>"), _form(), _form()]
    verdicts = [_verdict(score=0.99), _verdict(score=0.9), _verdict(searchable=False)]
    assert pick_form(forms, verdicts, None) == 0
    assert pick_form(forms, verdicts, 2) == 1
    assert pick_form(forms, verdicts, 3) == 2  # a low score does not stop the user's pick
    assert pick_form(forms, verdicts, 'form[id="site"]') == 0  # the form's own locator
    assert pick_form(forms, verdicts, "#site", selected=[False, True, False]) == 1
    assert pick_form(forms, [_verdict(searchable=False)] * 3, None) is None


@pytest.mark.parametrize(
    ("choice", "selected", "message"),
    [
        (4, None, r"--form 4: the page has 3 form\(s\) \(1 form\[id=\"site\"\]; 2 form"),
        ("#nothing", [False, False, False], "selects no form on the page; its forms: 1 "),
        (".box", [False, True, True], "selects 2 forms on the page"),
    ],
)
def test_a_choice_that_picks_no_single_form_lists_the_forms(
    choice: int | str, selected: list[bool] | None, message: str
) -> None:
    forms = [_form("<form id='site'><input name='q'></form>"), _form(), _form()]
    with pytest.raises(ConfigError, match=message):
        pick_form(forms, [_verdict()] * 3, choice, selected=selected)


def test_the_users_pick_never_opens_the_safety_gate() -> None:
    login = _form(
        "<form action='/login'><input name='user'><input type='password' name='pw'></form>"
    )
    with pytest.raises(UnsafeFormError, match="password"):
        pick_form([login], [_verdict(searchable=False, type="login")], 1, refused_words=WORDS)


def test_a_picked_form_is_accepted_with_its_roles() -> None:
    verdict = user_verdict(_form(), _verdict(searchable=False, score=0.2), WORDS)
    assert verdict.searchable
    assert verdict.reasons == ()
    assert verdict.query_field == "q"
    assert "cat" in verdict.category_fields
    assert verdict.score == 0.2  # the critic's score is kept: the user chose


# -- a resumed crawl ----------------------------------------------------------------------------


def test_a_resumed_crawl_keeps_the_values_its_queries_were_sent_with() -> None:
    none = Settings()
    given = Settings().with_overrides(forms={"fields": {"cat": "History"}})
    stored = {"cat": "history", "postcode": "AB1 2CD"}
    assert keep_field_values(none, None) is none
    assert keep_field_values(given, None) is given
    assert keep_field_values(none, stored).forms.fields == stored
    same = Settings().with_overrides(forms={"fields": {"cat": "History", "postcode": "ab1 2cd"}})
    assert keep_field_values(same, stored) is same
    with pytest.raises(ConfigError, match="sent its queries with --field cat=history "):
        keep_field_values(given, stored)


def test_an_error_status_page_says_why() -> None:
    page = ResultPage(
        url=PAGE,
        status=400,
        title="Error · County Archive",
        blocks=["Home", "Search this site", "Error: a postcode is required to search."],
    )
    assert error_marker(page) == "HTTP status 400: Error: a postcode is required to search."
    assert error_marker(ResultPage(url=PAGE, status=503)) == "HTTP status 503"


def test_the_form_and_its_fields_come_from_deepcrawl_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "deepcrawl.toml"
    config.write_text('[forms]\nform = 2\nfields = {cat = "history", postcode = "AB1 2CD"}\n')
    monkeypatch.setenv("DEEPCRAWL_CONFIG", str(config))
    settings = load_settings()
    assert parse_form_choice(settings.forms.form) == 2
    assert settings.forms.fields == {"cat": "history", "postcode": "AB1 2CD"}
    # --field adds to the file's values (a name given in both: the flag's), --form replaces it
    flags = load_settings(forms={"fields": {"cat": "art"}, "form": "#catalogue"})
    assert flags.forms.fields == {"cat": "art", "postcode": "AB1 2CD"}
    assert flags.forms.form == "#catalogue"
