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

# install_guest_shims: what the tree needs as a VM root beyond packages:
# the udevd stand-in (see tools/guest/udevd) and a poweroff for
# virtme-init's last step (busybox's, as the tree has no systemd).
install_guest_shims() {
	local bin=$TREE/usr/local/bin
	mkdir -p "$bin"
	cmp -s "$ONENODE_SRC/tools/guest/udevd" "$bin/udevd" || install -m 0755 "$ONENODE_SRC/tools/guest/udevd" "$bin/udevd"
	[ -L "$bin/poweroff" ] || ln -sf /usr/bin/busybox "$bin/poweroff"
	# virtme-init's "udevadm settle" has nothing to wait for; it mounts over /etc/lvm.
	[ -L "$bin/udevadm" ] || ln -sf /bin/true "$bin/udevadm"
	mkdir -p "$TREE/etc/lvm"
}

# ensure_tree: the Debian 13 tree (make_tree), the guest's stand-ins
# (install_guest_shims) and upstream IGT in /opt/igt (ensure_igt).
ensure_tree() {
	make_tree
	install_guest_shims
	ensure_igt
	ensure_rdma_provider
	ensure_zdtm
}

# make_tree: the packages of the tree, remade only when tools/packages.txt
# changes. When packages were only added, they are installed into the
# existing tree instead (seconds instead of a minute).
make_tree() {
	local want have pkgs added
	want=$(tree_hash)
	have=$(cat "$CACHE/trixie.stamp" 2>/dev/null || true)
	if [ "$want" = "$have" ] && [ -x "$TREE/usr/bin/meson" ]; then
		return 0
	fi
	need_root
	host_install mmdebstrap
	mkdir -p "$CACHE"
	if [ -n "$have" ] && [ -f "$CACHE/trixie.packages" ] && [ -x "$TREE/usr/bin/meson" ]; then
		added=$(grep -v '^#' "$ONENODE_SRC/tools/packages.txt" | sort | comm -13 <(sort "$CACHE/trixie.packages") -)
		if ! grep -v '^#' "$ONENODE_SRC/tools/packages.txt" | sort | comm -23 <(sort "$CACHE/trixie.packages") - | grep -q .; then
			log "adding to the Debian 13 tree: $(echo $added)"
			cp /etc/resolv.conf "$TREE/etc/resolv.conf" 2>/dev/null || true
			chroot "$TREE" apt-get update -qq >&2
			# shellcheck disable=SC2086
			chroot "$TREE" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $added >/dev/null
			grep -v '^#' "$ONENODE_SRC/tools/packages.txt" >"$CACHE/trixie.packages"
			echo "$want" >"$CACHE/trixie.stamp"
			return 0
		fi
	fi
	pkgs=$(grep -v '^#' "$ONENODE_SRC/tools/packages.txt" | paste -sd, -)
	log "creating the Debian 13 tree in $TREE (about a minute)"
	rm -rf "$TREE.new" "$TREE.old"
	mmdebstrap --quiet --variant=apt --include="$pkgs" \
		--aptopt='APT::Install-Recommends "false"' \
		trixie "$TREE.new" "deb $(archive_uri) trixie main" >&2
	# Swap, and delete the old tree only on the next rebuild: a build or VM
	# still running in it keeps its files.
	[ -d "$TREE" ] && mv "$TREE" "$TREE.old"
	mv "$TREE.new" "$TREE"
	grep -v '^#' "$ONENODE_SRC/tools/packages.txt" >"$CACHE/trixie.packages"
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

# apt_download SUITE DIR PKG[=VERSION]...: download packages of another suite
# of this machine's archive into DIR, through a private apt configuration
# (no change to the host's apt, and the host's dpkg state is not read).
# Valid-Until is not checked: a mirror frozen in time serves an expired
# Release file for sid; its signature is still checked.
apt_download() {
	local suite=$1 dir=$2 a=$CACHE/apt-$1
	shift 2
	mkdir -p "$a/lists/partial" "$dir"
	echo "deb $(archive_uri) $suite main" >"$a/sources.list"
	mkdir -p "$a/cache/archives/partial"
	local opts=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o APT::Get::List-Cleanup=0
		-o Dir::State::Status=/dev/null -o Acquire::Check-Valid-Until=false)
	apt-get "${opts[@]}" update -qq >&2
	(cd "$dir" && apt-get "${opts[@]}" download "$@" >&2)
}

# Upstream IGT in the tree, for the guest (igt-tests/upstream/run.sh runs
# its generic DRM tests against vcompute). Debian 13 has no IGT; unstable's
# binaries need only glibc 2.38 and one library newer than trixie's
# (libdrm-amdgpu1 >= 2.4.125). Those debs are unpacked into the private
# prefix /opt/igt of the tree, so no dpkg-managed file changes (trixie's
# libdrm-dev pins its own libdrm-amdgpu1); IGT's other runtime libraries
# are trixie packages in tools/packages.txt. Pinned; the debs are cached.
IGT_VERSION=2.5-1
IGT_DRM_AMDGPU_VERSION=2.4.134-3
IGT_PREFIX=/opt/igt
IGT_DEBS="igt-gpu-tools=$IGT_VERSION igt-gpu-tools-tests=$IGT_VERSION libdrm-amdgpu1=$IGT_DRM_AMDGPU_VERSION"

# igt_unmet_depends DEB...: the Depends of the DEBs that the tree's
# installed packages do not satisfy, one a line. Not checked: what /opt/igt
# itself holds, intel-gpu-tools (a metapackage) and libxv1 (only the
# intel-gpu-overlay tool links it).
igt_unmet_depends() {
	local deb dep alt name have ok alts own=" igt-gpu-tools intel-gpu-tools libdrm-amdgpu1 libxv1 "
	for deb in "$@"; do dpkg-deb -f "$deb" Depends | tr ',' '\n'; done |
		sed 's/^ *//; s/ *$//' | sort -u | while IFS= read -r dep; do
		ok=0
		IFS='|' read -ra alts <<<"$dep"
		for alt in "${alts[@]}"; do
			alt=$(echo "$alt")
			name=${alt%% *}
			case $own in *" $name "*) ok=1; break ;; esac
			have=$(dpkg-query --admindir="$TREE/var/lib/dpkg" -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
			[[ $have == 'ii '* ]] || continue
			if [[ $alt =~ \(([\<\>=]+)\ *([^\)]+)\) ]] &&
				! dpkg --compare-versions "${have#ii }" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"; then
				continue
			fi
			ok=1; break
		done
		[ $ok = 1 ] || echo "$dep"
	done
}

