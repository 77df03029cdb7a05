# shellcheck shell=bash
# The kernel patch series: kernel/patches/series names, in order, the series
# the project sends upstream (one per receiving subsystem), their patches
# (commit message + edits to upstream files) and the project's new files each
# patch adds. make_series turns that into `git format-patch` series against
# Linux $KVER; the kernel build applies exactly what it writes
# (prepare_kernel), so what is tested is what ships. Sourced by lib.sh.

SERIES_LIST=$ONENODE_SRC/kernel/patches/series

# series_src PATH: the project's file that becomes PATH in the kernel tree.
series_src() {
	case $1 in
	include/uapi/drm/*) echo "$ONENODE_SRC/uapi/drm/${1#include/uapi/drm/}" ;;
	include/*) echo "$ONENODE_SRC/kernel/drm/$1" ;;
	drivers/gpu/drm/*) echo "$ONENODE_SRC/kernel/drm/${1#drivers/gpu/drm/}" ;;
	*) return 1 ;;
	esac
}

# project_kernel_files: every new file the project adds to the kernel tree,
# by its path there.
project_kernel_files() {
	(cd "$ONENODE_SRC/kernel/drm" && find . -type f ! -path './include/*' | sed 's|^\./|drivers/gpu/drm/|')
	(cd "$ONENODE_SRC/kernel/drm" && [ -d include ] && find include -type f) || true
	(cd "$ONENODE_SRC/uapi/drm" && find . -name '*.h' | sed 's|^\./|include/uapi/drm/|')
}

# series_entries: kernel/patches/series as records, one per line:
# "S NAME [NEEDS...]", "P FILE" (relative to kernel/patches), "F PATH".
series_entries() {
	local line
	while IFS= read -r line; do
		# Blank lines (spaces only) and comments, indented or not, say nothing.
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		case $line in
		series\ *) echo "S ${line#series }" | sed 's/ needs / /' ;;
		[[:space:]]*) echo "F $(echo "$line" | tr -d '[:space:]')" ;;
		*) echo "P $line" ;;
		esac
	done <"$SERIES_LIST"
}

# patch_message FILE: a patch's commit message (subject, blank line, body up
# to the "---" line).
patch_message() {
	awk 'NR == 1 && !/^From: / { exit 1 }
		!hdr && /^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); print; subj = 1; next }
		!hdr && /^$/ { if (!subj) exit 1; hdr = 1; print; next }
		hdr && /^---$/ { exit }
		hdr { print }' "$1" || die "$1: not a patch with From:, Subject: and a message"
}

# sgit ARGS: git with no user or system configuration (the output must not
# depend on who runs it) and the series' author and date.
sgit() {
	env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE -u GIT_CONFIG_PARAMETERS \
		-u GIT_CONFIG_COUNT -u GIT_OBJECT_DIRECTORY XDG_CONFIG_HOME=/nonexistent \
		GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent \
		GIT_AUTHOR_NAME=onenode GIT_AUTHOR_EMAIL=onenode@users.noreply.invalid \
		GIT_COMMITTER_NAME=onenode GIT_COMMITTER_EMAIL=onenode@users.noreply.invalid \
		GIT_AUTHOR_DATE="$SERIES_DATE" GIT_COMMITTER_DATE="$SERIES_DATE" git "$@"
}

# stage_pristine DIR: copy the pristine version of each path read from stdin
# (one per line) into DIR; a path the pristine tree lacks (a new file) is
# skipped.
stage_pristine() {
	local f pristine=$CACHE/work/src/linux-$KVER.pristine
	while read -r f; do
		[ -f "$pristine/$f" ] || continue
		mkdir -p "$1/$(dirname "$f")"
		cp "$pristine/$f" "$1/$f"
	done
}

# base_repo DIR: a new git repository in DIR whose one commit, "Linux $KVER",
# holds the pristine copies of the paths read from stdin (stage_pristine).
base_repo() {
	rm -rf "$1"
	mkdir -p "$1"
	sgit -C "$1" init -q
	stage_pristine "$1"
	sgit -C "$1" add -A
	sgit -C "$1" commit -q -m "Linux $KVER"
}

# make_series OUT: write the series to OUT/NAME/ (format-patch files, a
# cover letter for a series of more than one patch, a quilt-style `series`
# file), and OUT/series, every patch in the order the build applies them.
# Built in a scratch git repository holding only the upstream files the
# patches edit, so blob ids in the index lines are those of a full tree.
# Fails when a project file is in no patch or in two.
make_series() {
	local out=$1 g=$CACHE/work/series.git
	local kind arg rest name="" pending="" f p n tip prev seen
	# The date of the last commit that changed what the series is made of,
	# so that other commits leave it the same (a checkout owned by another
	# user is read all the same).
	SERIES_DATE=2026-01-01T00:00:00+00:00
	if [ -e "$ONENODE_SRC/.git" ]; then
		SERIES_DATE=$(git -c safe.directory="$ONENODE_SRC" -C "$ONENODE_SRC" log -1 --format=%cI \
			-- kernel uapi) || die "git log in $ONENODE_SRC failed"
		[ -n "$SERIES_DATE" ] || SERIES_DATE=2026-01-01T00:00:00+00:00
	fi
	rm -rf "$out"
	mkdir -p "$out"
	: >"$out/series"
	# The base: pristine copies of every upstream file a patch edits.
	while read -r kind arg; do
		[ "$kind" = P ] || continue
		[ -f "$ONENODE_SRC/kernel/patches/$arg" ] || die "kernel/patches/series names $arg, which does not exist"
	done < <(series_entries)
	series_entries | sed -n "s|^P |$ONENODE_SRC/kernel/patches/|p" | xargs sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' |
		sort -u | base_repo "$g"
	prev=$(sgit -C "$g" rev-parse HEAD)
	seen=$(mktemp)
	# finish_series: format the commits since the last series' tip.
	finish_series() {
		[ -n "$name" ] || return 0
		tip=$(sgit -C "$g" rev-parse HEAD)
		n=$(sgit -C "$g" rev-list --count "$prev..$tip")
		[ "$n" -gt 0 ] || die "series $name has no patch"
		local cover=()
		if [ "$n" -gt 1 ]; then
			[ -f "$ONENODE_SRC/kernel/patches/$name/cover" ] ||
				die "series $name has $n patches and no kernel/patches/$name/cover"
			cover=(--cover-letter)
		fi
		sgit -C "$g" format-patch -q --zero-commit --no-signature "${cover[@]}" \
			-o "$out/$name" "$prev..$tip" >/dev/null
		if [ "$n" -gt 1 ]; then
			# The cover's first line is its subject, the rest its text.
			# (No sub(): an & in the subject would stand for the match.)
			awk -v c="$ONENODE_SRC/kernel/patches/$name/cover" '
				(i = index($0, "*** SUBJECT HERE ***")) {
					getline s < c
					$0 = substr($0, 1, i - 1) s substr($0, i + 20)
				}
				/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline s < c) > 0) print s; next }
				{ print }' "$out/$name/0000-cover-letter.patch" >"$out/$name/cover.tmp"
			mv "$out/$name/cover.tmp" "$out/$name/0000-cover-letter.patch"
			! grep -q '\*\*\* .* HERE \*\*\*' "$out/$name/0000-cover-letter.patch" ||
				die "the cover letter of series $name kept a placeholder"
		fi
		for f in "$out/$name"/[0-9]*.patch; do
			f=${f##*/}
			[ "$f" = 0000-cover-letter.patch ] || echo "$f"
		done >"$out/$name/series"
		sed "s|^|$name/|" "$out/$name/series" >>"$out/series"
		prev=$tip
	}
	# series_commit: commit the patch read last, once its new files are added.
	series_commit() {
		[ -n "$pending" ] || return 0
		sgit -C "$g" diff --cached --quiet && die "kernel/patches/$pending changes nothing"
		sgit -C "$g" commit -q -F "$g.msg"
		pending=""
	}
	while read -r kind arg rest; do
		case $kind in
		S)
			series_commit
			finish_series
			grep -qx "# series $arg\( .*\)\?" "$out/series" && die "kernel/patches/series: series $arg twice"
			for f in $rest; do
				grep -qx "# series $f\( .*\)\?" "$out/series" ||
					die "kernel/patches/series: series $arg needs $f, which does not come before it"
			done
			name=$arg
			echo "# series $name${rest:+ (needs $rest)}" >>"$out/series" ;;
		P)
			series_commit
			[ -n "$name" ] || die "kernel/patches/series: $arg before any 'series' line"
			p=$ONENODE_SRC/kernel/patches/$arg
			# Edits only: the build stages files by their path (prepare_kernel).
			! grep -qE '^(deleted file mode|rename from|copy from) ' "$p" ||
				die "kernel/patches/$arg deletes, renames or copies a file; the build cannot stage that"
			sgit -C "$g" apply --index --allow-empty --whitespace=nowarn "$p" ||
				die "kernel/patches/$arg does not apply"
			patch_message "$p" >"$g.msg"
			pending=$arg ;;
		F)
			[ -n "$pending" ] || die "kernel/patches/series: $arg before any patch"
			grep -qxF "$arg" "$seen" && die "kernel/patches/series names $arg twice"
			echo "$arg" >>"$seen"
			f=$(series_src "$arg") || die "kernel/patches/series: $arg is no path the project keeps files for"
			[ -f "$f" ] || die "kernel/patches/series: $arg has no ${f#"$ONENODE_SRC"/}"
			mkdir -p "$g/$(dirname "$arg")"
			cp "$f" "$g/$arg"
			sgit -C "$g" add "$arg" ;;
		esac
	done < <(series_entries)
	series_commit
	finish_series
	rm -f "$g.msg"
	# Every file of the project is in exactly one patch.
	f=$(project_kernel_files | sort | comm -23 - <(sort "$seen"))
	rm -f "$seen"
	[ -z "$f" ] || die "in no patch of kernel/patches/series: $(echo "$f" | tr '\n' ' ')"
}

