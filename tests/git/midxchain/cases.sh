# tests/git/midxchain/cases.sh - the cases of the incremental multi-pack-index fixtures: sourced by
# tests/git/mkmidxchain.sh (which records git 2.55.0's output on them) and tests/git/test_midxchain.sh
# (which compares sha1kit's with it). Each case is a copy of the repository `chain` (three packs,
# each the only pack of one layer of objects/pack/multi-pack-index.d, base first) changed by
# `midx_case NAME` run in its top directory. Every change is the same bytes on each run.
# The layer files' format: gitformat-pack(5), "multi-pack-index (MIDX) files" and "incremental
# multi-pack-index"; gitformat-chunk(5) for the table of contents. tests/git/test_fsck.sh uses its
# helpers too (midx_chunk, midx_pos, midx_pack_name, midx_put, midx_resum).
MIDX_CASES="sound packgone-top packgone-base packempty-top layergone-base layergone-mid layergone-top
fanout-top checksum-top checksum-base chain-badline chain-small chain-empty oidorder-top offset-base
single-file single-file-bad bitmap-top bitmap-base packid-ref packid-tree oid-tree"
# the cases also checked with these options (each case's default run is always checked)
MIDX_OPTION_CASES="packgone-top packempty-top layergone-base oidorder-top oid-tree"
MIDX_OPTIONS="--connectivity-only --unreachable --lost-found"

MIDX_D=.git/objects/pack/multi-pack-index.d

# midx_layer N: the path of the chain's layer N (1: the base)
midx_layer() {
	echo "$MIDX_D/multi-pack-index-$(sed -n "${1}p" "$MIDX_D/multi-pack-index-chain").midx"
}

# midx_chunk FILE ID: the offset of chunk ID (4 letters) of a multi-pack-index file (its table of
# contents: 12-byte entries of a 4-byte ID and an 8-byte offset, from byte 12)
midx_chunk() {
	local k id hi lo
	for k in $(seq 0 $(($(od -An -tu1 -j6 -N1 "$1") - 1))); do
		id=$(dd if="$1" bs=1 skip=$((12 + 12 * k)) count=4 2>/dev/null)
		if [ "$id" = "$2" ]; then
			hi=$(od -An -tu4 --endian=big -j$((16 + 12 * k)) -N4 "$1")
			lo=$(od -An -tu4 --endian=big -j$((20 + 12 * k)) -N4 "$1")
			echo $((hi * 4294967296 + lo))
			return 0
		fi
	done
	return 1
}

# midx_pack N: the .pack of layer N's first pack (its name in chunk PNAM, "pack-X.idx")
midx_pack() {
	local f name
	f=$(midx_layer "$1")
	name=$(dd if="$f" bs=1 skip="$(midx_chunk "$f" PNAM)" count=49 2>/dev/null)
	echo ".git/objects/pack/${name%.idx}.pack"
}

# midx_pos FILE ID: the place of ID (hexadecimal) in the OIDL chunk of a multi-pack-index file (from
# 0; nothing when it does not list it)
midx_pos() {
	local n k
	n=$(od -An -tu4 --endian=big -j$(($(midx_chunk "$1" OIDF) + 1020)) -N4 "$1")
	k=$(od -An -tx1 -v -w20 -j"$(midx_chunk "$1" OIDL)" -N$((20 * n)) "$1" | tr -d ' ' | grep -n "^$2\$") &&
		echo $((${k%%:*} - 1))
}

# midx_pack_name FILE ID: the pack (pack-X.idx) a single multi-pack-index file places ID in
midx_pack_name() {
	local a k
	a=$(midx_pos "$1" "$2") || return 1
	k=$(od -An -tu4 --endian=big -j$(($(midx_chunk "$1" OOFF) + 8 * a)) -N4 "$1")
	dd if="$1" bs=1 skip="$(midx_chunk "$1" PNAM)" count=$(($(midx_chunk "$1" OIDF) - $(midx_chunk "$1" PNAM))) \
		2>/dev/null | tr '\0' '\n' | sed -n "$((k + 1))p"
}

# midx_put FILE OFFSET BYTES: write BYTES (printf escapes) at OFFSET
midx_put() {
	# shellcheck disable=SC2059 # the bytes are printf escapes
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# midx_resum FILE: its trailing SHA-1 checksum made right again
midx_resum() {
	local n sum
	n=$(($(stat -c %s "$1") - 20))
	sum=$(head -c "$n" "$1" | sha1sum | sed 's/ .*//; s/../\\x&/g')
	midx_put "$1" "$n" "$sum"
}

midx_case() {
	local f a
	chmod -R u+w .git/objects/pack
	case $1 in
	sound) ;;
	# a pack the chain names deleted (its idx left): the top layer's, the base layer's
	packgone-top) rm "$(midx_pack 3)" ;;
	packgone-base) rm "$(midx_pack 1)" ;;
	# the top layer's pack emptied: git's lookups go where the chain sends them, and fail
	packempty-top) : >"$(midx_pack 3)" ;;
	# a layer's file gone: the chain ends before it
	layergone-base) rm "$(midx_layer 1)" ;;
	layergone-mid) rm "$(midx_layer 2)" ;;
	layergone-top) rm "$(midx_layer 3)" ;;
	# the top layer's fanout decreasing: git dies at the load
	fanout-top) f=$(midx_layer 3) && midx_put "$f" $(($(midx_chunk "$f" OIDF) + 76)) '\125' ;;
	# a byte of the checksum: verify checks the top layer's alone
	checksum-top) f=$(midx_layer 3) && midx_put "$f" $(($(stat -c %s "$f") - 5)) '\125' ;;
	checksum-base) f=$(midx_layer 1) && midx_put "$f" $(($(stat -c %s "$f") - 5)) '\125' ;;
	# the chain file: a line that is not an ID, shorter than one ID, empty
	chain-badline) sed -i '2s/^./z/' "$MIDX_D/multi-pack-index-chain" ;;
	chain-small) echo abc >"$MIDX_D/multi-pack-index-chain" ;;
	chain-empty) : >"$MIDX_D/multi-pack-index-chain" ;;
	# the top layer's first two IDs swapped (checksum made right): its lookup misses them
	oidorder-top)
		f=$(midx_layer 3) && a=$(midx_chunk "$f" OIDL) &&
			dd if="$f" bs=1 skip="$a" count=20 of=.swap 2>/dev/null &&
			dd if="$f" bs=1 skip=$((a + 20)) count=20 2>/dev/null | dd of="$f" bs=1 seek="$a" conv=notrunc 2>/dev/null &&
			dd if=.swap of="$f" bs=1 seek=$((a + 20)) conv=notrunc 2>/dev/null && rm .swap && midx_resum "$f"
		;;
	# the base layer's offset of its third object changed (checksum made right)
	offset-base) f=$(midx_layer 1) && midx_put "$f" $(($(midx_chunk "$f" OOFF) + 8 * 2 + 7)) '\001' && midx_resum "$f" ;;
	# a single multi-pack-index file beside the chain (the top layer's copy): git loads it alone;
	# one of another hash version: git loads the chain after its error
	single-file) cp "$(midx_layer 3)" .git/objects/pack/multi-pack-index ;;
	single-file-bad) cp "$(midx_layer 3)" .git/objects/pack/multi-pack-index && midx_put .git/objects/pack/multi-pack-index 5 '\002' ;;
	# a byte of a layer's bitmap (git 2.41+ checks the bitmap of the multi-pack-index it loaded:
	# of a chain, its top layer's alone)
	bitmap-top | bitmap-base)
		f=$(midx_layer "$([ "$1" = bitmap-top ] && echo 3 || echo 1)") && f=${f%.midx}.bitmap &&
			midx_put "$f" $(($(stat -c %s "$f") - 5)) '\125'
		;;
	# an entry's pack-int-id beyond its layer's packs (checksum made right): git dies at each lookup
	# of the object, HEAD's in the top layer (at git's first read of the refs) or a tree of the base
	# layer (the walk reads it again), where 2 is the top layer's pack
	packid-ref)
		f=$(midx_layer 3) && a=$(midx_pos "$f" "$(git rev-parse HEAD)") &&
			midx_put "$f" $(($(midx_chunk "$f" OOFF) + 8 * a + 3)) '\013' && midx_resum "$f"
		;;
	packid-tree)
		f=$(midx_layer 1) && a=$(midx_pos "$f" "$(git rev-parse HEAD~4^{tree})") &&
			midx_put "$f" $(($(midx_chunk "$f" OOFF) + 8 * a + 3)) '\002' && midx_resum "$f"
		;;
	# a tree's ID changed in the base layer's OIDL, its last byte (checksum made right): the pack's
	# object is not listed, and git's lookups, which go through the multi-pack-index alone for its
	# packs, do not find it
	oid-tree)
		f=$(midx_layer 1) && a=$(midx_pos "$f" "$(git rev-parse HEAD~4^{tree})") &&
			midx_put "$f" $(($(midx_chunk "$f" OIDL) + 20 * a + 19)) '\377' && midx_resum "$f"
		;;
	*) return 1 ;;
	esac
}
