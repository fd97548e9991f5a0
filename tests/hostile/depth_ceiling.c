/*
 * tests/hostile/depth_ceiling.c - a caller's max_depth is held to a ceiling, so a deep file
 * cannot overflow the stack of the recursive readers whatever the caller allows.
 *
 * Usage: depth_ceiling MODEL [ANY...]
 *        (run by run_depth_ceiling.py: 40,000 nested Ifs, then TorchScript code with a
 *        chain of 100,000 attributes, and one of 8,000: just under the chain bound at the
 *        ceiling, 2 x 4096 + 8)
 * Exit 0 when the context reports the ceiling (4096), MODEL fails with OPMAP_ELIMIT naming
 * max_depth, and each ANY opens or fails with an error, without a crash.
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
    if (argc < 2)
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
    printf("depth_ceiling: %s\n", err.message);
    for (int i = 2; i < argc; i++) {
        m = NULL;
        rc = opmap_model_open_file(&m, ctx, argv[i], &err);
        printf("depth_ceiling: %s: %s\n", argv[i], rc == OPMAP_OK ? "read" : err.message);
        opmap_model_free(m);
    }
    opmap_ctx_free(ctx);
    return 0;
}