# series_touched OUT: every file of the kernel tree the series in OUT
# creates or edits.
series_touched() {
	grep -v '^#' "$1/series" | sed "s|^|$1/|" | xargs sed -n 's|^diff --git a/[^ ]* b/||p' | sort -u
}

# apply_series OUT TREE: apply the series in OUT to TREE in order, with
# patch(1) as a distribution's build would (git am works the same way on a
# git tree: ./onenode series --check).
apply_series() {
	local p
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		patch -d "$2" -p1 -s -f --fuzz=0 --no-backup-if-mismatch <"$1/$p" >/dev/null ||
			die "the series does not apply: $p"
	done <"$1/series"
}

# series_check: what ./onenode series --check proves, as results.
# - Each series applies with `git am` to a clean Linux $KVER, alone or after
#   the series it names as needed (a git tree of the files the series
#   touches: git am reads nothing else of a tree).
# - Every patch builds: applied one by one to a clean copy of the tree, the
#   .c files each patch adds or edits are compiled with W=1 at that point
#   (the debug kernel's configuration, brought to each point with
#   olddefconfig); warnings upstream itself gives are in
#   kernel/config/w1-sparse-baseline.txt.
# - Every patch passes checkpatch.pl --strict (as ./onenode check runs it).
# The whole series is built and tested by ./onenode test.
series_check() {
	local pristine=$CACHE/work/src/linux-$KVER.pristine g=$CACHE/work/series-am
	local tree=$CACHE/work/src/linux-check o=$T_CACHE/build/series-check
	local name need p f out objs n=0 total list
	# git am, series by series.
	series_touched "$SERIES_OUT" | base_repo "$g"
	sgit -C "$g" tag base
	while read -r _ name need; do
		need=${need#(needs }
		need=${need%)}
		sgit -C "$g" checkout -q -f base
		out=""
		for f in $need $name; do
			[ -s "$SERIES_OUT/$f/series" ] || die "series --check: no series $f in $SERIES_OUT"
			mapfile -t list < <(sed "s|^|$SERIES_OUT/$f/|" "$SERIES_OUT/$f/series")
			out+=$(sgit -C "$g" am -q --whitespace=nowarn "${list[@]}" </dev/null 2>&1 |
				grep -v '^warning: .*whitespace' || true)
			# A failed am leaves its state behind for the next one.
			[ -d "$g/.git/rebase-apply" ] && { out+=" (git am of $f failed)"; sgit -C "$g" am --abort; }
		done
		result_of "series/git-am/$name${need:+ (after $need)}" "$out"
	done < <(grep '^# series ' "$SERIES_OUT/series" | sed 's/^# series //; s/^/x /')
	# Every patch builds.
	[ -f "$CACHE/work/build/debug/.config" ] || die "series --check needs the debug kernel's configuration: ./onenode build --kernel"
	if [ "$(cat "$tree.base" 2>/dev/null)" != "$KVER" ] || [ ! -f "$tree/Makefile" ]; then
		rm -rf "$tree"
		cp -al "$pristine" "$tree"
		echo "$KVER" >"$tree.base"
	fi
	# Back to pristine: every file a series of this or an earlier check touched.
	if [ -f "$tree.touched" ]; then
		sort -u "$tree.touched" | while read -r f; do
			rm -f "$tree/$f"
			if [ -f "$pristine/$f" ]; then cp "$pristine/$f" "$tree/$f"; fi
		done
	fi
	series_touched "$SERIES_OUT" >"$tree.touched"
	mkdir -p "$CACHE/work/build/series-check"
	cp "$CACHE/work/build/debug/.config" "$CACHE/work/build/series-check/.config"
	total=$(grep -vc '^#' "$SERIES_OUT/series")
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		n=$((n + 1))
		log "series --check: patch $n of $total, $p"
		if ! patch -d "$tree" -p1 -s -f --fuzz=0 --no-backup-if-mismatch <"$SERIES_OUT/$p" >/dev/null; then
			result FAIL "series/build/$p (does not apply)"
			continue
		fi
		objs=$(sed -n 's|^diff --git a/[^ ]* b/\(.*\)\.c$|\1.o|p' "$SERIES_OUT/$p")
		# The final configuration, as far as this point of the series has its
		# symbols (not the last point's: a symbol new here would get its default).
		cp "$CACHE/work/build/debug/.config" "$CACHE/work/build/series-check/.config"
		series_compile "$o" "$objs"
		result_of "series/build/$p" "$out"
		if grep -q '^diff --git a/drivers/gpu/drm/amd/amdgpu/' "$SERIES_OUT/$p"; then
			series_amdgpu_links "$o" "$p"
			result_of "series/links/$p" "$out"
		fi
		out=$(in_tree perl /onenode/cache/src/linux/scripts/checkpatch.pl --strict --no-tree \
			--no-summary --terse --ignore FILE_PATH_CHANGES "$T_CACHE/series/$p" 2>&1 || true)
		result_of "series/checkpatch/$p" "$out"
	done <"$SERIES_OUT/series"
	# The amdgpu glue where amdgpu has no SVM (DRM_COMPUTE_SVM and
	# DRM_GPUSVM off: a kernel without DEVICE_PRIVATE), the other side of
	# its #if.
	objs=$(sed -n "s|^drm-compute/|$SERIES_OUT/drm-compute/|p" "$SERIES_OUT/series" |
		xargs grep -h '^diff --git a/drivers/gpu/drm/amd/amdgpu/[^ ]*\.c ' |
		sed 's|^diff --git a/[^ ]* b/\(.*\)\.c$|\1.o|' | sort -u |
		grep -v 'amdgpu_compute_svm\.o\|amdgpu_compute_pagemap\.o' || true)  # built only with DRM_COMPUTE_SVM
	in_tree "$T_CACHE/src/linux-check/scripts/config" --file "$o/.config" \
		--disable DEVICE_PRIVATE --disable DRM_VCOMPUTE_SVM --disable DRM_GPUSVM
	series_compile "$o" "$objs"
	grep -q '^CONFIG_DRM_GPUSVM=' "$CACHE/work/build/series-check/.config" && out+=$'\n'"DRM_GPUSVM is still on"
	grep -q '^CONFIG_DRM_COMPUTE_SVM=' "$CACHE/work/build/series-check/.config" && out+=$'\n'"DRM_COMPUTE_SVM is still on"
	result_of "series/build/amdgpu without DRM_GPUSVM" "$out"
}

