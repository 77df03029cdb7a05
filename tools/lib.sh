# shellcheck shell=bash
# Functions of ./onenode. Sourced, never run.

log() { printf '\033[1m[onenode]\033[0m %s\n' "$*" >&2; }
die() { printf '[onenode] error: %s\n' "$*" >&2; exit 1; }

jobs_n() { echo "${ONENODE_JOBS:-$(nproc)}"; }

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	die "this step needs root (mmdebstrap, chroot, bind mounts); run as root or with sudo"
}

# The archive URI of this machine, read at run time: no host name lives in the repo.
archive_uri() {
	local f uri=
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
		[ -f "$f" ] || continue
		if [[ $f == *.sources ]]; then
			uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$f")
		else
			uri=$(awk '/^deb / && $0 !~ /security/ {for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' "$f")
		fi
		[ -n "$uri" ] && break
	done
	[ -n "$uri" ] || die "cannot find the Debian archive URI in /etc/apt"
	echo "$uri"
}

host_install() {
	local missing=() p
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	need_root
	log "installing on the host: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

tree_hash() {
	{ grep -v '^#' "$ONENODE_SRC/tools/packages.txt"; echo trixie; } | sha256sum | cut -c1-16
}

# ensure_tree: the Debian 13 tree, rebuilt only when tools/packages.txt changes.
ensure_tree() {
	local want have pkgs
	want=$(tree_hash)
	have=$(cat "$CACHE/trixie.stamp" 2>/dev/null || true)
	if [ "$want" = "$have" ] && [ -x "$TREE/usr/bin/meson" ]; then
		return 0
	fi
	need_root
	host_install mmdebstrap
	mkdir -p "$CACHE"
	pkgs=$(grep -v '^#' "$ONENODE_SRC/tools/packages.txt" | paste -sd, -)
	log "creating the Debian 13 tree in $TREE (about a minute)"
	rm -rf "$TREE.new"
	mmdebstrap --quiet --variant=apt --include="$pkgs" \
		--aptopt='APT::Install-Recommends "false"' \
		trixie "$TREE.new" "deb $(archive_uri) trixie main" >&2
	rm -rf "$TREE"
	mv "$TREE.new" "$TREE"
	echo "$want" >"$CACHE/trixie.stamp"
}

# in_tree CMD...: run CMD inside the tree, as root, with the repo at
# /onenode/repo and the cache at /onenode/cache. A private mount namespace
# keeps every bind mount away from the host.
in_tree() {
	need_root
	mkdir -p "$CACHE/work" "$TREE$T_REPO" "$TREE$T_CACHE"
	unshare --mount --propagation private -- /bin/bash -euc '
		tree=$1 repo=$2 cache=$3 trepo=$4 tcache=$5; shift 5
		mount --rbind /dev "$tree/dev"
		mount -t proc proc "$tree/proc"
		mount --rbind /sys "$tree/sys"
		mount -t tmpfs tmpfs "$tree/tmp"
		mount --bind "$repo" "$tree$trepo"
		mount --bind "$cache/work" "$tree$tcache"
		cp /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$tree" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
			PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin \
			CCACHE_DIR='"$T_CACHE"'/ccache ONENODE_JOBS="${ONENODE_JOBS:-}" \
			ONENODE_IN_TREE=1 CI="${CI:-}" LANG=C.UTF-8 \
			/bin/bash -c "cd $trepo && exec \"\$@\"" in_tree "$@"
	' in_tree "$TREE" "$ONENODE_SRC" "$CACHE" "$T_REPO" "$T_CACHE" "$@"
}

# fetch_kernel: linux-source-7.3 from trixie-backports, through a private apt
# configuration (no change to the host's apt), unpacked once into the cache.
fetch_kernel() {
	local w=$CACHE/work deb pristine=$CACHE/work/src/linux-$KVER.pristine
	[ -f "$pristine/Makefile" ] && return 0
	mkdir -p "$w/debs" "$w/src"
	deb=$(ls "$w/debs/${KPKG}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		local a=$CACHE/apt
		mkdir -p "$a/lists/partial" "$a/archives/partial"
		echo "deb $(archive_uri) trixie-backports main" >"$a/sources.list"
		local o=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
			-o Dir::State::Lists="$a/lists" -o Dir::Cache::Archives="$a/archives"
			-o APT::Get::List-Cleanup=0)
		log "downloading $KPKG $KPKG_VERSION"
		apt-get "${o[@]}" update -qq >&2
		(cd "$w/debs" && apt-get "${o[@]}" download "$KPKG=$KPKG_VERSION" >&2)
		deb=$(ls "$w/debs/${KPKG}_"*.deb | head -1)
	fi
	log "unpacking $(basename "$deb")"
	rm -rf "$w/src/x" && mkdir -p "$w/src/x"
	dpkg-deb -x "$deb" "$w/src/x"
	local tarball
	tarball=$(ls "$w/src/x/usr/src/"linux-source-*.tar.* | head -1)
	mkdir -p "$pristine.tmp"
	tar -xf "$tarball" -C "$pristine.tmp" --strip-components=1
	rm -rf "$w/src/x"
	mv "$pristine.tmp" "$pristine"
}

# The working kernel tree: a hard-linked copy of the pristine source with the
# patch series applied (remade when the series changes), then the project's
# files overlaid (checksummed, so only changed files get a new mtime).
KSRC=$CACHE/work/src/linux
prepare_kernel() {
	fetch_kernel
	local pristine=$CACHE/work/src/linux-$KVER.pristine want have
	want=$( (cd "$ONENODE_SRC/kernel/patches" && cat series $(grep -v '^#' series)) | sha256sum | cut -c1-16)
	have=$(cat "$KSRC.series" 2>/dev/null || true)
	if [ "$want" != "$have" ] || [ ! -f "$KSRC/Makefile" ]; then
		log "applying kernel/patches/series to a fresh copy of linux-$KVER"
		rm -rf "$KSRC" "$KSRC.overlay"
		cp -al "$pristine" "$KSRC"
		local p
		while read -r p; do
			case $p in '' | '#'*) continue ;; esac
			patch -d "$KSRC" -p1 -s --no-backup-if-mismatch <"$ONENODE_SRC/kernel/patches/$p" ||
				die "kernel/patches/$p does not apply"
		done <"$ONENODE_SRC/kernel/patches/series"
		echo "$want" >"$KSRC.series"
	fi
	overlay_kernel
}

