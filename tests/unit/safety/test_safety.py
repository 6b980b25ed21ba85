"""The request rule: which URLs and link texts read as actions the crawler must never trigger."""

from __future__ import annotations

import pytest

from deepcrawl.safety import UNSAFE_ACTIONS, SafetyRule, words

RULE = SafetyRule()


def test_words_split_case_punctuation_digits_and_accents() -> None:
    assert words("btn-logOut") == ["btn", "log", "out"]
    assert words("/account/close?id=1") == ["account", "close", "id", "1"]
    assert words("Konto schließen") == ["konto", "schliessen"]
    assert words("Déconnexion") == ["deconnexion"]
    assert words("page2") == ["page", "2"]


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("http://h/logout", "logout"),
        ("http://h/log-out", "log out"),
        ("http://h/users/signOut", "sign out"),
        ("http://h/sign_off", "sign off"),
        ("http://h/account/delete?id=1", "account delete"),
        ("http://h/account/close", "account close"),
        ("http://h/api/account/close", "account close"),
        ("http://h/session/end", "session end"),
        ("http://h/cart", "cart"),
        ("http://h/carts/3", "cart"),
        ("http://h/basket.php", "basket"),
        ("http://h/checkout/step1", "checkout"),
        ("http://h/orders/5", "order"),
        ("http://h/newsletter/unsubscribe?u=9", "unsubscribe"),
        ("http://h/x?action=delete&id=3", "delete"),
        ("http://h/x?logout=1", "logout"),
        ("http://h/index.php?page=cart", "cart"),
        ("http://h/items/remove/4", "remove"),
    ],
)
def test_unsafe_urls_are_refused(url: str, found: str) -> None:
    assert RULE.url_reason(url) == found
    assert not RULE.allows(url)
    assert RULE.reason(url) == f"reads as {found!r}"


@pytest.mark.parametrize(
    "url",
    [
        "http://h/removed-books",  # a list of removed books is a page, not an action
        "http://h/deleted",
        "http://h/cartography/maps",  # a word that merely contains "cart"
        "http://h/business/buyers-guide",
        "http://h/payroll-history",
        "http://h/book/17",
        "http://h/category/fiction?sort=title&page=2",  # "page" is no Italian "paga"
        "http://h/list?order=asc",  # a sort key
        "http://h/list?sort=order&dir=desc",
        "http://h/list?orderBy=date",
        "http://h/search?q=delete+account",  # what the user searches for
        "http://h/api/search?query=logout&offset=10",
        "http://h/carte-des-vins",  # French "carte" is no English "cart"
        "http://h/pagina/2",
        "http://h/account/login",  # reading a login page changes nothing
        "http://h/2024/03/15/some-slug",
        "http://cart.example.com/",  # the host is the scope's business
    ],
)
def test_harmless_urls_pass(url: str) -> None:
    assert RULE.url_reason(url) is None
    assert RULE.allows(url)


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("http://h/abmelden", "abmelden"),
        ("http://h/warenkorb", "warenkorb"),
        ("http://h/konto/loeschen", "loeschen"),  # a transliterated umlaut
        ("http://h/Konto-l%C3%B6schen", "konto löschen"),
        ("http://h/deconnexion", "déconnexion"),
        ("http://h/panier", "panier"),
        ("http://h/supprimer?id=2", "supprimer"),
        ("http://h/cerrar-sesion", "cerrar sesión"),
        ("http://h/carrito", "carrito"),
        ("http://h/esci", "esci"),
        ("http://h/carrello", "carrello"),
        ("http://h/sair", "sair"),
        ("http://h/carrinho", "carrinho"),
        ("http://h/uitloggen", "uitloggen"),
        ("http://h/winkelwagen", "winkelwagen"),
    ],
)
def test_languages(url: str, found: str | None) -> None:
    assert RULE.url_reason(url) == found


def test_every_language_has_session_account_and_buying_words() -> None:
    assert set(UNSAFE_ACTIONS) >= {"en", "de", "fr", "es", "it", "pt", "nl"}
    for language, entries in UNSAFE_ACTIONS.items():
        assert len(entries) >= 15, language


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Delete my account", "delete"),
        ("Log out", "log out"),
        ("Sign-off", "sign off"),
        ("Close account", "close account"),
        ("Add to cart", "add to cart"),
        ("Proceed to checkout", "checkout"),
        ("Abmelden", "abmelden"),
        ("Se déconnecter", "se déconnecter"),
        ("Warenkörbe", "warenkorb"),
        ("Details", None),
        ("Done", None),
        ("Close", None),
        ("Log in", None),
        ("Order by date", None),
        ("In order of appearance", None),
        ("Recently removed titles", None),
    ],
)
def test_link_text(text: str, found: str | None) -> None:
    assert RULE.text_reason(text) == found


def test_extra_words_are_stemmed_and_matched_in_every_language() -> None:
    rule = SafetyRule(("sign up", "newsletter"))
    assert rule.text_reason("Sign-up now") == "sign up"
    assert rule.url_reason("http://h/newsletters") == "newsletter"
    assert rule.text_matches("Newsletter: sign up or log out") == [
        "newsletter",
        "sign up",
        "log out",
    ]
    assert SafetyRule().text_reason("Sign up") is None


def test_link_text_is_judged_with_the_url() -> None:
    assert RULE.reason("http://h/u/7/x", "Delete my account") == "link text reads as 'delete'"
    assert RULE.reason("http://h/u/7/x", "Details") is None


def test_trusted_urls_are_exempt() -> None:
    rule = RULE.with_trusted(lambda url: "/book/" in url)
    assert rule.reason("http://h/book/the-order-of-things", "The Order of Things") is None
    assert rule.reason("http://h/orders") == "reads as 'order'"