# rdma-core's rxe provider with rdma-core-patches/ applied (dma-buf memory
# regions, which no Debian release of the provider has), for the guest: built
# from the source of trixie's own rdma-core, since a provider uses the
# private ABI of the tree's libibverbs, into the private prefix
# /opt/onenode/rdma of the tree. The guest names it in RDMAV_DRIVERS
# (tools/guest/run.sh), which libibverbs loads before the providers its
# configuration lists. Only the orig tarball is fetched: the .dsc of
# trixie's rdma-core answers 404 on this archive, its tarball does not.
RDMA_CORE_VERSION=56.1
RDMA_PREFIX=/opt/onenode/rdma
ensure_rdma_provider() {
	local dir=$TREE$RDMA_PREFIX src=$CACHE/work/src/rdma-core
	local tarball=$CACHE/work/debs/rdma-core_$RDMA_CORE_VERSION.orig.tar.gz want have p
	want=$( { echo "$RDMA_CORE_VERSION"; cat "$ONENODE_SRC"/rdma-core-patches/*.patch; } | sha256sum | cut -c1-16)
	[ "$(cat "$dir/STAMP" 2>/dev/null)" = "$want" ] && return 0
	need_root
	have=$(dpkg-query --admindir="$TREE/var/lib/dpkg" -W -f='${Version}' libibverbs1 2>/dev/null || true)
	[ "${have%%-*}" = "$RDMA_CORE_VERSION" ] ||
		die "the tree's libibverbs1 is '$have'; the rxe provider is built from rdma-core $RDMA_CORE_VERSION (RDMA_CORE_VERSION in tools/lib.sh)"
	if [ ! -f "$tarball" ]; then
		log "downloading rdma-core $RDMA_CORE_VERSION's source (for the rxe provider's dma-buf patch)"
		mkdir -p "$(dirname "$tarball")"
		/usr/lib/apt/apt-helper download-file \
			"$(archive_uri)/pool/main/r/rdma-core/rdma-core_$RDMA_CORE_VERSION.orig.tar.gz" "$tarball.part" >&2 ||
			die "cannot download rdma-core_$RDMA_CORE_VERSION.orig.tar.gz from $(archive_uri)"
		mv "$tarball.part" "$tarball"
	fi
	log "building rdma-core $RDMA_CORE_VERSION's rxe provider with rdma-core-patches/ (~30 s)"
	rm -rf "$src" && mkdir -p "$src"
	tar -xzf "$tarball" -C "$src" --strip-components=1
	for p in "$ONENODE_SRC"/rdma-core-patches/*.patch; do
		patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" || die "rdma-core-patches/$(basename "$p") does not apply"
	done
	in_tree bash -euc '
		b=/onenode/cache/build/rdma-core prefix=$1
		rm -rf "$b" && mkdir -p "$b"
		cmake -S /onenode/cache/src/rdma-core -B "$b" -G Ninja -DNO_PYVERBS=1 \
			-DNO_MAN_PAGES=1 -DENABLE_RESOLVE_NEIGH=0 >"$b/configure.log" 2>&1 ||
			{ tail -20 "$b/configure.log" >&2; exit 1; }
		ninja -C "$b" rxe-rdmav34 >/dev/null
		rm -rf "$prefix.new" && mkdir -p "$prefix.new"
		cp "$b/lib/librxe-rdmav34.so" "$prefix.new/"
	' rdma "$RDMA_PREFIX"
	echo "$want" >"$dir.new/STAMP"
	rm -rf "$dir" && mv "$dir.new" "$dir"
}

# CRIU's own test suite, zdtm, from the source of the criu the tree has: its
# maps00 and maps02 run with the onenode plugin loaded, as CRIU's CI runs
# them with its GPU plugins, to show that the plugin changes nothing for a
# process without a GPU (criu/tests/zdtm-maps.sh).
CRIU_VERSION=4.1.1
CRIU_ORIG_SHA256=f80a66cb3726bb2116266d4759ce3bcbfab7abdb6b6d430bf20dd41911717afe

# ensure_zdtm: criu's orig tarball (checked against CRIU_ORIG_SHA256) in
# $CACHE/work/src/criu, with criu/tests/zdtm-test-kernel.patch, and zdtm's
# library and the two tests built in the tree.
ensure_zdtm() {
	local src=$CACHE/work/src/criu tarball=$CACHE/work/debs/criu_$CRIU_VERSION.orig.tar.xz have want
	want=$( { echo "$CRIU_ORIG_SHA256"; cat "$ONENODE_SRC/criu/tests/zdtm-test-kernel.patch"; } | sha256sum | cut -c1-16)
	[ "$(cat "$src/STAMP" 2>/dev/null)" = "$want" ] && return 0
	need_root
	have=$(dpkg-query --admindir="$TREE/var/lib/dpkg" -W -f='${Version}' criu 2>/dev/null || true)
	[ "${have%%-*}" = "$CRIU_VERSION" ] ||
		die "the tree's criu is '$have'; zdtm is built from criu $CRIU_VERSION (CRIU_VERSION in tools/lib.sh)"
	if [ ! -f "$tarball" ]; then
		log "downloading criu $CRIU_VERSION's source (zdtm, CRIU's test suite)"
		mkdir -p "$(dirname "$tarball")"
		/usr/lib/apt/apt-helper download-file \
			"$(archive_uri)/pool/main/c/criu/criu_$CRIU_VERSION.orig.tar.xz" "$tarball.part" \
			"SHA256:$CRIU_ORIG_SHA256" >&2 ||
			die "cannot download criu_$CRIU_VERSION.orig.tar.xz from $(archive_uri)"
		mv "$tarball.part" "$tarball"
	fi
	log "building zdtm's maps00 and maps02 from criu $CRIU_VERSION's source (~10 s)"
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	# zdtm.py imports pycriu: the tree's python3-pycriu, not the source's
	# unbuilt copy, which test/pycriu links to.
	rm -f "$src/test/pycriu"
	patch -d "$src" -p1 -s --no-backup-if-mismatch <"$ONENODE_SRC/criu/tests/zdtm-test-kernel.patch" ||
		die "criu/tests/zdtm-test-kernel.patch does not apply to criu $CRIU_VERSION"
	in_tree bash -euc '
		cd /onenode/cache/src/criu/test
		make -C zdtm/lib >/dev/null
		make -C zdtm/static maps00 maps02 >/dev/null
		make zdtm_ct >/dev/null
	'
	echo "$want" >"$src/STAMP"
}

# ensure_igt: upstream IGT (IGT_DEBS) unpacked into $TREE/opt/igt with an
# env.sh to source; redone when the pins change or the tree was remade.
# Fails when the archive no longer has a pinned version, when the tree lacks
# a runtime library, or when a test of igt-tests/upstream/tests.txt is
# missing or does not resolve its libraries.
ensure_igt() {
	local dir=$TREE$IGT_PREFIX debs=$CACHE/work/debs p missing=() files=() unmet
	[ "$(cat "$dir/VERSION" 2>/dev/null)" = "$IGT_DEBS" ] && return 0
	need_root
	for p in $IGT_DEBS; do
		files+=("$debs/${p%%=*}_${p#*=}_amd64.deb")
		[ -f "${files[-1]}" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "downloading upstream IGT from Debian unstable: ${missing[*]}"
		apt_download sid "$debs" "${missing[@]}" ||
			die "Debian unstable at $(archive_uri) does not offer ${missing[*]}; pin versions it has (IGT_VERSION, IGT_DRM_AMDGPU_VERSION in tools/lib.sh)"
		for p in "${files[@]}"; do [ -f "$p" ] || die "apt-get download left no $p"; done
	fi
	unmet=$(igt_unmet_depends "${files[@]}")
	# shellcheck disable=SC2086 # one line
	[ -z "$unmet" ] || die "IGT $IGT_VERSION needs what the tree lacks (add it to tools/packages.txt): $(echo $unmet)"
	log "unpacking IGT $IGT_VERSION into the tree ($IGT_PREFIX)"
	rm -rf "$dir.new" && mkdir -p "$dir.new"
	for p in "${files[@]}"; do
		dpkg-deb --fsys-tarfile "$p" | tar -x -C "$dir.new" --strip-components=2 ./usr/
	done
	rm -rf "$dir.new/share/doc" "$dir.new/share/lintian" "$dir.new/share/man"
	cat >"$dir.new/env.sh" <<-ENVSH
	# . $IGT_PREFIX/env.sh: upstream IGT from Debian unstable ($IGT_DEBS),
	# unpacked by ./onenode (tools/lib.sh, ensure_igt). The binaries have no
	# RPATH: libigt.so.0 and the newer libdrm_amdgpu.so.1 are found here.
	export LD_LIBRARY_PATH=$IGT_PREFIX/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
	export PATH=$IGT_PREFIX/bin:$IGT_PREFIX/libexec/igt-gpu-tools:\$PATH
	export IGT_DATA_PATH=$IGT_PREFIX/share/igt-gpu-tools
	ENVSH
	# Every test the guest runs must resolve its libraries in the tree.
	local bins=("$IGT_PREFIX.new/lib/x86_64-linux-gnu/libigt.so.0") t out
	while read -r t _; do
		case $t in '' | '#'*) continue ;; esac
		[ -x "$dir.new/libexec/igt-gpu-tools/$t" ] || die "IGT $IGT_VERSION has no test '$t' (igt-tests/upstream/tests.txt)"
		bins+=("$IGT_PREFIX.new/libexec/igt-gpu-tools/$t")
	done <"$ONENODE_SRC/igt-tests/upstream/tests.txt"
	out=$(chroot "$TREE" /usr/bin/env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$IGT_PREFIX.new/lib/x86_64-linux-gnu" \
		ldd "${bins[@]}" 2>&1) || die "ldd on IGT's binaries in the tree failed: $out"
	if grep -q 'not found' <<<"$out"; then
		die "IGT's binaries miss libraries in the tree: $(grep 'not found' <<<"$out" | sort -u | tr -s ' \t' ' ')"
	fi
	echo "$IGT_DEBS" >"$dir.new/VERSION"
	rm -rf "$dir" && mv "$dir.new" "$dir"
}

# fetch_kernel: linux-source-7.3 from trixie-backports, through a private apt
# configuration (no change to the host's apt), unpacked once into the cache.
fetch_kernel() {
	local w=$CACHE/work deb pristine=$CACHE/work/src/linux-$KVER.pristine
	[ -f "$pristine/Makefile" ] && return 0
	mkdir -p "$w/debs" "$w/src"
	deb=$(ls "$w/debs/${KPKG}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		log "downloading $KPKG $KPKG_VERSION"
		apt_download trixie-backports "$w/debs" "$KPKG=$KPKG_VERSION"
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

# The working kernel tree: a hard-linked copy of the pristine source, made
# once, with the patch series of kernel/patches applied: make_series writes
# the series (tools/series.sh), it is applied with patch(1) to pristine
# copies of the files it touches, and a file that came out different from
# the tree's copy replaces it (unchanged files keep their mtime for make).
# Files the series no longer touches go back to their pristine content.
KSRC=$CACHE/work/src/linux
SERIES_OUT=$CACHE/work/series
prepare_kernel() {
	host_install patch git
	fetch_kernel
	local pristine=$CACHE/work/src/linux-$KVER.pristine stage=$CACHE/work/src/series-stage
	local list=$KSRC.series-files new old f
	if [ "$(cat "$KSRC.base" 2>/dev/null)" != "$KVER series" ] || [ ! -f "$KSRC/Makefile" ]; then
		log "making a working copy of linux-$KVER (a first build takes ~20 min on 2 cores)"
		rm -rf "$KSRC" "$list" "$KSRC.series" "$KSRC.overlay"
		cp -al "$pristine" "$KSRC"
		echo "$KVER series" >"$KSRC.base"
	fi
	make_series "$SERIES_OUT"
	rm -rf "$stage"
	new=$(mktemp)
	series_touched "$SERIES_OUT" >"$new"
	stage_pristine "$stage" <"$new"
	apply_series "$SERIES_OUT" "$stage"
	# The list names every file that may differ from pristine before any
	# changes, so that a run cut short leaves none behind for the next.
	old=$(mktemp)
	if [ -f "$list" ]; then cp "$list" "$old"; fi
	sort -u "$old" "$new" >"$list.tmp"
	mv "$list.tmp" "$list"
	while read -r f; do
		grep -qxF "$f" "$new" && continue
		rm -f "$KSRC/$f"
		if [ -f "$pristine/$f" ]; then cp "$pristine/$f" "$KSRC/$f"; fi
	done <"$old"
	rm -f "$old"
	while read -r f; do
		cmp -s "$stage/$f" "$KSRC/$f" && continue
		mkdir -p "$(dirname "$KSRC/$f")"
		# Replace, never write through: the tree's files are links to pristine ones.
		rm -f "$KSRC/$f"
		cp "$stage/$f" "$KSRC/$f"
	done <"$new"
	mv "$new" "$list"
	rm -rf "$stage"
}

flavor_fragments() {
	local c=$ONENODE_SRC/kernel/config
	case $1 in
	debug) echo "$c/min.config $c/vm.config $c/base.config $c/amdgpu.config $c/debug.config" ;;
	leaks) echo "$c/min.config $c/vm.config $c/base.config $c/amdgpu.config $c/debug.config $c/leaks.config" ;;
	# For measurements: no KASAN, no lockdep, no amdgpu (never loaded here).
	bench) echo "$c/min.config $c/vm.config $c/base.config" ;;
	*) die "unknown kernel flavor '$1' (debug, leaks, bench)" ;;
	esac
}

# The project's kernel modules (=m in kernel/config/base.config), in load
# order: the guest loads them before every VM command (tools/guest/run.sh),
# so the driver's init and exit paths run in every test boot.
PROJECT_MODULES="drivers/gpu/drm/vcompute/vcompute.ko drivers/gpu/drm/vcompute/vcompute_edu.ko drivers/gpu/drm/vcompute/tests/vcompute_packet_test.ko"
# Upstream modules built beside them where their option is set, loaded
# only by the command that needs them (lib/test_hmm.ko: ./onenode bench svm).
EXTRA_MODULES="CONFIG_TEST_HMM:lib/test_hmm.ko"

# Files the debug kernel compiles from scratch (measured 2026-12-07, the
# minimal configuration): what a first build's progress line counts against.
KERNEL_FILES_DEBUG=1754

# How build_kernel configures; part of the configuration's stamp.
CONFIG_METHOD="allnoconfig with KCONFIG_ALLCONFIG=min.config, then merge_config.sh -m, then olddefconfig"

# build_kernel FLAVOR: configure (when a fragment or a Kconfig file changed)
# and build bzImage and the project's modules. The configuration starts from
# allnoconfig, not a defconfig: kernel/config/min.config names what the
# guest itself needs, so nothing the VM never loads is compiled.
# Runs inside the tree; ccache and O= keep rebuilds short.
build_kernel() {
	local flavor=$1 frags want
	local o=$T_CACHE/build/$flavor
	frags=$(flavor_fragments "$flavor")
	# Reconfigure when a fragment changes, and when a Kconfig file does (ours,
	# or upstream's through the patch series).
	# (and when the way the configuration is made changes: CONFIG_METHOD)
	want=$( { echo "$CONFIG_METHOD"; cat $frags; find "$ONENODE_SRC/kernel/drm" -name Kconfig | sort | xargs -r cat;
		find "$ONENODE_SRC/kernel/patches" -type f | sort | xargs cat; } | sha256sum | cut -c1-16)
	local tfrags=${frags//$ONENODE_SRC/$T_REPO}
	in_tree bash -euc '
		o=$1 want=$2 jobs=$3; shift 3
		src=/onenode/cache/src/linux
		mkdir -p "$o"
		if [ "$(cat "$o/.config.stamp" 2>/dev/null)" != "$want" ]; then
			echo "[onenode] configuring the kernel from kernel/config fragments" >&2
			# The first fragment (min.config) is allnoconfig'"'"'s own input, so
			# that defaults which follow from it (64BIT: FRAME_WARN, ...)
			# are computed with it, not frozen at their 32-bit values.
			make -s -C "$src" O="$o" KCONFIG_ALLCONFIG="$1" allnoconfig
			"$src/scripts/kconfig/merge_config.sh" -Q -m -O "$o" "$o/.config" "$@" >/dev/null
			make -s -C "$src" O="$o" olddefconfig
			for frag in "$@"; do
				grep -E "^(CONFIG_[A-Z0-9_]+=[ymn]|# CONFIG_[A-Z0-9_]+ is not set)" "$frag" | while read -r line; do
					case $line in
					"# "* | *=n) sym=${line#\# }; sym=${sym%% *}; sym=${sym%=n}
						if grep -q "^$sym=" "$o/.config"; then echo "config: $sym wanted off but is on"; fi ;;
					*) if ! grep -qxF "$line" "$o/.config"; then
							echo "config: $line wanted, got: $(grep "^${line%%=*}=" "$o/.config" || echo unset)"
						fi ;;
					esac
				done
			done >"$o/config-mismatch.txt"
			echo "$want" >"$o/.config.stamp"
		fi
		# A first build counts against the estimate (make-progress.sh).
		if [ "$(basename "$o")" = debug ]; then export ONENODE_PROGRESS_TOTAL='"$KERNEL_FILES_DEBUG"'; fi
		/onenode/repo/tools/make-progress.sh "kernel ($(basename "$o"))" "$o/.onenode-cc-count" \
			-C "$src" O="$o" CC="ccache gcc" -j"$jobs" bzImage
		# The project'"'"'s own modules, loaded by tools/guest/run.sh.
		mods="'"$PROJECT_MODULES"'"
		for m in '"$EXTRA_MODULES"'; do
			grep -q "^${m%%:*}=m" "$o/.config" && mods="$mods ${m#*:}"
		done
		make -s -C "$src" O="$o" CC="ccache gcc" -j"$jobs" $mods
	' build "$o" "$want" "$(jobs_n)" $tfrags
	log "kernel ($flavor): $CACHE/work/build/$flavor/arch/x86/boot/bzImage"
	[ -s "$CACHE/work/build/$flavor/config-mismatch.txt" ] && sed 's/^/  /' "$CACHE/work/build/$flavor/config-mismatch.txt" >&2 || true
}

cmd_build() {
	local kernel=0 user=0 amdgpu=0 mesa=0 flavor=debug
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=1 ;;
		--user) user=1 ;;
		--amdgpu) amdgpu=1 ;;
		--mesa) mesa=1 ;;
		--flavor) flavor=$2; shift ;;
		*) die "build: unknown argument '$1'" ;;
		esac
		shift
	done
	[ $kernel$user$amdgpu$mesa = 0000 ] && kernel=1 user=1
	ensure_tree
	if [ $kernel = 1 ] || [ $amdgpu = 1 ]; then
		# One kernel build at a time: the tree is remade when the series changes.
		exec 8>"$CACHE/kernel.lock"
		flock 8
		prepare_kernel
		build_kernel "$flavor"
		flock -u 8
	fi
	[ $amdgpu = 1 ] && build_amdgpu_module "$flavor"
	[ $user = 1 ] && build_user
	[ $mesa = 1 ] && build_mesa # tools/mesa.sh
	return 0
}

# build_user: meson builds inside the tree. 'user' is the plain build the VM
# and the demo use (-O2, so -Werror also sees what only the optimizer
# finds); 'user-san' is the ASan/UBSan build of the unit tests, at -O0: the
# same 36 tests pass, and it compiles in 57 s where -O2 took 3 min 14 s on 2
# cores without ccache (2026-12-07). A build made with other options is
# made again.
build_user() {
	in_tree bash -euc '
		b=/onenode/cache/build
		for v in user user-san; do
			opts=(--buildtype=debugoptimized)
			[ $v = user-san ] && opts=(--buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false)
			if [ ! -f "$b/$v/build.ninja" ] || [ "$(cat "$b/$v/.onenode-opts" 2>/dev/null)" != "${opts[*]}" ]; then
				rm -rf "$b/$v"
				meson setup "$b/$v" . "${opts[@]}" >/dev/null
				echo "${opts[*]}" >"$b/$v/.onenode-opts"
			fi
			# A progress line every 30 s (a first build takes minutes);
			# what else ninja prints (warnings, a failure) goes through.
			t0=$SECONDS last=$SECONDS
			ninja -C "$b/$v" 2>&1 | while IFS= read -r line; do
				case $line in
				"["[0-9]*/[0-9]*"]"*)
					if [ $((SECONDS - last)) -ge 30 ]; then
						n=${line%%]*} n=${n#[}
						printf "\033[1m[onenode]\033[0m userspace (%s): %s of %s build steps, %d min %02d s\n" \
							"$v" "${n%/*}" "${n#*/}" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) >&2
						last=$SECONDS
					fi ;;
				"ninja: Entering directory"* | "ninja: no work to do.") ;;
				*) printf "%s\n" "$line" >&2 ;;
				esac
			done
			[ "${PIPESTATUS[0]}" = 0 ] || exit 1
		done
	'
}

