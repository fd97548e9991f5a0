/*
 * policy/baseline.c - a waiver file accepting what the gate fails on today, so a team can
 * adopt the gate before fixing everything (opmap baseline).
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/out.h"
#include "policy_internal.h"

/*
 * A YAML double-quoted scalar: safe for any bytes a model name may hold. YAML refuses C1
 * controls and the non-characters U+FFFE/U+FFFF in a file, and reads NEL, U+2028 and U+2029
 * as line breaks, so those are written as \u escapes (which read back as the same UTF-8).
 * Bytes that are not UTF-8 at all have no YAML spelling (\xNN reads back as U+00NN): in a
 * glob pattern (model, node) they become '?', which matches any one byte.
 */
static size_t raw_byte_at(const unsigned char *p)
{
    if (*p < 0x80 || (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) ||
        (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) ||
        (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)))
        return 0;
    return om_term_seq(p) ? 0 : 1;
}

static int has_raw_bytes(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++)
        if (raw_byte_at(p))
            return 1;
    return 0;
}

static void yaml_quoted(om_out *o, const char *s, int glob)
{
    const unsigned char *p = (const unsigned char *)s;
    om_out_str(o, "\"");
    while (*p) {
        unsigned char c = *p;
        size_t n;
        if (c == '"' || c == '\\') {
            char e[3] = { '\\', (char)c, 0 };
            om_out_str(o, e);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            om_out_printf(o, "\\x%02x", c);
            p++;
        } else if (c < 0x80) {
            om_out_bytes(o, p++, 1);
        } else if (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            om_out_printf(o, "\\u%04x", p[1]); /* C1 controls, NEL included */
            p += 2;
        } else if (c == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            om_out_printf(o, "\\u%04x", 0x2000 + (p[2] - 0x80)); /* U+2028, U+2029 */
            p += 3;
        } else if (c == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) {
            om_out_printf(o, "\\u%04x", 0xFFC0 + (p[2] - 0x80)); /* U+FFFE, U+FFFF */
            p += 3;
        } else if ((n = om_term_seq(p)) != 0) {
            om_out_bytes(o, p, n);
            p += n;
        } else {
            if (glob)
                om_out_str(o, "?");
            else
                om_out_printf(o, "\\x%02x", c);
            p++;
        }
    }
    om_out_str(o, "\"");
}

/* What a finding's waiver says: findings with the same key get one waiver. */
static uint64_t waiver_key(const opmap_verdict *v, size_t i, int by_op)
{
    const opmap_finding *f = &v->findings[i];
    uint64_t h = om_hash_byte(OM_HASH_SEED, (unsigned char)__builtin_ctz(f->kind));
    h = om_hash_byte(om_hash_str(h, f->op), 0xff);
    h = om_hash_byte(om_hash_str(h, f->domain), 0xff);
    h = om_hash_byte(om_hash_str(h, v->keys[i]), 0xff);
    return by_op ? h : om_hash_str(h, f->node);
}

static int same_waiver(const opmap_verdict *v, size_t i, size_t j, int by_op)
{
    const opmap_finding *f = &v->findings[i], *g = &v->findings[j];
    return g->kind == f->kind && strcmp(g->op, f->op) == 0 &&
           strcmp(g->domain, f->domain) == 0 && strcmp(v->keys[j], v->keys[i]) == 0 &&
           (by_op || strcmp(g->node, f->node) == 0);
}

int opmap_baseline_write(const opmap_verdict *v, const opmap_baseline_options *opts,
                         opmap_write_fn write, void *payload, opmap_error *err)
{
    om_out o;
    char expires[11];
    const char *owner = opts && opts->owner ? opts->owner : "unassigned";
    const char *reason = opts && opts->reason ? opts->reason
                                              : "accepted when the gate was adopted (baseline)";
    size_t i, written = 0, cap, *seen;
    om_mem mem;
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
    /* the waivers written so far, as a hash set of finding indices + 1 (not pairwise) */
    cap = 16;
    while (cap < 2 * v->n)
        cap *= 2;
    om_mem_init(&mem, &v->ctx->al, v->ctx->limits.max_heap_bytes);
    if (!(seen = om_calloc(&mem, cap, sizeof(*seen))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    om_out_init(&o, write, payload);
    om_out_printf(&o, "# opmap waivers written by `opmap baseline` on %s.\n"
                      "# Each accepts one finding the gate failed on; review them, give each a real\n"
                      "# owner and reason, and remove them as the findings are fixed.\n"
                      "schema: 1\nwaivers:\n", v->today);
    for (i = 0; i < v->n; i++) {
        const opmap_finding *f = &v->findings[i];
        int dup = 0, by_op;
        size_t h;
        if (!f->fails || f->kind == OPMAP_FAIL_EFFORT)
            continue;
        /* an operator name that is not UTF-8 cannot be matched exactly: waive its node */
        by_op = f->op[0] && !has_raw_bytes(f->op) && !has_raw_bytes(f->domain);
        for (h = (size_t)waiver_key(v, i, by_op) & (cap - 1); seen[h] && !dup;
             h = (h + 1) & (cap - 1))
            dup = same_waiver(v, i, seen[h] - 1, by_op);
        if (dup)
            continue;
        seen[h] = i + 1;
        om_out_str(&o, "  - op: ");
        if (by_op) {
            char name[600];
            snprintf(name, sizeof(name), "%s::%s", f->domain, f->op);
            yaml_quoted(&o, name, 0);
        } else {
            om_out_str(&o, "\"*\"");
        }
        om_out_printf(&o, "\n    kind: %s\n    model: ", opmap_fail_kind_name(
                              (unsigned)__builtin_ctz(f->kind)));
        yaml_quoted(&o, v->keys[i], 1); /* as the waiver will match it, however it was spelled */
        if (!by_op) {
            om_out_str(&o, "\n    node: ");
            yaml_quoted(&o, f->node, 1);
        }
        om_out_str(&o, "\n    reason: ");
        yaml_quoted(&o, reason, 0);
        om_out_str(&o, "\n    owner: ");
        yaml_quoted(&o, owner, 0);
        om_out_printf(&o, "\n    expires: \"%s\"\n", expires);
        written++;
    }
    om_dealloc(&mem, seen, cap * sizeof(*seen));
    if (!written)
        om_out_str(&o, "  []\n");
    rc = om_out_finish(&o);
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "the waiver file could not be written");
    return OPMAP_OK;
}
