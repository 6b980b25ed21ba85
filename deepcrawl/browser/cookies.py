"""Cookie files: a Netscape ``cookies.txt``, a JSON list of cookies, a Playwright storage state.

What :class:`~deepcrawl.browser.access.SiteAccess` reads once for both fetchers, as Playwright
cookie dicts (``name``, ``value``, ``domain`` with a leading dot for a domain cookie, ``path``,
``expires``, ``httpOnly``, ``secure``, ``sameSite``): :func:`load_cookies` reads the first two
(browser extensions' exports and Playwright's ``context.cookies()`` among the JSON ones),
:func:`load_storage_state` the third (what ``deepcrawl login`` saves). Expired cookies are left
out; bad input is named with its file and line or cookie.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import AccessError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["load_cookies", "load_storage_state"]

#: Extension exports (Cookie-Editor, EditThisCookie) spell SameSite this way.
_SAME_SITE = {
    "strict": "Strict",
    "lax": "Lax",
    "none": "None",
    "no_restriction": "None",
    "unspecified": "Lax",
}


def load_cookies(path: Path) -> list[dict[str, Any]]:
    """Cookies from a Netscape ``cookies.txt`` or a JSON file, as Playwright cookie dicts.

    JSON: a list of cookies in Playwright's form (``expires``, ``sameSite`` ``Lax``…) or a
    browser extension's (``expirationDate``, ``hostOnly``, ``sameSite`` ``no_restriction``…),
    or an object with a ``cookies`` list (a storage state). Expired cookies are left out.
    A domain starting with a dot applies to subdomains too; one without is the host's only.

    Raises:
        AccessError: the file cannot be read, or is neither format (the message names the
            file and, for ``cookies.txt``, the line).
    """
    text = _read(path, "cookie file")
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AccessError(f"cookie file {path}: invalid JSON ({exc})") from exc
        if isinstance(data, dict):
            data = data.get("cookies")
        if not isinstance(data, list):
            raise AccessError(f"cookie file {path}: expected a JSON list of cookies")
        cookies = [_json_cookie(item, path, n) for n, item in enumerate(data, 1)]
    else:
        cookies = _netscape_cookies(text, path)
    now = time.time()
    return [c for c in cookies if c["expires"] <= 0 or c["expires"] > now]


def load_storage_state(path: Path) -> dict[str, Any]:
    """A Playwright storage state (``{"cookies": [...], "origins": [...]}``), checked.

    Raises:
        AccessError: the file cannot be read, is not JSON, or lacks the ``cookies`` list.
    """
    text = _read(path, "storage state")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AccessError(f"storage state {path}: invalid JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cookies"), list):
        raise AccessError(f"storage state {path}: expected an object with a 'cookies' list")
    origins = data.get("origins", [])
    if not isinstance(origins, list):
        raise AccessError(f"storage state {path}: 'origins' must be a list")
    now = time.time()
    cookies = [_json_cookie(item, path, n) for n, item in enumerate(data["cookies"], 1)]
    live = [c for c in cookies if c["expires"] <= 0 or c["expires"] > now]
    return {"cookies": live, "origins": origins}


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise AccessError(f"{what} {path}: cannot read it ({reason})") from exc


def _json_cookie(item: object, path: Path, number: int) -> dict[str, Any]:
    where = f"cookie file {path}, cookie {number}"
    if not isinstance(item, dict):
        raise AccessError(f"{where}: expected an object")
    name, value, domain = item.get("name"), item.get("value"), item.get("domain")
    if not isinstance(name, str) or not name or not isinstance(value, str):
        raise AccessError(f"{where}: needs a 'name' and a 'value'")
    if not isinstance(domain, str) or not domain.strip("."):
        raise AccessError(f"{where} ({name}): needs a 'domain'")
    if item.get("hostOnly") is True:
        domain = domain.lstrip(".")
    elif item.get("hostOnly") is False and not domain.startswith("."):
        domain = "." + domain
    expires = item.get("expires", item.get("expirationDate", -1))
    if item.get("session") is True or not isinstance(expires, int | float):
        expires = -1
    same_site = _SAME_SITE.get(str(item.get("sameSite") or "lax").lower(), "Lax")
    secure = bool(item.get("secure", False))
    if same_site == "None" and not secure:
        # Chromium drops a SameSite=None cookie that is not Secure, httpx would send it:
        # Lax (the browsers' default) keeps it, in both, for the site's own requests.
        same_site = "Lax"
    return {
        "name": name,
        "value": value,
        "domain": domain,
        "path": str(item.get("path") or "/"),
        "expires": float(expires),
        "httpOnly": bool(item.get("httpOnly", False)),
        "secure": secure,
        "sameSite": same_site,
    }


def _netscape_cookies(text: str, path: Path) -> list[dict[str, Any]]:
    cookies: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        http_only = line.startswith("#HttpOnly_")
        if http_only:
            line = line[len("#HttpOnly_") :]
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 7:
            raise AccessError(
                f"cookie file {path}, line {number}: expected 7 tab-separated fields (Netscape "
                f"cookies.txt) or a JSON list, found {len(fields)} field(s)"
            )
        domain, subdomains, cookie_path, secure, expires, name, value = fields
        try:
            expiry = float(expires)
        except ValueError as exc:
            raise AccessError(
                f"cookie file {path}, line {number}: expiry {expires!r} is not a number"
            ) from exc
        domain = domain.strip().lstrip(".")
        if not domain or not name:
            raise AccessError(f"cookie file {path}, line {number}: no domain or no name")
        cookies.append(
            {
                "name": name,
                "value": value,
                "domain": ("." + domain) if subdomains.upper() == "TRUE" else domain,
                "path": cookie_path or "/",
                "expires": expiry if expiry > 0 else -1.0,  # 0: a session cookie
                "httpOnly": http_only,
                "secure": secure.upper() == "TRUE",
                "sameSite": "Lax",
            }
        )
    return cookies
