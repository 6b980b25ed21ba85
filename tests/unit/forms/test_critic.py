"""The critic on hand-written forms: verdicts, safety policy, domain classifier, cache.

The critic is trained once per session on formasaurus's corpus (the cache folder lives in the
session's temp dir, so every test module that asks for it shares one training).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError, UnsafeFormError
from deepcrawl.forms import CriticVerdict, FormCritic, ensure_submittable, load_critic
from deepcrawl.forms.store import cache_path
from deepcrawl.page import parse_forms
from deepcrawl.settings import FormSettings

PAGE = "http://site.test/"

SEARCH = (
    "<h3>Search the catalogue</h3><form action='/search'>"
    "<input name='q' placeholder='Title or author'>"
    "<select name='cat'><option>All</option><option>Novels</option><option>Poetry</option></select>"
    "<select name='sort'><option>Relevance</option><option>Newest</option></select>"
    "<input type='submit' value='Search'></form>"
)
OTHERS = {
    "login": "<form action='/session' method='post'><label>User <input name='user'></label>"
    "<label>Password <input type='password' name='pw'></label><button>Log in</button></form>",
    "registration": "<form method='post' action='/account/new'><input name='name'>"
    "<input type='email' name='email'><input type='password' name='p1'>"
    "<input type='password' name='p2'><button>Create account</button></form>",
    "mailing list": "<form method='post' action='/news'><label>Get our weekly newsletter "
    "<input type='email' name='email' placeholder='you@example.com'></label>"
    "<button>Subscribe</button></form>",
    "order": "<form method='post' action='/basket/add'><input type='hidden' name='id' value='7'>"
    "<label>Quantity <input type='number' name='qty' value='1'></label>"
    "<button>Add to cart</button></form>",
    "contact": "<form method='post' action='/feedback'><label>Your name <input name='n'></label>"
    "<label>Message <textarea name='m'></textarea></label><button>Send</button></form>",
}


@pytest.fixture(scope="session")
def forms_settings(tmp_path_factory: pytest.TempPathFactory) -> FormSettings:
    """Settings whose critic cache is shared by the whole test session."""
    return FormSettings(model_cache_dir=tmp_path_factory.getbasetemp() / "forms-critic-cache")


@pytest.fixture(scope="session")
def critic(forms_settings: FormSettings) -> FormCritic:
    """The critic trained on formasaurus's corpus (once per session)."""
    return load_critic(forms_settings)


def _verdict(critic: FormCritic, html: str) -> CriticVerdict:
    forms = parse_forms(html, PAGE)
    assert len(forms) == 1
    return critic.judge_one(forms[0])


def test_search_form_is_accepted_with_its_query_field(critic: FormCritic) -> None:
    verdict = _verdict(critic, SEARCH)
    assert verdict.searchable
    assert verdict.type == "search"
    assert verdict.score >= 0.8
    assert verdict.query_field == "q"
    assert verdict.category_fields == ("cat",)
    assert verdict.sort_fields == ("sort",)
    assert verdict.reasons == ()
    ensure_submittable(parse_forms(SEARCH, PAGE)[0], verdict)


@pytest.mark.parametrize("kind", sorted(OTHERS))
def test_other_forms_are_refused(critic: FormCritic, kind: str) -> None:
    form = parse_forms(OTHERS[kind], PAGE)[0]
    verdict = critic.judge_one(form)
    assert not verdict.searchable
    assert verdict.type == kind
    assert verdict.reasons
    assert verdict.query_field is None
    with pytest.raises(UnsafeFormError):
        ensure_submittable(form, verdict)


def test_password_field_is_refused_whatever_the_score(critic: FormCritic) -> None:
    html = (
        "<form action='/search'><input name='q'><input type='password' name='k'>"
        "<button>Search</button></form>"
    )
    verdict = _verdict(critic, html)
    assert not verdict.searchable
    assert any("password" in r for r in verdict.reasons)


