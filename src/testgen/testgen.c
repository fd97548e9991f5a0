/*
 * testgen/testgen.c - opmap_testgen_write() (opmap/verify.h, docs/testgen.md): the pytest
 * module (a header saying what and how to run, the sizes of symbolic dimensions, the
 * harness of data/testgen/harness.py, one Case per distinct signature and one test
 * function per case) or the runner script (data/testgen/run_opmap_tests.py).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/version.h>

#include "core/context.h"
#include "core/err.h"
#include "core/out.h"
#include "readers/model.h"
#include "scan/result_internal.h"
#include "testgen_internal.h"

extern const unsigned char om_testgen_harness[];
extern const size_t om_testgen_harness_size;
extern const unsigned char om_testgen_runner[];
extern const size_t om_testgen_runner_size;

#define TG_DEFAULT_DIM 2
#define TG_DEFAULT_MAX_TESTS 1000

/* "name=value": a symbolic dimension's size (1 .. 2^31 - 1). */
static int parse_dim(const char *d, size_t *name_len, long *value, opmap_error *err)
{
    const char *eq = d ? strchr(d, '=') : NULL;
    char *end;
    if (!eq || eq == d)
        return om_fail(err, OPMAP_EINVAL, NULL, "dimension '%.80s' is not NAME=SIZE",
                       d ? d : "(null)");
    errno = 0;
    *value = strtol(eq + 1, &end, 10);
    if (errno || end == eq + 1 || *end || *value < 1 || *value > 2147483647L)
        return om_fail(err, OPMAP_EINVAL, NULL, "dimension '%.80s': the size is not a whole "
                       "number from 1 to 2147483647", d);
    *name_len = (size_t)(eq - d);
    return OPMAP_OK;
}

static int check(const opmap_model *const *models, const opmap_result *const *results,
                 size_t count, const opmap_testgen_options *o, opmap_error *err)
{
    size_t i, n;
    long v;
    if (o->version != OPMAP_TESTGEN_OPTIONS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_testgen_write: options version %u, "
                       "expected %u", o->version, OPMAP_TESTGEN_OPTIONS_VERSION);
    if (o->select > OPMAP_TESTGEN_ALL || (o->n_dims && !o->dims))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_testgen_write: unknown options");
    for (i = 0; i < o->n_dims; i++) {
        int rc = parse_dim(o->dims[i], &n, &v, err);
        if (rc)
            return rc;
    }
    for (i = 0; i < count; i++) {
        if (!models[i] || !results[i])
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_testgen_write: model %zu is NULL", i);
        if (strcmp(models[i]->ir.name, results[i]->model_name) != 0)
            return om_fail(err, OPMAP_EINVAL, models[i]->ir.name, "the result given is the "
                           "scan of another model (%.200s)", results[i]->model_name);
    }
    return OPMAP_OK;
}

/* A comment line: '#', then text that is plain ASCII (a name as a Python literal). */
static void comment(om_out *o, tg_buf *b, const char *text)
{
    b->len = 0;
    tg_puts(b, "# ");
    tg_puts(b, text);
    tg_puts(b, "\n");
    if (!b->oom)
        om_out_bytes(o, b->data, b->len);
}

