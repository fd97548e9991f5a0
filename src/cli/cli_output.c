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

/* The exit code of a write to stdout that returned rc. */
static int stdout_done(int rc, const opmap_error *err)
{
    if (rc == OPMAP_OK && fflush(stdout) != 0)
        rc = OPMAP_EWRITE;
    if (rc == OPMAP_OK)
        return 0;
    if (rc == OPMAP_EWRITE)
        cli_fail("cannot write to standard output");
    else
        cli_error(err);
    return rc == OPMAP_EWRITE ? EXIT_OUTPUT : cli_exit_for(rc);
}

/* The exit code of a write to a file (opmap_write_file or a report into one). */
static int file_done(int rc, const opmap_error *err)
{
    if (rc == OPMAP_OK)
        return 0;
    cli_error(err);
    return rc == OPMAP_EIO || rc == OPMAP_EWRITE ? EXIT_OUTPUT : cli_exit_for(rc);
}

int cli_write_with(cli_fill_fn fill, void *arg, const char *path)
{
    opmap_error err;
    if (!path || strcmp(path, "-") == 0)
        return stdout_done(fill(arg, write_file, stdout, &err), &err);
    /* the library's writer: atomic for files, a device written through, a link kept */
    return file_done(opmap_write_file(path, fill, arg, &err), &err);
}

int cli_write_new(cli_fill_fn fill, void *arg, const char *path)
{
    opmap_error err;
    return file_done(opmap_write_file_nofollow(path, fill, arg, &err), &err);
}

int cli_write_report(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                     opmap_report_format format, const opmap_report_options *opts,
                     const char *path)
{
    opmap_error err;
    if (!path || strcmp(path, "-") == 0)
        return stdout_done(opmap_report_write(ctx, results, count, format, opts, write_file,
                                              stdout, &err), &err);
    return file_done(opmap_report_write_file(ctx, results, count, format, opts, path, &err),
                     &err);
}
