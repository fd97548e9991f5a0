/*
 * core/mapfile.c - read-only view of an input file (see mapfile.h).
 */
#define _DEFAULT_SOURCE /* madvise */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

static int fail_errno(opmap_error *err, const char *path, int e, const char *what)
{
    int code = om_fail(err, OPMAP_EIO, path, "%s: %s", what, strerror(e));
    if (err)
        err->sys_errno = e;
    return code;
}

/* Files up to this size are read into memory instead of mapped. */
#define SMALL_FILE (256 * 1024)

static int read_stream(om_mapped *out, om_mem *mem, int fd, const char *path, uint64_t max_bytes,
                       const char *limit_name, opmap_error *err)
{
    struct stat st;
    size_t cap = 64 * 1024, len = 0;
    /* a regular file says how big it is: one allocation, one read */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size < SMALL_FILE * 4)
        cap = (size_t)st.st_size + 1;
    unsigned char *buf = om_alloc(mem, cap);
    if (!buf)
        return om_fail_mem(err, mem, path);
    for (;;) {
        ssize_t n;
        if (len == cap) {
            unsigned char *nb;
            nb = om_realloc(mem, buf, cap, cap * 2);
            if (!nb) {
                om_dealloc(mem, buf, cap);
                return om_fail_mem(err, mem, path);
            }
            buf = nb;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            om_dealloc(mem, buf, cap);
            return fail_errno(err, path, e, "cannot read");
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max_bytes) {
            om_dealloc(mem, buf, cap);
            return om_fail(err, OPMAP_ELIMIT, path, "file larger than %s (%" PRIu64 ")",
                           limit_name, max_bytes);
        }
    }
    out->heap = buf;
    out->heap_cap = cap;
    out->data = buf;
    out->size = len;
    out->mem = mem;
    return OPMAP_OK;
}

int om_map_file(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                opmap_error *err)
{
    return om_map_file_limit(out, mem, path, max_bytes, "max_file_bytes", err);
}

int om_map_file_limit(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                      const char *limit_name, opmap_error *err)
{
    struct stat st;
    int fd;
    memset(out, 0, sizeof(*out));
    out->mem = mem;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno(err, path, errno, "cannot open");
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail_errno(err, path, e, "cannot stat");
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail_errno(err, path, EISDIR, "cannot read");
    }
    if (!S_ISREG(st.st_mode)) {
        int rc = read_stream(out, mem, fd, path, max_bytes, limit_name, err);
        close(fd);
        return rc;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        return om_fail(err, OPMAP_ELIMIT, path,
                       "file is %" PRIu64 " bytes, over %s (%" PRIu64 ")", (uint64_t)st.st_size,
                       limit_name, max_bytes);
    }
    if (st.st_size == 0) {
        close(fd);
        return OPMAP_OK;
    }
    if (st.st_size <= SMALL_FILE) {
        /* small files: one read() is cheaper than setting up and tearing down a mapping */
        int rc = read_stream(out, mem, fd, path, max_bytes, limit_name, err);
        close(fd);
        return rc;
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return om_fail(err, OPMAP_ELIMIT, path, "file too large for this address space");
    }
    out->map_base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (out->map_base == MAP_FAILED) {
        int e = errno;
        out->map_base = NULL;
        close(fd);
        return fail_errno(err, path, e, "cannot map");
    }
    close(fd);
    /*
     * Readers jump over weight payloads. Without this the kernel maps the pages around each
     * fault ("fault-around") and reads ahead, so skipping 500 MB of weights would still
     * pull most of them into the process's resident set.
     */
    madvise(out->map_base, (size_t)st.st_size, MADV_RANDOM);
    out->data = out->map_base;
    out->size = (uint64_t)st.st_size;
    return OPMAP_OK;
}

void om_unmap(om_mapped *m)
{
    if (m->map_base)
        munmap(m->map_base, (size_t)m->size);
    else if (m->heap)
        om_dealloc(m->mem, m->heap, m->heap_cap);
    memset(m, 0, sizeof(*m));
}
