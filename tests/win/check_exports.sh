#!/usr/bin/env bash
# check_exports.sh OBJDUMP SRCDIR SHA1KIT.dll SHA1KIT.dll.a SHA1DETECTCOLL.dll SHA1DETECTCOLL.dll.a
# The Windows DLLs export exactly the public API: libsha1kit.dll every SHA1KIT_API function of
# include/sha1kit.h and nothing else; libsha1detectcoll.dll those and the eight SHA1DC* functions of
# include/sha1dc/sha1.h. Each import library names its DLL. (The lists are read from the headers
# here with other code than cmake/windows-exports.cmake's.)
set -euo pipefail
objdump=$1 src=$2 kit=$3 kit_imp=$4 dc=$5 dc_imp=$6
fail=0

exports() { # the names in a DLL's export name table, sorted
	"$objdump" -p "$1" | awk '/\[Ordinal\/Name Pointer\] Table/ {on = 1; next} on && NF == 0 {on = 0} on {print $NF}' | sort
}
api=$(sed -n 's/^SHA1KIT_API .*[ *]\(sha1kit_[a-z0-9_]*\)(.*/\1/p' "$src/include/sha1kit.h" | sort)
dcapi=$(grep -o '^[a-z].* SHA1DC[A-Za-z]*(' "$src/include/sha1dc/sha1.h" | grep -o 'SHA1DC[A-Za-z]*' | sort)
[ "$(echo "$api" | wc -l)" -ge 20 ] || { echo "FAIL: only $(echo "$api" | wc -l) API functions in sha1kit.h"; exit 1; }
[ "$(echo "$dcapi" | wc -l)" -eq 8 ] || { echo "FAIL: $(echo "$dcapi" | wc -l) SHA1DC functions, expected 8"; exit 1; }

check() { # NAME DLL EXPECTED
	local got
	got=$(exports "$2")
	if [ "$got" = "$3" ]; then
		echo "ok: $1 exports the $(echo "$got" | wc -l) functions of the public API"
	else
		echo "FAIL: $1 exports differ from the public API (< expected, > exported):"
		diff <(echo "$3") <(echo "$got") || true
		fail=1
	fi
}
check libsha1kit.dll "$kit" "$api"
check libsha1detectcoll.dll "$dc" "$(printf '%s\n%s\n' "$api" "$dcapi" | sort)"

for pair in "$kit_imp:libsha1kit.dll" "$dc_imp:libsha1detectcoll.dll"; do
	imp=${pair%%:*} dll=${pair#*:}
	# (grep without -q reads all its input: under pipefail an early exit would fail the pipe)
	if strings -a "$imp" | grep -x -- "$dll" >/dev/null; then
		echo "ok: $(basename "$imp") imports from $dll"
	else
		echo "FAIL: $(basename "$imp") does not name $dll"
		fail=1
	fi
done
[ "$fail" = 0 ] && echo "2 passed, 0 failed" || exit 1
