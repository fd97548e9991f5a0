/*
 * core/mapfile.c - reading input files (see mapfile.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#define _XOPEN_SOURCE 700 /* pread, posix_fadvise */
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

static void stamp(om_mapped *m, const struct stat *st)
{
    m->mtime_sec = (int64_t)st->st_mtim.tv_sec;
    m->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
}

/*
 * Reads all of fd into the heap. `expect` is the size fstat gave a regular file (a read
 * that ends elsewhere means the file changed), or UINT64_MAX for a pipe or device.
 */
static int read_whole(om_mapped *out, om_mem *mem, int fd, const char *path, uint64_t expect,
                      uint64_t max_bytes, const char *limit_name, opmap_error *err)
{
    size_t cap = 64 * 1024, len = 0;
    unsigned char *buf;
    /* a regular file says how big it is: one allocation, one read (and one to see EOF) */
    if (expect != UINT64_MAX)
        cap = (size_t)expect + 1;
    if (!(buf = om_alloc(mem, cap)))
        return om_fail_mem(err, mem, path);
    for (;;) {
        ssize_t n;
        if (len == cap) {
            unsigned char *nb;
            size_t ncap = cap * 2;
            if (ncap < cap || !(nb = om_realloc(mem, buf, cap, ncap))) {
                om_dealloc(mem, buf, cap);
                return om_fail_mem(err, mem, path);
            }
            buf = nb;
            cap = ncap;
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
    if (expect != UINT64_MAX && len != expect) {
        om_dealloc(mem, buf, cap);
        return om_fail(err, OPMAP_EIO, path,
                       "file changed while being read (%" PRIu64 " bytes when opened, %zu "
                       "read)", expect, len);
    }
    out->heap = buf;
    out->heap_cap = cap;
    out->data = len ? buf : NULL;
    out->size = len;
    return OPMAP_OK;
}

static int open_view(om_mapped *out, om_mem *mem, int fd, const char *path, uint64_t size,
                     unsigned shift, opmap_error *err)
{
    uint64_t chunks = ((size - 1) >> shift) + 1;
    void *region;
    if (size > SIZE_MAX || chunks / 64 + 1 > SIZE_MAX / sizeof(uint64_t))
        return om_fail(err, OPMAP_ELIMIT, path, "file too large for this address space");
    out->loaded_words = (size_t)(chunks / 64 + 1);
    if (!(out->loaded = om_calloc(mem, out->loaded_words, sizeof(uint64_t))))
        return om_fail_mem(err, mem, path);
    /* address space only: pages exist once a chunk is read into them */
    region = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) {
        int e = errno;
        om_dealloc(mem, out->loaded, out->loaded_words * sizeof(uint64_t));
        out->loaded = NULL;
        return fail_errno(err, path, e, "cannot reserve memory for the file");
    }
    /* readers jump over weights: no read-ahead of what they skip */
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    out->region = region;
    out->fd = fd;
    out->shift = shift;
    out->data = region;
    out->size = size;
    return OPMAP_OK;
}

/* Opens `path` for reading (*fd) and checks what every caller refuses: a directory, a
 * regular file over max_bytes (named as limit_name). Returns OPMAP_OK or the error set. */
static int open_checked(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                        const char *limit_name, struct stat *st, int *fd, opmap_error *err)
{
    int e;
    memset(out, 0, sizeof(*out));
    out->mem = mem;
    out->fd = -1;
    if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return fail_errno(err, path, errno, "cannot open");
    if (fstat(*fd, st) != 0) {
        e = errno;
        close(*fd);
        return fail_errno(err, path, e, "cannot stat");
    }
    if (S_ISDIR(st->st_mode)) {
        close(*fd);
        return fail_errno(err, path, EISDIR, "cannot read");
    }
    if (S_ISREG(st->st_mode) && (uint64_t)st->st_size > max_bytes) {
        close(*fd);
        return om_fail(err, OPMAP_ELIMIT, path, "file is %" PRIu64 " bytes, over %s (%" PRIu64
                       ")", (uint64_t)st->st_size, limit_name, max_bytes);
    }
    return OPMAP_OK;
}

int om_map_file_view(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                     uint64_t small_max, unsigned chunk_shift, opmap_error *err)
{
    struct stat st;
    int fd, rc;
    if ((rc = open_checked(out, mem, path, max_bytes, "max_file_bytes", &st, &fd, err)))
        return rc;
    stamp(out, &st);
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size <= small_max) {
        rc = read_whole(out, mem, fd, path, S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                : UINT64_MAX,
                        max_bytes, "max_file_bytes", err);
        close(fd);
        return rc;
    }
    if ((rc = open_view(out, mem, fd, path, (uint64_t)st.st_size, chunk_shift, err)))
        close(fd);
    return rc;
}