static void header(om_out *o, tg_buf *b, const opmap_result *const *results, size_t count,
                   size_t n_cases)
{
    size_t i;
    om_out_printf(o, "# test_opmap_ops.py: %zu per-operator differential tests written by opmap "
                  "%s testgen (docs/testgen.md),\n# one per distinct signature (operator, "
                  "attributes, dtypes, shapes) of the operators the scan\n# flags in:\n",
                  n_cases, opmap_version_string());
    for (i = 0; i < count && i < 50; i++) {
        tg_buf name = { NULL, 0, 0, b->mem, 0 };
        tg_py_str(&name, results[i]->model_name, strlen(results[i]->model_name));
        comment(o, b, name.oom ? "(a name too long to hold)" : name.data);
        tg_free(&name);
    }
    if (count > 50)
        om_out_printf(o, "# ... and %zu more models\n", count - 50);
    om_out_str(o,
        "#\n"
        "# On the NPU machine (torch, torch_npu):   python3 run_opmap_tests.py -o results.json\n"
        "#   or with pytest:                        OPMAP_DEVICE=npu python3 -m pytest test_opmap_ops.py\n"
        "# Without an NPU, CPU against CPU checks the tests themselves (it verifies nothing):\n"
        "#                                          python3 run_opmap_tests.py --device cpu\n"
        "# Then, anywhere: opmap scan MODEL --results results.json\n"
        "# Inputs are random with a fixed seed per signature; sizes of symbolic dimensions are\n"
        "# DIMS (opmap testgen --dim NAME=SIZE), any other DEFAULT_DIM: edit them to run others.\n");
}

static void dims(om_out *o, tg_buf *b, const opmap_testgen_options *opt)
{
    size_t i, n;
    long v;
    om_out_printf(o, "GENERATOR = \"opmap %s testgen\"\nDIMS = {", opmap_version_string());
    for (i = 0; i < opt->n_dims; i++) {
        parse_dim(opt->dims[i], &n, &v, NULL);
        b->len = 0;
        tg_py_str(b, opt->dims[i], n);
        om_out_str(o, i ? ", " : "");
        if (!b->oom)
            om_out_bytes(o, b->data, b->len);
        om_out_printf(o, ": %ld", v);
    }
    om_out_printf(o, "}\nDEFAULT_DIM = %u\n\n", opt->default_dim ? opt->default_dim
                                                                 : TG_DEFAULT_DIM);
}

/* The case's id: its operator as an identifier and 12 hex digits of its signature's hash
 * (with the case's number when two would share one). */
static void case_id(const tg_case *c, size_t index, const tg_set *set, char *id, size_t size)
{
    size_t j;
    om_sig_test_id(c->op, c->signature, id, size);
    for (j = 0; j < index; j++)
        if ((OM_VEC_AT(&set->cases, tg_case, j).h & 0xffffffffffffull) ==
                (c->h & 0xffffffffffffull) &&
            strcmp(OM_VEC_AT(&set->cases, tg_case, j).op, c->op) == 0)
            snprintf(id + strlen(id), size - strlen(id), "_%zu", index);
}

static void str_list(tg_buf *b, const char *const *items, size_t n)
{
    size_t i;
    tg_puts(b, "[");
    for (i = 0; i < n; i++) {
        tg_puts(b, i ? ", " : "");
        tg_py_str(b, items[i], strlen(items[i]));
    }
    tg_puts(b, "]");
}

static void one_case(tg_buf *b, const tg_case *c, const char *id)
{
    tg_puts(b, "    Case(\"");
    tg_puts(b, id);
    tg_puts(b, "\", ");
    tg_py_str(b, c->op, strlen(c->op));
    tg_puts(b, ",\n         ");
    tg_py_str(b, c->signature, strlen(c->signature));
    tg_puts(b, ",\n         ");
    tg_puts(b, c->code);
    tg_puts(b, ",\n         nodes=");
    str_list(b, c->nodes, c->n_nodes);
    tg_puts(b, ", instances=");
    tg_int(b, (int64_t)c->instances);
    tg_puts(b, ",\n         models=");
    str_list(b, c->models, c->n_models);
    tg_puts(b, ", why=");
    tg_py_str(b, c->why, strlen(c->why));
    tg_puts(b, ",\n         skip=");
    if (c->skip)
        tg_py_str(b, c->skip, strlen(c->skip));
    else
        tg_puts(b, "None");
    tg_puts(b, "),\n");
}

