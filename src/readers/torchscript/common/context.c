/*
 * readers/torchscript/common/context.c - the TorchScript reader's shared context and errors.
 */
#include "context.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

void ts_ctx_init(ts_ctx *c, ir_model *m, const opmap_limits *lim, opmap_error *err)
{
    memset(c, 0, sizeof(*c));
    c->m = m;
    c->mem = &m->mem;
    c->lim = lim;
    c->err = err;
    c->src = m->name ? m->name : "<memory>";
    c->eval_mode = 1;
    /* an optimizer node with its values costs a few hundred bytes: fail on the count before
     * the heap runs out, quickly for exponential call fan-out */
    c->node_budget = lim->max_heap_bytes / 512 < lim->max_nodes ? lim->max_heap_bytes / 512
                                                                : lim->max_nodes;
    om_arena_init(&c->tmp, &m->mem, 256 * 1024);
    ir_intern_init(&c->ir_in, &m->mem, &m->arena);
    ir_intern_init(&c->tmp_in, &m->mem, &c->tmp);
}

void ts_ctx_fini(ts_ctx *c)
{
    ir_intern_free(&c->tmp_in);
    ir_intern_free(&c->ir_in);
    om_arena_free(&c->tmp);
}

int ts_oom(ts_ctx *c)
{
    return c->rc = om_fail_mem(c->err, c->mem, c->src);
}

int ts_fail(ts_ctx *c, int code, const char *entry, uint32_t line, uint32_t col,
            const char *fmt, ...)
{
    char msg[512], source[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    om_source_name(source, sizeof(source), c->src, entry);
    c->rc = code;
    if (line)
        return om_fail_line(c->err, code, source, line, col ? col : 1, "%s", msg);
    return om_fail(c->err, code, source, "%s", msg);
}

int ts_fail_at(ts_ctx *c, int code, const char *entry, uint64_t offset, const char *fmt, ...)
{
    char msg[512], source[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    om_source_name(source, sizeof(source), c->src, entry);
    c->rc = code;
    return om_fail_at(c->err, code, source, offset, "%s", msg);
}

const char *ts_intern_scratch(ts_ctx *c, const char *s, size_t n)
{
    return ir_intern(&c->tmp_in, s, n);
}

const char *ts_intern_model(ts_ctx *c, const char *s)
{
    return ir_intern(&c->ir_in, s, strlen(s));
}
