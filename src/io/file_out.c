/* The formats' writers' output file (io/file_out.h). */
#include "io/file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bytes.h"
#include "core/detail.h"

/* Large writes, few system calls: a 2^22 zkey is about 2 GB. */
#define OUT_BUFFER (1u << 20)

static void fail(zkpipe__io_out *o)
{
    if (o->err == 0)
        o->err = errno != 0 ? errno : EIO;
}

zkpipe_status zkpipe__io_out_open(zkpipe__io_out *o, char *detail, size_t cap, const char *path,
                                  const char *magic, uint32_t version, uint32_t sections)
{
    memset(o, 0, sizeof *o);
    o->sec_size = -1;
    o->path = path;
    size_t len = strlen(path) + 48;
    o->tmp = malloc(len);
    if (o->tmp == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory");
    snprintf(o->tmp, len, "%s.zkpipe-new-%ld", path, (long)getpid());
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || (o->f = fdopen(fd, "wb")) == NULL) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return zkpipe__fail(detail, cap, ZKPIPE_EIO, "cannot create %s's temporary file: %s", path,
                            strerror(e));
    }
    setvbuf(o->f, NULL, _IOFBF, OUT_BUFFER);
    zkpipe__io_out_bytes(o, magic, 4);
    zkpipe__io_out_u32(o, version);
    zkpipe__io_out_u32(o, sections);
    return ZKPIPE_OK;
}

void zkpipe__io_out_bytes(zkpipe__io_out *o, const void *p, size_t n)
{
    if (o->err == 0 && n > 0 && fwrite(p, 1, n, o->f) != n)
        fail(o);
}

void zkpipe__io_out_u32(zkpipe__io_out *o, uint32_t v)
{
    uint8_t b[4];
    zkpipe__put_le32(b, v);
    zkpipe__io_out_bytes(o, b, 4);
}

void zkpipe__io_out_u64(zkpipe__io_out *o, uint64_t v)
{
    uint8_t b[8];
    zkpipe__put_le64(b, v);
    zkpipe__io_out_bytes(o, b, 8);
}

void zkpipe__io_out_limbs(zkpipe__io_out *o, const uint64_t *v, size_t n, size_t limbs)
{
    uint8_t b[8 * 64];
    size_t per = sizeof b / (8 * limbs);
    for (size_t i = 0; i < n && o->err == 0; i += per) {
        size_t k = n - i < per ? n - i : per;
        for (size_t j = 0; j < k * limbs; j++)
            zkpipe__put_le64(b + 8 * j, v[i * limbs + j]);
        zkpipe__io_out_bytes(o, b, 8 * k * limbs);
    }
}

void zkpipe__io_out_section(zkpipe__io_out *o, uint32_t id)
{
    zkpipe__io_out_u32(o, id);
    if (o->err == 0 && (o->sec_size = ftello(o->f)) < 0)
        fail(o);
    zkpipe__io_out_u64(o, 0);
}

void zkpipe__io_out_section_end(zkpipe__io_out *o)
{
    if (o->err != 0)
        return;
    long long end = ftello(o->f);
    uint8_t b[8];
    zkpipe__put_le64(b, (uint64_t)(end - o->sec_size - 8));
    if (end < 0 || fseeko(o->f, o->sec_size, SEEK_SET) != 0 || fwrite(b, 1, 8, o->f) != 8 ||
        fseeko(o->f, end, SEEK_SET) != 0)
        fail(o);
    o->sec_size = -1;
}

zkpipe_status zkpipe__io_out_commit(zkpipe__io_out *o, char *detail, size_t cap)
{
    if (o->err == 0 && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0))
        fail(o);
    if (fclose(o->f) != 0)
        fail(o);
    o->f = NULL;
    if (o->err == 0 && rename(o->tmp, o->path) != 0)
        fail(o);
    if (o->err != 0) {
        int e = o->err;
        zkpipe__io_out_abort(o);
        return zkpipe__fail(detail, cap, ZKPIPE_EIO, "cannot write %s: %s", o->path, strerror(e));
    }
    free(o->tmp);
    o->tmp = NULL;
    return ZKPIPE_OK;
}

void zkpipe__io_out_abort(zkpipe__io_out *o)
{
    if (o->f != NULL)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp != NULL)
        unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
}