# Where a VM run leaves its logs, under $CACHE/work/vm/.
VM_DIR=${ONENODE_VM_DIR:-last}

# Kernel log lines that fail a VM run, whatever CMD returned.
SPLAT_RE='WARNING:|BUG:|KASAN:|UBSAN:|Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|lockdep is turned off|unreferenced object|kmemleak: [0-9]+ new suspected memory leak|Call Trace:|^(\[[ 0-9.]*\] )?\s*not ok '

# Console lines not worth showing on the terminal (they stay in console.txt):
# the kernel log, the decompressor's early console, and boot noise.
CONSOLE_NOISE_RE='^\[ *[0-9.]+\]|^(early console|input_|output|kernel_total_size|needed_size|trampoline_32bit|Physical KASLR|Virtual KASLR|Poking KASLR|Decompressing Linux|Booting the kernel)|^$'

# check_dmesg FILE: print the splats in FILE; return 1 when there are any.
check_dmesg() {
	local hits
	hits=$(grep -nE "$SPLAT_RE" "$1" || true)
	[ -z "$hits" ] && return 0
	printf '%s\n' "$hits" | head -40
	return 1
}

# Limits of one VM run: the whole run (ONENODE_VM_TIMEOUT) and the boot,
# until the guest's tools/guest/run.sh has started (ONENODE_VM_BOOT_TIMEOUT).
# A boot under TCG normally reaches its command in 1-2 minutes.
VM_LIMIT=${ONENODE_VM_TIMEOUT:-2400}
VM_BOOT_LIMIT=${ONENODE_VM_BOOT_TIMEOUT:-600}

