/*
 * opmap/opmap.h - the one header users include.
 *
 * libopmap tells, before a migration starts, which operators of an exported PyTorch model
 * (ONNX or TorchScript) run on Huawei Ascend NPUs, which need work, and what that costs.
 *
 * Typical use:
 *
 *     opmap_ctx *ctx; opmap_table *table; opmap_model *model; opmap_result *res;
 *     opmap_error err;
 *     opmap_ctx_new(&ctx, NULL, &err);
 *     opmap_table_load_default(&table, ctx, &err);
 *     if (opmap_model_open_file(&model, ctx, "resnet50.onnx", &err) == OPMAP_OK &&
 *         opmap_scan(&res, ctx, model, table, NULL, &err) == OPMAP_OK) {
 *         ... opmap_result_op_count(res), opmap_result_op(res, i, &op) ...
 *         opmap_result_free(res);
 *     }
 *     opmap_model_free(model); opmap_table_free(table); opmap_ctx_free(ctx);
 *
 * Conventions, for every function in these headers:
 * - Fallible functions return int: OPMAP_OK (0) or a negative opmap_status, and fill the
 *   caller's opmap_error when it is not NULL. The library keeps no global or thread-local
 *   state, never prints and never exits.
 * - An object returned through an `out` parameter belongs to the caller and is released
 *   with its own _free function; every _free accepts NULL.
 * - A pointer returned by an accessor is borrowed: valid until its parent object is freed.
 * - Inputs (paths, buffers, options) are borrowed only for the duration of the call.
 * - Threads: everything may be shared. Tables, models and results are immutable once made
 *   and a context holds only its allocator and limits, so any number of threads may open
 *   models, load tables, scan, look up and write reports at once with one context, one
 *   table and the same models and results, provided the context's allocator is thread-safe
 *   (the default, malloc, is). Only freeing needs exclusive access: free an object after
 *   every thread is done with it. Each thread passes its own opmap_error.
 *   (docs/api.md, "Threads"; tests/api/test_threads.c)
 */
#ifndef OPMAP_OPMAP_H
#define OPMAP_OPMAP_H

#include "common.h"
#include "version.h"
#include "error.h"
#include "context.h"
#include "model.h"
#include "table.h"
#include "scan.h"
#include "report.h"
#include "policy.h"
#include "verify.h"

#endif /* OPMAP_OPMAP_H */
