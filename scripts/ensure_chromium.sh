#!/usr/bin/env bash
# Make sure a Chromium is there for the browser test (Debian's chromium, driven by
# Playwright through its executable path); install it when we can.
# Without root, say exactly what to run and go on: the browser test then skips with a
# reason, except under CI (env CI set), where a missing chromium fails it.
for name in chromium chromium-browser; do
  if command -v "$name" >/dev/null; then exit 0; fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium (for the browser test)"
  packages="chromium fonts-dejavu-core"
  # shellcheck disable=SC2086
  if apt-get install -y -q --no-install-recommends $packages >/dev/null 2>&1 ||
     (apt-get update -q >/dev/null &&
      apt-get install -y -q --no-install-recommends $packages >/dev/null); then
    exit 0
  fi
fi
echo "WARNING: no chromium. Run:  sudo apt-get install --no-install-recommends chromium" >&2
echo "         (tests/test_browser.py skips without it, and fails under CI)" >&2
exit 0