# The PCI topology of every test VM (q35: what virtme-ng runs under TCG):
# three QEMU ivshmem functions, which vcompute drives as compute devices with
# their BAR as device memory (vcompute_pci.c), two QEMU edu functions, the
# DMA-doing importers (vcompute_edu.c, the test "NIC"), and two e1000e NICs
# (unconnected: io_uring zcrx attaches their driver's device to a dma-buf).
# Behind one emulated PCIe switch: two ivshmem, one edu, one e1000e
# (peer-to-peer possible); on root ports of their own: one of each (not:
# q35's host bridge is not in the p2pdma whitelist). IGT compute_p2p reads
# the decisions the kernel makes for every pair, and where the edu's DMA
# lands.
VM_PCI_TOPOLOGY="-object memory-backend-ram,id=vcram0,size=32M,share=on \
-object memory-backend-ram,id=vcram1,size=32M,share=on \
-object memory-backend-ram,id=vcram2,size=32M,share=on \
-device pcie-root-port,id=vcrp1,bus=pcie.0,chassis=11,slot=11 \
-device x3130-upstream,id=vcsw,bus=vcrp1 \
-device xio3130-downstream,id=vcsd1,bus=vcsw,chassis=12,slot=1 \
-device ivshmem-plain,memdev=vcram0,bus=vcsd1 \
-device xio3130-downstream,id=vcsd2,bus=vcsw,chassis=13,slot=2 \
-device ivshmem-plain,memdev=vcram1,bus=vcsd2 \
-device xio3130-downstream,id=vcsd3,bus=vcsw,chassis=15,slot=3 \
-device edu,bus=vcsd3,dma_mask=0xffffffffffffffff \
-device xio3130-downstream,id=vcsd4,bus=vcsw,chassis=17,slot=4 \
-device e1000e,bus=vcsd4 \
-device pcie-root-port,id=vcrp2,bus=pcie.0,chassis=14,slot=14 \
-device ivshmem-plain,memdev=vcram2,bus=vcrp2 \
-device pcie-root-port,id=vcrp3,bus=pcie.0,chassis=16,slot=16 \
-device edu,bus=vcrp3,dma_mask=0xffffffffffffffff \
-device pcie-root-port,id=vcrp4,bus=pcie.0,chassis=18,slot=18 \
-device e1000e,bus=vcrp4"

