"""The words of actions a crawler must never trigger, by language (data, no logic).

A GET that logs the crawler out, deletes or closes an account, ends a session, fills a cart or
pays is as harmful as a form submitted by mistake. Each entry is a word or a phrase as a site
writes it in a path (``/log-out``, ``/account/close``), a query (``?action=delete``) or a link
text ("Delete my account"); :mod:`deepcrawl.safety._rule` tokenises and stems both sides, so an
entry needs no plural, no case variant and no accents. Phrases match as consecutive words, so a
two-word action whose order varies (``close account`` / ``/account/close``) is listed both ways.

Words that name a state rather than an action (``removed``, ``deleted``) and words that merely
contain an entry (``cartography``) are *not* refused: matching is by whole, stemmed word, and the
stemmers strip only inflections that keep the action (plural, gender, infinitive endings).
"""

from __future__ import annotations

from typing import Final

__all__ = ["FREE_TEXT_KEYS", "NOT_ACTIONS", "SORT_KEYS", "UNSAFE_ACTIONS"]

#: Action words and phrases by ISO 639-1 language code.
UNSAFE_ACTIONS: Final[dict[str, tuple[str, ...]]] = {
    "en": (
        # the session
        "logout", "log out", "logoff", "log off", "signout", "sign out", "signoff", "sign off",
        "end session", "session end", "session destroy", "session delete", "session close",
        # the account and its data
        "delete", "remove", "destroy", "erase", "purge", "trash", "deactivate", "unregister",
        "close account", "account close", "cancel account", "account cancel",
        "close my account", "delete account", "account delete",
        # subscriptions
        "subscribe", "unsubscribe", "cancel subscription", "unfollow", "opt out", "optout",
        # buying
        "cart", "basket", "checkout", "buy", "purchase", "order", "pay", "payment",
        "add to cart", "add to basket", "add to bag", "shopping bag",
    ),
    "de": (
        "abmelden", "abmeldung", "ausloggen", "logge aus", "sitzung beenden", "sitzung beendet",
        "löschen", "lösche", "loeschen", "entfernen", "entferne", "vernichten",
        "konto schließen", "konto löschen", "konto kündigen", "kündigen", "kuendigen", "kündigung",
        "abonnieren", "abbestellen", "abo kündigen",
        "warenkorb", "einkaufswagen", "kasse", "zur kasse", "kaufen", "kaufe",
        "bestellen", "bestelle", "bestellung", "bezahlen", "zahlung",
    ),
    "fr": (
        "déconnexion", "déconnecter", "se déconnecter", "déconnecte", "fermer la session",
        "supprimer", "supprime", "supprimez", "suppression", "effacer", "efface", "retirer",
        "fermer le compte", "fermer mon compte", "clôturer le compte", "clôturer mon compte",
        "abonner", "s abonner", "désabonner", "désabonnement", "désinscrire", "désinscription",
        "panier", "caisse", "commandez", "commande", "passer commande", "acheter", "achat",
        "achetez", "payer", "paiement",
    ),
    "es": (
        "cerrar sesión", "desconectar", "desconectarse",
        "eliminar", "elimina", "borrar", "borra", "quitar", "quita",
        "cerrar cuenta", "cerrar mi cuenta", "eliminar cuenta", "eliminar mi cuenta",
        "suscribir", "suscribirse", "suscríbete", "darse de baja", "cancelar suscripción",
        "carrito", "cesta", "comprar", "compra", "cómpralo", "pedido", "realizar pedido",
        "pagar", "pago",
    ),
    "it": (
        "esci", "disconnetti", "disconnettiti", "chiudi sessione",
        "elimina", "eliminare", "cancella", "cancellare", "rimuovi", "rimuovere",
        "chiudi account", "chiudi il tuo account", "elimina account",
        "iscriviti", "abbonati", "disiscriviti", "annulla iscrizione",
        "carrello", "cassa", "acquista", "acquistare", "compra", "comprare", "ordina",
        "ordinare", "ordine", "paga", "pagare", "pagamento",
    ),
    "pt": (
        "sair", "terminar sessão", "encerrar sessão", "desconectar",
        "excluir", "apagar", "remover", "eliminar",
        "excluir conta", "encerrar conta", "encerrar minha conta",
        "assinar", "assine", "inscrever", "descadastrar", "cancelar assinatura",
        "carrinho", "cesto", "finalizar compra", "comprar", "compra", "encomendar",
        "encomenda", "pedido", "pagar", "pagamento",
    ),
    "nl": (
        "uitloggen", "afmelden", "log uit", "sessie beëindigen",
        "verwijderen", "verwijder", "wissen",
        "account opheffen", "account sluiten", "account verwijderen",
        "abonneren", "uitschrijven", "opzeggen",
        "winkelwagen", "winkelmand", "winkelmandje", "afrekenen", "kassa", "kopen", "koop",
        "bestellen", "bestel", "bestelling", "betalen", "betaal", "betaling",
    ),
}  # fmt: skip

#: Phrases holding an action word that name something else; their words are not judged.
NOT_ACTIONS: Final[tuple[str, ...]] = (
    "order by", "sort order", "sort by order", "in order", "orderby",
)  # fmt: skip

#: Query keys that sort or page a list: ``?order=asc`` reorders, it does not order goods.
SORT_KEYS: Final[frozenset[str]] = frozenset(
    {"order", "orderby", "order_by", "sort", "sortby", "sort_by", "sortorder", "dir", "direction"}
)

#: Query keys whose values are what a user typed (``?q=delete`` searches for the word).
FREE_TEXT_KEYS: Final[frozenset[str]] = frozenset(
    {"q", "query", "search", "s", "keyword", "keywords", "kw", "term", "terms", "text", "k"}
)
