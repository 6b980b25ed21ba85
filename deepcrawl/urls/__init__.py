"""URL normalisation and tokenising (Hernández et al., "Tokeniser"; RFC 3986, URL Standard).

The prototyper learns the shapes of a site's URLs, so two spellings of one URL must become one
string before anything is counted; the crawl keys its frontier and its stored pages by that
string, so it is a record's identity too. :func:`normalise_url` gives that *normal form*, built on
field libraries where the web's rules are intricate — w3lib's ``safe_url_string`` (the URL
Standard's parsing and percent-encoding, as browsers apply it) and ``idna`` (UTS 46, as Chromium
and httpx encode host names) — with the project's own rules on top:

* relative references (``/ref=logo``, ``./ref=logo``) are resolved against a base (RFC 3986 §5.2);
* leading and trailing spaces and controls are stripped, tabs and newlines inside removed, and a
  backslash read as ``/`` before the query, as browsers do; other control characters are refused;
* the scheme is lower-cased; the host is percent-decoded, lower-cased and, when it is not ASCII,
  IDNA-encoded (``bücher.de`` → ``xn--bcher-kva.de``; UTS 46 non-transitional, so ``ß`` stays
  ``ß``: ``straße.de`` → ``xn--strae-oqa.de``); an IPv6 address is compressed (RFC 5952); the
  scheme's default port is dropped and an empty path becomes ``/`` (§6.2.2.1, §6.2.3);
* characters that may not appear raw (non-ASCII, space, ``"``, ``<``, ``[``, ``|`` …, and ``'`` in
  the query) become UTF-8 escapes; escapes already there are kept, never encoded twice, and a
  ``%`` that starts no escape becomes ``%25`` (§2.1, §2.4);
* escapes are normalised (§6.2.2.2): upper-case hex, and those of unreserved characters decoded;
  in the query also those of the reserved characters that are no delimiter of a form-encoded
  query (``! $ ( ) * , / : ? @``; not ``;``, which CGI reads as ``&``) and ``%20`` becomes
  ``+``, so ``title=Talk%3AX`` and ``title=Talk:X`` — one request to every server — are one URL;
* dot segments are removed (§5.2.4, ``%2E`` included) and the fragment dropped;
* query items are sorted — order never matters, repeated keys are kept, empty items dropped, and
  a bare ``key`` stays apart from ``key=``; a query that separates its parameters by ``;``
  (``?p=proj;a=commit``, :mod:`~deepcrawl.urls._query`) is split there as at ``&`` and keeps
  ``;`` between them;
* session ids are dropped — path parameters (``;jsessionid=…``) and query items (``PHPSESSID=…``,
  ``sid=…``) named in :data:`SESSION_PARAMS` whose value looks like an id (long enough,
  not a number): a server that opens a session per response links one page under a new id
  every time, and each would be another record.

Whatever cannot be read raises :class:`~deepcrawl.errors.InvalidURLError`, which keeps the URL:
a control character, an overlong URL, an unsupported scheme, a missing or invalid host (one IDNA
refuses), a bad port.

:func:`tokenise` splits a normal form into scheme, host, path segments and the query as sorted
``(key, value)`` pairs; :func:`split_segment` splits a segment into tokens at ``-``, ``_``, ``.``
and digit/letter boundaries. A URL made only of characters that may appear raw (nearly every
link) never reaches the field libraries: for it their answer is the URL itself (a property test
checks that), so the common case stays plain string work and precompiled regular expressions —
it runs on millions of URLs.

The package, by role: :mod:`~deepcrawl.urls._normal` (the normal form), :mod:`~deepcrawl.urls
._sessions` (session ids), :mod:`~deepcrawl.urls._tokens` (the parts and tokens),
:mod:`~deepcrawl.urls._rewrite` (a URL as a browser or a page writes it), :mod:`~deepcrawl
.urls._query` (a query's parameters, whatever their separator).
"""

from __future__ import annotations

from deepcrawl.urls._normal import (
    ALLOWED_SCHEMES,
    MAX_START_URL_LENGTH,
    MAX_URL_LENGTH,
    URLNormaliser,
    ascii_host,
    normalise_or_none,
    normalise_url,
    normalise_urls,
)
from deepcrawl.urls._query import (
    join_query,
    query_pairs,
    query_separator,
    split_query,
    with_ampersands,
)
from deepcrawl.urls._rewrite import browser_url, drop_query_keys, with_query_encoding
from deepcrawl.urls._sessions import (
    SESSION_PARAMS,
    SESSION_VALUE_MIN_LENGTH,
    SessionParams,
    drop_session_params,
)
from deepcrawl.urls._tokens import URLTokens, parse_normalised, split_segment, tokenise

__all__ = [
    "ALLOWED_SCHEMES",
    "MAX_START_URL_LENGTH",
    "MAX_URL_LENGTH",
    "SESSION_PARAMS",
    "SESSION_VALUE_MIN_LENGTH",
    "SessionParams",
    "URLNormaliser",
    "URLTokens",
    "ascii_host",
    "browser_url",
    "drop_query_keys",
    "drop_session_params",
    "join_query",
    "normalise_or_none",
    "normalise_url",
    "normalise_urls",
    "parse_normalised",
    "query_pairs",
    "query_separator",
    "split_query",
    "split_segment",
    "tokenise",
    "with_ampersands",
    "with_query_encoding",
]
