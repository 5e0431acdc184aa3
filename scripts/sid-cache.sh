# sid-cache.sh - sourced by the scripts that build a reference or a peer from Debian sid into the
# cache outside the repository (git-current.sh, rust-sha1dc.sh): where the cache is, which cached
# build to use, the lock, and a private apt state with one sid entry (scripts/apt-private.sh).
# Each caller sets `me` (its name in messages) first; die and log are defined here.

die() {
	echo "$me: error: $*" >&2
	exit 1
}
log() { echo "$me: $*" >&2; }

# sid_args HELP_LAST_LINE ARG...: --refresh sets refresh=1; -h/--help prints the script's header
# comment (lines 2 to HELP_LAST_LINE) and exits; anything else is a usage error (exit 2).
sid_args() {
	local last=$1 a
	shift
	refresh=0
	for a in "$@"; do
		case "$a" in
		--refresh) refresh=1 ;;
		-h | --help)
			sed -n "2,${last}s/^# \\{0,1\\}//p" "$0" >&2
			exit 0
			;;
		*)
			echo "usage: $0 [--refresh]" >&2
			exit 2
			;;
		esac
	done
}

# The cache directory: ${SHA1KIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sha1kit}.
sid_cache_root=${SHA1KIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sha1kit}

# sid_cached PREFIX STAMP RECIPE FILE: the newest $sid_cache_root/PREFIX-VERSION/ (by Debian
# version order) that has FILE and whose STAMP file's first line is RECIPE; prints its FILE's path,
# else returns 1.
sid_cached() {
	local prefix=$1 stamp=$2 recipe=$3 file=$4 d best=
	for d in "$sid_cache_root/$prefix"-*/; do
		d=${d%/}
		if [ ! -e "$d/$file" ] || [ ! -f "$d/$stamp" ] || [ "$(sed -n 1p "$d/$stamp")" != "$recipe" ]; then
			continue
		fi
		if [ -z "$best" ] || dpkg --compare-versions "${d##*/"$prefix"-}" gt "${best##*/"$prefix"-}"; then
			best=$d
		fi
	done
	[ -n "$best" ] || return 1
	echo "$best/$file"
}

# sid_cache_lock NAME: create the cache (made absolute) and hold its lock NAME on fd 9 until exit.
sid_cache_lock() {
	mkdir -p "$sid_cache_root" 2>/dev/null || die "cannot create the cache directory $sid_cache_root"
	sid_cache_root=$(cd "$sid_cache_root" && pwd)
	exec 9>"$sid_cache_root/.$1.lock"
	flock 9 || die "cannot lock $sid_cache_root/.$1.lock"
}

# sid_apt WORK LINE: a private apt state in WORK (with WORK/dl for downloads) whose only source is
# LINE (e.g. "deb-src [signed-by=KEYRING] ARCHIVE sid main"); sets apt_opts and fetches the signed
# index, or dies showing apt's log.
sid_apt() {
	local work=$1 line=$2
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources.list.d" "$work/dl"
	: >"$work/status"
	echo "$line" >"$work/sources.list"
	# shellcheck source=apt-private.sh
	. "$(dirname "${BASH_SOURCE[0]}")/apt-private.sh"
	apt_private_opts "$work" -o "Dir::Etc::SourceList=$work/sources.list" \
		-o "Dir::Etc::SourceParts=$work/sources.list.d"
	echo "$me: updating a private package index (${line#*] })" >&2
	if ! apt-get "${apt_opts[@]}" update >"$work/update.log" 2>&1 || grep -q '^E: ' "$work/update.log"; then
		cat "$work/update.log" >&2
		die "could not fetch the signed index of sid (${line#*] })"
	fi
}