# series_amdgpu_links O PATCH: amdgpu is built whenever it is configured, so
# at every point of the series each amdgpu_compute_* function that amdgpu's
# objects call must be defined by an object amdgpu's Makefile builds at that
# point (with DRM_GPUSVM on, as configured). The objects the series touched
# so far are brought up to date first (make rebuilds what a header changed);
# sets out to the symbols left undefined.
series_amdgpu_links() {
	local o=$1 d=drivers/gpu/drm/amd/amdgpu objs built f
	objs=$(sed -n "1,\|^$2\$|p" "$SERIES_OUT/series" | grep -v '^#' | sed "s|^|$SERIES_OUT/|" |
		xargs sed -n "s|^diff --git a/[^ ]* b/\($d/.*\)\.c$|\1.o|p" | sort -u)
	built=$(grep -o 'amdgpu_compute[a-z0-9_]*\.o' "$CACHE/work/src/linux-check/$d/Makefile" | sed "s|^|$d/|" | sort -u || true)
	# shellcheck disable=SC2086 # one word per object
	objs=$(printf '%s\n' $objs $built | grep . | sort -u || true)
	out=""
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086 # one word per object
	out=$(in_tree make -s -C /onenode/cache/src/linux-check O="$o" CC="ccache gcc" -j"$(jobs_n)" \
		$objs 2>&1 | grep -E 'error:|Error [0-9]' || true)
	for f in $objs; do
		[ -f "$CACHE/work/build/series-check/$f" ] || out+=$'\n'"$f was not built"
	done
	[ -z "$out" ] || return 0
	# nm of the tree's binutils (the host may have none).
	local undef defined
	# shellcheck disable=SC2086 # one word per object
	undef=$(in_tree bash -c 'cd "$1" && shift && nm "$@"' nm "$o" $objs |
		awk '$1 == "U" && $2 ~ /^amdgpu_compute_/ { print $2 }' | sort -u)
	defined=""
	if [ -n "$built" ]; then
		# shellcheck disable=SC2086 # one word per object
		defined=$(in_tree bash -c 'cd "$1" && shift && nm --defined-only "$@"' nm "$o" $built |
			awk '$2 ~ /^[TDRB]$/ { print $3 }' | sort -u)
	fi
	out=$(comm -23 <(printf '%s\n' "$undef" | grep . || true) <(printf '%s\n' "$defined") |
		sed 's/^/undefined when amdgpu links: /')
}

