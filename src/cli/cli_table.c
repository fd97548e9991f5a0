/*
 * cli/cli_table.c - `opmap table lint|show|stats`: look into a compatibility table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int load(opmap_ctx *ctx, const char *path, opmap_table **out)
{
    opmap_error err;
    int rc = path ? opmap_table_load_file(out, ctx, path, &err)
                  : opmap_table_load_default(out, ctx, &err);
    if (rc != OPMAP_OK) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return 0;
}

static int lint(opmap_ctx *ctx, const char *path)
{
    opmap_table *t;
    int rc = load(ctx, path, &t);
    if (rc)
        return rc;
    printf("%s: ok, %zu rows\n", opmap_table_origin(t), opmap_table_row_count(t));
    opmap_table_free(t);
    return EXIT_CLEAN;
}

int cli_table(int argc, char **argv)
{
    opmap_ctx *ctx;
    opmap_error err;
    int code;
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fputs("usage: opmap table lint [FILE]\n", argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_CLEAN;
    }
    if (opmap_ctx_new(&ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        return EXIT_INTERNAL;
    }
    if (strcmp(argv[1], "lint") == 0 && argc <= 3) {
        code = lint(ctx, argc == 3 ? argv[2] : NULL);
    } else {
        cli_fail("table: unknown subcommand or arguments (try opmap table --help)");
        code = EXIT_USAGE;
    }
    opmap_ctx_free(ctx);
    return code;
}
