/* A reader's bytes: a read-only mapping of a file or a borrowed buffer, the iden3 container
 * around them (magic, version, sections), aligned copies and their accounting. */
#define _DEFAULT_SOURCE /* mincore */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "core/pages.h"
#include "core/struct_size_internal.h"
#include "io/io_internal.h"

static zkpipe_status map_file(zkpipe__io_src *src, char *detail, size_t cap, const char *path)
{
    /* O_NONBLOCK: a FIFO with no writer opens at once instead of blocking, and is refused
     * with every other file that is not a regular one once fstat has seen it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EIO, "cannot open: %s", strerror(errno));
    struct stat sb;
    zkpipe_status st = ZKPIPE_OK;
    if (fstat(fd, &sb) != 0)
        st = zkpipe__fail(detail, cap, ZKPIPE_EIO, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = zkpipe__fail(detail, cap, ZKPIPE_EIO, "not a regular file");
    else if (sb.st_size == 0)
        st = zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "the file is empty");
    else if ((uint64_t)sb.st_size > SIZE_MAX)
        st = zkpipe__fail(detail, cap, ZKPIPE_ETOOBIG, "the file is too large to map");
    if (st == ZKPIPE_OK) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            st = zkpipe__fail(detail, cap, ZKPIPE_EIO, "cannot map: %s", strerror(errno));
        } else {
            src->data = (const uint8_t *)p;
            src->len = (size_t)sb.st_size;
            src->mapped = 1;
        }
    }
    close(fd);
    return st;
}

zkpipe_status zkpipe__io_src_open(zkpipe__io_src *src, char *detail, size_t cap, const char *path,
                                  const void *data, size_t len, const char *kind,
                                  const zkpipe_io_options *opts)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(opts->allocator);
    if (a == NULL || (path == NULL && data == NULL && len > 0))
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    memset(src, 0, sizeof *src);
    src->allocator = *a;
    zkpipe_status st = ZKPIPE_OK;
    if (path != NULL) {
        st = map_file(src, detail, cap, path);
    } else {
        src->data = (const uint8_t *)data;
        src->len = len;
    }
    if (st == ZKPIPE_OK && opts->ledger != NULL) {
        src->outer = opts->ledger;
        st = zkpipe_ledger_is_open(src->outer)
                 ? zkpipe_acct_register_kind(src->outer->acct, kind, &src->kind)
                 : ZKPIPE_EINVAL;
        if (st == ZKPIPE_OK &&
            (st = zkpipe_ledger_charge(src->outer, src->kind, src->len)) == ZKPIPE_OK)
            src->charged = src->len;
        if (st != ZKPIPE_OK)
            zkpipe__fail(detail, cap, st, "cannot account the %s bytes", kind);
    } else if (st == ZKPIPE_OK && opts->acct != NULL) {
        uint32_t stage;
        st = zkpipe_acct_register_stage(opts->acct, "loaded", &stage);
        if (st == ZKPIPE_OK)
            st = zkpipe_acct_register_kind(opts->acct, kind, &src->kind);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_open(&src->ledger, opts->acct, stage);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_charge(&src->ledger, src->kind, src->len);
        if (st != ZKPIPE_OK)
            zkpipe__fail(detail, cap, st, "cannot account the %s bytes", kind);
    }
    if (st != ZKPIPE_OK)
        zkpipe__io_src_close(src);
    return st;
}

void zkpipe__io_src_close(zkpipe__io_src *src)
{
    for (size_t i = 0; i < src->ncopies; i++)
        zkpipe__free(&src->allocator, src->copies[i]);
    src->ncopies = 0;
    if (src->mapped)
        munmap((void *)src->data, src->len);
    src->mapped = 0;
    if (src->outer != NULL && src->charged > 0)
        zkpipe_ledger_release(src->outer, src->kind, src->charged);
    src->charged = 0;
    zkpipe_ledger_close(&src->ledger);
}

/* The ledger a reader's bytes are charged to, or NULL. */
static zkpipe_ledger *src_ledger(zkpipe__io_src *src)
{
    if (src->outer != NULL)
        return src->outer;
    return zkpipe_ledger_is_open(&src->ledger) ? &src->ledger : NULL;
}

void zkpipe_io_options_init(zkpipe_io_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
}

zkpipe_status zkpipe__io_reader_open(void **out, size_t size, const char *kind,
                                     zkpipe__io_parse_fn parse, char *detail, size_t cap,
                                     const char *path, const void *data, size_t len,
                                     const zkpipe_io_options *caller)
{
    zkpipe__io_src src;
    if (out == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    /* The caller's options as this library's struct (README.md, ABI); the first published
     * layout ended with `flags`. */
    zkpipe_io_options options, *opts = &options;
    zkpipe_io_options_init(opts);
    if (caller != NULL && zkpipe__struct_in(opts, sizeof options, caller,
                                            ZKPIPE__SIZE_THROUGH(zkpipe_io_options, flags),
                                            "zkpipe_io_options") != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL,
                            "options: struct_size %zu is not a size this zkpipe knows "
                            "(set it with zkpipe_io_options_init)",
                            caller->struct_size);
    zkpipe_status st = zkpipe__io_src_open(&src, detail, cap, path, data, len, kind, opts);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__io_src *reader = (zkpipe__io_src *)zkpipe__alloc(&src.allocator, size, 64);
    if (reader == NULL) {
        zkpipe__io_src_close(&src);
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory");
    }
    memset(reader, 0, size);
    *reader = src;
    st = parse(reader, detail, cap, opts);
    if (st != ZKPIPE_OK) {
        zkpipe__io_reader_destroy(reader);
        return st;
    }
    *out = reader;
    return ZKPIPE_OK;
}

void zkpipe__io_reader_destroy(void *reader)
{
    if (reader == NULL)
        return;
    zkpipe__io_src *src = (zkpipe__io_src *)reader;
    zkpipe_allocator a = src->allocator;
    zkpipe__io_src_close(src);
    zkpipe__free(&a, reader);
}

zkpipe_status zkpipe__io_sections(zkpipe__io_src *src, char *detail, size_t cap, const char *magic,
                                  uint32_t version)
{
    const uint8_t *d = src->data;
    uint64_t len = src->len;
    if (len < 12)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "truncated header (%llu bytes)",
                            (unsigned long long)len);
    if (memcmp(d, magic, 4) != 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "not a .%s file (wrong magic)", magic);
    uint32_t v = zkpipe__get_le32(d + 4);
    if (v != version)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "unsupported version %u (expected %u)",
                            (unsigned)v, (unsigned)version);
    uint32_t nsec = zkpipe__get_le32(d + 8);
    for (int i = 0; i < ZKPIPE__IO_MAX_SECTION; i++)
        src->size[i] = UINT64_MAX;
    uint64_t pos = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (len - pos < 12)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "truncated: section %u of %u has no header", (unsigned)i,
                                (unsigned)nsec);
        uint32_t id = zkpipe__get_le32(d + pos);
        uint64_t size = zkpipe__get_le64(d + pos + 4);
        pos += 12;
        if (size > len - pos)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "truncated: section %u needs %llu bytes, %llu left", (unsigned)id,
                                (unsigned long long)size, (unsigned long long)(len - pos));
        if (id < ZKPIPE__IO_MAX_SECTION) {
            if (src->size[id] != UINT64_MAX)
                return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section %u appears twice",
                                    (unsigned)id);
            src->off[id] = pos;
            src->size[id] = size;
        }
        pos += size;
    }
    if (pos != len)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%llu bytes after the last section",
                            (unsigned long long)(len - pos));
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__io_section(const uint8_t **out, uint64_t *out_size, const zkpipe__io_src *src,
                                 char *detail, size_t cap, uint32_t id, uint64_t size)
{
    if (src->size[id] == UINT64_MAX)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section %u is missing", (unsigned)id);
    if (size != UINT64_MAX && src->size[id] != size)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section %u has %llu bytes, expected %llu",
                            (unsigned)id, (unsigned long long)src->size[id],
                            (unsigned long long)size);
    *out = src->data + src->off[id];
    if (out_size != NULL)
        *out_size = src->size[id];
    return ZKPIPE_OK;
}

