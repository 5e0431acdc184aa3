# apt-private.sh - sourced by apt-fetch.sh and mingw-deps.sh: apt-get with its own state in a
# directory of the caller's (package lists, status, cache, no lock), so that nothing of the
# system's apt or dpkg state is read or changed but its sources and keyrings.
#
# apt_private_opts WORK [OPTION...]: sets the array apt_opts to the options for `apt-get
# "${apt_opts[@]}" ...` with the state in WORK (which must have lists/partial and
# cache/archives/partial), the OPTIONs (-o ...) added.
apt_private_opts() {
	local work=$1
	shift
	apt_opts=(
		-q
		"$@"
		-o "Dir::State::Lists=$work/lists"
		-o "Dir::State::status=$work/status"
		-o "Dir::Cache=$work/cache"
		-o "Dir::Cache::pkgcache="
		-o "Dir::Cache::srcpkgcache="
		-o "Debug::NoLocking=1"
	)
	# As root, apt drops to the _apt user for downloads, which cannot write into our temp dirs.
	if [ "$(id -u)" -eq 0 ]; then
		apt_opts+=(-o "APT::Sandbox::User=root")
	fi
}
