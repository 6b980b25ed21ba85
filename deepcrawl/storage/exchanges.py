"""The HTTP exchange behind a stored page: ``page_exchange`` rows to and from
:class:`~deepcrawl.page.fetched.Exchange`.

The payload is stored only when it is not byte for byte the page's stored body, and then by the
body's rule: inline up to ``storage.bodies_inline_max`` bytes (always on PostgreSQL), else in a
file named by its SHA-256 (see :mod:`deepcrawl.storage.repository`).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import StorageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.page.fetched import Exchange
    from deepcrawl.storage import tables as t

__all__ = ["exchange_of", "exchange_values", "payload_of"]


def exchange_values(
    page_id: int,
    exchange: Exchange,
    *,
    page_body: bytes,
    inline_max: int | None,
    write_body: Callable[[str, bytes], str],
) -> dict[str, Any]:
    """The column values of a page's exchange row (for a Core insert).

    Args:
        page_body: the page's stored body (a payload equal to it is not stored again).
        inline_max: the largest payload kept in the database; None: every payload.
        write_body: stores a large payload as a file (by its SHA-256) and returns the path.
    """
    payload = exchange.body
    same = payload == page_body
    inline = same or inline_max is None or len(payload) <= inline_max
    return {
        "page_id": page_id,
        "method": exchange.method,
        "url": exchange.url[:4096],
        "request_headers": [list(pair) for pair in exchange.request_headers],
        "protocol": exchange.protocol,
        "status": exchange.status,
        "reason": exchange.reason[:256],
        "headers": [list(pair) for pair in exchange.headers],
        "body_is_page": same,
        "body": None if same or not inline else payload,
        "body_path": None if inline else write_body(hashlib.sha256(payload).hexdigest(), payload),
        "redirects": [_hop_fields(hop) for hop in exchange.redirects],
    }


def _hop_fields(hop: Exchange) -> dict[str, Any]:
    return {
        "method": hop.method,
        "url": hop.url,
        "request_headers": [list(pair) for pair in hop.request_headers],
        "protocol": hop.protocol,
        "status": hop.status,
        "reason": hop.reason,
        "headers": [list(pair) for pair in hop.headers],
        "body": base64.b64encode(hop.body).decode("ascii"),
    }


def payload_of(row: t.PageExchange) -> bytes | None:
    """The stored payload of an exchange not stored as its page's body.

    Raises:
        StorageError: its file cannot be read.
    """
    if row.body_path is None:
        return row.body
    try:
        return Path(row.body_path).read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read payload file {row.body_path}: {exc}") from exc


def exchange_of(row: t.PageExchange, body: bytes) -> Exchange:
    """The exchange a row holds, with its payload ``body``."""
    # imported here: the browser package loads Playwright, which storage alone does not need
    from deepcrawl.page.fetched import Exchange

    return Exchange(
        method=row.method,
        url=row.url,
        request_headers=tuple((name, value) for name, value in row.request_headers),
        protocol=row.protocol,
        status=row.status,
        reason=row.reason,
        headers=tuple((name, value) for name, value in row.headers),
        body=body,
        redirects=tuple(
            Exchange(
                method=hop["method"],
                url=hop["url"],
                request_headers=tuple((name, value) for name, value in hop["request_headers"]),
                protocol=hop["protocol"],
                status=hop["status"],
                reason=hop["reason"],
                headers=tuple((name, value) for name, value in hop["headers"]),
                body=base64.b64decode(hop["body"]),
            )
            for hop in row.redirects
        ),
    )
