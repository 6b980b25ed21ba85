"""JavaScript the browser layer injects into pages (package data, loaded with importlib).

``init.js`` runs before every document's own scripts (dialogs, ``window.open``, navigation
capture while probing); ``links.js`` lists a document's links; ``probe.js`` finds and drives the
clickable elements probing touches; ``timers.js`` counts a document's pending short timers and
``settle.js`` its DOM changes (waiting for a page to settle, :mod:`deepcrawl.browser.settle`);
``snapshot.js`` reads a result page's texts and controls.
"""

from __future__ import annotations

__all__: list[str] = []
