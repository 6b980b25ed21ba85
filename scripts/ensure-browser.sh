#!/usr/bin/env bash
# Make a Chromium available to deepcrawl, in this order of preference:
#   1. $DEEPCRAWL_CHROMIUM, if it names an executable;
#   2. Playwright's own Chromium (`playwright install chromium`), where it can be downloaded;
#   3. the distribution's chromium package (Debian/Ubuntu: apt-get install chromium), with its
#      headless shell (chromium-headless-shell) where the distribution has one.
# deepcrawl finds either of the last two by itself (see deepcrawl.browser.find_chromium); a
# headless crawl launches the headless shell when it is there: the same engine without the
# browser's window layer, about half the CPU a page (BENCHMARKS.md).
set -euo pipefail
python=${1:-.venv/bin/python}

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"

apt_install() {  # apt_install PACKAGE...: quietly, reading the package lists first if need be
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 && return 0
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "$@" >/dev/null
}

headless_shell() {  # best effort: without it the full browser runs headless, only slower
  [[ -x /usr/bin/chromium-headless-shell ]] && return 0
  command -v apt-get >/dev/null || return 0
  if apt_install chromium-headless-shell; then
    echo "browser: installed /usr/bin/chromium-headless-shell"
  else
    echo "browser: no chromium-headless-shell package here; the full browser runs headless" >&2
  fi
}

if [[ -n "${DEEPCRAWL_CHROMIUM:-}" && -x "${DEEPCRAWL_CHROMIUM}" ]]; then
  echo "browser: using DEEPCRAWL_CHROMIUM=${DEEPCRAWL_CHROMIUM}"; exit 0
fi
if "$python" - <<'PY' 2>/dev/null
import os, sys
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    sys.exit(0 if os.path.exists(p.chromium.executable_path) else 1)
PY
then
  echo "browser: Playwright's Chromium is installed"; exit 0
fi
for candidate in /usr/bin/chromium /usr/lib/chromium/chromium; do
  if [[ -x "$candidate" ]]; then echo "browser: using $candidate"; headless_shell; exit 0; fi
done
if timeout 600 "$python" -m playwright install chromium >/tmp/deepcrawl-playwright-install.log 2>&1; then
  echo "browser: installed Playwright's Chromium"; exit 0
fi
echo "browser: Playwright cannot download its Chromium here; installing the distribution's chromium"
if command -v apt-get >/dev/null; then
  apt_install chromium
  echo "browser: installed $(command -v chromium)"
  headless_shell
else
  echo "browser: no Chromium found; install one and set DEEPCRAWL_CHROMIUM to its path" >&2
  exit 1
fi
