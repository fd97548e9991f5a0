/*
 * cli/cli_output.c - writing reports: stdout, or a file replaced atomically (written to a
 * temporary file next to it, then renamed), so a failed run never leaves half a report.
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

int cli_write_with(cli_fill_fn fill, void *arg, const char *path)
{
    opmap_error err;
    char *tmp;
    FILE *f;
    int fd, rc;
    size_t len;

    if (!path || strcmp(path, "-") == 0) {
        rc = fill(arg, write_file, stdout, &err);
        if (rc == OPMAP_OK && fflush(stdout) != 0)
            rc = OPMAP_EWRITE;
        if (rc != OPMAP_OK) {
            if (rc == OPMAP_EWRITE)
                cli_fail("cannot write to standard output");
            else
                cli_error(&err);
            return rc == OPMAP_EWRITE ? EXIT_OUTPUT : cli_exit_for(rc);
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
    rc = fill(arg, write_file, f, &err);
    if (fclose(f) != 0 && rc == OPMAP_OK)
        rc = OPMAP_EWRITE;
    if (rc == OPMAP_OK && rename(tmp, path) != 0)
        rc = OPMAP_EWRITE;
    if (rc != OPMAP_OK) {
        if (rc == OPMAP_EWRITE)
            cli_fail("%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        else
            cli_error(&err);
        unlink(tmp);
        free(tmp);
        return rc == OPMAP_EWRITE ? EXIT_OUTPUT : cli_exit_for(rc);
    }
    free(tmp);
    return 0;
}

typedef struct report_args {
    opmap_ctx *ctx;
    const opmap_result *const *results;
    size_t count;
    opmap_report_format format;
    const opmap_report_options *opts;
} report_args;

static int fill_report(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    report_args *a = arg;
    return opmap_report_write(a->ctx, a->results, a->count, a->format, a->opts, write, payload,
                              err);
}

int cli_write_report(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                     opmap_report_format format, const opmap_report_options *opts,
                     const char *path)
{
    report_args a;
    a.ctx = ctx;
    a.results = results;
    a.count = count;
    a.format = format;
    a.opts = opts;
    return cli_write_with(fill_report, &a, path);
}
