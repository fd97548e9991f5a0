/*
 * cli/cli_output.c - writing reports: stdout, or a file replaced atomically.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int write_file(void *payload, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)payload) == size ? 0 : -1;
}

int cli_write_report(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                     opmap_report_format format, unsigned flags, const char *path)
{
    opmap_error err;
    char *tmp;
    FILE *f;
    int fd, rc;
    size_t len;

    if (!path || strcmp(path, "-") == 0) {
        rc = opmap_report_write(ctx, results, count, format, flags, write_file, stdout, &err);
        if (rc == OPMAP_OK && fflush(stdout) != 0)
            rc = OPMAP_EWRITE;
        if (rc != OPMAP_OK) {
            cli_fail("cannot write the report to standard output");
            return EXIT_OUTPUT;
        }
        return 0;
    }
    len = strlen(path) + 16;
    if (!(tmp = malloc(len)))
        return EXIT_INTERNAL;
    snprintf(tmp, len, "%s.tmpXXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0 || !(f = fdopen(fd, "wb"))) {
        cli_fail("%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return EXIT_OUTPUT;
    }
    {
        /* mkstemp makes the file 0600; give it the permissions a new file normally gets */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    rc = opmap_report_write(ctx, results, count, format, flags, write_file, f, &err);
    if (fclose(f) != 0 && rc == OPMAP_OK)
        rc = OPMAP_EWRITE;
    if (rc == OPMAP_OK && rename(tmp, path) != 0)
        rc = OPMAP_EWRITE;
    if (rc != OPMAP_OK) {
        cli_fail("%s: cannot write the report: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return EXIT_OUTPUT;
    }
    free(tmp);
    return 0;
}
