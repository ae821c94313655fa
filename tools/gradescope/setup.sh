#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
top="${AUTOGRADER_ROOT:-/autograder}"
cd "$top/source"
apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap python3-venv python3-dev >/dev/null
python=$(command -v python3.13 || command -v python3.12 || command -v python3.11 || true)
if [ -z "$python" ]; then
  apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv >/dev/null
  python=$(command -v python3.11)
fi
"$python" -m venv "$top/venv"
# PyTorch's CPU build first (PyPI's Linux wheel is the CUDA build, several GB more)
"$top/venv/bin/pip" install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
grep -v '^-e \.' requirements.txt > /tmp/requirements-locked.txt
"$top/venv/bin/pip" install -q -r /tmp/requirements-locked.txt
"$top/venv/bin/pip" install -q --no-deps .
# the course's files: readable by root only (the sandbox hides them as well)
chmod -R go-rwx "$top/source"
