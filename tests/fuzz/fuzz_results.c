/*
 * tests/fuzz/fuzz_results.c - a results file of opmap testgen's runner read back (opmap
 * scan --results): the input is the file. Results come from another machine and through
 * people's hands: hostile.
 *
 * Invariants: the file is refused with OPMAP_EFORMAT or a limit (a clean error naming
 * "fuzz.json", the set left empty), or read; a set read scans a model with signatures of
 * every kind (ATen calls of a printed graph), and the result writes in every format (the
 * checks of fuzz_common.h); adding the same file again is taken and leaves the count as it
 * was (every run in it is a repeat); no operator has more results than the set. Everything
 * is freed.
 */
#include "fuzz_common.h"

static const char graph[] =
    "graph(%x : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu),\n"
    "      %w : Float(64, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %2 : int[] = prim::Constant[value=[64]]()\n"
    "  %3 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %4 : bool = prim::Constant[value=1]()\n"
    "  %5 : NoneType = prim::Constant()\n"
    "  %6 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %7 : int = prim::Constant[value=1]()\n"
    "  %8 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::add(%6, %w, %7)\n"
    "  return (%8)\n";

/* The built-in table and the model, made once in a context of their own and kept. */
static void fixtures(const opmap_table **t, const opmap_model **m)
{
    static opmap_ctx *ctx;
    static opmap_table *table;
    static opmap_model *model;
    opmap_error err;
    if (!table) {
        FZ_CHECK(opmap_ctx_new(&ctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&table, ctx, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_model_open_memory(&model, ctx, graph, sizeof(graph) - 1, "g.txt",
                                         &err) == OPMAP_OK, "%s", err.message);
    }
    *t = table;
    *m = model;
}

static void scan_with(opmap_ctx *ctx, const opmap_results *set, unsigned variant)
{
    const opmap_table *t;
    const opmap_model *m;
    opmap_scan_options o = OPMAP_SCAN_OPTIONS_INIT;
    opmap_result *res = NULL;
    opmap_error err;
    size_t i;
    int rc;
    fixtures(&t, &m);
    o.results = set;
    o.soc = variant & 2 ? "all" : NULL;
    rc = opmap_scan(&res, ctx, m, t, &o, &err);
    if (rc != OPMAP_OK) { /* only a tight context's limits */
        FZ_CHECK(rc == OPMAP_ELIMIT || rc == OPMAP_ENOMEM, "scan returned %d: %s", rc,
                 err.message);
        return;
    }
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *op;
        opmap_result_op(res, i, &op);
        FZ_CHECK(opmap_op_verified_count(op) <= opmap_results_count(set),
                 "an operator has more results than the set");
        FZ_CHECK(opmap_verify_state_name(opmap_op_verify_state(op)), "no such state");
    }
    fz_write_reports(ctx, (const opmap_result *const *)&res, 1, variant);
    opmap_result_free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_alloc a = { 0 };
    unsigned variant = fz_hash(data, size);
    opmap_ctx *ctx = fz_ctx(&a, (variant & 7) == 0);
    opmap_results *set = NULL;
    opmap_error err;
    size_t n;
    int rc;
    FZ_CHECK(opmap_results_new(&set, ctx, &err) == OPMAP_OK, "%s", err.message);
    rc = opmap_results_add(set, "fuzz.json", data, size, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ELIMIT || rc == OPMAP_ENOMEM,
                 "results read returned %d: %s", rc, err.message);
        fz_check_error(rc, &err, "fuzz.json");
        FZ_CHECK(opmap_results_count(set) == 0, "a refused file left results");
    } else {
        n = opmap_results_count(set);
        scan_with(ctx, set, variant);
        rc = opmap_results_add(set, "fuzz.json", data, size, &err);
        FZ_CHECK(rc == OPMAP_OK || rc == OPMAP_ENOMEM || rc == OPMAP_ELIMIT,
                 "the same file, again, returned %d: %s", rc, err.message);
        FZ_CHECK(opmap_results_count(set) == n, "the same runs again changed the count");
    }
    opmap_results_free(set);
    fz_ctx_free(ctx, &a);
    return 0;
}
