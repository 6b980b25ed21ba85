"""Write the reStructuredText sources of the test Sphinx site (seed 14) into the folder given.

Usage: ``python make_sources.py SRC && sphinx-build -b html SRC BUILD`` (see README.md).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

TOPICS = ["river", "mountain", "harbour", "forest", "valley"]
TOPICS += ["bridge", "castle", "meadow", "island", "canyon"]
EXTRA = ["lantern", "copper", "willow", "granite", "saffron", "falcon"]
EXTRA += ["orchard", "glacier", "ember", "quartz", "marble", "cedar"]
FILLER = ["the", "and", "a", "of", "near", "old", "new", "north", "south"]
CONF = """project = "Atlas"
html_theme = "basic"
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_use_index = False
html_domain_indices = False
html_last_updated_fmt = None
language = "en"
"""


def page(rng: random.Random, number: int) -> str:
    """One page: a title naming two topics, three paragraphs, a section naming a third."""
    words = rng.sample(TOPICS, 3) + rng.sample(EXTRA, 3)
    title = f"Entry {number}: the {words[0]} of {words[1]}".title()
    paragraphs = [
        " ".join(rng.choice(words + FILLER) for _ in range(40)).capitalize() + "." for _ in range(3)
    ]
    section = f"Section about {words[2]}"
    return (
        f"{title}\n{'=' * len(title)}\n\n" + "\n\n".join(paragraphs) + "\n\n"
        f"{section}\n{'-' * len(section)}\n\nMore on {words[3]} and {words[4]}.\n"
    )


def main(out: Path) -> None:
    """Write ``index.rst``, ``page01.rst`` … ``page28.rst`` and ``conf.py`` into ``out``."""
    rng = random.Random(14)
    out.mkdir(parents=True, exist_ok=True)
    names = [f"page{i:02d}" for i in range(1, 29)]
    for number, name in enumerate(names, 1):
        (out / f"{name}.rst").write_text(page(rng, number))
    toc = "".join(f"   {name}\n" for name in names)
    index = "Atlas\n=====\n\nA small documentation site for tests.\n\n"
    (out / "index.rst").write_text(index + ".. toctree::\n   :maxdepth: 1\n\n" + toc)
    (out / "conf.py").write_text(CONF)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
