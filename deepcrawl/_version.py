"""The package version, on the floor so that any module may name it without importing the
package root (which imports the crawl engine)."""

__version__ = "0.1.0"
