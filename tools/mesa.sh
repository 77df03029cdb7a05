# shellcheck shell=bash
# RADV with VK_ONENODE_nic_memory: Debian 13's Mesa 25.0.7 source package,
# mesa-patches/series applied, RADV alone (ACO, no LLVM, no GL) built in the
# Debian 13 tree. Sourced by ./onenode (`build --mesa`, `mesa-test`); it
# also runs on its own: tools/mesa.sh build|test [--hw|--vm].
#
# Under $CACHE/work/mesa (/onenode/cache/mesa inside the tree):
#   dl/       the source package (.dsc and tarballs), downloaded once
#   mesa-25.0.7/  a git repository of the unpacked source: tag "base" is
#             Debian's source (its own patches applied), branch "onenode" the
#             series on top
#   applied   the hash of the series the source carries
#   build/    the meson build directory; libvulkan_radeon.so and the ICD
#             manifest radeon_devenv_icd.x86_64.json are in src/amd/vulkan
#   test/     the test program and the export uapi shim (mesa-patches/tests/)
#   layer-build/  the vkp2p layer of this checkout, for mesa-test
# A change to the series rebuilds only what it changes: the series is
# applied in a scratch worktree and the source then moves to the result with
# `git checkout`, which rewrites only the files that differ.

MESA_UPSTREAM_VERSION=25.0.7
MESA_DIR=$CACHE/work/mesa
MESA_SRC=$MESA_DIR/mesa-$MESA_UPSTREAM_VERSION
T_MESA=$T_CACHE/mesa
T_MESA_SRC=$T_MESA/mesa-$MESA_UPSTREAM_VERSION

# mesa_series_hash: what decides the patched source: the series file and
# every patch it names.
mesa_series_hash() {
	local p
	{
		cat "$ONENODE_SRC/mesa-patches/series"
		while read -r p; do
			case $p in '' | '#'*) continue ;; esac
			cat "$ONENODE_SRC/mesa-patches/$p"
		done <"$ONENODE_SRC/mesa-patches/series"
	} | sha256sum | cut -c1-16
}

# mesa_packages: Mesa's build dependencies the tree lacks
# (tools/packages-mesa.txt), installed into it only for --mesa.
mesa_packages() {
	local pkgs=() p
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		pkgs+=("$p")
	done <"$ONENODE_SRC/tools/packages-mesa.txt"
	tree_extras mesa "${pkgs[@]}"
}

# mesa_fetch: the source package of trixie's Mesa, through a private apt
# configuration with a deb-src line of this machine's archive; unpacked
# (Debian's own patches applied) into a git repository tagged "base".
mesa_fetch() {
	local a=$MESA_DIR/apt dsc
	mkdir -p "$MESA_DIR/dl"
	dsc=$(find "$MESA_DIR/dl" -maxdepth 1 -name "mesa_$MESA_UPSTREAM_VERSION-*.dsc" | head -1)
	if [ -z "$dsc" ]; then
		log "mesa: downloading the source package of Mesa $MESA_UPSTREAM_VERSION (Debian 13)"
		mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
		echo "deb-src $(archive_uri) trixie main" >"$a/sources.list"
		local opts=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
			-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o APT::Get::List-Cleanup=0
			-o Dir::State::Status=/dev/null -o Acquire::Check-Valid-Until=false)
		apt-get "${opts[@]}" update -qq >&2
		(cd "$MESA_DIR/dl" && apt-get "${opts[@]}" source --download-only mesa >&2) ||
			die "mesa: apt-get source mesa failed"
		dsc=$(find "$MESA_DIR/dl" -maxdepth 1 -name "mesa_$MESA_UPSTREAM_VERSION-*.dsc" | head -1)
		[ -n "$dsc" ] || die "mesa: trixie no longer carries Mesa $MESA_UPSTREAM_VERSION (the series is against it)"
	fi
	[ -f "$MESA_SRC/.git/onenode-base" ] && return 0
	log "mesa: unpacking $(basename "$dsc")"
	rm -rf "$MESA_SRC" "$MESA_DIR/applied"
	in_tree dpkg-source --no-check -x "$T_MESA/dl/$(basename "$dsc")" "$T_MESA_SRC" >/dev/null
	git -C "$MESA_SRC" init -q
	echo /.pc/ >>"$MESA_SRC/.git/info/exclude"
	git -C "$MESA_SRC" add -A
	mesa_git commit -q -m "mesa $(basename "$dsc" .dsc | cut -d_ -f2) (Debian 13 source package)"
	git -C "$MESA_SRC" tag base
	touch "$MESA_SRC/.git/onenode-base"
}

mesa_git() {
	git -C "$MESA_SRC" -c user.name=onenode -c user.email=onenode@localhost \
		-c commit.gpgsign=false "$@"
}

