"""Credentials in URLs: taken off the URLs a crawl keeps, and masked in every text it shows.

A user may give a URL with a user name and password in it (``http://alice:pw@staging.example/``:
RFC 3986 §3.2.1's *userinfo*, deprecated for passwords but still what people paste for a site
behind a web server's password). deepcrawl takes them off at the door:
:func:`split_userinfo` gives the URL without them and the :class:`Credentials`, which become
that origin's HTTP Basic authentication (RFC 7617), sent as a header to that origin only
(:mod:`deepcrawl.browser.access`). So no URL the crawl stores, compares, logs, prints or writes
carries them: a record's identity is the same with or without them, and a ``--like`` example
matches the site's links whichever way it is written.

:func:`redact` is the one mask for text shown to a person or written to a file (the database
URL in a message, a proxy URL among the settings, a URL in an error or a log record): every
``scheme://user:password@`` in it becomes ``scheme://user:***@``.

This module imports nothing of deepcrawl's, so that every floor may use it, settings and the
exception tree included.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

__all__ = ["MASK", "Credentials", "redact", "split_userinfo"]

#: What a password is shown as (SQLAlchemy's mask too, so a database URL reads the same).
MASK = "***"

#: ``scheme://`` (RFC 3986 §3.1), then the authority up to the path, query or fragment.
_AUTHORITY_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)")
#: A URL's ``user:password@`` in free text: the password runs to the authority's last ``@``
#: (as :func:`urllib.parse.urlsplit` and browsers read it), never past a space or a delimiter.
_PASSWORD_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:]*):[^\s/?#]*@")
#: C0 controls and space, which a URL given by a user may start or end with.
_C0_OR_SPACE = "".join(map(chr, range(0x21)))


@dataclass(frozen=True, slots=True)
class Credentials:
    """A user name and password from a URL's userinfo, percent-decoded.

    Attributes:
        user: the user name (``""`` for ``http://:pw@host/``).
        password: the password; ``""`` when the URL gives none (``http://alice@host/``),
            which HTTP Basic sends as ``alice:``.
    """

    user: str
    password: str = field(
        default="", repr=False
    )  # a repr (a log record, a traceback) never shows it

    def authorization(self) -> str:
        """The ``Authorization`` header value of HTTP Basic (RFC 7617 §2, UTF-8 as its
        ``charset`` parameter names it, as browsers and httpx encode it)."""
        token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode("ascii")
        return f"Basic {token}"


def split_userinfo(url: str) -> tuple[str, Credentials | None]:
    """``url`` without its userinfo, and the credentials it held.

    Everything else stays as given (the host, the port, the path, an IPv6 literal's brackets):
    the URL is checked and normalised later, by whoever takes it. The userinfo ends at the
    authority's last ``@``, as :func:`urllib.parse.urlsplit` and browsers read it; the user
    name ends at its first ``:``; both are percent-decoded (``p%40ss`` is ``p@ss``).

    Returns:
        The URL without ``user[:password]@``, and its :class:`Credentials`; None for a URL
        with no userinfo, or an empty one (``http://@host/``, whose ``@`` is dropped too).
        Text that is no ``scheme://`` URL comes back as it is, with None.
    """
    text = url.strip(_C0_OR_SPACE)
    match = _AUTHORITY_RE.match(text)
    if match is None or "@" not in match[2]:
        return url, None
    userinfo, _, hostport = match[2].rpartition("@")
    bare = f"{match[1]}{hostport}{text[match.end() :]}"
    if not userinfo:
        return bare, None
    user, _, password = userinfo.partition(":")
    return bare, Credentials(unquote(user), unquote(password))


def redact(text: str) -> str:
    """``text`` with the password of every URL in it masked: ``scheme://user:***@host``.

    The one mask of every output (messages, log records, settings shown): a URL with no
    password, and any other text, come back unchanged.
    """
    if "@" not in text:  # the common case: nothing to look for
        return text
    return _PASSWORD_RE.sub(rf"\1:{MASK}@", text)