# overlay_kernel: kernel/drm/include/* -> include/*, the rest of kernel/drm/*
# -> drivers/gpu/drm/*, uapi/drm/*.h -> include/uapi/drm/. Files that left
# the project since the last overlay are removed again.
overlay_kernel() {
	local list=$KSRC.overlay new f src
	new=$(mktemp)
	(cd "$ONENODE_SRC/kernel/drm" && find . -type f ! -path './include/*' | sed 's|^\./|drivers/gpu/drm/|')  >>"$new"
	(cd "$ONENODE_SRC/kernel/drm" && [ -d include ] && find include -type f) >>"$new" || true
	(cd "$ONENODE_SRC/uapi/drm" && find . -name '*.h' | sed 's|^\./|include/uapi/drm/|') >>"$new"
	if [ -f "$list" ]; then
		while read -r f; do
			grep -qxF "$f" "$new" || rm -f "$KSRC/$f"
		done <"$list"
	fi
	while read -r f; do
		case $f in
		drivers/gpu/drm/*) src=$ONENODE_SRC/kernel/drm/${f#drivers/gpu/drm/} ;;
		include/uapi/drm/*) src=$ONENODE_SRC/uapi/drm/${f#include/uapi/drm/} ;;
		include/*) src=$ONENODE_SRC/kernel/drm/$f ;;
		esac
		# Copy only what changed: unchanged files keep their mtime for make.
		cmp -s "$src" "$KSRC/$f" && continue
		mkdir -p "$(dirname "$KSRC/$f")"
		rm -f "$KSRC/$f"
		cp "$src" "$KSRC/$f"
	done <"$new"
	sort -o "$list" "$new"
	rm -f "$new"
}

flavor_fragments() {
	local c=$ONENODE_SRC/kernel/config
	case $1 in
	debug) echo "$c/vm.config $c/base.config $c/amdgpu.config $c/debug.config" ;;
	leaks) echo "$c/vm.config $c/base.config $c/amdgpu.config $c/debug.config $c/leaks.config" ;;
	*) die "unknown kernel flavor '$1' (debug, leaks)" ;;
	esac
}

# build_kernel FLAVOR: configure (when a fragment changed) and build bzImage.
# Runs inside the tree; ccache and O= keep rebuilds short.
build_kernel() {
	local flavor=$1 o=$T_CACHE/build/$flavor frags want
	frags=$(flavor_fragments "$flavor")
	want=$(cat $frags | sha256sum | cut -c1-16)
	local tfrags=${frags//$ONENODE_SRC/$T_REPO}
	in_tree bash -euc '
		o=$1 want=$2 jobs=$3; shift 3
		src=/onenode/cache/src/linux
		mkdir -p "$o"
		if [ "$(cat "$o/.config.stamp" 2>/dev/null)" != "$want" ]; then
			make -s -C "$src" O="$o" x86_64_defconfig
			"$src/scripts/kconfig/merge_config.sh" -Q -m -O "$o" "$o/.config" "$@" >/dev/null
			make -s -C "$src" O="$o" olddefconfig
			for frag in "$@"; do
				grep -E "^(CONFIG_[A-Z0-9_]+=[ym]|# CONFIG_[A-Z0-9_]+ is not set)" "$frag" | while read -r line; do
					case $line in
					"# "*) sym=${line#\# }; sym=${sym%% *}
						if grep -q "^$sym=" "$o/.config"; then echo "config: $sym wanted off but is on"; fi ;;
					*) if ! grep -qxF "$line" "$o/.config"; then
							echo "config: $line wanted, got: $(grep "^${line%%=*}=" "$o/.config" || echo unset)"
						fi ;;
					esac
				done
			done >"$o/config-mismatch.txt"
			echo "$want" >"$o/.config.stamp"
		fi
		make -s -C "$src" O="$o" CC="ccache gcc" -j"$jobs" bzImage
	' build "$o" "$want" "$(jobs_n)" $tfrags
	log "kernel ($flavor): $CACHE/work/build/$flavor/arch/x86/boot/bzImage"
	[ -s "$CACHE/work/build/$flavor/config-mismatch.txt" ] && sed 's/^/  /' "$CACHE/work/build/$flavor/config-mismatch.txt" >&2 || true
}

cmd_build() {
	local kernel=0 user=0 amdgpu=0 flavor=debug
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=1 ;;
		--user) user=1 ;;
		--amdgpu) amdgpu=1 ;;
		--flavor) flavor=$2; shift ;;
		*) die "build: unknown argument '$1'" ;;
		esac
		shift
	done
	[ $kernel$user$amdgpu = 000 ] && kernel=1 user=1
	ensure_tree
	if [ $kernel = 1 ] || [ $amdgpu = 1 ]; then
		prepare_kernel
		build_kernel "$flavor"
	fi
	[ $amdgpu = 1 ] && build_amdgpu_module "$flavor"
	[ $user = 1 ] && build_user
	return 0
}

# build_user: meson builds inside the tree. 'user' is the plain build the VM
# and the demo use; 'user-san' is the ASan/UBSan build of the unit tests.
build_user() {
	in_tree bash -euc '
		b=/onenode/cache/build
		for v in user user-san; do
			if [ ! -f "$b/$v/build.ninja" ]; then
				opts=(--buildtype=debugoptimized)
				[ $v = user-san ] && opts+=(-Db_sanitize=address,undefined -Db_lundef=false)
				meson setup "$b/$v" . "${opts[@]}" >/dev/null
			fi
			ninja -C "$b/$v" >/dev/null || ninja -C "$b/$v"
		done
	'
}
