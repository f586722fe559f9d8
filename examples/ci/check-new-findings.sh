#!/usr/bin/env bash
# The same gate for any CI system (GitLab, Jenkins, a pre-commit hook): fails when the
# notebooks under PATH (default: .) gain GPU rewrites that are not in the baseline.
#   examples/ci/check-new-findings.sh notebooks/ .gpuoptimize-baseline.json
set -u
path="${1:-.}"
baseline="${2:-.gpuoptimize-baseline.json}"
if [ ! -f "$baseline" ]; then
  echo "no baseline at $baseline: create one with" >&2
  echo "  gpuoptimize analyze $path --format json > $baseline" >&2
  exit 2
fi
gpuoptimize analyze "$path" --baseline "$baseline"
status=$?
case $status in
  0) echo "gpuoptimize: no new GPU rewrites" ;;
  1) echo "gpuoptimize: new code above has GPU rewrites; apply them or refresh the baseline" >&2 ;;
  *) echo "gpuoptimize: could not analyse the input (exit $status)" >&2 ;;
esac
exit $status
