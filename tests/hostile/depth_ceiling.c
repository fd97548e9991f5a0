/*
 * tests/hostile/depth_ceiling.c - a caller's max_depth is held to a ceiling, so a deep file
 * cannot overflow the stack of the recursive readers whatever the caller allows.
 *
 * Usage: depth_ceiling MODEL    (run by run_depth_ceiling.py on 40,000 nested Ifs)
 * Exit 0 when the context reports the ceiling (4096) and the model fails with OPMAP_ELIMIT.
 */
#include <stdio.h>
#include <string.h>

#include <opmap/opmap.h>

int main(int argc, char **argv)
{
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *ctx = NULL;
    opmap_model *m = NULL;
    opmap_error err;
    int rc;
    if (argc != 2)
        return 2;
    o.limits.max_depth = 4000000000u;
    if (opmap_ctx_new(&ctx, &o, &err) != OPMAP_OK) {
        fprintf(stderr, "opmap_ctx_new: %s\n", err.message);
        return 1;
    }
    if (opmap_ctx_limits(ctx)->max_depth != 4096) {
        fprintf(stderr, "max_depth is %u, expected the ceiling 4096\n",
                opmap_ctx_limits(ctx)->max_depth);
        return 1;
    }
    rc = opmap_model_open_file(&m, ctx, argv[1], &err);
    if (rc != OPMAP_ELIMIT || !strstr(err.message, "max_depth")) {
        fprintf(stderr, "expected a max_depth error, got %d: %s\n", rc, err.message);
        return 1;
    }
    opmap_model_free(m);
    opmap_ctx_free(ctx);
    printf("depth_ceiling: %s\n", err.message);
    return 0;
}
