#!/usr/bin/env bash
# `npm ci`, falling back to `npm install` only when the lock lacks other platforms' native bindings.
# The registry this machine reaches answers 404 for other platforms' native bindings (e.g.
# @unrs/resolver-binding-darwin-arm64), so the lock cannot list them and `npm ci` calls it out of
# sync. Only in that case, `npm install` installs the same locked versions instead.
set -euo pipefail
ci_log=$(mktemp)
if ! npm ci --no-audit --no-fund 2>&1 | tee "$ci_log"; then
	missing=$(grep -E 'Missing: .* from lock file' "$ci_log" || true)
	if [ -z "$missing" ] || echo "$missing" | grep -vqE 'Missing: @unrs/resolver-binding-'; then
		echo "npm ci failed for another reason than missing platform bindings" >&2
		exit 1
	fi
	echo "-- npm ci refused the lock only for other platforms' bindings; npm install with the lock"
	npm install --no-audit --no-fund
fi
