/*
 * policy/baseline.c - a waiver file accepting what the gate fails on today, so a team can
 * adopt the gate before fixing everything (opmap baseline).
 */
#include <stdio.h>
#include <string.h>

#include "../core/err.h"
#include "../report/out.h"
#include "policy_internal.h"

/* A YAML double-quoted scalar: safe for any bytes a model name may hold. */
static void yaml_quoted(om_out *o, const char *s)
{
    om_out_str(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[3] = { '\\', (char)c, 0 };
            om_out_str(o, e);
        } else if (c < 0x20 || c == 0x7f) {
            om_out_printf(o, "\\x%02x", c);
        } else {
            om_out_bytes(o, s, 1);
        }
    }
    om_out_str(o, "\"");
}

int opmap_baseline_write(const opmap_verdict *v, const opmap_baseline_options *opts,
                         opmap_write_fn write, void *payload, opmap_error *err)
{
    om_out o;
    char expires[11];
    const char *owner = opts && opts->owner ? opts->owner : "unassigned";
    const char *reason = opts && opts->reason ? opts->reason
                                              : "accepted when the gate was adopted (baseline)";
    size_t i, j, written = 0;
    int rc;
    om_err_clear(err);
    if (!v || !write)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_baseline_write: NULL argument");
    if (opts && opts->expires && !om_date_valid(opts->expires))
        return om_fail(err, OPMAP_EINVAL, NULL, "expiry date '%s' is not YYYY-MM-DD",
                       opts->expires);
    if (opts && opts->expires)
        memcpy(expires, opts->expires, 11);
    else
        om_date_add_days(v->today, 90, expires);
    om_out_init(&o, write, payload);
    om_out_printf(&o, "# opmap waivers written by `opmap baseline` on %s.\n"
                      "# Each accepts one finding the gate failed on; review them, give each a real\n"
                      "# owner and reason, and remove them as the findings are fixed.\n"
                      "schema: 1\nwaivers:\n", v->today);
    for (i = 0; i < v->n; i++) {
        const opmap_finding *f = &v->findings[i];
        int dup = 0;
        if (!f->fails || f->kind == OPMAP_FAIL_EFFORT)
            continue;
        for (j = 0; j < i && !dup; j++) {
            const opmap_finding *g = &v->findings[j];
            dup = g->fails && g->kind == f->kind && strcmp(g->op, f->op) == 0 &&
                  strcmp(g->domain, f->domain) == 0 && strcmp(g->model, f->model) == 0 &&
                  (f->op[0] || strcmp(g->node, f->node) == 0);
        }
        if (dup)
            continue;
        om_out_str(&o, "  - op: ");
        if (f->op[0]) {
            char name[600];
            snprintf(name, sizeof(name), "%s::%s", f->domain, f->op);
            yaml_quoted(&o, name);
        } else {
            om_out_str(&o, "\"*\"");
        }
        om_out_printf(&o, "\n    kind: %s\n    model: ", opmap_fail_kind_name(
                              (unsigned)__builtin_ctz(f->kind)));
        yaml_quoted(&o, f->model);
        if (!f->op[0]) {
            om_out_str(&o, "\n    node: ");
            yaml_quoted(&o, f->node);
        }
        om_out_str(&o, "\n    reason: ");
        yaml_quoted(&o, reason);
        om_out_str(&o, "\n    owner: ");
        yaml_quoted(&o, owner);
        om_out_printf(&o, "\n    expires: \"%s\"\n", expires);
        written++;
    }
    if (!written)
        om_out_str(&o, "  []\n");
    rc = om_out_finish(&o);
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "the waiver file could not be written");
    return OPMAP_OK;
}