# series_compile O OBJS: olddefconfig in O, then compile OBJS with W=1 into
# O; sets out to the warnings and errors (upstream's own, listed in the
# baseline, left out) and to the objects that were not built.
series_compile() {
	local o=$1 objs=$2 f
	for f in $objs; do rm -f "$CACHE/work/build/series-check/$f"; done
	out=$(in_tree make -s -C /onenode/cache/src/linux-check O="$o" olddefconfig 2>&1) || true
	if [ -n "$objs" ]; then
		# shellcheck disable=SC2086 # one word per object
		out+=$'\n'$(in_tree make -s -C /onenode/cache/src/linux-check O="$o" CC="ccache gcc" W=1 \
			-j"$(jobs_n)" $objs 2>&1) || true
	fi
	out=$(printf '%s\n' "$out" | sed -E 's|^/onenode/cache/src/linux-check/||; s|^([^:]+):[0-9]+:[0-9]+: |\1: |' |
		grep -vxF -f <(grep -v '^#' "$ONENODE_SRC/kernel/config/w1-sparse-baseline.txt") |
		grep -E 'warning:|error:|Error [0-9]|\*\*\*' || true)
	for f in $objs; do
		[ -f "$CACHE/work/build/series-check/$f" ] || out+=$'\n'"$f was not built"
	done
}

# cmd_series [--check] [DIR]: write the series to DIR (default out/series in
# the repository) and, with --check, prove it applies and builds patch by
# patch (series_check).
cmd_series() {
	local check=0 dir=$ONENODE_SRC/out/series
	while [ $# -gt 0 ]; do
		case $1 in
		--check) check=1 ;;
		-*) die "series: unknown option $1" ;;
		*) dir=$1 ;;
		esac
		shift
	done
	ensure_tree
	if [ "$check" = 1 ]; then
		cmd_build --kernel
	else
		host_install git patch
		fetch_kernel
		make_series "$SERIES_OUT"
	fi
	# Never remove what is not an earlier output of this command.
	[ ! -e "$dir" ] || [ -f "$dir/series" ] ||
		die "series: $dir exists and is not a series written by ./onenode series"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -r "$SERIES_OUT" "$dir"
	log "wrote $(grep -vc '^#' "$dir/series") patches in $(grep -c '^# series' "$dir/series") series to $dir (order: $dir/series)"
	[ "$check" = 1 ] || return 0
	RESULTS=${RESULTS:-$(mktemp)}
	series_check
	summarize
}