void zkpipe__io_drop(const zkpipe__io_src *src, const void *p, size_t bytes)
{
    zkpipe__pages_drop(src->mapped ? src->data : NULL, src->len, p, bytes);
}

zkpipe_status zkpipe__io_copy_slot(uint8_t **out, zkpipe__io_src *src, const uint8_t *p,
                                   size_t bytes)
{
    *out = NULL;
    if ((uintptr_t)p % sizeof(uint64_t) == 0 || bytes == 0)
        return ZKPIPE_OK;
    if (src->ncopies == ZKPIPE__IO_MAX_COPIES)
        return ZKPIPE_ELIMIT;
    uint8_t *copy = (uint8_t *)zkpipe__alloc(&src->allocator, bytes, 64);
    if (copy == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_ledger *ledger = src_ledger(src);
    if (ledger != NULL) {
        zkpipe_status st = zkpipe_ledger_charge(ledger, src->kind, bytes);
        if (st != ZKPIPE_OK) {
            zkpipe__free(&src->allocator, copy);
            return st;
        }
        if (ledger == src->outer)
            src->charged += bytes;
    }
    zkpipe__pages_huge(copy, bytes); /* written whole next: 2 MiB faults, not 4 KiB ones */
    src->copies[src->ncopies] = copy;
    src->copy_bytes[src->ncopies++] = bytes;
    *out = copy;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__io_aligned(const void **out, zkpipe__io_src *src, const uint8_t *p,
                                 size_t bytes)
{
    /* The caller's checks read every byte just now. A copy is the mapped bytes' last reader;
     * otherwise the next reader (the prover) faults them back in from the page cache. */
    uint8_t *copy;
    zkpipe_status st = zkpipe__io_copy_slot(&copy, src, p, bytes);
    if (copy != NULL)
        memcpy(copy, p, bytes);
    zkpipe__io_drop(src, p, bytes);
    *out = copy != NULL ? (const void *)copy : (const void *)p;
    return st;
}

int zkpipe__io_resident(uint64_t *out, const zkpipe__io_src *src)
{
    /* In chunks, so the vector stays small (one byte per page) whatever the file's size. */
    enum { VEC = 4096 };
    unsigned char vec[VEC];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t resident = 0;
    size_t pages = (src->len + page - 1) / page;
    for (size_t first = 0; first < pages; first += VEC) {
        size_t n = pages - first < VEC ? pages - first : VEC;
        size_t off = first * page, len = n * page;
        if (off + len > src->len)
            len = src->len - off;
        if (mincore((void *)(src->data + off), len, vec) != 0)
            return -1;
        for (size_t i = 0; i < n; i++)
            resident += vec[i] & 1;
    }
    resident *= page;
    *out = resident < src->len ? resident : src->len;
    return 0;
}
