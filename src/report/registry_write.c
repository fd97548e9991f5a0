/*
 * report/registry_write.c - the registry report's bytes (schema "opmap-registry/1",
 * docs/reports.md "Registry", docs/schema/opmap-registry-1.schema.json): the JSON report's
 * header and closing members (report_json.c writes them), the column names once, then a
 * line per model and per distinct operator, each a positional array. Compact JSON with a
 * line break before each top-level member and each row, so that a million models are tens
 * of megabytes and line tools (grep, wc -l) still work on it.
 */
#include <string.h>

#include "core/err.h"
#include "scan/result_internal.h"
#include "jsonw.h"
#include "registry_internal.h"
#include "report_internal.h"
#include "report_json.h"

/* [min, expected, max] in person-days */
static void effort3(jsonw *w, opmap_effort e)
{
    jw_array(w);
    jw_days(w, e.min);
    jw_days(w, e.expected);
    jw_days(w, e.max);
    jw_end_array(w);
}

static void by_status(jsonw *w, const uint64_t *v)
{
    int s;
    jw_array(w);
    for (s = OPMAP_OP_STATUS_COUNT - 1; s >= 0; s--)
        jw_uint(w, v[s]);
    jw_end_array(w);
}

int om_registry_row_out(om_registry *g, const om_reg_row *row)
{
    jsonw w;
    jw_init(&w, &g->rout, JSONW_LINES);
    w.depth = 2; /* inside the report's object and its "models" */
    w.first[2] = g->count == 0;
    jw_array(&w);
    jw_string(&w, row->file);
    jw_string(&w, opmap_readiness_name(row->verdict));
    jw_days(&w, row->coverage);
    effort3(&w, row->effort);
    by_status(&w, row->operators);
    by_status(&w, row->instances);
    jw_uint(&w, row->found);
    jw_uint(&w, row->placed);
    jw_uint(&w, row->on_npu);
    jw_uint(&w, row->largest);
    jw_uint(&w, row->findings);
    jw_uint(&w, row->failing);
    jw_end_array(&w);
    return g->rout.failed ? (g->rows.rc ? g->rows.rc : OPMAP_EIO) : OPMAP_OK;
}

static void columns(jsonw *w)
{
    size_t i;
    int s;
    jw_key(w, "columns");
    jw_object(w);
    jw_key(w, "models");
    jw_array(w);
    for (i = 0; i < OM_REG_MODEL_COLUMNS; i++)
        jw_string(w, om_reg_model_column(i));
    jw_end_array(w);
    jw_key(w, "operators");
    jw_array(w);
    for (i = 0; i < OM_REG_OP_COLUMNS; i++)
        jw_string(w, om_reg_op_column(i));
    jw_end_array(w);
    jw_key(w, "statuses"); /* the order of the by-status arrays */
    jw_array(w);
    for (s = OPMAP_OP_STATUS_COUNT - 1; s >= 0; s--)
        jw_string(w, opmap_op_status_name(s));
    jw_end_array(w);
    jw_key(w, "kinds"); /* bit i of "found" */
    jw_array(w);
    for (i = 0; i < OPMAP_FAIL_KIND_COUNT; i++)
        jw_string(w, opmap_fail_kind_name((unsigned)i));
    jw_end_array(w);
    jw_end_object(w);
}

/* Each distinct operator, in the portfolio's order (worst first). */
static void operators(jsonw *w, const om_registry *g)
{
    size_t i, k;
    jw_key(w, "operators");
    jw_array(w);
    for (i = 0; i < g->port.n; i++) {
        const om_port_op *op = &g->port.ops[i];
        const om_reg_becomes *b = om_registry_becomes(g, op->domain, op->name);
        jw_array(w);
        jw_string(w, op->domain);
        jw_string(w, op->name);
        jw_string(w, opmap_op_status_name(op->status));
        jw_array(w);
        for (k = 0; b && k < b->n; k++)
            jw_string(w, b->phrases[k]);
        jw_end_array(w);
        jw_uint(w, op->models);
        jw_uint(w, op->instances);
        effort3(w, op->effort);
        jw_days(w, g->port_unverified.ops[i].effort.expected);
        jw_array(w);
        for (k = 0; k < OPMAP_FLAG_COUNT; k++)
            if (op->flags & (1u << k))
                jw_string(w, opmap_flag_name((unsigned)k));
        jw_end_array(w);
        jw_end_array(w);
    }
    jw_end_array(w);
}

static void gate(jsonw *w, const om_registry *g)
{
    size_t failing, n = om_registry_findings(g, &failing);
    char digest[20] = "";
    uint64_t d = om_waivers_digest(g->policy.waivers);
    jw_key(w, "gate");
    jw_object(w);
    jw_kbool(w, "passed", opmap_verdict_passed(g->verdict));
    jw_kbool(w, "incomplete", opmap_verdict_incomplete(g->verdict));
    om_json_kinds(w, "fail_on", OM_REG_FAIL_ON(g));
    if (d) {
        static const char hex[] = "0123456789abcdef";
        int i;
        for (i = 0; i < 16; i++)
            digest[i] = hex[(d >> (60 - 4 * i)) & 15];
        digest[16] = '\0';
    }
    jw_kstring(w, "waivers", digest);
    jw_kuint(w, "findings", n);
    jw_kuint(w, "failing", failing);
    jw_end_object(w);
}

