#!/usr/bin/env bash
# format.sh - clang-format over the project's C sources.
#
# Usage: scripts/format.sh check   # clang-format --dry-run --Werror on the .c/.h files tracked in git
#                                  # (what CI sees); FORMAT_ALL=1 adds untracked, non-ignored files
#        scripts/format.sh fix     # clang-format -i on tracked and untracked (non-ignored) files, so
#                                  # new files are formatted before their first commit
#
# Skipped: anything under build*/ or CMakeFiles/, and generated files that say so in their first
# 5 lines ("@generated" or "DO NOT EDIT"); a generator can instead emit clang-format-clean code or
# wrap its output in /* clang-format off */ ... /* clang-format on */.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mode=${1:-check}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}

untracked=()
if [ "$mode" = fix ] || [ "${FORMAT_ALL:-0}" = 1 ]; then
	untracked=(--others --exclude-standard)
fi

files=()
while IFS= read -r -d '' f; do
	case "$f" in build/* | build-* | */CMakeFiles/* | CMakeFiles/*) continue ;; esac
	[ -f "$f" ] || continue
	if head -n 5 "$f" | grep -qE '@generated|DO NOT EDIT'; then
		continue
	fi
	files+=("$f")
done < <(git ls-files -z --cached "${untracked[@]}" -- '*.c' '*.h' | sort -zu)

if [ ${#files[@]} -eq 0 ]; then
	echo "format: no C sources found"
	exit 0
fi

case "$mode" in
check)
	echo "format: $("$CLANG_FORMAT" --version | head -1); checking ${#files[@]} files"
	if ! "$CLANG_FORMAT" --dry-run --Werror "${files[@]}"; then
		echo "format: FAILED - run 'make format' (scripts/format.sh fix) and review the diff" >&2
		exit 1
	fi
	echo "format: OK"
	;;
fix)
	"$CLANG_FORMAT" -i "${files[@]}"
	echo "format: formatted ${#files[@]} files"
	;;
*)
	echo "usage: $0 check|fix" >&2
	exit 2
	;;
esac
