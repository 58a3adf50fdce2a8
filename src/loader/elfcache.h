/*
 * What the loader reads of a file (its ELF headers, GD_ELF_LOADER_ONLY, and its identity), read
 * once per file of a check and shared by every load and probe that asks: the CUDA inventory reads
 * each library's SONAME, and the loader emulator then verifies the same files again for every
 * framework that needs them (and maps the interpreter into every load). A hundred environments
 * opened and read each of their 1,200 libraries twice or more.
 *
 * Files are known by their canonical path inside the root (gd_root_resolve): the many spellings
 * the loader tries ("torch/lib/../../nvidia/cudnn/lib/libcudnn.so.8") are one file. A check is a
 * snapshot, as the root is: nothing is read again. Past GD_ELF_CACHE_MAX files a read is no
 * longer kept (the answer is the same, read each time).
 */
#ifndef GD_LOADER_ELFCACHE_H
#define GD_LOADER_ELFCACHE_H

#include "elf/elf.h"
#include "os/os.h"

#include <gpudoctor/gpudoctor.h>

struct gd_root;
struct gd_elf_cache;

#define GD_ELF_CACHE_MAX 65536

/* A cache over `root` (borrowed: it must outlive the cache). On GD_OK `*out` is new. */
enum gd_status gd_elf_cache_new(struct gd_root *root, struct gd_elf_cache **out);
void gd_elf_cache_free(struct gd_elf_cache *cache);

/* The file at `path` (inside the root), as gd_root_open and then gd_elf_read_file_ex with
 * GD_ELF_LOADER_ONLY would give it. Returns the status of the opening (GD_OK, GD_ENOENT,
 * GD_ENOTDIR, GD_EACCES, GD_ENOTREG, GD_ELOOP, ...; GD_ENOMEM). When the file was opened: `*fs` is
 * its status (dev, ino, size), `*read` the status of reading its headers (GD_OK, GD_EFORMAT,
 * GD_ETRUNCATED, GD_ELIMIT, an I/O error, GD_ENOMEM) and, on GD_OK, `*elf` a new copy
 * (gd_elf_free) of what was read. */
enum gd_status gd_elf_cache_read(struct gd_elf_cache *cache, const char *path, struct gd_elf **elf,
                                 struct gd_os_stat *fs, enum gd_status *read);

#endif
