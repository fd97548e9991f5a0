/*
 * table/table_default.c - the table built into the library.
 *
 * data/op_map.yaml was validated and compiled to C data at build time (tools/table_compile),
 * so loading it only points at that data and indexes the rows: no parsing, and no heap for
 * the rows themselves.
 */
#include <opmap/table.h>

#include "core/err.h"
#include "patterns.h"
#include "table_internal.h"

int opmap_table_load_default(opmap_table **out, opmap_ctx *ctx, opmap_error *err)
{
    const om_builtin *b = &om_builtin_table;
    opmap_table *t;
    size_t x, y;
    int rc;
    om_err_clear(err);
    if (!out || !ctx)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_table_load_default: NULL argument");
    *out = NULL;
    if (!(t = om_table_new(ctx, "built-in")))
        return om_fail(err, OPMAP_ENOMEM, "built-in", "out of memory");
    t->name = b->name ? b->name : "";
    t->version = b->version ? b->version : "";
    t->torch_npu = b->torch_npu ? b->torch_npu : "";
    t->cann = b->cann ? b->cann : "";
    t->onnx_opset_max = b->onnx_opset_max;
    t->socs = b->socs;
    t->n_socs = b->n_socs;
    t->default_soc = b->default_soc;
    t->soc_parts = b->soc_parts;
    for (x = 0; x < OPMAP_OP_STATUS_COUNT; x++)
        t->weights[x] = b->weights[x];
    t->unpublished = b->unpublished;
    t->sources = b->sources;
    t->n_sources = b->n_sources;
    t->rows = b->rows;
    t->n_rows = b->n_rows;
    t->advice = b->advice;
    t->n_advice = b->n_advice;
    if ((rc = om_table_builtins(t, err)) != OPMAP_OK) {
        opmap_table_free(t);
        return rc;
    }
    if ((rc = om_table_index(t, &x, &y)) != OPMAP_OK) {
        opmap_table_free(t);
        if (rc == OPMAP_ENOMEM)
            return om_fail(err, rc, "built-in", "out of memory");
        return om_fail(err, OPMAP_EINTERNAL, "built-in", "the compiled table has duplicate rows");
    }
    *out = t;
    return OPMAP_OK;
}
