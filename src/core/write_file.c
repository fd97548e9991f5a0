/*
 * core/write_file.c - opmap_write_file(): a file written as opmap writes its reports.
 *
 * A regular file (or a new one) is written beside its target and renamed into place, so a
 * failed run leaves the old file. Anything else at the path is never replaced: a symlink
 * is followed and its target written that way, a device, FIFO or socket is written through
 * (`-o /dev/null` as root must not turn the machine's /dev/null into a file), a directory
 * or a link to nothing is refused. opmap_write_file_nofollow() (what `opmap testgen` writes
 * its Python with) follows nothing: whatever is at the path is replaced by the new file.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opmap/report.h>

#include "err.h"

typedef struct filesink {
    int fd;
    int sys_errno;  /* of the first failed write */
} filesink;

static int fd_write(void *payload, const void *data, size_t size)
{
    filesink *f = payload;
    const char *p = data;
    if (f->sys_errno)
        return -1;
    while (size) {
        ssize_t n = write(f->fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->sys_errno = n < 0 ? errno : EIO;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* strerror_r (POSIX flavour): strerror() may share a buffer between threads. */
static int fail_sys(opmap_error *err, int code, const char *path, const char *what, int e)
{
    char why[128];
    if (strerror_r(e, why, sizeof(why)) != 0)
        snprintf(why, sizeof(why), "error %d", e);
    om_fail(err, code, path, "%s: %s", what, why);
    if (err)
        err->sys_errno = e;
    return code;
}

/* fill into an open descriptor; the first failed write or fill's own error wins. */
static int fill_fd(int fd, const char *path, opmap_fill_fn fill, void *arg, opmap_error *err)
{
    filesink f;
    int rc;
    f.fd = fd;
    f.sys_errno = 0;
    rc = fill(arg, fd_write, &f, err);
    if (f.sys_errno)
        return fail_sys(err, OPMAP_EIO, path, "cannot write", f.sys_errno);
    return rc;
}

/* A device, FIFO or socket: written through, never replaced. */
static int write_through(const char *path, opmap_fill_fn fill, void *arg, opmap_error *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), rc;
    if (fd < 0)
        return fail_sys(err, OPMAP_EIO, path, "cannot open", errno);
    rc = fill_fd(fd, path, fill, arg, err);
    if (close(fd) != 0 && rc == OPMAP_OK)
        rc = fail_sys(err, OPMAP_EIO, path, "cannot write", errno);
    return rc;
}

/* A regular file: a unique name beside it, then an atomic rename. */
static int write_replacing(const char *path, const char *shown, const struct stat *old,
                           opmap_fill_fn fill, void *arg, opmap_error *err)
{
    char tmp[PATH_MAX + 32];
    unsigned attempt;
    int fd = -1, rc;
    /* O_EXCL instead of mkstemp: the file gets the usual permissions, the umask untouched */
    for (attempt = 0; attempt < 1000 && fd < 0; attempt++) {
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld.%u", path, (long)getpid(), attempt) >=
            sizeof(tmp))
            return om_fail(err, OPMAP_EINVAL, shown, "path too long");
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return fail_sys(err, OPMAP_EIO, shown, "cannot create", errno);
    }
    if (fd < 0)
        return fail_sys(err, OPMAP_EIO, shown, "cannot create", EEXIST);
    if (old) /* a replaced file keeps its permissions */
        (void)fchmod(fd, old->st_mode & 07777);
    rc = fill_fd(fd, shown, fill, arg, err);
    if (close(fd) != 0 && rc == OPMAP_OK)
        rc = fail_sys(err, OPMAP_EIO, shown, "cannot write", errno);
    if (rc == OPMAP_OK && rename(tmp, path) != 0)
        rc = fail_sys(err, OPMAP_EIO, shown, "cannot write", errno);
    if (rc != OPMAP_OK)
        unlink(tmp);
    return rc;
}

int opmap_write_file_nofollow(const char *path, opmap_fill_fn fill, void *arg,
                              opmap_error *err)
{
    struct stat st;
    om_err_clear(err);
    if (!path || !*path || !fill)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_write_file_nofollow: NULL argument");
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return fail_sys(err, OPMAP_EIO, path, "cannot write", errno);
        return write_replacing(path, path, NULL, fill, arg, err);
    }
    if (S_ISDIR(st.st_mode))
        return om_fail(err, OPMAP_EIO, path, "is a directory");
    /* a link, a FIFO, a device: its entry is replaced by the new file, never followed or
     * written through; a regular file keeps its permissions */
    return write_replacing(path, path, S_ISREG(st.st_mode) ? &st : NULL, fill, arg, err);
}

int opmap_write_file(const char *path, opmap_fill_fn fill, void *arg, opmap_error *err)
{
    struct stat st;
    om_err_clear(err);
    if (!path || !*path || !fill)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_write_file: NULL argument");
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return fail_sys(err, OPMAP_EIO, path, "cannot write", errno);
        return write_replacing(path, path, NULL, fill, arg, err);
    }
    if (S_ISLNK(st.st_mode)) {
        char real[PATH_MAX];
        if (stat(path, &st) != 0)
            return fail_sys(err, OPMAP_EIO, path, "a symbolic link to nothing", errno);
        if (!S_ISREG(st.st_mode))
            return S_ISDIR(st.st_mode) ? om_fail(err, OPMAP_EIO, path, "is a directory")
                                       : write_through(path, fill, arg, err);
        /* the link stays: its target is what gets replaced */
        if (!realpath(path, real))
            return fail_sys(err, OPMAP_EIO, path, "cannot resolve", errno);
        return write_replacing(real, path, &st, fill, arg, err);
    }
    if (S_ISDIR(st.st_mode))
        return om_fail(err, OPMAP_EIO, path, "is a directory");
    if (!S_ISREG(st.st_mode))
        return write_through(path, fill, arg, err);
    return write_replacing(path, path, &st, fill, arg, err);
}