# mesa_apply: the series on top of "base", with `git am`; a patch that does
# not apply stops the build and names itself.
mesa_apply() {
	local want have wt p head
	want=$(mesa_series_hash)
	have=$(cat "$MESA_DIR/applied" 2>/dev/null || true)
	[ "$want" = "$have" ] && return 0
	log "mesa: applying mesa-patches/series"
	wt=$MESA_DIR/apply.tmp
	mesa_git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	mesa_git worktree prune
	mesa_git worktree add -q --detach "$wt" base
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		if ! git -C "$wt" -c user.name=onenode -c user.email=onenode@localhost am -q \
			"$ONENODE_SRC/mesa-patches/$p" >&2; then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			mesa_git worktree remove --force "$wt"
			die "mesa: mesa-patches/$p does not apply to Mesa $MESA_UPSTREAM_VERSION (after the patches before it in the series)"
		fi
	done <"$ONENODE_SRC/mesa-patches/series"
	head=$(git -C "$wt" rev-parse HEAD)
	mesa_git worktree remove --force "$wt"
	# Only the files that differ from what the source holds now are rewritten.
	mesa_git checkout -q -f -B onenode "$head"
	echo "$want" >"$MESA_DIR/applied"
}

# The RADV-only configuration: Vulkan driver "amd" with ACO, no LLVM, no
# Gallium, GL, EGL, GBM or window system.
MESA_MESON_OPTS=(--buildtype=release -Db_ndebug=false
	-Dplatforms= -Dvulkan-drivers=amd -Dgallium-drivers= -Dllvm=disabled -Damd-use-llvm=false
	-Dglx=disabled -Degl=disabled -Dgbm=disabled -Dopengl=false -Dgles1=disabled -Dgles2=disabled
	-Dglvnd=disabled -Dvideo-codecs= -Dvulkan-layers= -Dtools= -Dbuild-tests=false
	-Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled -Dintel-rt=disabled)

build_mesa() {
	mesa_packages
	mesa_fetch
	mesa_apply
	if [ ! -f "$MESA_DIR/build/build.ninja" ]; then
		log "mesa: configuring RADV (ACO, no LLVM) in $MESA_DIR/build"
		in_tree meson setup "$T_MESA/build" "$T_MESA_SRC" "${MESA_MESON_OPTS[@]}" >/dev/null
	fi
	log "mesa: building RADV"
	# Progress every 50 steps (a cold build is ~680, ~16 min on 2 cores);
	# anything else ninja prints (an error) is shown as it comes.
	in_tree ninja -C "$T_MESA/build" -j "$(jobs_n)" |
		awk '/^\[[0-9]+\/[0-9]+\] / {
			split(substr($1, 2), n, "/")
			if (n[1] % 50 == 0 || n[1] + 0 == n[2] + 0)
				printf "[onenode] mesa: %d of %d build steps\n", n[1], n[2] > "/dev/stderr"
			next
		}
		{ print > "/dev/stderr" }' || in_tree ninja -C "$T_MESA/build" -j 1
	log "mesa: RADV: $MESA_DIR/build/src/amd/vulkan/libvulkan_radeon.so"
	log "mesa: ICD manifest: $MESA_DIR/build/src/amd/vulkan/radeon_devenv_icd.x86_64.json"
}

