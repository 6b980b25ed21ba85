"""The one HTML parser, and what every floor reads from a parsed page: its base URL, title, text.

lxml's recovering parser, set up once: comments dropped (unless asked for), documents nested deeper
than libxml2's default limit kept, bytes read as UTF-8 (the fetchers hand over text they already
decoded; see :mod:`deepcrawl.browser.http`). It must never fail on broken markup: the few inputs
lxml rejects (an empty or binary document) give None, and every reader here turns that into an empty
answer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import lxml.etree
import lxml.html

if TYPE_CHECKING:
    from collections.abc import Callable

    from lxml.html import HtmlElement

__all__ = [
    "base_url",
    "collapse",
    "join_url",
    "page_text",
    "page_title",
    "parse_html",
    "text_of",
    "visible_text",
]

_SPACE = re.compile(r"\s+")
# huge_tree: without it libxml2 drops everything nested deeper than 255 elements
_PARSER = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, huge_tree=True)
_PARSER_WITH_COMMENTS = lxml.html.HTMLParser(encoding="utf-8", huge_tree=True)
#: Elements whose text a reader never sees.
SKIP_TEXT = frozenset({"script", "style", "noscript", "template", "option", "textarea"})
_BUTTON_TYPES = frozenset({"submit", "button", "reset"})


def collapse(text: str | None) -> str:
    """``text`` with runs of white space made one space, trimmed; empty for None."""
    return _SPACE.sub(" ", text or "").strip()


def join_url(base: str, reference: str) -> str:
    """``reference`` resolved against ``base``; kept as written when it cannot be parsed."""
    try:
        return urljoin(base, reference)
    except ValueError:  # "http://[bad" and friends
        return reference


def parse_html(html: str | bytes, *, comments: bool = False) -> HtmlElement | None:
    """Parse a document with lxml's recovering HTML parser.

    Args:
        html: the document, text or UTF-8 bytes.
        comments: keep comment nodes. Readers of text drop them (``a<!-- c -->b`` reads
            ``ab``); readers of the DOM's leaves keep them, since a comment splits a text node
            in two leaves as in the DOM the link learners' papers number.

    Returns:
        The root element, or None when there is nothing to parse (an empty document).
    """
    data = html.encode("utf-8", "replace") if isinstance(html, str) else html
    if not data.strip():
        return None
    try:
        root = lxml.html.fromstring(data, parser=_PARSER_WITH_COMMENTS if comments else _PARSER)
    except (lxml.etree.ParserError, ValueError):
        return None
    return root if isinstance(root, lxml.html.HtmlElement) else None


def base_url(root: HtmlElement, page_url: str) -> str:
    """The URL a page's relative links resolve against: its first ``<base href>``, else its own."""
    # the document's, whatever part of it ``root`` is; an element walk, where an XPath is
    # compiled on every call
    for base in root.getroottree().getroot().iter("base"):
        if (href := base.get("href")) is not None:
            return join_url(page_url, href.strip())
    return page_url


_TITLE_END = re.compile(r"</title\s*>", re.IGNORECASE)
_TITLE_END_BYTES = re.compile(_TITLE_END.pattern.encode(), re.IGNORECASE)


def page_title(body: str | bytes | HtmlElement) -> str:
    """The document's ``<title>``, whitespace-collapsed; empty when it has none.

    Every delivered page is asked for its title: of a document parsed already, its first title
    element; else the part up to the first ``</title>`` is parsed first (the head of a page,
    not its body), the whole page only where that part holds no title element (the first
    ``</title>`` sat in a script or a comment).
    """
    if not isinstance(body, str | bytes):
        return collapse(body.findtext(".//title"))
    end = _TITLE_END.search(body) if isinstance(body, str) else _TITLE_END_BYTES.search(body)
    if end is not None:
        head = parse_html(body[: end.end()])
        title = None if head is None else head.findtext(".//title")
        if title is not None:
            return collapse(title)
    root = parse_html(body)
    if root is None:
        return ""
    return collapse(root.findtext(".//title"))


def page_text(html: str | bytes, limit: int = 20000) -> str:
    """The visible text of a page (title and body, scripts and styles left out), collapsed.

    Used to turn an example page of the user's domain into a training text for the domain
    classifier (:meth:`deepcrawl.forms.critic.FormCritic.fit_domain`).
    """
    root = parse_html(html)
    if root is None:
        return ""
    title = " ".join(str(t) for t in root.xpath("//title/text()"))
    body = root.find("body")
    return collapse(f"{title} {visible_text(body if body is not None else root, limit)}")[:limit]


def visible_text(element: HtmlElement, limit: int) -> str:
    """Text of ``element`` a user sees, button values included; hidden subtrees left out."""
    return text_of(element, limit, hidden, values=True)


def text_of(
    element: HtmlElement, limit: int, skip: Callable[[HtmlElement], bool], *, values: bool
) -> str:
    """Collapsed text of ``element``'s subtree, depth-first without recursion (pages nest
    thousands deep), leaving out script-like elements and those ``skip`` names."""
    parts: list[str] = []
    size = 0
    stack: list[HtmlElement | str | None] = [element]
    while stack and size <= limit:
        item = stack.pop()
        if item is None or isinstance(item, str):
            if item and item.strip():
                parts.append(item)
                size += len(item)
            continue
        # in reading order: each child's button value, its subtree, then its tail
        children: list[HtmlElement | str | None] = []
        for child in item:
            if isinstance(child.tag, str) and child.tag not in SKIP_TEXT and not skip(child):
                if values and (child.get("type") or "").lower() in _BUTTON_TYPES:
                    children.append(child.get("value"))
                children.append(child)
            children.append(child.tail)
        stack.extend(reversed(children))
        stack.append(item.text)  # popped first
    return collapse(" ".join(parts))[:limit]


def hidden(element: HtmlElement) -> bool:
    """True when ``element`` is hidden by an attribute or inline style."""
    style = (element.get("style") or "").replace(" ", "").lower()
    return (
        element.get("hidden") is not None
        or "display:none" in style
        or "visibility:hidden" in style
        or element.get("aria-hidden") == "true"
    )
