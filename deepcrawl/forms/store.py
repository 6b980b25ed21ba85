"""Training the critic once and caching it, keyed by everything that could make it stale.

The critic is trained on formasaurus's corpus at first use (about 10 s here), deterministically
(fixed seeds, a sorted corpus), by one process at a time (processes started together wait for
it under a lock file in the cache folder, then read its pickle), and pickled under a file name
that holds deepcrawl's version, scikit-learn's version, a hash of the corpus and
:data:`MODEL_VERSION` (bumped when the features or models change). A newer scikit-learn
therefore never loads an old pickle: it trains a fresh model instead. No fitted model is
shipped in the repository.

The cache is a plain pickle, not joblib's format: joblib unpickles in Python, and reading the
critic back took a crawl process about a second of CPU; the C unpickler takes a tenth of it.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
import pickle
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

import sklearn

from deepcrawl._version import __version__
from deepcrawl.errors import ConfigError
from deepcrawl.forms.corpus import corpus_dir, corpus_hash, load_corpus
from deepcrawl.forms.critic import DOMAIN_THRESHOLD, SEARCHABLE_THRESHOLD, FormCritic
from deepcrawl.settings import FormSettings

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["MODEL_VERSION", "cache_path", "load_critic", "train_critic"]

#: Bump when features or models change, or when a class the pickle names moves to another module
#: (4: the form model moved to ``deepcrawl.page.form``; 5: a plain pickle, not joblib's), so
#: that cached critics are retrained.
MODEL_VERSION: Final = 5
#: The suffixes of cached critics: this one's, and joblib's of model versions up to 4.
_SUFFIXES: Final = (".pickle", ".joblib")

#: Critics already in this process, by cache file name (the version key): a process trains at
#: most once, whatever cache folders its callers name.
_LOADED: dict[str, FormCritic] = {}


def _cache_dir(settings: FormSettings) -> Path:
    if settings.model_cache_dir is not None:
        return settings.model_cache_dir
    return Path.home() / ".cache" / "deepcrawl"


def cache_path(settings: FormSettings | None = None) -> Path:
    """Where the critic for this deepcrawl, scikit-learn and corpus is (or will be) cached."""
    settings = settings or FormSettings()
    key = f"{__version__}-sk{sklearn.__version__}-{corpus_hash()}-m{MODEL_VERSION}"
    return _cache_dir(settings) / f"form-critic-{key}{_SUFFIXES[0]}"


def train_critic(settings: FormSettings | None = None, *, save: bool = True) -> FormCritic:
    """Train the critic on formasaurus's corpus (and cache it unless ``save`` is False).

    Raises:
        ConfigError: the corpus is missing, or the cache folder cannot be written.
    """
    settings = settings or FormSettings()
    corpus = load_corpus(corpus_dir())
    critic = FormCritic(random_state=0).fit([c.form for c in corpus], [c.type for c in corpus])
    if save:
        _save(critic, cache_path(settings))
    return _configured(critic, settings)


def _save(critic: FormCritic, path: Path) -> None:
    """Write ``critic`` to ``path`` atomically and remember it in memory.

    Raises:
        ConfigError: the folder cannot be written.
    """
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        with open(tmp, "wb") as fh:
            pickle.dump(critic, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise ConfigError(
            f"cannot write the critic cache in {path.parent} ({exc}); "
            "set forms.model_cache_dir to a writable folder"
        ) from exc
    _LOADED[path.name] = critic
    # Older critics of this very install (another corpus or model version) are dead weight;
    # those of other deepcrawl or scikit-learn versions may belong to another environment.
    prefix = path.name.rsplit("-", 2)[0] + "-"
    for suffix in _SUFFIXES:
        for stale in path.parent.glob(f"{prefix}*{suffix}"):
            if stale != path:
                stale.unlink(missing_ok=True)


def _configured(critic: FormCritic, settings: FormSettings) -> FormCritic:
    """A shallow copy of ``critic`` with the critic's thresholds and the words of
    ``settings``."""
    configured: FormCritic = copy.copy(critic)
    configured.set_params(
        threshold=SEARCHABLE_THRESHOLD,
        domain_threshold=DOMAIN_THRESHOLD,
        refused_words=settings.refused_words,
    )
    return configured


def load_critic(settings: FormSettings | None = None) -> FormCritic:
    """The fitted critic: from memory, else from the cache, else trained now and cached.

    The thresholds (the critic's constants) and the refused words (``settings``) never come
    from the cache.

    Raises:
        ConfigError: the critic must be trained and the corpus is missing, or the cache folder
            cannot be written.
    """
    settings = settings or FormSettings()
    path = cache_path(settings)
    critic = _LOADED.get(path.name)
    if critic is not None and not path.is_file():
        _save(critic, path)  # trained once in this process, cached in every folder asked for
    if critic is None:
        critic = _read(path)
    if critic is None:
        # processes started together (a crawl's workers) would each train it: one does, under
        # the lock, and the others read what it cached
        with _training_lock(path):
            critic = _read(path)
            if critic is None:
                return train_critic(settings)
    return _configured(critic, settings)


def _read(path: Path) -> FormCritic | None:
    """The critic cached at ``path`` (remembered in memory), or None."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            loaded = pickle.load(fh)  # our own cache, named by the versions it was made by
    except Exception:
        return None
    if not isinstance(loaded, FormCritic):
        return None
    _LOADED[path.name] = loaded
    return loaded


@contextlib.contextmanager
def _training_lock(path: Path) -> Iterator[None]:
    """Hold the cache folder's exclusive lock while the critic is trained; none where the
    folder cannot be written (the training's save then says so)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.parent / "form-critic.lock", "ab")  # noqa: SIM115 - held across the yield
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield
