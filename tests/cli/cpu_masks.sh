# cpu_masks.sh - sourced by the CLI tests (cli/test_sum.sh, compat/test_hash_object.sh,
# pack/test_pack.sh): SHA1KIT_CPU masks that step through the kernels of this CPU, and the check that
# `sha1kit --version` reports, under each, the kernels the remaining features must give.
#
#   SK_CPU_MASKS          the masks, "" (SHA1KIT_CPU unset) first, each turning off more
#   sk_cpu_run MASK CMD.. runs CMD with SHA1KIT_CPU=MASK (unset for "")
#   sk_cpu_check SK MASK  0 when `SHA1KIT_CPU=MASK SK --version` reports the features of the unmasked
#                         run, the mask, and the expected kernels; else prints why and returns 1.
#                         Sets SK_CPU_KERNELS to "kernel dc-kernel batch-kernel dc-batch-kernel
#                         sha256-kernel".
#                         Uses the directory $T/cpu-mask ($T: the caller's temporary directory).
# The kernel choice is written out here again from the kernel tables of src/dispatch.c, as the
# unit test tests/test_kernels.c does, so that a mask that changes nothing is caught.

# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this file

unset SHA1KIT_CPU # the unmasked runs of the tests are unmasked

# shellcheck disable=SC2054 # the commas belong to the masks
SK_CPU_MASKS=("" -shani -shani,-avx512 -shani,-avx512,-avx2 -all)
SK_CPU_NAMES=(sse2 ssse3 sse4.1 avx2 bmi2 avx512 shani armv8-sha1 armv8-sha2)

# sk_cpu_run MASK COMMAND...: COMMAND with SHA1KIT_CPU=MASK in its environment, or without
# SHA1KIT_CPU for an empty MASK (no env process where the shell can do it: the scripts run it
# hundreds of times).
sk_cpu_run() {
	local mask=$1
	shift
	if [ -n "$mask" ]; then
		SHA1KIT_CPU=$mask "$@"
	elif [ -n "${SHA1KIT_CPU+set}" ]; then
		env -u SHA1KIT_CPU "$@"
	else
		"$@"
	fi
}