def test_file_field_is_refused(critic: FormCritic) -> None:
    html = (
        "<form action='/search' method='post' enctype='multipart/form-data'><input name='q'>"
        "<input type='file' name='img'><button>Search</button></form>"
    )
    assert "has a file field" in _verdict(critic, html).reasons


def test_refused_words_come_from_settings(critic: FormCritic, forms_settings: FormSettings) -> None:
    html = "<form action='/search'><input name='q'><button>Search and comment</button></form>"
    verdict = _verdict(critic, html)
    assert not verdict.searchable
    assert "mentions 'comment'" in verdict.reasons
    relaxed = load_critic(forms_settings.model_copy(update={"refused_words": ()}))
    assert relaxed.judge_one(parse_forms(html, PAGE)[0]).searchable
    assert critic.refused_words  # the shared critic was not changed


def test_the_request_rule_words_refuse_forms_whatever_the_settings(
    critic: FormCritic, forms_settings: FormSettings
) -> None:
    relaxed = load_critic(forms_settings.model_copy(update={"refused_words": ()}))
    for button, word in (("Search and delete", "delete"), ("Warenkorb leeren", "warenkorb")):
        html = f"<form action='/search'><input name='q'><button>{button}</button></form>"
        verdict = relaxed.judge_one(parse_forms(html, PAGE)[0])
        assert f"mentions {word!r}" in verdict.reasons
    html = "<form action='/account/close'><input name='q'><button>Go</button></form>"
    assert "mentions 'account close'" in relaxed.judge_one(parse_forms(html, PAGE)[0]).reasons


def test_a_verdict_for_another_form_does_not_open_the_gate(critic: FormCritic) -> None:
    good = _verdict(critic, SEARCH)
    login = parse_forms(OTHERS["login"], PAGE)[0]
    with pytest.raises(UnsafeFormError, match="password"):
        ensure_submittable(login, good)


def test_no_form_and_no_fields(critic: FormCritic) -> None:
    assert critic.judge([]) == []
    verdict = _verdict(critic, "<form action='/search'><input type='hidden' name='a'></form>")
    assert not verdict.searchable
    assert "has no field to fill" in verdict.reasons


def test_form_with_500_fields_gets_a_verdict(critic: FormCritic) -> None:
    inputs = "".join(f"<input name='f{i}'>" for i in range(500))
    verdict = _verdict(
        critic, f"<form action='/x' method='post'>{inputs}<button>Send</button></form>"
    )
    assert isinstance(verdict, CriticVerdict)
    assert not verdict.searchable
    assert 0.0 <= verdict.score <= 1.0


def test_as_dict_is_json_ready(critic: FormCritic) -> None:
    data = _verdict(critic, SEARCH).as_dict()
    assert {"type", "searchable", "score", "query_field", "reasons"} <= data.keys()
    assert isinstance(data["score"], float)


def test_domain_classifier_keeps_forms_of_the_domain(critic: FormCritic) -> None:
    books = [
        "Search books by title, author or ISBN. Novels, poetry, biographies, paperbacks.",
        "Find a book: author, title, publisher, edition, hardcover, paperback.",
    ]
    domain = copy.copy(critic).fit_domain(books)
    in_domain = parse_forms(
        "<form action='/search'><input name='q' placeholder='Book title or author'>"
        "<select name='f'><option>Paperback</option><option>Hardcover</option></select>"
        "<button>Search books</button></form>",
        PAGE,
    )[0]
    cars = parse_forms(
        "<form action='/cars'><select name='make'><option>Ford</option>"
        "<option>Toyota</option></select><input name='q' placeholder='Model, engine, mileage'>"
        "<button>Search used cars</button></form>",
        PAGE,
    )[0]
    book_verdict, car_verdict = domain.judge([in_domain, cars])
    assert book_verdict.searchable
    assert book_verdict.domain_score is not None
    assert not car_verdict.searchable
    assert any("out of domain" in r for r in car_verdict.reasons)
    assert critic.domain_ is None  # the shared critic has none
    with pytest.raises(ConfigError):
        domain.fit_domain([])