# vm_boot OUT FLAVOR MEM APPEND CMD [QEMU-OPTS...]: one boot, watched. The
# VM runs under timeout(1) in its own process group, so that stopping it
# stops QEMU too (virtme-ng runs QEMU in a child, which a --foreground
# timeout would leave running with our pipes open: a hang that never ends).
# A guest that has not started CMD after VM_BOOT_LIMIT seconds is stopped
# and OUT/boot-hung is left; one that runs past VM_LIMIT leaves
# OUT/timed-out. Ctrl-C and SIGTERM stop the VM as well.
vm_boot() {
	local out=$1 flavor=$2 mem=$3 append=$4 cmd=$5 start=$SECONDS job pidf
	shift 5
	pidf=$out/timeout.pid
	# 9p, not virtiofs: under TCG, virtiofsd from the chroot served corrupt
	# pages (every guest program crashed in ld.so).
	# stdout goes through a pipe: virtme-ng hands QEMU "-chardev
	# file,path=/proc/self/fd/1", and QEMU opens that path with O_TRUNC, which
	# would empty a file the caller redirected our output to.
	in_tree /bin/bash -c 'echo $$ >"$1"; shift; exec "$@"' vm-boot "$T_CACHE/vm/$VM_DIR/timeout.pid" \
		timeout -k 10 "$VM_LIMIT" vng --run "$T_CACHE/build/$flavor/arch/x86/boot/bzImage" --disable-kvm --force-9p \
		--cpus "$(jobs_n)" --memory "$mem" --rwdir "$T_CACHE=$T_CACHE" --cwd "$T_REPO" \
		--append "panic=-1 oops=panic hung_task_panic=1$append" "$@" --verbose --exec "$cmd" \
		</dev/null 2> >(tee "$out/console.txt" | grep -vE "$CONSOLE_NOISE_RE" >&2) | cat &
	job=$!
	# shellcheck disable=SC2064 # the file names are fixed now
	trap "vm_stop '$pidf'; exit 130" INT TERM
	while kill -0 "$job" 2>/dev/null; do
		sleep 2
		if [ ! -e "$out/started" ] && [ $((SECONDS - start)) -ge "$VM_BOOT_LIMIT" ]; then
			: >"$out/boot-hung"
			vm_stop "$pidf"
			break
		fi
	done
	wait "$job" || true
	trap - INT TERM
	[ -e "$out/rc" ] || [ -e "$out/boot-hung" ] || [ $((SECONDS - start)) -lt "$VM_LIMIT" ] ||
		: >"$out/timed-out"
	return 0
}

# vm_stop PIDFILE: stop the timeout(1) that runs a VM, and with it QEMU.
vm_stop() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	return 0
}

# cmd_vm [--flavor F] [--append ARGS] [--kunit] [--qemu-opts OPTS] -- CMD...
# Boots the built kernel under TCG with virtme-ng, the Debian 13 tree as
# root, runs CMD in the repo (as root) and returns its status; fails when the
# guest's kernel log holds a splat. The log stays in $CACHE/work/vm/last
# (vm/$ONENODE_VM_DIR when set, so that concurrent users keep theirs).
cmd_vm() {
	local flavor=debug append="" kunit=0 qopts=()
	while [ $# -gt 0 ]; do
		case $1 in
		--flavor) flavor=$2; shift ;;
		--append) append+=" $2"; shift ;;
		--kunit) kunit=1 ;;
		--qemu-opts) qopts+=("--qemu-opts=$2"); shift ;;
		--) shift; break ;;
		-*) die "vm: unknown option '$1' (see ./onenode help)" ;;
		*) break ;;
		esac
		shift
	done
	[ $# -gt 0 ] || die "vm: no command (./onenode vm -- CMD...)"
	ensure_tree
	local image=$CACHE/work/build/$flavor/arch/x86/boot/bzImage
	[ -f "$image" ] || cmd_build --kernel --flavor "$flavor"
	[ $kunit = 1 ] && append+=" kunit.enable=1" || append+=" kunit.enable=0"
	# One VM at a time: TCG takes every core, and the output directory is shared.
	exec 9>"$CACHE/vm.lock"
	flock 9
	local out=$CACHE/work/vm/$VM_DIR rc=0 mem=3G try
	[ "$flavor" = leaks ] && mem=4G
	local cmd
	cmd=$(printf '%q ' env ONENODE_KBUILD="$T_CACHE/build/$flavor" ONENODE_MODULES="$PROJECT_MODULES" \
		"$T_REPO/tools/guest/run.sh" "$T_CACHE/vm/$VM_DIR" "$@")
	for try in 1 2; do
		rm -rf "$out" && mkdir -p "$out"
		log "booting $flavor kernel under TCG: $*"
		vm_boot "$out" "$flavor" "$mem" "$append" "$cmd" "--qemu-opts=$VM_PCI_TOPOLOGY" "${qopts[@]}"
		[ -f "$out/boot-hung" ] && [ "$try" = 1 ] || break
		log "the guest did not reach its command within ${VM_BOOT_LIMIT}s; booting once more (console of the hung boot: $out.hung.txt)"
		cp "$out/console.txt" "$out.hung.txt" 2>/dev/null
	done
	if [ ! -f "$out/rc" ]; then
		if [ -f "$out/boot-hung" ]; then
			log "the VM did not reach its command within ${VM_BOOT_LIMIT}s, twice; last console lines:"
		elif [ -f "$out/timed-out" ]; then
			log "the VM ran past ${VM_LIMIT}s (ONENODE_VM_TIMEOUT) and was stopped; last console lines:"
		else
			log "the VM did not finish the command (no exit status came back); last console lines:"
		fi
		tail -n 25 "$out/console.txt" >&2
		return 1
	fi
	rc=$(cat "$out/rc")
	if ! check_dmesg "$out/dmesg.txt" >"$out/splats.txt"; then
		log "kernel log of the VM holds splats ($out/dmesg.txt):"
		cat "$out/splats.txt" >&2
		[ "$rc" = 0 ] && rc=1
	fi
	if [ -s "$out/kmemleak.txt" ]; then
		log "kmemleak reports leaks ($out/kmemleak.txt)"
		[ "$rc" = 0 ] && rc=1
	fi
	return "$rc"
}

