/*
 * readers/export/export_program.c - one ExportedProgram's JSON -> the model (see
 * export_reader.h): schema and torch versions, opsets, the dialect, range constraints,
 * then graph_module.graph (export_graph.c).
 *
 * The JSON is parsed into a scratch arena freed when the program is converted; only what the
 * IR keeps is copied into the model's arena.
 */
#include "readers/export/export_internal.h"
#include "readers/export/export_reader.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

int ex_oom(ex_ctx *x)
{
    return om_fail_mem(x->err, &x->m->mem, x->source);
}

int ex_fail(ex_ctx *x, int code, const oj_value *v, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (v)
        return om_fail_at(x->err, code, x->source, v->offset, "%s", msg);
    return om_fail(x->err, code, x->source, "%s", msg);
}

/* opset_version {"aten": 10, ...} -> m->opsets (added to those of earlier programs). */
static int opsets(ex_ctx *x, const oj_value *ov)
{
    uint32_t i;
    ir_opset *o;
    if (!ov || ov->type != OJ_OBJECT || !ov->n || x->m->n_opsets)
        return OPMAP_OK;
    if (!(o = om_arena_array(&x->m->arena, ov->n, sizeof(*o))))
        return ex_oom(x);
    for (i = 0; i < ov->n; i++) {
        o[x->m->n_opsets].domain = ir_intern(x->in, ov->kids[i].key, strlen(ov->kids[i].key));
        if (!o[x->m->n_opsets].domain)
            return ex_oom(x);
        o[x->m->n_opsets++].version = ov->kids[i].is_int ? ov->kids[i].i : 0;
    }
    x->m->opsets = o;
    return OPMAP_OK;
}

/* The dialect: `verifiers` (newer schemas) or `dialect` (older); "ATEN" when neither. */
static const char *dialect(const oj_value *ep)
{
    const oj_value *v = oj_arr(ep, "verifiers");
    const char *d = oj_str(ep, "dialect");
    if (v && v->n && v->kids[0].type == OJ_STRING)
        return v->kids[0].s;
    return d && *d ? d : "ATEN";
}

/* Records what the program says of itself in the model's description. */
static int describe(ex_ctx *x, const oj_value *ep, const char *d)
{
    const oj_value *sv = oj_obj(ep, "schema_version");
    const oj_value *maj = oj_get(sv, "major"), *min = oj_get(sv, "minor");
    const char *tv = oj_str(ep, "torch_version");
    char buf[400];
    int64_t major = maj && maj->is_int ? maj->i : -1, minor = min && min->is_int ? min->i : -1;
    if (x->m->doc && x->m->doc[0])
        return OPMAP_OK; /* the first program's */
    x->m->ir_version = major;
    if (tv && !(x->m->producer_version = om_arena_strdup(&x->m->arena, tv)))
        return ex_oom(x);
    snprintf(buf, sizeof(buf), "torch.export program, schema %" PRId64 ".%" PRId64
             ", dialect %.40s%s", major, minor, d,
             strcmp(d, "ATEN") == 0 ? ""
             : ": its ATen operators are answered as the ATen operators they are "
               "(the table answers ATen, not the dialect's own variants)");
    if (!(x->m->doc = om_arena_strdup(&x->m->arena, buf)))
        return ex_oom(x);
    return OPMAP_OK;
}

static int add_extra(ex_ctx *x, ir_graph *g, const char *label)
{
    ir_model *m = x->m;
    ir_graph **gs = om_arena_array(&m->arena, m->n_extra + 1, sizeof(*gs));
    const char **ls = om_arena_array(&m->arena, m->n_extra + 1, sizeof(*ls));
    if (!gs || !ls || !(ls[m->n_extra] = om_arena_strdup(&m->arena, label)))
        return ex_oom(x);
    if (m->n_extra) {
        memcpy(gs, m->extra_graphs, m->n_extra * sizeof(*gs));
        memcpy(ls, m->extra_labels, m->n_extra * sizeof(*ls));
    }
    gs[m->n_extra] = g;
    m->extra_graphs = gs;
    m->extra_labels = ls;
    m->n_extra++;
    return OPMAP_OK;
}

static int convert(ex_ctx *x, const oj_value *ep, const char *label)
{
    const oj_value *gm = oj_obj(ep, "graph_module");
    const char *d = dialect(ep);
    ir_graph *g;
    int rc;
    if (!gm || !oj_obj(gm, "graph"))
        return ex_fail(x, OPMAP_EFORMAT, ep, "not an ExportedProgram: no graph_module.graph");
    x->ranges = oj_obj(ep, "range_constraints");
    if ((rc = describe(x, ep, d)) || (rc = opsets(x, oj_get(ep, "opset_version"))) ||
        (rc = ex_graph(x, oj_obj(gm, "graph"), oj_obj(gm, "signature"), "", 0, &g)))
        return rc;
    if (strcmp(label, "main") == 0 && !x->m->main) {
        x->m->main = g;
        g->name = "main";
        return OPMAP_OK;
    }
    g->name = label;
    return add_extra(x, g, label);
}

int om_export_program(ir_model *m, ir_interner *in, const char *entry, const char *label,
                      const char *json, size_t len, const opmap_limits *lim, opmap_error *err)
{
    ex_ctx x;
    om_arena tmp;
    oj_src js;
    oj_value *root;
    int rc;
    uint64_t depth = 16 * (uint64_t)lim->max_depth + 16;
    memset(&x, 0, sizeof(x));
    x.m = m;
    x.lim = lim;
    x.err = err;
    snprintf(x.source, sizeof(x.source), "%s:%s", m->name ? m->name : "<memory>", entry);
    m->format = OPMAP_FORMAT_TORCH_EXPORT;
    m->producer_name = "pytorch";
    if (!m->producer_version)
        m->producer_version = "";
    if (!m->domain)
        m->domain = "";
    x.in = in;
    om_arena_init(&tmp, &m->mem, 256 * 1024);
    js.mem = &m->mem;
    js.arena = &tmp;
    js.err = err;
    js.source = x.source;
    js.max_depth = depth > 65536 ? 65536 : (uint32_t)depth;
    js.max_string = lim->max_string_bytes;
    rc = oj_parse(&js, json, len, &root);
    if (rc == OPMAP_OK && root->type != OJ_OBJECT)
        rc = ex_fail(&x, OPMAP_EFORMAT, root, "not an ExportedProgram (the JSON is not an "
                     "object)");
    if (rc == OPMAP_OK)
        rc = convert(&x, root, label);
    om_arena_free(&tmp);
    return rc;
}
