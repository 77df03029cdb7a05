/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The CRIU plugin ABI, as the onenode plugin uses it.
 *
 * Debian 13 ships criu 4.1.1 without its plugin header (criu-plugin.h), so
 * this file declares the ABI from CRIU's documented interface, in our own
 * words. It describes CRIU plugin ABI version 0.2.0, the version of
 * CRIU v4.1.1 (criu/include/criu-plugin.h and criu/plugin.c at tag v4.1.1):
 *
 *  - CRIU dlopen()s every "*.so" in --libdir (or $CRIU_LIBS_DIR, default
 *    /usr/lib/criu/) and looks up the data symbol "CR_PLUGIN_DESC";
 *  - it refuses a plugin whose @version is newer than its own ABI version or
 *    whose @max_hooks exceeds its hook count ("Corrupted plugin"): a plugin
 *    built for a newer ABI (0.3.0 of CRIU 4.2 has 17 hooks) is not loaded
 *    by 4.1.1, which is why this file pins 0.2.0 and 12 hooks;
 *  - hooks are called in turn for every plugin that registered them; a
 *    return of -ENOTSUP means "not mine", the next plugin is asked, and
 *    -ENOTSUP from every plugin is what CRIU gets when none handles it;
 *  - the plugin may call a few functions the criu binary exports (below).
 *
 * Checked against Debian 13's /usr/sbin/criu (4.1.1): its plugin loader
 * compares the descriptor's version with 0x200 and max_hooks with 12, and
 * it exports the functions declared at the end of this file.
 *
 * Only what the plugin uses is declared. Later CRIU versions only append
 * hooks and arguments (e.g. 4.2 gives RESTORE_EXT_FILE a second argument):
 * when moving to one, re-check every line here against its tag.
 */
#ifndef ONENODE_CRIU_PLUGIN_ABI_H
#define ONENODE_CRIU_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* (major << 16) + (minor << 8) + sublevel, as CRIU encodes it. */
#define CRIU_ABI_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
/* The ABI of CRIU 4.1.1. */
#define CRIU_ABI_VERSION_4_1_1		CRIU_ABI_VERSION(0, 2, 0)

/* Hook numbers: indices into &struct criu_plugin_desc.hooks. */
enum criu_hook {
	CRIU_HOOK_DUMP_UNIX_SK = 0,
	CRIU_HOOK_RESTORE_UNIX_SK = 1,
	CRIU_HOOK_DUMP_EXT_FILE = 2,
	CRIU_HOOK_RESTORE_EXT_FILE = 3,
	CRIU_HOOK_DUMP_EXT_MOUNT = 4,
	CRIU_HOOK_RESTORE_EXT_MOUNT = 5,
	CRIU_HOOK_DUMP_EXT_LINK = 6,
	CRIU_HOOK_HANDLE_DEVICE_VMA = 7,
	CRIU_HOOK_UPDATE_VMA_MAP = 8,
	CRIU_HOOK_RESUME_DEVICES_LATE = 9,
	CRIU_HOOK_PAUSE_DEVICES = 10,
	CRIU_HOOK_CHECKPOINT_DEVICES = 11,
	CRIU_HOOK_COUNT_4_1_1 = 12,
};

/* Stages passed to init() and exit(). */
enum criu_stage {
	CRIU_STAGE_DUMP = 0,
	CRIU_STAGE_PRE_DUMP = 1,
	CRIU_STAGE_RESTORE = 2,
};

/*
 * Signatures of the hooks the plugin implements.
 *
 * DUMP_EXT_FILE: @fd is CRIU's own copy (received from the dumped task) of
 * a file CRIU cannot dump itself, e.g. a character device it does not know;
 * @id is CRIU's file id, which RESTORE_EXT_FILE gets back. Return 0 when
 * the plugin saved the file.
 *
 * RESTORE_EXT_FILE (4.1.1: one argument): return an fd opened in the
 * calling (restored) task's context, or a negative error.
 *
 * HANDLE_DEVICE_VMA: called while parsing a task's mappings for a mapping
 * of a character device other than /dev/zero; @fd is the mapped file.
 * Return 0 when the plugin will take care of the mapping (criu saves no
 * contents of it and calls UPDATE_VMA_MAP at restore).
 *
 * CHECKPOINT_DEVICES: called once per live task after all tasks are
 * frozen and before any of them is dumped.
 */
typedef int criu_dump_ext_file_fn(int fd, int id);
typedef int criu_restore_ext_file_fn(int id);
typedef int criu_handle_device_vma_fn(int fd, const struct stat *st);
typedef int criu_checkpoint_devices_fn(int pid);
/*
 * RESUME_DEVICES_LATE: at restore, in criu, once per live task @pid after
 * the restorer has rebuilt its memory and before criu lets it run (criu
 * still traces it). criu only logs what it returns.
 */
typedef int criu_resume_devices_late_fn(int pid);
/*
 * UPDATE_VMA_MAP: at restore, for a mapping HANDLE_DEVICE_VMA took, of the
 * file at @path, at @addr with file offset @old_pgoff (bytes): set
 * *@new_pgoff and *@plugin_fd (an fd criu maps and then closes) and return
 * 1; -ENOTSUP when the mapping is not the plugin's.
 */
typedef int criu_update_vma_map_fn(const char *path, const uint64_t addr,
				   const uint64_t old_pgoff, uint64_t *new_pgoff,
				   int *plugin_fd);

/*
 * The plugin descriptor, found by CRIU as the symbol "CR_PLUGIN_DESC".
 * Layout (x86-64): name, init, exit pointers, two unsigned ints, then one
 * pointer per hook.
 */
struct criu_plugin_desc {
	const char *name;
	int (*init)(int stage);
	void (*exit)(int stage, int ret);
	unsigned int version;
	unsigned int max_hooks;
	void *hooks[CRIU_HOOK_COUNT_4_1_1];
};

_Static_assert(offsetof(struct criu_plugin_desc, version) == 3 * sizeof(void *),
	       "CRIU plugin descriptor: version follows three pointers");
_Static_assert(offsetof(struct criu_plugin_desc, hooks) == 3 * sizeof(void *) + 8,
	       "CRIU plugin descriptor: hooks follow two unsigned ints");

/* The symbol name CRIU looks up. */
#define CRIU_PLUGIN_DESC_SYMBOL "CR_PLUGIN_DESC"

/*
 * Functions exported by the criu binary (checked with nm -D on Debian's
 * criu 4.1.1). Resolved when CRIU dlopen()s the plugin.
 */

/* CRIU log levels for criu_print_on_level(); -v4 shows all of them. */
enum criu_log_level {
	CRIU_LOG_MSG = 0,
	CRIU_LOG_ERROR = 1,
	CRIU_LOG_WARN = 2,
	CRIU_LOG_INFO = 3,
	CRIU_LOG_DEBUG = 4,
};

/* Print into CRIU's log (the -o file) when @level <= the -v level. */
extern void print_on_level(unsigned int level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* A directory fd of the images directory (-D), owned by CRIU. */
extern int criu_get_image_dir(void);

/*
 * Record @name in the dump's inventory: restore then fails with "Missing
 * required plugin" when no plugin of that name is loaded.
 */
extern int add_inventory_plugin(const char *name);

/*
 * On restore: true when the dump's inventory lists @name (first @n bytes),
 * or when the inventory predates the list; the entry is consumed. CRIU
 * fails the restore if a listed plugin never consumed its entry.
 */
extern _Bool check_and_remove_inventory_plugin(const char *name, size_t n);

#endif /* ONENODE_CRIU_PLUGIN_ABI_H */