# Results: every stage appends "PASS|FAIL|SKIP <stage>/<name>" lines to
# $RESULTS; the summary counts them.
RESULTS=${RESULTS:-}
result() {
	printf '%s %s\n' "$1" "$2" >>"$RESULTS"
	[ "$1" = FAIL ] && log "FAIL $2"
	return 0
}

# result_of NAME OUTPUT: a check that prints nothing passes; otherwise it
# fails and what it printed is shown.
result_of() {
	if [ -n "$2" ]; then
		result FAIL "$1"; printf '%s\n' "$2" >&2
	else
		result PASS "$1"
	fi
}

# exit_agrees NAME RC MARK: a stage that exited non-zero must have recorded
# a failure after line MARK of $RESULTS; if it did not (it died before its
# log was written, a sanitizer report outside any test), NAME fails.
exit_agrees() {
	[ "$2" = 0 ] && return 0
	tail -n +"$(($3 + 1))" "$RESULTS" | grep -q '^FAIL ' && return 0
	log "$1: exit status $2 without a failed test"
	result FAIL "$1"
}

# kernel_files: the project's kernel sources as paths in the kernel tree.
kernel_files() {
	(cd "$ONENODE_SRC/kernel/drm" && find . -type f \( -name '*.c' -o -name '*.h' \) ! -path './include/*' | sed 's|^\./|drivers/gpu/drm/|')
	(cd "$ONENODE_SRC/kernel/drm" && find include -type f -name '*.h' 2>/dev/null)
	(cd "$ONENODE_SRC/uapi/drm" && find . -name '*.h' | sed 's|^\./|include/uapi/drm/|')
}

# check_style: kernel-doc on every project kernel file, checkpatch --strict
# on every patch of the series (whole new files included).
check_style() {
	local f out
	# kernel-doc: every documented item complete (the uapi pages render from it).
	for f in $(kernel_files | sort); do
		out=$(in_tree bash -c 'cd /onenode/cache/src/linux && scripts/kernel-doc -Wall -none "$1" 2>&1' kd "$f" || true)
		result_of "kernel-doc/$f" "$out"
	done
	# The series as it is sent (written by the last build): commit messages,
	# edits to upstream files and the project's new files, whole.
	while read -r f; do
		case $f in '' | '#'*) continue ;; esac
		out=$(in_tree perl /onenode/cache/src/linux/scripts/checkpatch.pl --strict --no-tree \
			--no-summary --terse --ignore FILE_PATH_CHANGES "$T_CACHE/series/$f" 2>&1 || true)
		result_of "checkpatch/$f" "$out"
	done <"$SERIES_OUT/series"
}

# check_shell: shellcheck (warnings and errors) on every shell script of the
# project, the driver and its library included.
# Files git ignores (scratch copies, build output) are not the project's.
shell_scripts() {
	(
		cd "$ONENODE_SRC" || exit
		if git rev-parse --git-dir >/dev/null 2>&1; then
			git ls-files --cached --others --exclude-standard
		else
			find . -path ./.git -prune -o -type f -print | sed 's|^\./||'
		fi | grep -E '(\.sh|^onenode|^\.ci/run|^tools/guest/udevd)$' | sort
	)
}
check_shell() {
	local f out
	for f in $(shell_scripts); do
		out=$(in_tree shellcheck -x -S warning "$f" 2>&1 || true)
		result_of "shellcheck/$f" "$out"
	done
}

# compile_objects: every object the project adds or changes (its .c files and
# the .c files its patches touch), compiled with W=1 and sparse (C=2).
compile_objects() {
	{
		kernel_files | grep '\.c$'
		series_touched "$SERIES_OUT" | grep '\.c$'
	} | sort -u | sed 's/\.c$/.o/'
}

# ensure_sparse: Linux 7.3 needs a sparse that knows __typeof_unqual__;
# Debian 13's 0.6.4 does not, so the sparse binary comes from unstable
# (only /usr/bin/sparse is used; it needs nothing trixie lacks).
SPARSE=$T_CACHE/tools/sparse/usr/bin/sparse
ensure_sparse() {
	local d=$CACHE/work/tools/sparse
	[ -x "$d/usr/bin/sparse" ] && return 0
	local debs=$CACHE/work/debs
	log "fetching sparse from Debian unstable"
	rm -f "$debs"/sparse_*.deb
	apt_download sid "$debs" sparse
	mkdir -p "$d"
	dpkg-deb -x "$debs"/sparse_*.deb "$d"
	in_tree sh /onenode/cache/src/linux/scripts/checker-valid.sh "$SPARSE" -m64 | grep -qx 1 ||
		die "sparse from unstable does not pass the kernel's checker-valid.sh"
}

# What fails a W=1 + sparse compilation, once upstream's own warnings in the
# files we patch (kernel/config/w1-sparse-baseline.txt) are taken out.
W1_BAD_RE='warning:|error:|Error [0-9]|not available or not up to date'
w1_sparse_filter() {
	sed -E 's|^/onenode/cache/src/linux/||; s|^([^:]+):[0-9]+:[0-9]+: |\1: |' |
		grep -vxF -f <(grep -v '^#' "$ONENODE_SRC/kernel/config/w1-sparse-baseline.txt") || true
}

# w1_sparse_make FLAVOR JOBS OBJ...: compile OBJ... with W=1 and sparse,
# printing what is left once the baseline is taken out.
w1_sparse_make() {
	local flavor=$1 jobs=$2
	shift 2
	in_tree make -s -C /onenode/cache/src/linux O="$T_CACHE/build/$flavor" -j"$jobs" \
		CC="ccache gcc" W=1 C=2 CHECK="$SPARSE" "$@" 2>&1 | w1_sparse_filter
}