static void one_test(tg_buf *b, const tg_case *c, const char *id, size_t index)
{
    char doc[1400];
    tg_puts(b, "\n\ndef test_");
    tg_puts(b, id);
    tg_puts(b, "():\n    ");
    snprintf(doc, sizeof(doc), "%s at %s%s (%llu instance%s)", c->op, c->nodes[0],
             c->n_nodes > 1 ? " and others" : "", (unsigned long long)c->instances,
             c->instances == 1 ? "" : "s");
    tg_py_str(b, doc, strlen(doc));
    tg_puts(b, "\n    run_test(CASES[");
    tg_int(b, (int64_t)index);
    tg_puts(b, "])\n");
}

static int module(om_out *o, const tg_set *set, const opmap_result *const *results,
                  size_t count, const opmap_testgen_options *opt, om_mem *mem)
{
    tg_buf b = { NULL, 0, 0, mem, 0 };
    char id[80];
    size_t i, pass;
    header(o, &b, results, count, set->cases.len);
    dims(o, &b, opt);
    om_out_bytes(o, om_testgen_harness, om_testgen_harness_size);
    om_out_str(o, "\n\nCASES = [\n");
    for (pass = 0; pass < 2; pass++) /* the cases, then a test function per case */
        for (i = 0; i < set->cases.len; i++) {
            const tg_case *c = &OM_VEC_AT(&set->cases, tg_case, i);
            b.len = 0;
            case_id(c, i, set, id, sizeof(id));
            if (pass)
                one_test(&b, c, id, i);
            else
                one_case(&b, c, id);
            if (b.oom)
                break;
            om_out_bytes(o, b.data, b.len);
            if (!pass && i + 1 == set->cases.len)
                om_out_str(o, "]\n");
        }
    if (!set->cases.len)
        om_out_str(o, "]\n");
    tg_free(&b);
    return b.oom ? OPMAP_ENOMEM : OPMAP_OK;
}

static int write_module(opmap_ctx *ctx, const opmap_model *const *models,
                        const opmap_result *const *results, size_t count,
                        const opmap_testgen_options *opt, om_out *o, opmap_error *err)
{
    om_mem mem;
    om_arena arena;
    tg_set set;
    size_t i;
    int rc = OPMAP_OK;
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&arena, &mem, 0);
    memset(&set, 0, sizeof(set));
    set.mem = &mem;
    set.arena = &arena;
    set.max = opt->max_tests ? opt->max_tests : TG_DEFAULT_MAX_TESTS;
    set.err = err;
    om_vec_init(&set.cases, sizeof(tg_case));
    for (i = 0; rc == OPMAP_OK && i < count; i++)
        rc = tg_collect(&set, models[i], results[i], opt, ctx);
    if (rc == OPMAP_OK && module(o, &set, results, count, opt, &mem) != OPMAP_OK)
        rc = om_fail_mem(err, &mem, NULL);
    tg_set_free(&set);
    om_arena_free(&arena);
    return rc;
}

int opmap_testgen_write(opmap_ctx *ctx, const opmap_model *const *models,
                        const opmap_result *const *results, size_t count,
                        opmap_testgen_part part, const opmap_testgen_options *opts,
                        opmap_write_fn write, void *payload, opmap_error *err)
{
    opmap_testgen_options defaults = OPMAP_TESTGEN_OPTIONS_INIT;
    om_out o;
    int rc;
    om_err_clear(err);
    if (!ctx || !write || (count && (!models || !results)))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_testgen_write: NULL argument");
    if (part != OPMAP_TESTGEN_MODULE && part != OPMAP_TESTGEN_RUNNER)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_testgen_write: unknown part %d",
                       (int)part);
    if ((rc = check(models, results, count, opts ? opts : &defaults, err)))
        return rc;
    om_out_init(&o, write, payload);
    if (part == OPMAP_TESTGEN_RUNNER)
        om_out_bytes(&o, om_testgen_runner, om_testgen_runner_size);
    else if ((rc = write_module(ctx, models, results, count, opts ? opts : &defaults, &o, err)))
        return rc;
    if ((rc = om_out_finish(&o)))
        return om_fail(err, rc, NULL, "the tests could not be written: the output refused them");
    return OPMAP_OK;
}
