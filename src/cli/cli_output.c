/*
 * cli/cli_output.c - writing reports: to stdout, or to a file through opmap_write_file()
 * (a file replaced atomically, so a failed run never leaves half a report).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int write_file(void *payload, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)payload) == size ? 0 : -1;
}

int cli_write_with(cli_fill_fn fill, void *arg, const char *path)
{
    opmap_error err;
    int rc;

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
    /* the library's writer: atomic for files, a device written through, a link kept */
    rc = opmap_write_file(path, fill, arg, &err);
    if (rc == OPMAP_OK)
        return 0;
    cli_error(&err);
    return rc == OPMAP_EIO || rc == OPMAP_EWRITE ? EXIT_OUTPUT : cli_exit_for(rc);
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