# check_compile [FLAVOR]: W=1 + sparse on every object of compile_objects,
# all in one make (-j): when that prints nothing, every object passes. When
# it does, each object is compiled again alone, so that every warning is
# charged to the object whose compilation printed it (a header's warning
# included).
check_compile() {
	local flavor=${1:-debug} obj out objs absent=0
	ensure_sparse
	objs=$(compile_objects)
	# Remove the objects so that make compiles (and sparse checks) them now.
	for obj in $objs; do rm -f "$CACHE/work/build/$flavor/$obj"; done
	# shellcheck disable=SC2086 # one word per object
	out=$(w1_sparse_make "$flavor" "$(jobs_n)" $objs) || true
	for obj in $objs; do [ -f "$CACHE/work/build/$flavor/$obj" ] || absent=1; done
	if [ $absent = 0 ] && ! printf '%s\n' "$out" | grep -qE "$W1_BAD_RE"; then
		for obj in $objs; do result PASS "w1-sparse/$obj"; done
		return 0
	fi
	log "W=1 + sparse printed warnings; each object alone, to say whose"
	for obj in $objs; do
		rm -f "$CACHE/work/build/$flavor/$obj"
		out=$(w1_sparse_make "$flavor" 1 "$obj") || true
		if printf '%s\n' "$out" | grep -qE "$W1_BAD_RE" || [ ! -f "$CACHE/work/build/$flavor/$obj" ]; then
			result FAIL "w1-sparse/$obj"; printf '%s\n' "$out" >&2
		else
			result PASS "w1-sparse/$obj"
		fi
	done
}

cmd_check() {
	RESULTS=${RESULTS:-$(mktemp)}
	ensure_tree
	cmd_build --kernel
	check_style
	check_shell
	check_compile debug
	summarize
}

# build_amdgpu_module: the whole amdgpu module and the modules it links
# against (the only modules of the config: everything the VM needs is
# built in). About 20 minutes on 2 cores from a built kernel (README.md).
build_amdgpu_module() {
	in_tree "$T_REPO/tools/make-progress.sh" "amdgpu module ($1)" "$T_CACHE/build/$1/.onenode-modules-count" \
		-C /onenode/cache/src/linux O="$T_CACHE/build/$1" CC="ccache gcc" -j"$(jobs_n)" modules
	log "amdgpu: $CACHE/work/build/$1/drivers/gpu/drm/amd/amdgpu/amdgpu.ko"
}

# summarize: the failures, then the expected failures (XFAIL: a result that
# failed and is listed with its reason, igt-tests/upstream/expected.txt) on
# their own, never folded into the skips, then the skips, then the closing
# count.
summarize() {
	local p f s x
	p=$(grep -c '^PASS ' "$RESULTS" || true)
	f=$(grep -c '^FAIL ' "$RESULTS" || true)
	s=$(grep -c '^SKIP ' "$RESULTS" || true)
	x=$(grep -c '^XFAIL ' "$RESULTS" || true)
	if [ "$f" -gt 0 ]; then
		echo "Failed:"
		grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /  /'
	fi
	if [ "$x" -gt 0 ]; then
		echo "$x expected failures, each with its reason:"
		grep '^XFAIL ' "$RESULTS" | sed 's/^XFAIL /  /'
	fi
	if [ "$s" -gt 0 ]; then
		echo "$s skipped:"
		grep '^SKIP ' "$RESULTS" | sed 's/^SKIP /  /'
	fi
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
}

results_tool() { echo "$T_CACHE/build/user-san/tools/results/onenode-results"; }

cmd_test() {
	local leaks=0 vm=1
	while [ $# -gt 0 ]; do
		case $1 in
		--leaks) leaks=1 ;;
		--no-vm) vm=0 ;;
		*) die "test: unknown argument '$1'" ;;
		esac
		shift
	done
	local t0=$SECONDS
	mkdir -p "$CACHE/work"
	RESULTS=$CACHE/work/results.txt
	: >"$RESULTS"
	ensure_tree
	log "building (kernel debug flavor, userspace plain and ASan/UBSan)"
	# A separate process, so that errexit holds inside the build.
	local flavor
	for flavor in debug $([ $leaks = 1 ] && echo leaks); do
		if "$ONENODE_SRC/onenode" build --kernel --flavor "$flavor"; then
			result PASS "build/kernel-$flavor"
		else
			result FAIL "build/kernel-$flavor"; summarize; return 1
		fi
		# Every option a fragment asks for must have survived olddefconfig.
		if [ -s "$CACHE/work/build/$flavor/config-mismatch.txt" ]; then
			result FAIL "build/config-$flavor"
		else
			result PASS "build/config-$flavor"
		fi
	done
	if "$ONENODE_SRC/onenode" build --user; then
		result PASS build/userspace
	else
		result FAIL build/userspace; summarize; return 1
	fi

	log "unit tests (ASan/UBSan, Debian 13 tree, no VM)"
	local mark urc=0
	mark=$(wc -l <"$RESULTS")
	rm -f "$CACHE/work/build/user-san/meson-logs/unit.json"
	in_tree meson test -C "$T_CACHE/build/user-san" --suite unit --print-errorlogs --logbase unit >/dev/null 2>&1 || urc=$?
	[ $urc = 0 ] || log "unit failures: see $CACHE/work/build/user-san/meson-logs/unit.txt"
	in_tree "$(results_tool)" meson unit "$T_CACHE/build/user-san/meson-logs/unit.json" >>"$RESULTS" || true
	exit_agrees unit/meson-exit "$urc" "$mark"

	log "checkpatch --strict and W=1 + sparse on the project's kernel objects"
	check_style
	check_shell
	check_compile debug

	if [ $vm = 1 ]; then
		for flavor in debug $([ $leaks = 1 ] && echo leaks); do
			log "VM ($flavor kernel): KUnit at boot, the 'vm' suite, then upstream IGT's generic DRM tests"
			local vmrc=0
			mark=$(wc -l <"$RESULTS")
			cmd_vm --flavor "$flavor" --kunit -- tools/guest/test-batch.sh "$T_CACHE/vm/$VM_DIR" || vmrc=$?
			local out=$CACHE/work/vm/$VM_DIR
			in_tree "$(results_tool)" ktap "kunit-$flavor" "$T_CACHE/vm/$VM_DIR/dmesg.txt" >>"$RESULTS" || true
			in_tree "$(results_tool)" meson "vm-$flavor" "$T_CACHE/vm/$VM_DIR/vm.json" >>"$RESULTS" || true
			in_tree "$(results_tool)" igt "vm-$flavor/igt-upstream" "$T_CACHE/vm/$VM_DIR/igt-upstream" \
				"$T_REPO/igt-tests/upstream/expected.txt" >>"$RESULTS" || true
			# Without the node every device test would merely skip.
			if [ -s "$out/device.txt" ]; then
				result PASS "vm-$flavor/vcompute-probed"
			else
				result FAIL "vm-$flavor/vcompute-probed"
			fi
			# vcompute and vcompute_edu claimed no PCI function at load and
			# carry no PCI alias (tools/guest/run.sh).
			if [ -f "$out/unasked-binding.txt" ] && [ ! -s "$out/unasked-binding.txt" ]; then
				result PASS "vm-$flavor/binds-only-when-asked"
			else
				result FAIL "vm-$flavor/binds-only-when-asked"
				sed 's/^/  /' "$out/unasked-binding.txt" >&2 2>/dev/null || true
			fi
			# tools/guest/run.sh unloads the project's modules after the batch.
			if [ "$(cat "$out/unload.txt" 2>/dev/null)" = ok ]; then
				result PASS "vm-$flavor/module-unload"
			else
				result FAIL "vm-$flavor/module-unload"
				log "module unload: $(cat "$out/unload.txt" 2>/dev/null || echo 'no report')"
			fi
			if [ -s "$out/splats.txt" ] || [ -s "$out/kmemleak.txt" ] || [ ! -f "$out/rc" ]; then
				result FAIL "vm-$flavor/kernel-log-clean"
			else
				result PASS "vm-$flavor/kernel-log-clean"
			fi
			exit_agrees "vm-$flavor/batch-exit" "$vmrc" "$mark"
			rm -rf "$CACHE/work/vm/test-$flavor"
			cp -r "$out" "$CACHE/work/vm/test-$flavor"
			[ $vmrc = 0 ] || log "VM batch exited $vmrc (details: $CACHE/work/vm/test-$flavor)"
		done
	else
		log "skipping the VM (--no-vm)"
	fi
	log "done in $((SECONDS - t0)) s; results in $RESULTS"
	summarize
}