int om_map_file(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                opmap_error *err)
{
    return om_map_file_view(out, mem, path, max_bytes, OM_MAP_SMALL_FILE, OM_MAP_CHUNK_SHIFT,
                            err);
}

int om_map_file_limit(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                      const char *limit_name, opmap_error *err)
{
    struct stat st;
    int fd, rc;
    if ((rc = open_checked(out, mem, path, max_bytes, limit_name, &st, &fd, err)))
        return rc;
    rc = read_whole(out, mem, fd, path, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX,
                    max_bytes, limit_name, err);
    close(fd);
    return rc;
}

/* Reads chunks [c0, c1) in one pread: they are all unread. */
static void load(om_mapped *m, uint64_t c0, uint64_t c1)
{
    uint64_t start = c0 << m->shift, end = c1 << m->shift, c;
    if (end > m->size)
        end = m->size;
    if (!om_mem_charge(m->mem, (size_t)(end - start))) {
        m->over_budget = 1; /* the chunks stay zero, and unmarked */
        return;
    }
    m->resident += end - start;
    for (c = c0; c < c1; c++)
        m->loaded[c >> 6] |= (uint64_t)1 << (c & 63);
    while (start < end) {
        ssize_t n = pread(m->fd, m->region + start, (size_t)(end - start), (off_t)start);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* shrunk (or unreadable): what is left stays zero, and is reported */
            if (!m->changed) {
                m->changed = 1;
                m->changed_errno = n < 0 ? errno : 0;
                m->changed_at = start;
            }
            return;
        }
        start += (uint64_t)n;
    }
}

void om_need_slow(om_mapped *m, uint64_t off, uint64_t len)
{
    uint64_t c, c1, run = UINT64_MAX;
    if (len > m->size - off)
        len = m->size - off;
    c1 = ((off + len - 1) >> m->shift) + 1;
    for (c = off >> m->shift; c < c1; c++) {
        int have = (int)(m->loaded[c >> 6] >> (c & 63) & 1);
        if (!have && run == UINT64_MAX)
            run = c;
        else if (have && run != UINT64_MAX) {
            load(m, run, c);
            run = UINT64_MAX;
        }
    }
    if (run != UINT64_MAX)
        load(m, run, c1);
}

int om_map_check(om_mapped *m, const char *path, opmap_error *err)
{
    struct stat st;
    if (!m->region)
        return OPMAP_OK;
    if (m->changed && m->changed_errno) {
        int rc = om_fail_at(err, OPMAP_EIO, path, m->changed_at, "cannot read: %s",
                            strerror(m->changed_errno));
        if (err)
            err->sys_errno = m->changed_errno;
        return rc;
    }
    if (m->changed)
        return om_fail_at(err, OPMAP_EIO, path, m->changed_at,
                          "file changed while being read (%" PRIu64 " bytes when opened, "
                          "now shorter)", m->size);
    if (fstat(m->fd, &st) == 0 &&
        ((uint64_t)st.st_size != m->size || (int64_t)st.st_mtim.tv_sec != m->mtime_sec ||
         (int64_t)st.st_mtim.tv_nsec != m->mtime_nsec))
        return om_fail(err, OPMAP_EIO, path,
                       "file changed while being read (%" PRIu64 " bytes when opened, %" PRIu64
                       " now, or modified)", m->size, (uint64_t)st.st_size);
    if (m->over_budget)
        return om_fail_mem(err, m->mem, path);
    return OPMAP_OK;
}

void om_unmap(om_mapped *m)
{
    if (m->region) {
        munmap(m->region, (size_t)m->size);
        close(m->fd);
        om_dealloc(m->mem, m->loaded, m->loaded_words * sizeof(uint64_t));
        om_mem_uncharge(m->mem, (size_t)m->resident);
    } else if (m->heap) {
        om_dealloc(m->mem, m->heap, m->heap_cap);
    }
    memset(m, 0, sizeof(*m));
    m->fd = -1;
}
