#!/usr/bin/env bash
# Make PostgreSQL's server binaries available for the tests (they start a throw-away server on
# 127.0.0.1 and stop it at the end). Debian/Ubuntu: the postgresql package.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then
  exit 0
fi
echo "postgres: installing the server binaries for the tests"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq postgresql >/dev/null
# The package starts a cluster of its own; the tests do not use it.
$sudo service postgresql stop >/dev/null 2>&1 || true