def test_critic_is_cached_under_a_versioned_key(
    forms_settings: FormSettings, critic: FormCritic
) -> None:
    import sklearn

    import deepcrawl
    from deepcrawl.forms import store

    path = cache_path(forms_settings)
    assert path.is_file()
    assert sklearn.__version__ in path.name
    assert deepcrawl.__version__ in path.name
    store._LOADED.clear()  # force a read from the file
    again = load_critic(forms_settings)
    assert again is not critic
    assert again.judge_one(parse_forms(SEARCH, PAGE)[0]).searchable


def test_unparseable_action_gets_a_verdict(critic: FormCritic) -> None:
    html = "<form action='http://[bad/search'><input name='q'><button>Search</button></form>"
    form = parse_forms(html, PAGE)[0]
    assert form.action == "http://[bad/search"
    assert isinstance(critic.judge_one(form), CriticVerdict)


def test_verdict_rows_hold_the_json_contract(critic: FormCritic) -> None:
    from deepcrawl.search.report import verdict_rows

    forms = parse_forms(SEARCH + OTHERS["login"], PAGE)
    rows = verdict_rows(forms, critic.judge(forms))
    assert [(r["action"], r["method"], r["searchable"], r["query_field"]) for r in rows] == [
        ("http://site.test/search", "GET", True, "q"),
        ("http://site.test/session", "POST", False, None),
    ]
    assert rows[1]["type"] == "login"
    assert verdict_rows([], critic.judge([])) == []


def test_unwritable_cache_is_a_clear_config_error(critic: FormCritic, tmp_path: Path) -> None:
    from deepcrawl.forms import store

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError, match="model_cache_dir"):
        store._save(critic, blocker / "cache" / "critic.pickle")
    assert list(tmp_path.iterdir()) == [blocker]


def test_site_wide_forms_are_scored_once(critic: FormCritic) -> None:
    first = parse_forms(SEARCH + OTHERS["login"], "http://site.test/a")
    second = parse_forms(SEARCH + OTHERS["login"], "http://site.test/b")
    verdicts = critic.judge(first)
    size = len(critic.memo_)
    assert critic.judge(second) == verdicts
    assert critic.judge([first[0], first[0]]) == [verdicts[0], verdicts[0]]
    assert len(critic.memo_) == size


def test_saving_prunes_stale_critics_of_this_install(critic: FormCritic, tmp_path: Path) -> None:
    from deepcrawl.forms import store

    path = tmp_path / "form-critic-1.0-sk9.9-abc-m5.pickle"
    stale = tmp_path / "form-critic-1.0-sk9.9-old-m5.pickle"
    stale_joblib = tmp_path / "form-critic-1.0-sk9.9-abc-m4.joblib"  # before the plain pickle
    other_env = tmp_path / "form-critic-1.0-sk8.0-abc-m5.pickle"
    for file in (stale, stale_joblib, other_env):
        file.write_text("x")
    store._save(critic, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, other_env.name])


def test_a_process_waiting_for_the_training_lock_reads_what_the_trainer_cached(
    critic: FormCritic,
    forms_settings: FormSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Processes started together train the critic once: one trains under the cache folder's
    lock, and the others wait for it, then read the critic it cached."""
    import fcntl
    import shutil
    import threading

    from deepcrawl.forms import store

    settings = forms_settings.model_copy(update={"model_cache_dir": tmp_path})
    trained: list[object] = []
    monkeypatch.setattr(store, "_LOADED", {})  # nothing in this process's memory
    monkeypatch.setattr(store, "train_critic", lambda *args, **kwargs: trained.append(args))
    loaded: list[FormCritic] = []
    with (tmp_path / "form-critic.lock").open("ab") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process is training
        waiter = threading.Thread(target=lambda: loaded.append(load_critic(settings)))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive()  # it waits for the lock
        shutil.copy(cache_path(forms_settings), cache_path(settings))  # what the other cached
    waiter.join(30)
    assert not trained
    assert loaded[0].judge_one(parse_forms(SEARCH, PAGE)[0]).searchable
