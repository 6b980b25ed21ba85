"""Synthetic URL sets for the prototyper: 50 kinds of URL with realistic variety.

Each kind is a template: path with typed holes (ids, slugs, dates, hex hashes, usernames, a small
set of categories) and query parameters, some required, some optional, some noise
(``utm_source``, ``sessionid``) that any kind may carry. ``generate(n, seed)`` returns ``n`` URLs
and the kind of each, so a benchmark can score prototypes against the truth.
"""

from __future__ import annotations

import random
import string

__all__ = ["KINDS", "generate"]

_WORDS = [
    "apple",
    "river",
    "stone",
    "light",
    "garden",
    "paper",
    "silver",
    "window",
    "forest",
    "music",
    "cloud",
    "winter",
    "ocean",
    "bridge",
    "candle",
    "dragon",
    "mirror",
    "planet",
    "rocket",
    "shadow",
    "summer",
    "thunder",
    "valley",
    "yellow",
]
_CATS = ("books", "music", "films", "games", "garden", "kitchen", "sport", "toys", "tools", "art")
_SORTS = ("price", "name", "date", "rating")


def _slug(r: random.Random) -> str:
    return "-".join(r.choice(_WORDS) for _ in range(r.randint(2, 5)))


def _fill(hole: str, r: random.Random) -> str:
    match hole:
        case "id":
            return str(r.randint(1, 10_000_000))
        case "n":
            return str(r.randint(1, 200))
        case "slug":
            return _slug(r)
        case "word":
            return (
                r.choice(_WORDS) + str(r.randint(0, 999)) if r.random() < 0.3 else r.choice(_WORDS)
            )
        case "hex":
            return "".join(r.choice("0123456789abcdef") for _ in range(32))
        case "user":
            return (
                r.choice(_WORDS) + "_" + "".join(r.choice(string.ascii_lowercase) for _ in range(4))
            )
        case "date":
            return f"{r.randint(2000, 2030)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
        case "y":
            return str(r.randint(1995, 2030))
        case "m":
            return f"{r.randint(1, 12):02d}"
        case "d":
            return f"{r.randint(1, 28):02d}"
        case "cat":
            return r.choice(_CATS)
        case "sort":
            return r.choice(_SORTS)
        case "sku":
            return "".join(r.choice(string.ascii_uppercase) for _ in range(3)) + str(
                r.randint(100, 99999)
            )
    raise ValueError(hole)


#: (kind, path template, [(key, hole, probability)]); holes in braces.
KINDS: list[tuple[str, str, list[tuple[str, str, float]]]] = [
    ("product", "/product/{id}", []),
    ("product_reviews", "/product/{id}/reviews", [("page", "n", 0.4)]),
    ("product_questions", "/product/{id}/questions", []),
    ("product_html", "/p/{slug}-{id}.html", []),
    ("item_sku", "/item/{sku}", [("color", "word", 0.3)]),
    ("category", "/category/{cat}", [("page", "n", 0.5), ("sort", "sort", 0.3)]),
    ("subcategory", "/category/{cat}/{slug}", [("page", "n", 0.3)]),
    ("search", "/search", [("q", "word", 1.0), ("page", "n", 0.5), ("sort", "sort", 0.2)]),
    ("advanced_search", "/search/advanced", [("title", "word", 0.8), ("author", "word", 0.5)]),
    ("user", "/user/{user}", []),
    ("user_followers", "/user/{user}/followers", [("page", "n", 0.3)]),
    ("user_posts", "/user/{user}/posts", [("page", "n", 0.3)]),
    ("blog_post", "/blog/{y}/{m}/{d}/{slug}", []),
    ("blog_month", "/blog/{y}/{m}", []),
    ("news", "/news/{date}/{slug}", []),
    ("news_tag", "/news/tag/{word}", []),
    ("api_item", "/api/v2/items/{hex}", []),
    ("api_user", "/api/v2/users/{id}", [("fields", "word", 0.5)]),
    ("download", "/download/{hex}", [("token", "hex", 1.0)]),
    ("image", "/img/{id}.jpg", []),
    ("thumb", "/img/thumb/{id}.png", []),
    ("forum_thread", "/forum/t/{slug}/{id}", [("page", "n", 0.2)]),
    ("forum_board", "/forum/board/{id}", []),
    ("wiki", "/wiki/{slug}", []),
    ("wiki_history", "/wiki/{slug}/history", []),
    ("wiki_edit", "/wiki/{slug}/edit", [("section", "n", 0.5)]),
    ("cart_add", "/cart/add", [("product", "id", 1.0), ("qty", "n", 0.6)]),
    ("compare", "/compare", [("a", "id", 1.0), ("b", "id", 1.0)]),
    ("store", "/stores/{slug}", []),
    ("store_hours", "/stores/{slug}/hours", []),
    ("event", "/events/{date}", []),
    ("event_detail", "/events/{date}/{id}", []),
    ("video", "/watch", [("v", "hex", 1.0), ("t", "n", 0.3)]),
    ("playlist", "/playlist", [("list", "sku", 1.0)]),
    ("job", "/jobs/{id}-{slug}", []),
    ("job_apply", "/jobs/{id}-{slug}/apply", []),
    ("recipe", "/recipes/{slug}", [("servings", "n", 0.2)]),
    ("recipe_print", "/recipes/{slug}/print", []),
    ("author", "/authors/{slug}", []),
    ("author_books", "/authors/{slug}/books", [("page", "n", 0.5)]),
    ("release", "/releases/v{n}.{n}.{n}", []),
    ("doc", "/docs/{word}/{slug}.html", []),
    ("legacy_article", "/index.php", [("option", "article", 1.0), ("id", "id", 1.0)]),
    ("tracking", "/r/{hex}", [("url", "slug", 1.0)]),
    ("invoice", "/account/invoices/{id}", []),
    ("order", "/account/orders/{sku}", []),
    ("message", "/messages/{id}", [("reply", "n", 0.1)]),
    ("map", "/map/{n}/{n}/{n}", []),
    ("static_page", "/help/{word}", []),
    ("archive", "/archive/{y}", [("page", "n", 0.5)]),
]

_HOSTS = ("https://www.example.com", "https://www.example.com", "https://shop.example.com")


def generate(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` URLs spread over the 50 kinds (sizes vary 1:20), and the kind of each URL."""
    r = random.Random(seed)
    weights = [1 + (i * 7919) % 20 for i in range(len(KINDS))]
    kinds = r.choices(range(len(KINDS)), weights=weights, k=n)
    urls: list[str] = []
    names: list[str] = []
    for k in kinds:
        name, path, params = KINDS[k]
        host = _HOSTS[k % 3 == 2] if k % 7 else _HOSTS[2]
        pieces = path.split("{")
        out = [pieces[0]]
        for piece in pieces[1:]:
            hole, _, rest = piece.partition("}")
            out.append(_fill(hole, r) + rest)
        query = [
            f"{key}={_fill(hole, r) if hole != 'article' else 'com_content'}"
            for key, hole, p in params
            if p >= 1.0 or r.random() < p
        ]
        if r.random() < 0.05:
            query.append(f"utm_source={r.choice(_WORDS)}")
        if r.random() < 0.02:
            query.append(f"sessionid={_fill('hex', r)}")
        r.shuffle(query)
        urls.append(host + "".join(out) + ("?" + "&".join(query) if query else ""))
        names.append(name)
    return urls, names