/* The rows as spooled (each file whole) with the root cut from each file: a row starts
 * at "\n[\"" (a line break is escaped inside strings), and its file's JSON text starts with
 * the root's (escaping goes a character at a time, and the root ends at a '/'). */
typedef struct strip {
    om_out *out;
    size_t root;        /* bytes of the root as a JSON string's text */
    size_t skip;        /* of them still to leave out */
    int matched;        /* bytes of "\n[\"" seen */
} strip;

static int strip_root(void *arg, const void *data, size_t size)
{
    static const char start[] = "\n[\"";
    strip *st = arg;
    const char *p = data;
    size_t i, from = 0;
    for (i = 0; i < size; i++) {
        if (st->skip) {
            st->skip--;
            from = i + 1;
            continue;
        }
        st->matched = p[i] == start[st->matched] ? st->matched + 1 : p[i] == '\n';
        if (st->matched == 3) {
            om_out_bytes(st->out, p + from, i + 1 - from);
            from = i + 1;
            st->skip = st->root;
            st->matched = 0;
        }
    }
    if (from < size)
        om_out_bytes(st->out, p + from, size - from);
    return st->out->failed ? -1 : 0;
}

static int count_bytes(void *arg, const void *data, size_t size)
{
    (void)data;
    *(size_t *)arg += size;
    return 0;
}

/* The root's length as JSON string text (without its quotes). */
static size_t escaped_len(const char *s)
{
    om_out o;
    jsonw w;
    size_t n = 0;
    om_out_init(&o, count_bytes, &n);
    jw_init(&w, &o, 1);
    jw_string(&w, s);
    om_out_finish(&o);
    return n - 2;
}

int om_registry_write(om_registry *g, om_out *out, opmap_error *err)
{
    om_report_in in;
    om_json_top t;
    jsonw w;
    strip st;
    size_t k;
    int rc;
    if (!g->finished)
        return om_fail(err, OPMAP_EINVAL, NULL, "the registry report is not finished");
    memset(&in, 0, sizeof(in));
    in.count = g->count;
    in.flags = g->o.flags;
    in.day_rate = g->o.day_rate;
    in.currency = g->o.currency ? g->o.currency : "";
    in.portfolio = &g->port;
    in.verdict = g->verdict;
    in.problems = g->problems;
    in.n_problems = g->n_problems;
    for (k = 0; k < g->n_problems; k++)
        in.n_unreadable += !g->problems[k].skipped;
    in.overall = g->overall;
    in.blocked_on = g->o.blocked_on ? g->o.blocked_on : OPMAP_HEADLINE_BLOCKED_ON;
    in.needs_work_on = g->o.needs_work_on ? g->o.needs_work_on : OPMAP_HEADLINE_NEEDS_WORK_ON;
    memset(&t, 0, sizeof(t));
    t.count = g->count;
    t.first = g->first;
    t.need = g->need;
    t.need_by = g->need_by;
    t.need_model = g->need_model;
    t.reexport = "";
    jw_init(&w, out, JSONW_LINES);
    om_json_header(&w, &in, &t, OPMAP_REPORT_REGISTRY_SCHEMA);
    columns(&w);
    jw_kstring(&w, "root", g->root ? g->root : "");
    jw_key(&w, "models");
    jw_array(&w);
    memset(&st, 0, sizeof(st));
    st.out = out;
    st.root = g->root_len ? escaped_len(g->root) : 0;
    rc = om_spool_replay(&g->rows, strip_root, &st);
    if (rc != OPMAP_OK && !out->failed)
        return om_spool_fail(&g->rows, err);
    w.first[w.depth] = g->count == 0;
    jw_end_array(&w);
    operators(&w, g);
    om_json_problems(&w, &in);
    om_json_totals(&w, &in, g->count);
    jw_key(&w, "portfolio");
    jw_object(&w);
    om_json_portfolio_sums(&w, &g->port);
    jw_end_object(&w);
    om_json_cost(&w, &in);
    gate(&w, g);
    jw_end_object(&w);
    om_out_str(out, "\n");
    return OPMAP_OK;
}

/* opmap_report_write's registry: the same registry, fed every result in turn. */
int om_report_registry(const om_report_in *in, om_out *out)
{
    om_registry_opts o;
    om_registry *g;
    opmap_error err;
    size_t i;
    int rc;
    memset(&o, 0, sizeof(o));
    o.flags = in->flags;
    o.day_rate = in->day_rate;
    o.currency = in->currency;
    o.blocked_on = in->blocked_on;
    o.needs_work_on = in->needs_work_on;
    o.policy = in->policy;
    if ((rc = om_registry_new(&g, in->ctx, &o, &err)))
        return rc;
    for (i = 0; rc == OPMAP_OK && i < in->count; i++)
        rc = om_registry_take(g, in->results[i], &err);
    if (rc == OPMAP_OK)
        rc = om_registry_finish(g, in->problems, in->n_problems, &err);
    if (rc == OPMAP_OK)
        rc = om_registry_write(g, out, &err);
    om_registry_free(g);
    return rc;
}