cmd_demo() {
	ensure_tree
	cmd_build --kernel --user
	log "demo: boot the VM; on the vcompute render node, query the device, then add two vectors on"
	log "      a user queue submitted by doorbell, waiting on a user fence and on a DRM syncobj;"
	log "      then sum a heap array and a heap linked list through SVM, before and after a"
	log "      prefetch to device memory; ingest NIC packets into GPU memory; checkpoint a GPU job"
	log "      with CRIU and restore it on the same and on another instance"
	cmd_vm -- bash -c "$T_CACHE/build/user/examples/caps/onenode-caps && $T_CACHE/build/user/examples/vector-add/onenode-vector-add && $T_CACHE/build/user/examples/svm-compute/onenode-svm-compute && $T_CACHE/build/user/examples/nic-ingest/onenode-nic-ingest && $T_CACHE/build/user/examples/criu-migrate/onenode-criu-migrate --plugin-dir $T_CACHE/build/user/criu"
}

# cmd_migrate: examples/criu-migrate split over two VM boots: the job is
# dumped into $CACHE/work/criu-migrate (/onenode/cache/criu-migrate in the guest) in the
# first, and restored from there in the second, a fresh kernel and device.
cmd_migrate() {
	local dir=$T_CACHE/criu-migrate
	local bin=$T_CACHE/build/user/examples/criu-migrate/onenode-criu-migrate
	ensure_tree
	cmd_build --kernel --user
	rm -rf "$CACHE/work/criu-migrate"
	log "migrate: boot 1 of 2: start the job, checkpoint it with criu into $dir"
	cmd_vm -- "$bin" --plugin-dir "$T_CACHE/build/user/criu" --dump-to "$dir"
	log "migrate: boot 2 of 2: restore the job from $dir and let it finish"
	cmd_vm -- "$bin" --plugin-dir "$T_CACHE/build/user/criu" --restore-from "$dir"
}

# cmd_zdtm: CRIU's zdtm tests maps00 and maps02 with the onenode plugin
# loaded, in the debug VM (criu/tests/zdtm-maps.sh; too slow under TCG for
# the test run's budget).
cmd_zdtm() {
	ensure_tree
	cmd_build --kernel --user
	cmd_vm -- meson test -C "$T_CACHE/build/user" --suite zdtm --no-rebuild --print-errorlogs
}

# tree_extras WHAT PKG...: packages only some commands need (not in
# tools/packages.txt, which every run installs), installed into the tree
# the first time WHAT asks for them.
tree_extras() {
	local what=$1 missing=() p
	shift
	for p in "$@"; do
		chroot "$TREE" dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "$what: installing into the Debian 13 tree: ${missing[*]}"
	in_tree bash -c 'apt-get update -qq >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null' \
		apt "${missing[@]}" || die "$what: could not install ${missing[*]} into the tree"
}

# cmd_bench [vk|queues|svm|nic|criu [ARGS]]: benchmark programs, each printing ratios of
# two paths measured side by side in one run. vk: libvkp2p's on lavapipe in
# the tree (the H100 numbers come from libvkp2p/tools/device-nvidia.sh);
# ARGS go to vkp2p-bench (--size MiB, --passes N, --calls N). queues: user
# queues on vcompute in the VM (doorbell vs an ioctl per job, COPY vs
# memcpy); ARGS go to onenode-bench-queues (--jobs N, --rounds N,
# --copy-mib N). svm: shared virtual memory on vcompute in the VM
# (migration vs memcpy, GPU fault service vs lib/test_hmm.c's dmirror,
# invalidation under a running queue); ARGS go to onenode-bench-svm
# (--mib N, --rounds N, --only migration|faults|invalidation;
# --profile first: under perf record, see tools/guest/profile.sh). nic:
# NIC ingest on a vcompute PCI instance with Soft-RoCE (zero-copy into
# device memory vs a bounce through host memory);
# ARGS go to onenode-bench-nic (--mib N, --packet BYTES, --rounds N).
# criu: the checkpoint/restore copy of device memory on vcompute in the VM
# (dump and restore vs memcpy); ARGS go to onenode-bench-criu (--mib
# N,N,..., --rounds N, --downtime PLUGIN_DIR: the process's downtime
# through criu instead, e.g. /onenode/cache/build/user/criu).
# --flavor F before the name runs the VM benchmarks on kernel flavor F:
# 'bench' has no KASAN and no lockdep, which the debug flavor has and which
# make core-mm work (a migration) far slower than a user-space memcpy.
cmd_bench() {
	# The VM benchmarks run on the 'bench' kernel by default: KASAN and
	# lockdep instrument exactly the kernel paths they measure.
	local flavor=bench
	if [ "${1:-}" = --flavor ]; then
		flavor=${2:?bench: --flavor needs a flavor}
		shift 2
	fi
	local what=${1:-vk}
	[ $# -gt 0 ] && shift
	ensure_tree
	case $what in
	vk)
		cmd_build --user
		in_tree "$T_REPO/libvkp2p/bench/run.sh" "$T_CACHE/build/user" "$@" ;;
	queues)
		cmd_build --kernel --user --flavor "$flavor"
		cmd_vm --flavor "$flavor" -- "$T_CACHE/build/user/tools/bench/onenode-bench-queues" "$@" ;;
	svm)
		local profile=()
		if [ "${1:-}" = --host ]; then
			# No VM: the kernel-work rows on this machine's own kernel.
			shift
			cmd_build --user
			in_tree "$T_CACHE/build/user/tools/bench/onenode-bench-svm" --only kernel-work "$@"
			return
		fi
		if [ "${1:-}" = --profile ]; then
			shift
			tree_extras "bench svm --profile" linux-perf
			profile=("$T_REPO/tools/guest/profile.sh" "$T_CACHE/vm/$VM_DIR")
		fi
		cmd_build --kernel --user --flavor "$flavor"
		# lib/test_hmm.ko: upstream's HMM test driver, the migration and
		# fault-service reference.
		cmd_vm --flavor "$flavor" -- bash -c 'insmod "$1/lib/test_hmm.ko" && shift && exec "$@"' bench \
			"$T_CACHE/build/$flavor" "${profile[@]}" \
			"$T_CACHE/build/user/tools/bench/onenode-bench-svm" "$@" ;;
	nic)
		cmd_build --kernel --user --flavor "$flavor"
		cmd_vm --flavor "$flavor" -- "$T_CACHE/build/user/tools/bench/onenode-bench-nic" "$@" ;;
	criu)
		cmd_build --kernel --user --flavor "$flavor"
		cmd_vm --flavor "$flavor" -- "$T_CACHE/build/user/tools/bench/onenode-bench-criu" "$@" ;;
	*) die "bench: unknown benchmark '$what' (vk, queues, svm, nic, criu)" ;;
	esac
}

# shellcheck source=tools/series.sh
. "$ONENODE_SRC/tools/series.sh"