# sk_cpu_off MASK: the features MASK turns off, with those they imply, in the order of SK_CPU_NAMES.
sk_cpu_off() {
	local -A off=()
	local -a entries=() list=()
	local e name
	IFS=, read -ra entries <<<"$1"
	for e in "${entries[@]}"; do
		e=${e//[[:space:]]/}
		name=${e#-}
		if [ "$name" = all ]; then
			for name in "${SK_CPU_NAMES[@]}"; do off[$name]=1; done
		elif [ -n "$name" ]; then
			off[$name]=1
		fi
	done
	[ -n "${off[sse2]:-}" ] && off[ssse3]=1
	[ -n "${off[ssse3]:-}" ] && off[sse4.1]=1
	[ -n "${off[sse4.1]:-}" ] && off[avx2]=1 && off[shani]=1
	[ -n "${off[avx2]:-}" ] && off[avx512]=1
	for name in "${SK_CPU_NAMES[@]}"; do
		[ -n "${off[$name]:-}" ] && list+=("$name")
	done
	echo "${list[*]}"
}

# The CPU's vendor and family as /proc/cpuinfo shows them, for the kernel preferences by CPU of
# src/dispatch.c (empty where the file has no such lines).
SK_CPU_VENDOR=$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
SK_CPU_FAMILY=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
SK_CPU_MODEL=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)

# sk_cpu_kernels FEATURES...: "kernel dc-kernel batch-kernel dc-batch-kernel sha256-kernel" for these
# features on this CPU.
sk_cpu_kernels() {
	local -A f=()
	local x k dc b db s256
	for x in "$@"; do f[$x]=1; done
	local sha=${f[shani]:-} avx2=${f[avx2]:-} bmi2=${f[bmi2]:-} avx512=${f[avx512]:-}
	if [ -n "$sha" ]; then
		k=shani
	elif [ -n "$avx2" ] && [ -n "$bmi2" ]; then
		k=avx2
	elif [ -n "${f[ssse3]:-}" ]; then
		k=ssse3
	elif [ -n "${f[armv8-sha1]:-}" ]; then
		k=armv8
	else
		k=portable
	fi
	if [ -n "$sha" ] && [ -n "$avx2" ] && [ -n "$avx512" ]; then
		dc='shani+avx512'
	elif [ -n "$sha" ] && [ -n "$avx2" ]; then
		dc='shani+avx2'
	elif [ -n "$sha" ] && [ -n "${f[sse2]:-}" ]; then
		dc='shani+sse2'
	elif [ -n "$avx2" ] && [ -n "$bmi2" ] && [ -n "$avx512" ]; then
		dc='avx2+avx512'
	elif [ -n "$avx2" ] && [ -n "$bmi2" ]; then
		dc='avx2' # x86-64 (the CLI tests run on x86-64 builds only)
	elif [ -n "$avx2" ]; then
		dc='portable+avx2'
	elif [ -n "${f[sse2]:-}" ]; then
		dc='portable+sse2'
	elif [ -n "${f[armv8-sha1]:-}" ]; then
		dc=armv8
	else
		dc=portable
	fi
	if [ -n "$avx512" ]; then
		b=avx512x16 db=avx512x16
	elif [ -n "$sha" ]; then
		b=shani-x2 db=single
		[ -n "$avx2" ] && db=avx2x8
	elif [ -n "$avx2" ]; then
		b=avx2x8 db=avx2x8
	else
		b=single db=single
	fi
	# the preference table: Zen 4 and Zen 5 the pipelined look-ahead, Zen 3 (Milan) the short AVX2
	# filter, Intel avx2x8, Intel 6/207 rol2
	if [ "$SK_CPU_VENDOR" = AuthenticAMD ] && { [ "$SK_CPU_FAMILY" = 25 ] || [ "$SK_CPU_FAMILY" = 26 ]; } &&
		[ "$dc" = 'shani+avx512' ]; then
		dc='shani+avx512-pipe'
	fi
	# Zen 3 (Milan, models 0-15): the AVX2 filter with the shorter vector part
	if [ "$SK_CPU_VENDOR" = AuthenticAMD ] && [ "$SK_CPU_FAMILY" = 25 ] && [ "${SK_CPU_MODEL:-99}" -le 15 ] &&
		[ "$dc" = 'shani+avx2' ]; then
		dc='shani+avx2-short'
	fi
	# Zen 3 (Milan): SHA-1DC batches a message at a time (SHA-NI) before eight AVX2 lanes
	if [ "$SK_CPU_VENDOR" = AuthenticAMD ] && [ "$SK_CPU_FAMILY" = 25 ] && [ "${SK_CPU_MODEL:-99}" -le 15 ]; then
		db=single
	fi
	if [ "$SK_CPU_VENDOR" = GenuineIntel ] && [ "$b" = shani-x2 ] && [ -n "$avx2" ]; then
		b=avx2x8
	fi
	# Intel 6/207: the SHA-NI kernels with the SSE2 expansion of groups 8..19
	if [ "$SK_CPU_VENDOR" = GenuineIntel ] && [ "$SK_CPU_FAMILY" = 6 ] && [ "$SK_CPU_MODEL" = 207 ]; then
		[ "$k" = shani ] && [ -n "$avx2" ] && k=shani-rol2
		case $dc in shani+avx512 | shani+avx2) dc=shani-rol2+${dc#shani+} ;; esac
	fi
	# SHA-256: SHA-NI (the same CPUID bit as SHA-1's), the arm64 SHA256 instructions, portable
	if [ -n "$sha" ]; then
		s256=shani
	elif [ -n "${f[armv8-sha2]:-}" ]; then
		s256=armv8
	else
		s256=portable
	fi
	echo "$k $dc $b $db $s256"
}

# The value of the line "FIELD: VALUE" of a --version output file.
sk_cpu_field() {
	sed -n "s/^$2: //p" "$1"
}

SK_CPU_KERNELS=

sk_cpu_check() {
	local sk=$1 mask=$2 tmp=${T:?}/cpu-mask
	local v=$tmp/version
	local detected got_features want_mask got_mask off want got name
	mkdir -p "$tmp" || return 1
	if ! env -u SHA1KIT_CPU "$sk" --version >"$tmp/base" 2>&1; then
		echo "    sha1kit --version failed: $(<"$tmp/base")"
		return 1
	fi
	detected=$(sk_cpu_field "$tmp/base" "cpu features")
	if [ -z "$detected" ]; then
		echo "    sha1kit --version prints no 'cpu features:' line"
		return 1
	fi
	if ! sk_cpu_run "$mask" "$sk" --version >"$v" 2>"$v.err" || [ -s "$v.err" ]; then
		echo "    SHA1KIT_CPU='$mask' sha1kit --version failed: $(<"$v.err")"
		return 1
	fi
	got_features=$(sk_cpu_field "$v" "cpu features")
	if [ "$got_features" != "$detected" ]; then
		echo "    cpu features: '$got_features', unmasked '$detected' (the mask must not change what is detected)"
		return 1
	fi
	off=$(sk_cpu_off "$mask")
	if [ -z "$mask" ]; then
		want_mask="none (SHA1KIT_CPU unset)"
	else
		want_mask="SHA1KIT_CPU=$mask (off: ${off:-none})"
	fi
	got_mask=$(sk_cpu_field "$v" "cpu mask")
	if [ "$got_mask" != "$want_mask" ]; then
		echo "    cpu mask: '$got_mask', expected '$want_mask'"
		return 1
	fi
	local -a kept=()
	for name in $detected; do
		[[ " $off " == *" $name "* ]] || kept+=("$name")
	done
	want=$(sk_cpu_kernels "${kept[@]}")
	got="$(sk_cpu_field "$v" kernel) $(sk_cpu_field "$v" dc-kernel) $(sk_cpu_field "$v" batch-kernel) $(sk_cpu_field "$v" dc-batch-kernel) $(sk_cpu_field "$v" sha256-kernel)"
	SK_CPU_KERNELS=$got
	if [ "$got" != "$want" ]; then
		echo "    kernels (fast, dc, batch, dc-batch, sha256): '$got', expected '$want' from the features '${kept[*]}'"
		return 1
	fi
	# And directly: no kernel uses a feature that is off.
	local sha1_kernels=${got% *} sha256_kernel=${got##* } in
	for name in $off; do
		in=$got
		case $name in
		armv8-sha1) name=armv8 in=$sha1_kernels ;;
		armv8-sha2) name=armv8 in=$sha256_kernel ;;
		sse4.1 | bmi2) continue ;; # no kernel is named after them
		esac
		if [[ $in == *"$name"* ]]; then
			echo "    kernels '$got' use $name, which SHA1KIT_CPU='$mask' turns off"
			return 1
		fi
	done
	return 0
}