# cmd_mesa_test [--hw]: the test program (mesa-patches/tests/) against the
# built RADV, each run alone and under VK_LAYER_ONENODE_vkp2p (built from
# this checkout in $MESA_DIR/layer-build: only its library target):
#   1. the null device (RADV_FORCE_FAMILY, default navi21): RADV exposes the
#      extension with no NIC memory; the layer steps aside;
#   2. RADV's real amdgpu winsys over Mesa's amdgpu drm-shim, a fake amdgpu
#      kernel without the onenode uapi: RADV does not expose the extension;
#      the layer does;
#   3. the same with mesa-patches/tests/onenode_compute_shim.c in front, a
#      fake of the onenode export uapi: RADV exposes NIC memory, allocates,
#      maps, exports, imports back and reports placement through it; the
#      layer steps aside. Nothing reaches a GPU or a NIC.
# --hw: this machine's AMD GPU instead (on the onenode kernel: NIC memory).
# --vm: run 4 instead, in the test VM (tools/guest/mesa-kernel.sh): the shim
#      in kernel mode, so that the export uapi and the NIC buffers are
#      vcompute's, and Soft-RoCE writes into RADV's NIC memory.
cmd_mesa_test() {
	local family=${ONENODE_MESA_FAMILY:-navi21} rc=0
	local icd=$T_MESA/build/src/amd/vulkan/radeon_devenv_icd.x86_64.json
	local drm_shim=/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so
	local bin=$T_MESA/test/radv_nic_memory_test compute_shim=$T_MESA/test/onenode_compute_shim.so
	local layer_dir=$T_MESA/layer-build/libvkp2p vm=0
	case ${1:-} in
	--hw) family= ;;
	--vm) vm=1 ;;
	"") ;;
	*) die "mesa-test: unknown argument '$1' (--hw, --vm)" ;;
	esac
	[ -f "$MESA_DIR/build/src/amd/vulkan/libvulkan_radeon.so" ] || die "mesa-test: run ./onenode build --mesa first"
	ensure_tree
	mesa_packages
	mkdir -p "$MESA_DIR/test"
	# The RDMA loop of --kernel (lib/onenode_rdma.c) is C.
	in_tree gcc -std=gnu11 -O1 -Wall -Wextra -Werror -c -o "$T_MESA/test/onenode_rdma.o" "$T_REPO/lib/onenode_rdma.c"
	in_tree g++ -std=c++20 -O1 -Wall -Wextra -Werror -I"$T_REPO/libvkp2p/include" -I"$T_REPO/lib" \
		-o "$bin" "$T_REPO/mesa-patches/tests/radv_nic_memory_test.cpp" "$T_MESA/test/onenode_rdma.o" -lvulkan -libverbs
	in_tree gcc -std=gnu11 -shared -fPIC -O1 -Wall -Wextra -Werror -I"$T_REPO/uapi/drm" -I/usr/include/libdrm \
		-o "$compute_shim" "$T_REPO/mesa-patches/tests/onenode_compute_shim.c" -ldl
	if [ ! -f "$MESA_DIR/layer-build/build.ninja" ]; then
		in_tree meson setup "$T_MESA/layer-build" "$T_REPO" --buildtype=debugoptimized >/dev/null
	fi
	in_tree ninja -C "$T_MESA/layer-build" -j "$(jobs_n)" libvkp2p/libVkLayer_onenode_vkp2p.so >/dev/null

	# mesa_test_run TITLE [ENV...] -- [ARGS...]: one run, alone and under the layer.
	mesa_test_run() {
		local title=$1 env=()
		shift
		while [ "$1" != -- ]; do env+=("$1"); shift; done
		shift
		log "mesa-test: $title"
		in_tree env "${env[@]}" VK_DRIVER_FILES="$icd" "$bin" "$@" || rc=1
		log "mesa-test: $title, under VK_LAYER_ONENODE_vkp2p"
		in_tree env "${env[@]}" VK_DRIVER_FILES="$icd" VK_ADD_LAYER_PATH="$layer_dir" "$bin" --layer "$@" || rc=1
	}

	if [ $vm = 1 ]; then
		# Run 4 needs the kernel: the debug kernel's VM, vcompute's render node
		# and Soft-RoCE (tools/guest/run.sh), the Debian 13 tree as its root.
		log "mesa-test: 4/4 RADV over the drm-shim, its NIC memory on the real kernel (vcompute in the VM)"
		log "           and a Soft-RoCE NIC writing into it; no shader runs, no command reaches a kernel"
		VM_DIR=mesa cmd_vm -- tools/guest/mesa-kernel.sh "$bin" "$icd" "$family" \
			"$compute_shim:$drm_shim" "$layer_dir" || rc=1
	elif [ -z "$family" ]; then
		mesa_test_run "RADV on this machine's AMD GPU" --
	else
		log "mesa-test: no AMD GPU is used: no shader runs, and NIC memory exists only against a fake"
		log "           kernel (run 3), which places, moves and shares nothing"
		mesa_test_run "1/3 RADV null device (RADV_FORCE_FAMILY=$family)" RADV_FORCE_FAMILY="$family" --
		mesa_test_run "2/3 RADV's amdgpu winsys over the amdgpu drm-shim (no onenode uapi)" \
			AMDGPU_GPU_ID="$family" LD_PRELOAD="$drm_shim" -- --expect-absent
		mesa_test_run "3/3 RADV's amdgpu winsys over the drm-shim and a fake onenode export uapi" \
			AMDGPU_GPU_ID="$family" LD_PRELOAD="$compute_shim:$drm_shim" --
	fi
	if [ $rc = 0 ]; then log "mesa-test: passed"; else log "mesa-test: FAILED"; fi
	return $rc
}

# Run on its own: tools/mesa.sh build|test [--hw|--vm].
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	here=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
	case ${1:-} in
	build) exec "$here/onenode" build --mesa ;;
	test) shift; exec "$here/onenode" mesa-test "$@" ;;
	*) echo "usage: tools/mesa.sh build|test [--hw|--vm]" >&2; exit 2 ;;
	esac
fi
