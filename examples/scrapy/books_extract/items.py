"""The fields extracted from a book's page."""

from dataclasses import dataclass


@dataclass
class Book:
    """One book of the catalogue, as its page shows it."""

    id: int
    url: str
    title: str
    category: str
    published: str
    pages: int
    description: str
    #: what deepcrawl knew of the page: the keyword whose results led to it
    query: str | None = None
